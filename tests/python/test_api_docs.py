"""The Python API reference (docs/api, what `make docs` builds) builds with Sphinx and numpydoc
without a single warning, has a page per public module, and shows the docstrings: the metrics
page documents roc_auc_score with its parameters."""
import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT
from public_api import everything, public_modules

for needed in ("sphinx", "numpydoc"):
    try:
        __import__(needed)
    except ImportError:  # make test installs both (scripts/install-deps.sh)
        pytest.fail(f"{needed} is not installed: run scripts/install-deps.sh", pytrace=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("api")
    html, doctrees = out / "html", out / "doctrees"
    # -d keeps Sphinx's pickled environment out of the checkout too.
    run = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(doctrees), os.path.join(ROOT, "docs", "api"), str(html)],
        capture_output=True, text=True, timeout=600,
        env={**os.environ, "MPLBACKEND": "Agg"})
    assert run.returncode == 0, f"sphinx-build failed:\n{run.stdout}\n{run.stderr}"
    assert run.stderr.strip() == "", run.stderr
    return html


def test_index_links_every_module_page(built):
    index = (built / "index.html").read_text(encoding="utf-8")
    for module in public_modules():
        if module == "assay":
            continue
        page = module.split(".")[-1] + ".html"
        assert (built / page).exists(), page
        assert f'href="{page}"' in index, page


def entry(page, name):
    """The text of one object's entry: from its anchor to the next object's."""
    html = page.read_text(encoding="utf-8")
    start = html.index(f'id="{name}"')
    end = html.find('<dl class="py ', start)
    return re.sub(r"<[^>]+>", "", html[start:end if end > 0 else len(html)])


def test_function_entry_shows_its_parameters(built):
    text = entry(built / "metrics.html", "assay.metrics.roc_auc_score")
    assert "Returns" in text and "Examples" in text
    parameters = text.split("Parameters", 1)[1].split("Returns", 1)[0]
    for parameter in ("y_true", "y_score", "average", "sample_weight", "max_fpr", "multi_class",
                      "labels"):
        assert parameter in parameters, parameter


def test_every_public_object_has_an_entry(built):
    """Every function, class and method public_api finds, the learners' inherited fit included."""
    anchors = "".join(p.read_text(encoding="utf-8") for p in built.glob("*.html"))
    missing = [name for name, _ in everything() if f'id="{name}"' not in anchors]
    assert not missing, f"not in the API reference: {missing}"
