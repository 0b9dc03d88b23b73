"""Sphinx configuration of the Python API reference (``make docs`` builds it into
build/docs/api; tests/python/test_api_docs.py builds it with warnings as errors)."""
import os

import assay

project = "assay"
author = "the assay authors"
release = assay.__version__
version = release

extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "numpydoc"]

# One page per function and class, written into generated/ beside this file's build.
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True}
# numpydoc lists a class's methods itself; autosummary tables of them would duplicate it.
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

templates_path = []
exclude_patterns = ["_build"]
html_theme = "alabaster"
# Wide enough for 100-column examples without a scroll bar.
html_theme_options = {"page_width": "1240px", "sidebar_width": "240px"}
html_static_path = []
html_show_copyright = False
html_title = f"assay {release} Python API"
# The build is offline: no intersphinx inventories are fetched.
os.environ.setdefault("MPLBACKEND", "Agg")


def skip_foreign(app, what, name, obj, skip, options):
    """Skip class members that assay does not define (scikit-learn's get_params, tuple's count):
    learners.rst shows inherited members for the learners' fit and predict, which the estimators
    inherit from assay's own base class."""
    if what not in ("class", "exception"):
        return None
    target = obj.fget if isinstance(obj, property) else obj
    module = getattr(target, "__module__", None) or ""
    return True if not module.startswith("assay") else None


def setup(app):
    app.connect("autodoc-skip-member", skip_foreign)
