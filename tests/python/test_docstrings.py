"""Every public function, class and method of the assay package (public_api.py derives the list
from each public module's __all__, so what other changes add is covered without editing this
file) has a numpydoc docstring that numpydoc 1.5's validator accepts for the codes below."""
import warnings

import pytest

try:
    import numpydoc.validate as numpydoc_validate
except ImportError:  # make test installs it (scripts/install-deps.sh)
    pytest.fail("numpydoc is not installed: run scripts/install-deps.sh", pytrace=False)

from public_api import COMPILED, everything  # noqa: E402

# The codes that fail the test (numpydoc.validate.ERROR_MSGS has the full list and messages).
CHECKED_CODES = {
    "GL08",  # no docstring
    "SS01", "SS02", "SS03", "SS04", "SS05", "SS06",  # one-line summary, verb form, full stop
    "PR01", "PR02",  # documented parameters = the signature's
    "PR03",  # documented in the signature's order
    "PR04", "PR05", "PR06",  # every parameter typed; no trailing period; Python type names
    "PR07", "PR08", "PR09",  # every parameter described, from a capital to a full stop
    "PR10",  # "name : type" spacing
    "RT01",  # a function that returns something has a Returns section
    "RT02", "RT03", "RT04", "RT05",  # which is typed and described, capital to full stop
    "YD01",  # a generator has a Yields section
    "EX01",  # an Examples section
    "GL02", "GL03",  # no stray blank lines
}


def offenders():
    out = []
    for name, _ in everything():
        if name in COMPILED:
            continue
        with warnings.catch_warnings():
            # An unknown section heading warns; it is reported as a failure below instead.
            warnings.simplefilter("error", UserWarning)
            try:
                result = numpydoc_validate.validate(name)
            except UserWarning as warning:
                out.append(f"{name}: {warning}")
                continue
        for code, message in result["errors"]:
            if code in CHECKED_CODES:
                out.append(f"{name}: {code} {message}")
    return out


def test_public_api_is_found():
    names = {name for name, _ in everything()}
    for expected in ("assay.metrics.roc_auc_score", "assay.io.read_csv", "assay.report.Page.write",
                     "assay.learners.Cart.fit", "assay.shift.segmentation.dice"):
        assert expected in names


def test_compiled_exemptions_are_still_public():
    """An exemption naming an object that is gone would hide nothing: keep the list true."""
    names = {name for name, _ in everything()}
    assert set(COMPILED) <= names


def test_every_public_docstring_validates():
    found = offenders()
    assert not found, f"{len(found)} numpydoc problems:\n" + "\n".join(found)


def test_metrics_module_docstring_names_every_public_function():
    """assay.metrics' docstring lists its functions by group: a new one must join the list."""
    import assay.metrics
    names = [name.rsplit(".", 1)[1] for name, _ in everything()
             if name.startswith("assay.metrics.") and name.count(".") == 2]
    missing = [n for n in names if f"``{n}``" not in assay.metrics.__doc__]
    assert not missing, f"not named in assay.metrics' docstring: {missing}"
