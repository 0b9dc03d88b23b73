"""`assay shift`: the table, JSON and HTML of the CLI equal the Python entry point (both call
shift::evaluate_partitions); bad input exits 2 with a message."""
import json

import numpy as np
import pytest
from sklearn import metrics as skm

import assay.shift as shift


@pytest.fixture
def task(tmp_path, rng):
    n = 400
    part = rng.choice(["train", "dev_in", "dev_out", "eval_in", "eval_out"], n)
    shifted = np.char.endswith(part.astype(str), "out")
    y = rng.normal(20, 4, n)
    members = [y + rng.normal(0.3 * m, 1 + 2 * shifted, n) for m in range(3)]
    variances = [np.full(n, 1.0 + m) for m in range(3)]
    single = members[0]
    unc = np.round(np.abs(single - y), 1)
    path = tmp_path / "task.csv"
    with open(path, "w") as f:
        f.write("partition,y,single,unc,m0,m1,m2,v0,v1,v2,flag\n")
        for i in range(n):
            cells = [part[i]] + [repr(float(v[i])) for v in
                                 [y, single, unc, *members, *variances]] + [str(int(shifted[i]))]
            f.write(",".join(cells) + "\n")
    return {"path": path, "part": part, "shifted": shifted.astype(int), "y": y, "single": single,
            "unc": unc, "members": members, "variances": variances}


def test_cli_json_equals_python(run_cli, task, tmp_path):
    html = tmp_path / "shift.html"
    out = run_cli("shift", task["path"], "--target", "y", "--pred", "single", "--uncertainty",
                  "unc", "--members", "m0,m1,m2", "--member-vars", "v0,v1,v2", "--partition",
                  "partition", "--acceptable", "4", "--json", "--html", html)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["models"] == ["single", "ensemble"]
    preds = np.stack([np.stack([m, v], -1) for m, v in zip(task["members"], task["variances"])])
    ens = shift.ensemble_uncertainty_regression(preds)
    want = shift.evaluate_partitions(
        task["y"], {"single": task["single"], "ensemble": ens["mean"]},
        {"single": task["unc"], "ensemble": ens["total_variance"]}, partition=task["part"],
        acceptable=4)
    assert doc["sets"] == want["sets"]
    for got_row, want_row in zip(doc["rows"], want["rows"]):
        for key in ("r_auc", "prr", "aurc", "f1_auc", "f1_at_95", "mean_error"):
            assert got_row[key] == pytest.approx(want_row[key], rel=1e-12), key
        assert got_row["rmse"]["value"] == pytest.approx(want_row["rmse"]["value"], rel=1e-12)
    # The ensemble's uncertainty is the total variance: var of means (ddof 0) + mean variance.
    total = np.var(task["members"], axis=0) + np.mean(task["variances"], axis=0)
    np.testing.assert_allclose(ens["total_variance"], total, rtol=1e-12)
    all_single = next(r for r in doc["rows"] if r["set"] == "all" and r["model"] == "single")
    assert all_single["ood_auroc"] == pytest.approx(
        skm.roc_auc_score(task["shifted"], task["unc"]), rel=1e-12)
    text = html.read_text()
    assert "Error retention on all samples" in text and "F1 retention on all samples" in text


def test_cli_table_and_options(run_cli, task):
    out = run_cli("shift", task["path"], "--target", "y", "--pred", "single,m1", "--uncertainty",
                  "unc,v1", "--partition", "partition", "--shifted", "flag", "--convention",
                  "shifts-vpower", "--error", "absolute", "--bootstrap", "50")
    assert out.returncode == 0, out.stderr
    assert "retention convention: shifts-vpower" in out.stdout
    assert "error: absolute" in out.stdout
    lines = out.stdout.splitlines()
    header = next(line for line in lines if line.startswith("set "))
    assert "R-AUC" in header and "OOD AUROC" in header and "F1-AUC" not in header
    assert any(line.startswith("dev (in+out)") and " m1 " in line for line in lines)


@pytest.mark.parametrize("args, message", [
    (["--pred", "single"], "give one uncertainty column per prediction column: 1 prediction and "
                           "0 uncertainty columns"),
    (["--pred", "nope", "--uncertainty", "unc"], 'no column "nope"'),
    (["--pred", "single", "--uncertainty", "unc", "--convention", "trapz"],
     'unknown retention convention "trapz"'),
    (["--pred", "single", "--uncertainty", "unc", "--error", "cubed"], 'unknown error "cubed"'),
    (["--members", "m0,m1", "--member-vars", "v0"],
     "give one variance column per member: 2 member and 1 variance columns"),
    ([], "give prediction columns (--pred COL[,COL...]) or ensemble members (--members COLS)"),
])
def test_cli_bad_input_exits_2(run_cli, task, args, message):
    out = run_cli("shift", task["path"], "--target", "y", *args)
    assert out.returncode == 2, out.stdout
    assert message in out.stderr


def test_cli_bad_cells(run_cli, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("y,p,u,flag\n1,1,0.5,0\n2,2,nan,1\n")
    out = run_cli("shift", path, "--target", "y", "--pred", "p", "--uncertainty", "u")
    assert out.returncode == 2
    assert 'bad.csv:3:5: column "u": expected a number, found nan' in out.stderr
    path.write_text("y,p,u,flag\n1,1,0.5,0\n2,2,1,2\n")
    out = run_cli("shift", path, "--target", "y", "--pred", "p", "--uncertainty", "u",
                  "--shifted", "flag")
    assert out.returncode == 2
    assert 'bad.csv:3:7: column "flag": expected 0 or 1, found 2' in out.stderr
    path.write_text("y,p,u\n")
    out = run_cli("shift", path, "--target", "y", "--pred", "p", "--uncertainty", "u")
    assert out.returncode == 2
    assert "no rows" in out.stderr
    path.write_text("y,p,u\n1,2,-1\n")
    out = run_cli("shift", path, "--target", "y", "--members", "p", "--member-vars", "u")
    assert out.returncode == 2
    assert 'bad.csv:2:5: column "u": expected a finite number >= 0, found -1' in out.stderr


def test_one_resample_warns_and_bad_numbers_are_refused(run_cli, task):
    # Issue 38: `shift --bootstrap 1` gave R2 0.716 with interval [0.825, 0.825] and no warning
    # (the per-row warnings are muted); `--beta ""` was read as 0.
    base = ["shift", task["path"], "--target", "y", "--pred", "single", "--uncertainty", "unc"]
    out = run_cli(*base, "--bootstrap", "1")
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("bootstrap: 1 resample gives a zero-width interval") == 1
    out = run_cli(*base, "--bootstrap", "100000000")
    assert out.returncode == 2
    assert "--bootstrap: expected at most 1000000 resamples, found 100000000" in out.stderr
    for option in ("--beta", "--acceptable"):
        out = run_cli(*base, option, "")
        assert out.returncode == 2
        assert f'{option}: expected a finite number, found ""' in out.stderr


def test_python_twin_warns_for_one_resample_too(task):
    with pytest.warns(UserWarning, match="1 resample gives a zero-width interval"):
        shift.evaluate_partitions(task["y"], {"m": task["single"]}, {"m": task["unc"]},
                                  n_resamples=1)
