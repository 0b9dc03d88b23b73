"""The fixed-seed slice of the differential fuzzer (tests/fuzz/differential.py) for `make test`:
seed 0, every family (scikit-learn's metrics, calibration_curve, SciPy's t-tests, counting
against enumeration). A mismatch prints the fuzzer's reproducer. `make fuzz` runs the same
generator for a time budget with fresh seeds."""
import io
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "fuzz"))
import differential  # noqa: E402

# Cases per family: about 2 s each on one core (counting trains a model per case).
CASES = {"classification": 300, "ranking": 300, "regression": 300, "calibration": 300,
         "ttest": 300, "count": 60}


@pytest.mark.parametrize("family", sorted(CASES))
def test_assay_agrees_with_its_oracle(family):
    tally = differential.Tally()
    out = io.StringIO()
    for i in range(CASES[family]):
        case, verdict, _, _ = differential.run_case(family, 0, i)
        tally.add(family, verdict)
        if differential.is_mismatch(verdict):
            differential.report_mismatch(family, 0, i, case, verdict, out=out)
            pytest.fail(out.getvalue())
    # Most cases must be real comparisons, not skips or documented differences.
    assert tally.agree[family] >= 0.8 * CASES[family], tally.summary(0)


def test_a_mismatch_is_reported_with_a_reproducer():
    case = differential.Case("accuracy_score", [np.array([0, 1, 1]), np.array([0, 1, 0])],
                             ours=lambda a, b: 0.5)
    verdict, _, _ = case.run()
    assert differential.is_mismatch(verdict) and "0.5 vs" in verdict
    out = io.StringIO()
    differential.report_mismatch("classification", 0, 7, case, verdict, out=out)
    text = out.getvalue()
    assert "--seed 0 --first 7 --cases 1 --family classification" in text
    assert "args = [np.array([" in text and "dtype='<i8')" in text
    # The shrunk reproducer still fails and runs as printed.
    code = text.split("reproducer:\n", 1)[1]
    exec(compile(code.replace("am.accuracy_score", "(lambda a, b: 0.5)"), "<repro>", "exec"), {})


def test_documented_differences_are_recognised_not_hidden():
    # MCC with one class: assay NaN + warning, scikit-learn 0.0 (docs/conventions.md row 3).
    case = differential.Case("matthews_corrcoef", [np.array([0, 0, 0]), np.array([0, 1, 0])])
    assert case.run()[0] == "difference #3"
    # The same function with a wrong value is a mismatch, not a difference.
    case = differential.Case("matthews_corrcoef", [np.array([0, 1, 0]), np.array([0, 1, 1])],
                             ours=lambda a, b: 0.25)
    assert differential.is_mismatch(case.run()[0])


def test_command_line_budget_and_exit_status(capsys):
    assert differential.main(["--cases", "12", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "differential: 12 cases" in out and "0 mismatches" in out
    with pytest.raises(SystemExit):
        differential.main(["--cases", "-1"])
