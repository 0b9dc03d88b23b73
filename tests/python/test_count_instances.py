"""VNN-COMP benchmarks: `assay count --instances` and assay.count.run_instances
(docs/count_vnncomp.md).

A small benchmark is made in each test (assay JSON networks, VNN-LIB files, an instances CSV) with a
sat, an unsat and a timeout instance; result files and the summary are read back. Bad inputs exit
2 with located messages; outputs never replace inputs. Real mnistfc instances run when the shared
VNN-COMP 2021 data are present, and must not contradict the published outcomes.
"""
import csv
import json
import os
import subprocess
from pathlib import Path

import pytest

import assay.count
from assay._assay import AssayError

CLI = os.environ.get("ASSAY_CLI", "build/assay")
ROOT = Path(__file__).resolve().parents[2]
VNNCOMP = Path(os.environ.get("ASSAY_VNNCOMP2021_DATA",
                              ROOT / ".." / "shared" / "data" / "vnncomp2021"))
PUBLISHED = ROOT / "bench" / "data" / "vnncomp2021_published.csv"

HEADER1 = "(declare-const X_0 Real) (declare-const Y_0 Real) (declare-const Y_1 Real)\n"


def _net(path, weights, bias):
    """A network of one identity layer: y = W x + b."""
    doc = {"format": "assay-model", "version": 1, "kind": "network", "task": "classification",
           "n_features": len(weights[0]), "n_outputs": len(bias),
           "classes": [str(k) for k in range(len(bias))],
           "layers": [{"weights": weights, "bias": bias, "activation": "identity"}]}
    path.write_text(json.dumps(doc))


def _bench(tmp_path):
    """one.json: y = (x0, 0.5); two.json: y = (x0, x1 + 0.1234567). sat: x0 >= 0.5 somewhere in
    [0, 1]; unsat: not in [0, 0.25]; line: y0 = y1 only on a line, never decided (timeout)."""
    _net(tmp_path / "one.json", [[1.0], [0.0]], [0.0, 0.5])
    _net(tmp_path / "two.json", [[1.0, 0.0], [0.0, 1.0]], [0.0, 0.1234567])
    props = tmp_path / "props"
    props.mkdir()
    (props / "sat.vnnlib").write_text(
        HEADER1 + "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (>= Y_0 Y_1))\n")
    (props / "unsat.vnnlib").write_text(
        HEADER1 + "(assert (>= X_0 0)) (assert (<= X_0 0.25)) (assert (>= Y_0 Y_1))\n")
    (props / "line.vnnlib").write_text(
        "(declare-const X_0 Real) (declare-const X_1 Real)\n"
        "(declare-const Y_0 Real) (declare-const Y_1 Real)\n"
        "(assert (>= X_0 0)) (assert (<= X_0 1)) (assert (>= X_1 0)) (assert (<= X_1 1))\n"
        "(assert (= Y_0 Y_1))\n")
    instances = tmp_path / "bench_instances.csv"
    instances.write_text("one.json,props/sat.vnnlib,30\r\none.json,props/unsat.vnnlib,30\r\n"
                         "\r\ntwo.json,props/line.vnnlib,0.5 \r\n")
    return instances


def _cli(*args):
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, timeout=120)


def _check_sat_file(text, x_lo, x_hi):
    lines = text.splitlines()
    assert lines[0] == "sat"
    assert lines[1].startswith("((X_0 ") and lines[-1].endswith("))")
    values = {}
    for line in lines[1:]:
        name, value = line.strip("() ").split()
        values[name] = float(value)
        assert "e" not in value  # plain decimals
    assert list(values) == ["X_0", "Y_0", "Y_1"]
    assert x_lo <= values["X_0"] <= x_hi
    assert values["Y_0"] == values["X_0"] and values["Y_1"] == 0.5  # the forward pass
    assert values["Y_0"] >= values["Y_1"]  # unsafe there
    return values


