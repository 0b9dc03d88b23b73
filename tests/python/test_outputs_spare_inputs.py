"""Outputs never replace an input, a device or a FIFO (issue 38, "Inputs destroyed"): every
output option of every subcommand, and the Python functions that read files and write others,
refuse a target that is one of the command's inputs however it is spelled (the same name,
./name, an absolute path, a hard link, a symbolic link), with exit status 2 and a message naming
both paths, before any work, and leave the input's bytes unchanged. A device, FIFO or socket is
refused as an output; a symbolic link to a regular file is followed (the link stays a link).
Two runs writing the same --json-out and --html at once leave the pair of one of them."""
import hashlib
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time

import numpy as np
import pytest

import assay
from assay import count, models, report
from assay.shift import segmentation as seg
from conftest import cli_path

NEVER = "an output never replaces an input: choose another name"
REGULAR_ONLY = "not a regular file; assay writes outputs to regular files only"


def run(*args, cwd=None, timeout=60, **kwargs):
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout, **kwargs)


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def refused(r, message):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert r.stderr == f"assay: {message}\n", r.stderr


def input_message(lead, input_path, role):
    return f"{lead} the input file {input_path} ({role}); {NEVER}"


@pytest.fixture
def base(tmp_path):
    path = tmp_path / "base.csv"
    path.write_text("y,s\n0,0.1\n1,0.8\n0,0.3\n1,0.6\n0,0.7\n")
    return path


# --- metrics: every output option, every spelling of the input ---------------------------

SPELLINGS = ["same", "dot", "absolute", "hard link", "symlink"]


def spelled(tmp_path, how):
    """The output path for `how`, run from tmp_path with the input given as ./base.csv."""
    if how == "same":
        return "base.csv"
    if how == "dot":
        return "./sub/../base.csv"
    if how == "absolute":
        return str(tmp_path / "base.csv")
    if how == "hard link":
        os.link(tmp_path / "base.csv", tmp_path / "hard.csv")
        return "hard.csv"
    os.symlink("base.csv", tmp_path / "link.csv")
    return "link.csv"


@pytest.mark.parametrize("how", SPELLINGS)
@pytest.mark.parametrize("option", ["--html", "--json-out"])
def test_metrics_outputs_never_replace_the_data(tmp_path, base, option, how):
    (tmp_path / "sub").mkdir()
    before = digest(base)
    target = spelled(tmp_path, how)
    r = run("metrics", "./base.csv", "--label", "y", "--score", "s", option, target, cwd=tmp_path)
    refused(r, input_message(f"{option} {target}: is", "./base.csv", "the data"))
    assert r.stdout == ""  # refused before any work
    assert digest(base) == before
    if how == "symlink":
        assert os.path.islink(tmp_path / "link.csv")


@pytest.mark.parametrize("name", ["shift", "runs"])
def test_shift_and_runs_refuse_the_data_as_page(tmp_path, base, name):
    before = digest(base)
    args = {"shift": ["--target", "y", "--pred", "s"], "runs": ["--value", "s"]}[name]
    r = run(name, base, *args, "--html", base)
    refused(r, input_message(f"--html {base}: is", base, "the data"))
    assert digest(base) == before


# --- segment: a truth volume, the partition CSV, the per-subject table ---------------------

@pytest.fixture
def study(tmp_path):
    rng = np.random.default_rng(3)
    affine = np.eye(4)
    for folder in ("gt", "pred"):
        (tmp_path / folder).mkdir()
    for s in ("s1", "s2"):
        truth = (rng.random((6, 6, 4)) < 0.3).astype(np.float32)
        seg.write_nifti(tmp_path / "gt" / f"{s}.nii.gz", truth, affine, dtype="uint8")
        seg.write_nifti(tmp_path / "pred" / f"{s}.nii.gz", rng.random((6, 6, 4)), affine)
    (tmp_path / "part.csv").write_text("subject,partition\ns1,in\ns2,out\n")
    return tmp_path


@pytest.mark.parametrize("option, target, role", [
    ("--html", "gt/s1.nii.gz", "a --truth volume"),
    ("--json-out", "part.csv", "a CSV input"),
    ("--csv-out", "pred/s2.nii.gz", "a --pred volume"),
])
def test_segment_outputs_never_replace_an_input(study, option, target, role):
    before = digest(study / target)
    r = run("segment", "--pred", "pred", "--truth", "gt", "--partition", "part.csv",
            option, target, cwd=study)
    noted = {"a CSV input": "part.csv", "a --truth volume": "gt/s1.nii.gz",
             "a --pred volume": "pred/s2.nii.gz"}[role]
    refused(r, input_message(f"{option} {target}: is", noted, role))
    assert digest(study / target) == before