def test_cli_sat_unsat_timeout(tmp_path):
    instances = _bench(tmp_path)
    out = tmp_path / "results"
    r = _cli("count", "--instances", instances, "--results", out, "--samples", 100,
             "--csv-out", tmp_path / "summary.csv", "--json-out", tmp_path / "summary.json")
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["one_sat.txt", "one_unsat.txt",
                                                     "two_line.txt"]
    _check_sat_file((out / "one_sat.txt").read_text(), 0.5, 1.0)
    assert (out / "one_unsat.txt").read_text() == "unsat\n"
    assert (out / "two_line.txt").read_text() == "timeout\n"
    # The text summary: one row per instance, then the counts.
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["network", "property", "result", "seconds", "unsafe", "share",
                                "sampled", "(statistical)"]
    assert lines[1].split()[:3] == ["one.json", "props/sat.vnnlib", "sat"]
    assert lines[2].split()[:3] == ["one.json", "props/unsat.vnnlib", "unsat"]
    # Certified share, then the 100-point sample's estimate and 99.9% Clopper-Pearson interval.
    assert lines[2].endswith("[0.0000%, 0.0000%]     0.00% [0.00%, 7.32%]")
    assert lines[3].split()[:3] == ["two.json", "props/line.vnnlib", "timeout"]
    assert lines[4].startswith(f"3 instances of {instances}: 2 decided (1 sat, 1 unsat), "
                               "1 timeout, 0 unknown, 0 error; ")
    doc = json.loads((tmp_path / "summary.json").read_text())
    assert doc["counts"] == {"sat": 1, "unsat": 1, "timeout": 1, "unknown": 0, "error": 0,
                             "not run": 0, "decided": 2}
    assert [row["line"] for row in doc["rows"]] == [1, 2, 4]
    assert doc["rows"][2]["time_limit"] == 0.5 and doc["rows"][2]["seconds"] < 5
    rows = list(csv.DictReader(open(tmp_path / "summary.csv")))
    assert [row["result"] for row in rows] == ["sat", "unsat", "timeout"]
    assert rows[0]["result_file"] == str(out / "one_sat.txt")
    # The statistical estimate beside the certified interval, in the JSON and the CSV.
    sample = doc["rows"][0]["sample"]
    assert sample["n"] == 100 and sample["confidence"] == 0.999
    assert sample["clopper_pearson"][0] <= sample["value"] <= sample["clopper_pearson"][1]
    assert float(rows[0]["sampled_unsafe"]) == sample["value"]
    assert doc["rows"][0]["route"] == "input splitting"