def test_segment_masks_never_replace_an_input_through_a_link(study):
    """--write-masks into a folder of its own, where a mask's name is a link to a truth volume:
    refused when the mask is written (the link is followed, the volume is an input)."""
    (study / "masks").mkdir()
    os.symlink("../gt/s1.nii.gz", study / "masks" / "s1_mask.nii.gz")
    os.mkfifo(study / "masks" / "s2_mask.nii.gz")
    truth = study / "gt" / "s1.nii.gz"
    before = digest(truth)
    r = run("segment", "--pred", "pred", "--truth", "gt", "--write-masks", "masks", "--threads",
            "1", cwd=study)
    refused(r, input_message("masks/s1_mask.nii.gz: is", "gt/s1.nii.gz", "a --truth volume"))
    with pytest.raises(assay.AssayError, match=r"s1_mask.nii.gz: is the input file .*gt/s1.nii.gz "
                                               r"\(a --truth volume\); an output never replaces"):
        seg.evaluate(study / "pred", study / "gt", write_masks=study / "masks", threads=1)
    os.remove(study / "masks" / "s1_mask.nii.gz")
    r = run("segment", "--pred", "pred", "--truth", "gt", "--write-masks", "masks", cwd=study)
    refused(r, f"masks/s2_mask.nii.gz: is a FIFO (named pipe), {REGULAR_ONLY}")
    assert digest(truth) == before
    assert stat.S_ISFIFO(os.lstat(study / "masks" / "s2_mask.nii.gz").st_mode)


# --- count and encode ----------------------------------------------------------------------

GRAPH4 = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "count", "graph4.spec")


@pytest.fixture
def tree(tmp_path):
    from sklearn.tree import DecisionTreeClassifier
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, (60, 16)).astype(float)
    est = DecisionTreeClassifier(max_depth=3, random_state=0).fit(x, x[:, 0].astype(int))
    path = tmp_path / "tree.json"
    models.save(models.from_sklearn(est), path)
    shutil.copy(GRAPH4, tmp_path / "g4.spec")
    return path


def test_encode_refuses_the_model_it_reads(tmp_path, tree):
    before = digest(tree)
    r = run("encode", "--model", "tree.json", "--spec", "g4.spec", "--property", "Transitive",
            "--out", str(tree), cwd=tmp_path)
    refused(r, input_message(f"--out {tree}: is", "tree.json", "the --model file"))
    assert digest(tree) == before


def test_count_refuses_the_spec_as_page(tmp_path, tree):
    spec = tmp_path / "g4.spec"
    before = digest(spec)
    r = run("count", "--model", "tree.json", "--spec", "./g4.spec", "--html", "g4.spec",
            cwd=tmp_path)
    refused(r, input_message("--html g4.spec: is", "./g4.spec", "the --spec file"))
    assert digest(spec) == before


def test_python_encode_and_count_refuse_their_inputs(tmp_path, tree):
    before = digest(tree)
    with pytest.raises(assay.AssayError, match="^" + input_message(
            f"out {tree}: is", str(tree), "the model").replace("(", r"\(").replace(")", r"\)")):
        count.encode(str(tree), str(tmp_path / "g4.spec"), "Transitive", out=tree)
    spec = tmp_path / "g4.spec"
    os.link(spec, tmp_path / "g4.cnf")
    with pytest.raises(assay.AssayError, match="is the input file .*g4.spec \\(the spec\\)"):
        count.encode(tree, spec, "Transitive", out=tmp_path / "g4.cnf")
    assert digest(tree) == before
    result = count.encode(tree, spec, "Transitive", out=tmp_path / "t.cnf")  # other names work
    assert result["variables"] > 0 and (tmp_path / "t.cnf").exists()


# --- soak, cv and the batch registry -------------------------------------------------------