def test_cli_time_limit_caps_and_max_boxes(tmp_path):
    instances = _bench(tmp_path)
    r = _cli("count", "--instances", instances, "--results", tmp_path / "r", "--time-limit", 2,
             "--max-boxes", 20, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [row["time_limit"] for row in doc["rows"]] == [2, 2, 0.5]
    line = doc["rows"][2]
    assert line["result"] == "unknown" and line["stopped_by"] == "max boxes"
    assert "stopped after 20 boxes" in line["message"]
    assert (tmp_path / "r" / "two_line.txt").read_text() == "unknown\n"


def test_python_run_instances(tmp_path):
    instances = _bench(tmp_path)
    r = assay.count.run_instances(instances, results=tmp_path / "py", samples=100, seed=3,
                                  csv_out=tmp_path / "s.csv", progress=False)
    assert [row["result"] for row in r["rows"]] == ["sat", "unsat", "timeout"]
    sat = r["rows"][0]
    values = _check_sat_file((tmp_path / "py" / "one_sat.txt").read_text(), 0.5, 1.0)
    assert sat["counterexample"]["x"] == [values["X_0"]]
    assert sat["counterexample"]["y"] == [values["Y_0"], values["Y_1"]]
    assert r["counts"]["decided"] == 2
    # Same seed, same answers.
    again = assay.count.run_instances(instances, results=tmp_path / "py2", samples=100, seed=3,
                                      progress=False)
    assert again["rows"][0]["counterexample"] == sat["counterexample"]


BAD_CSV = [
    ("one.json,props/sat.vnnlib,0\n", ":1:27: expected a time limit in seconds > 0, found \"0\""),
    ("one.json,props/sat.vnnlib,30\none.json,props/sat.vnnlib,ten\n",
     ":2:27: expected a time limit in seconds > 0, found \"ten\""),
    ("one.json,props/sat.vnnlib,30,x\n",
     ":1:30: expected 3 columns (network, property, time limit in seconds), found 4"),
    ("one.json,props/sat.vnnlib\n",
     ":1:26: expected 3 columns (network, property, time limit in seconds), found 2"),
    ("one.json,props/sat.vnnlib,30\nmissing.json,props/sat.vnnlib,30\n",
     ":2: cannot open model file"),
    ("one.json,props/none.vnnlib,30\n", ":1: cannot open VNN-LIB file"),
    ("two.json,props/sat.vnnlib,30\n", ":1: the network {d}/two.json has 2 inputs but "
     "{d}/props/sat.vnnlib declares 1 (X_0..X_0)"),
]


@pytest.mark.parametrize("text, message", BAD_CSV)
def test_bad_input_exits_2_located(tmp_path, text, message):
    instances = _bench(tmp_path)
    instances.write_text(text)
    r = _cli("count", "--instances", instances, "--results", tmp_path / "out")
    assert r.returncode == 2
    assert f"assay: {instances}{message.format(d=tmp_path)}" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()  # refused before anything ran
    with pytest.raises(AssayError, match="expected|cannot open|declares"):
        assay.count.run_instances(instances, results=tmp_path / "out", progress=False)


def test_bad_options_exit_2(tmp_path):
    instances = _bench(tmp_path)
    missing = tmp_path / "none.csv"
    cases = [
        (["--instances", missing, "--results", tmp_path / "o"],
         f"cannot open instances file \"{missing}\""),
        (["--instances", instances], "--instances needs --results DIR"),
        (["--instances", instances, "--results", tmp_path / "o", "--vnnlib", "p.vnnlib"],
         "--instances names the networks and properties: --model, --vnnlib"),
        (["--instances", instances, "--results", tmp_path / "o", "--html", tmp_path / "p.html"],
         "--html is not available with --instances"),
        (["--model", tmp_path / "one.json", "--vnnlib", tmp_path / "props" / "sat.vnnlib",
          "--results", tmp_path / "o"], "--results and --csv-out apply to --instances only"),
        (["--instances", instances, "--results", tmp_path / "o", "--time-limit", "-1"],
         "--time-limit"),
    ]
    for args, message in cases:
        r = _cli("count", *args)
        assert r.returncode == 2, (args, r.stderr)
        assert message in r.stderr, (args, r.stderr)


def test_outputs_never_replace_inputs(tmp_path):
    instances = _bench(tmp_path)
    # The result file of the one row would be <tmp>/one_unsat.txt: the instances file itself.
    own = tmp_path / "one_unsat.txt"
    own.write_text("one.json,props/unsat.vnnlib,30\n")
    r = _cli("count", "--instances", own, "--results", tmp_path)
    assert r.returncode == 2
    assert f"writes {tmp_path}/one_unsat.txt, which is the input file" in r.stderr, r.stderr
    assert own.read_text() == "one.json,props/unsat.vnnlib,30\n"
    with pytest.raises(AssayError, match="which is the input file"):
        assay.count.run_instances(own, results=tmp_path, progress=False)
    assert own.read_text() == "one.json,props/unsat.vnnlib,30\n"
    # --csv-out naming the instances file, --json-out naming a network.
    for option, target in (("--csv-out", instances), ("--json-out", tmp_path / "one.json")):
        before = Path(target).read_bytes()
        r = _cli("count", "--instances", instances, "--results", tmp_path / "o", option, target)
        assert r.returncode == 2 and "an output never replaces an input" in r.stderr, r.stderr
        assert Path(target).read_bytes() == before


def _published():
    with open(PUBLISHED, newline="") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        return {(r["network"], r["property"]): r for r in rows if r["benchmark"] == "mnistfc"}


@pytest.mark.skipif(not (VNNCOMP / "mnistfc" / "mnistfc_instances.csv").exists(),
                    reason="the VNN-COMP 2021 data (../shared/data/vnncomp2021) are absent")
def test_mnistfc_instances_agree_with_published(tmp_path):
    mnist = VNNCOMP / "mnistfc"
    # prop_14_0.03 on 256x2 was found violated by 9 tools; prop_0 and prop_2 hold.
    picked = ["prop_14_0.03.vnnlib", "prop_0_0.03.vnnlib", "prop_2_0.03.vnnlib"]
    (tmp_path / "few.csv").write_text(
        "".join(f"{mnist}/mnist-net_256x2.onnx,{mnist}/{p},120\n" for p in picked))
    r = _cli("count", "--instances", tmp_path / "few.csv", "--results", tmp_path / "r",
             "--time-limit", 5, "--threads", 2, "--json")
    assert r.returncode == 0, r.stderr
    pub = _published()
    for row in json.loads(r.stdout)["rows"]:
        published = pub[("mnist-net_256x2.onnx", Path(row["property"]).name)]
        if row["result"] == "sat":
            assert int(published["n_violated"]) > 0 and published["abcrown"] != "holds"
        if row["result"] == "unsat":
            assert int(published["n_holds"]) > 0 and published["abcrown"] != "violated"
        assert row["time_limit"] == 5 and row["result"] in ("sat", "unsat", "timeout")