@pytest.fixture
def learning(tmp_path):
    rng = np.random.default_rng(0)
    out = tmp_path / "out"
    out.mkdir()
    rows = [f"{rng.normal():.3f},{rng.integers(0, 2)},{'ab'[i % 2]}" for i in range(40)]
    path = out / "results.csv"  # the data set sits in the output folder under an output's name
    path.write_text("x,y,region\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize("name", ["soak", "cv"])
def test_soak_and_cv_refuse_an_output_folder_holding_the_data_as_an_output(tmp_path, learning,
                                                                          name):
    before = digest(learning)
    extra = ["--subset", "region"] if name == "soak" else ["--learners", "featureless"]
    r = run(name, learning, "--label", "y", "--folds", "2", *extra, "--out", "out", cwd=tmp_path)
    refused(r, input_message("--out out: writes out/results.csv, which is", learning, "the data"))
    assert digest(learning) == before
    assert sorted(os.listdir(tmp_path / "out")) == ["results.csv"]


def test_job_status_table_and_collect_refuse_the_registry_and_the_data(tmp_path, learning):
    r = run("soak", learning, "--label", "y", "--folds", "2", "--subset", "region", "--plan",
            "reg", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    registry = tmp_path / "reg" / "registry.json"
    before = digest(registry), digest(learning)
    r = run("job", "status", "reg", "--table", "reg/registry.json", cwd=tmp_path)
    refused(r, input_message("--table reg/registry.json: is", "reg/registry.json",
                             "the registry's own file"))
    r = run("job", "status", "reg", "--table", learning, cwd=tmp_path)
    refused(r, input_message(f"--table {learning}: is", learning, "the experiment's data"))
    r = run("job", "run", "reg", "--all", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run("job", "collect", "reg", "--out", "out", cwd=tmp_path)
    refused(r, input_message("--out out: writes out/results.csv, which is", learning,
                             "the experiment's data"))
    assert (digest(registry), digest(learning)) == before
    r = run("job", "status", "reg", "--table", "jobs_table.csv", cwd=tmp_path)
    assert r.returncode == 0 and (tmp_path / "jobs_table.csv").exists(), r.stderr


# --- report --------------------------------------------------------------------------------

def report_config(tmp_path, out):
    config = tmp_path / "r.toml"
    config.write_text(f'out = "{out}"\n[metrics]\nfile = "base.csv"\nlabel = "y"\n'
                      'models = {{ a = "s" }}\n'.replace("{{", "{").replace("}}", "}"))
    return config


@pytest.mark.parametrize("out, lead, noted, role", [
    ("base.csv", "out base.csv: is", "base.csv", "the predictions file"),
    ("r.toml", "out r.toml: is", "r.toml", "the report configuration"),
    ("base.html", "out base.html: writes base.json, which is", "base.json",
     "the predictions file"),
])
def test_report_outputs_never_replace_an_input(tmp_path, base, out, lead, noted, role):
    if out == "base.html":  # the page's derived JSON is the predictions file
        base.rename(tmp_path / "base.json")
        report_config(tmp_path, out)
        config_text = (tmp_path / "r.toml").read_text().replace("base.csv", "base.json")
        (tmp_path / "r.toml").write_text(config_text)
    else:
        report_config(tmp_path, out)
    victim = tmp_path / noted
    before = digest(victim)
    r = run("report", "r.toml", cwd=tmp_path)  # paths in r.toml are relative to its folder
    refused(r, input_message(lead, noted, role))
    assert digest(victim) == before
    with pytest.raises(assay.AssayError, match="an output never replaces an input"):
        report.build(tmp_path / "r.toml")
    assert digest(victim) == before
    assert not os.path.exists(tmp_path / "base.html")


def test_report_out_option_naming_the_config(tmp_path, base):
    config = report_config(tmp_path, "page.html")
    before = digest(config)
    r = run("report", "r.toml", "--out", "r.toml", cwd=tmp_path)
    refused(r, input_message("--out r.toml: is", "r.toml", "the report configuration"))
    assert digest(config) == before


# --- devices, FIFOs and links --------------------------------------------------------------

def test_fifo_output_is_refused_without_blocking(tmp_path, base):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    start = time.monotonic()
    r = run("metrics", base, "--label", "y", "--score", "s", "--json-out", fifo, timeout=30)
    refused(r, f"--json-out {fifo}: is a FIFO (named pipe), {REGULAR_ONLY}")
    assert time.monotonic() - start < 20
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_device_output_is_refused_and_kept(tmp_path, base):
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
    for option in ("--json-out", "--html"):
        r = run("shift", base, "--target", "y", "--pred", "s", option, device)
        refused(r, f"{option} {device}: is a character device, {REGULAR_ONLY}")
        assert stat.S_ISCHR(os.lstat(device).st_mode)


def as_nobody():
    if os.geteuid() == 0:
        os.setgid(65534)
        os.setuid(65534)


def test_dev_null_is_refused_before_any_work():
    """The real /dev/null, only checked: run as nobody (when root), so that even a regression
    could not rename anything over it."""
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)
        data = os.path.join(d, "base.csv")
        with open(data, "w") as f:
            f.write("y,s\n0,0.1\n1,0.8\n")
        os.chmod(data, 0o644)
        try:
            r = run("metrics", data, "--label", "y", "--score", "s", "--json-out", "/dev/null",
                    preexec_fn=as_nobody)
        except PermissionError:
            pytest.skip("user nobody may not run this build's assay (a private checkout)")
    if r.returncode == 127:
        pytest.skip("user nobody may not load this build's libraries: " + r.stderr)
    refused(r, f"--json-out /dev/null: is a character device, {REGULAR_ONLY}")
    assert stat.S_ISCHR(os.lstat("/dev/null").st_mode)


def test_symlink_to_a_new_or_existing_regular_file_is_followed(tmp_path, base):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "old.json").write_text("old\n")
    os.symlink("real/old.json", tmp_path / "old.json")
    os.symlink(str(tmp_path / "real" / "new.html"), tmp_path / "new.html")  # dangling
    r = run("metrics", "base.csv", "--label", "y", "--score", "s", "--json-out", "old.json",
            "--html", "new.html", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert os.path.islink(tmp_path / "old.json") and os.path.islink(tmp_path / "new.html")
    assert "roc_auc" in (tmp_path / "real" / "old.json").read_text()
    assert (tmp_path / "real" / "new.html").read_text().startswith("<!DOCTYPE html>")
    assert sorted(os.listdir(tmp_path / "real")) == ["new.html", "old.json"]
    report.Page("p").paragraph("x").write(tmp_path / "old.json")  # Python writers follow too
    assert os.path.islink(tmp_path / "old.json")
    assert "<!DOCTYPE html>" in (tmp_path / "real" / "old.json").read_text()


def test_python_writers_refuse_fifos(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(assay.AssayError, match=f"^{fifo}: is a FIFO \\(named pipe\\), not a "):
        report.Page("p").write(fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# --- concurrent runs -----------------------------------------------------------------------

def test_concurrent_runs_leave_the_pair_of_one_run(tmp_path):
    """30 trials of two `assay metrics` runs started together on different data, writing the
    same --json-out and --html: each trial ends with the JSON and the page of the same run."""
    for name, n in (("a", 6), ("b", 9)):
        rows = "".join(f"{i % 2},{(i * 7 % 10) / 10}\n" for i in range(n))
        (tmp_path / f"{name}.csv").write_text("y,s\n" + rows)
    for trial in range(30):
        runs = [subprocess.Popen(
            [cli_path(), "metrics", f"{name}.csv", "--label", "y", "--score", "s", "--json-out",
             "o.json", "--html", "o.html", "-q"], cwd=tmp_path, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL) for name in ("a", "b")]
        assert [p.wait(timeout=60) for p in runs] == [0, 0]
        n = json.loads((tmp_path / "o.json").read_text())["n_samples"]
        page = (tmp_path / "o.html").read_text()
        ran = "a.csv" if n == 6 else "b.csv"
        assert f"assay metrics: {ran}" in page, f"trial {trial}: JSON of {ran}, page of the other"


def test_a_commit_waits_for_the_lock_another_run_holds(tmp_path, base):
    """The protocol behind the test above, without luck: while another process holds the lock of
    the outputs' folder (as a committing run does), a run finishes its work but renames nothing."""
    import fcntl
    folder = os.open(tmp_path, os.O_RDONLY)
    fcntl.flock(folder, fcntl.LOCK_EX)
    try:
        p = subprocess.Popen([cli_path(), "metrics", base, "--label", "y", "--score", "s",
                              "--json-out", tmp_path / "o.json", "--html", tmp_path / "o.html"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        assert p.poll() is None and not os.path.exists(tmp_path / "o.json")
    finally:
        os.close(folder)
    assert p.wait(timeout=60) == 0, p.stderr.read()
    assert os.path.exists(tmp_path / "o.json") and os.path.exists(tmp_path / "o.html")


# --- standard output and error as outputs ------------------------------------------------------

# `--json-out /dev/stdout` on a pipe said "cannot write /dev/stdout: No such file or directory"
# (the link leads to "pipe:[N]", no path); redirected to a file, the JSON was renamed over that
# file and the printed table was lost without a word.
def test_stdout_as_an_output_is_named(base, tmp_path):
    r = run("metrics", base, "--label", "y", "--score", "s", "--json-out", "/dev/stdout")
    refused(r, f"--json-out /dev/stdout: is a FIFO (named pipe), {REGULAR_ONLY}")
    for stream, name in (("stdout", "standard output"), ("stderr", "standard error")):
        log = tmp_path / f"{stream}.txt"
        with open(log, "w") as f:
            r = subprocess.run([cli_path(), "metrics", base, "--label", "y", "--score", "s",
                                "--html", log], text=True, timeout=60,
                               **{stream: f}, **{("stderr" if stream == "stdout" else "stdout"):
                                                 subprocess.PIPE})
        assert r.returncode == 2
        inode = os.stat(log).st_ino
        message = (f"assay: --html {log}: is the file this command's {name} goes to; renaming "
                   "over it would lose what is printed there: choose another name\n")
        assert (log.read_text() if stream == "stderr" else r.stderr) == message
        assert os.stat(log).st_ino == inode
