"""One wording per mistake: the same bad value given to the same option through the CLI (exit 2),
the Python function (ValueError / TypeError), the `assay report` configuration (file:line:col)
and a batch definition (a registry's registry.json, where the option is part of it) is refused
with the same message; only the option's spelling differs (`--seed`, `seed`, `[metrics] seed`,
`field "seed"`), and what follows it is compared."""
import json

import numpy as np
import pytest

import assay
import assay.compare
import assay.io
import assay.learners
import assay.metrics
import assay.report
import assay.soak
from batch_helpers import make_regions

Y = np.array([1, 0, 1, 0, 1, 0])
P = np.array([0.9, 0.2, 0.7, 0.4, 0.6, 0.3])


def after(message, spelling):
    """The message after "<spelling>: ", without the CLI's closing hint."""
    head = spelling + ": "
    assert head in message, (spelling, message)
    return message[message.index(head) + len(head):].removesuffix(" (see assay --help)")


def cli_message(run_cli, *args):
    r = run_cli(*args)
    assert r.returncode == 2, (args, r.stdout, r.stderr)
    return r.stderr.strip().splitlines()[-1]


def python_message(call):
    with pytest.raises((ValueError, TypeError)) as e:
        call()
    return str(e.value)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wording")
    path = folder / "d.csv"
    path.write_text("y,p\n" + "".join(f"{y},{p}\n" for y, p in zip(Y, P)))
    return folder


def toml_message(run_cli, folder, top, section):
    """`assay report --check` of a configuration with `top` lines and a [metrics] section."""
    path = folder / "c.toml"
    path.write_text(f'{top}\n[metrics]\nfile = "d.csv"\nlabel = "y"\n{section}\n'
                    'models = { a = "p" }\n')
    message = cli_message(run_cli, "report", path, "--check")
    assert message.startswith(f"assay: {path}:"), message  # at the key's line and column
    return message


# option: (CLI argument, Python keyword, TOML key, in the top table?), bad value as text, as Python
METRICS_CASES = [
    ("--seed", "seed", "seed", "-5", -5),
    ("--seed", "seed", "seed", "abc", "abc"),
    ("--threads", "threads", "threads", "-1", -1),
    ("--confidence", "confidence", "confidence", "1.5", 1.5),
    ("--confidence", "confidence", "confidence", "0", 0),
    ("--bootstrap", "n_bootstrap", "bootstrap", "-3", -3),
    ("--bootstrap", "n_bootstrap", "bootstrap", "2000000", 2000000),
    ("--pos-label", "pos_label", "pos_label", "", ""),
]


@pytest.mark.parametrize("cli, kwarg, key, text, value", METRICS_CASES,
                         ids=[f"{c[2]}={c[3]}" for c in METRICS_CASES])
def test_metrics_options_one_wording(run_cli, data, cli, kwarg, key, text, value):
    from_cli = after(cli_message(run_cli, "metrics", data / "d.csv", "--label", "y", "--score",
                                 "p", cli, text), cli)
    from_python = after(python_message(
        lambda: assay.metrics.evaluate(Y, P, progress=False, **{kwarg: value})), kwarg)
    toml_value = json.dumps(value)
    in_top = key == "threads"  # the configuration's threads serve every section
    line = f"{key} = {toml_value}"
    from_toml = after(toml_message(run_cli, data, line if in_top else "", "" if in_top else line),
                      ("" if in_top else "[metrics] ") + key)
    assert from_cli == from_python == from_toml


def test_seed_in_a_batch_definition(run_cli, tmp_path):
    """A registry's definition read back by `assay job status`: its seed by --seed's rule."""
    regions = make_regions(tmp_path / "regions.csv", rows_per_subset=12)
    reg = tmp_path / "reg"
    r = run_cli("soak", regions, "--label", "y", "--subset", "region", "--folds", "2",
                "--learners", "featureless", "--plan", reg)
    assert r.returncode == 0, r.stderr
    document = json.loads((reg / "registry.json").read_text())
    document["experiment"]["seed"] = -5
    (reg / "registry.json").write_text(json.dumps(document))
    from_batch = after(cli_message(run_cli, "job", "status", reg), 'field "seed"')
    from_cli = after(cli_message(run_cli, "soak", regions, "--label", "y", "--subset", "region",
                                 "--seed", "-5"), "--seed")
    from_python = after(python_message(lambda: assay.metrics.evaluate(Y, P, seed=-5)), "seed")
    assert from_batch == from_cli == from_python


def test_task_one_wording(run_cli, tmp_path):
    """A learner's task: `assay cv --task`, assay.learners.cv / assay.soak.run, the [cv]
    section and a batch definition."""
    regions = make_regions(tmp_path / "regions.csv", rows_per_subset=12)
    from_cli = after(cli_message(run_cli, "cv", regions, "--label", "y", "--task", "bogus"),
                     "--task")
    X, y = np.zeros((6, 2)), np.array([0, 1] * 3)
    from_cv = after(python_message(lambda: assay.learners.cv(X, y, task="bogus")), "task")
    from_soak = after(python_message(
        lambda: assay.soak.run(X, y, subset=np.array(["a", "b"] * 3), task="bogus")), "task")
    config = tmp_path / "c.toml"
    config.write_text(f'[cv]\nfile = "{regions}"\nlabel = "y"\ntask = "bogus"\n')
    from_toml = after(cli_message(run_cli, "report", config, "--check"), "[cv] task")
    reg = tmp_path / "reg"
    assert run_cli("cv", regions, "--label", "y", "--learners", "featureless", "--folds", "2",
                   "--plan", reg).returncode == 0
    document = json.loads((reg / "registry.json").read_text())
    document["experiment"]["task"] = "bogus"
    (reg / "registry.json").write_text(json.dumps(document))
    from_batch = after(cli_message(run_cli, "job", "status", reg), 'field "task"')
    assert from_cli == from_cv == from_soak == from_toml == from_batch
    assert from_cli == 'expected classification or regression, found "bogus"'


@pytest.mark.parametrize("option, text", [("delimiter", "ab"), ("decimal", "x")])
def test_csv_dialect_one_wording(run_cli, data, tmp_path, option, text):
    from_cli = after(cli_message(run_cli, "metrics", data / "d.csv", "--label", "y", "--score",
                                 "p", f"--{option}={text}"), f"--{option}")
    from_python = after(python_message(
        lambda: assay.io.read_csv(data / "d.csv", **{option: text})), option)
    from_toml = after(toml_message(run_cli, data, "", f'{option} = "{text}"'),
                      f"[metrics] {option}")
    regions = make_regions(tmp_path / "regions.csv", rows_per_subset=12)
    reg = tmp_path / "reg"
    assert run_cli("soak", regions, "--label", "y", "--subset", "region", "--folds", "2",
                   "--learners", "featureless", "--plan", reg).returncode == 0
    document = json.loads((reg / "registry.json").read_text())
    document["experiment"]["csv"][option] = text
    (reg / "registry.json").write_text(json.dumps(document))
    from_batch = after(cli_message(run_cli, "job", "status", reg), f'field "csv.{option}"')
    assert from_cli == from_python == from_toml == from_batch


def test_chart_axis_one_wording(run_cli, data):
    """`assay report --chart-axis`, the configuration's chart_axis (in the file, or in the dict
    given to assay.report.build)."""
    config = {"chart_axis": "bogus", "metrics": {"file": str(data / "d.csv"), "label": "y",
                                                 "models": {"a": "p"}}}
    from_python = after(python_message(lambda: assay.report.build(config, check=True)),
                        "chart_axis")
    from_toml = after(toml_message(run_cli, data, 'chart_axis = "bogus"', ""), "chart_axis")
    good = data / "good.toml"
    good.write_text('[metrics]\nfile = "d.csv"\nlabel = "y"\nmodels = { a = "p" }\n')
    from_cli = after(cli_message(run_cli, "report", good, "--check", "--chart-axis", "bogus"),
                     "--chart-axis")
    assert from_cli == from_python == from_toml


@pytest.mark.parametrize("call", [
    lambda: assay.metrics.precision_score([0, 1], [0, 1], average="bogus"),
    lambda: assay.metrics.f1_score([0, 1], [0, 1], average="bogus"),
    lambda: assay.metrics.precision_recall_fscore_support([0, 1], [0, 1], average="bogus"),
    lambda: assay.metrics.jaccard_score([0, 1], [0, 1], average="bogus"),
], ids=["precision", "f1", "prfs", "jaccard"])
def test_average_one_wording(call):
    """average= of the label metrics (a Python-only option): metrics::parse_average's words."""
    assert python_message(call) == ("average must be one of None, 'binary', 'micro', 'macro', "
                                    "'weighted', 'samples', found \"bogus\"")


@pytest.mark.parametrize("call", [
    lambda: assay.metrics.roc_auc_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3], average="bogus"),
    lambda: assay.metrics.average_precision_score([0, 1, 1, 0], [0.1, 0.9, 0.8, 0.3],
                                                  average="bogus"),
], ids=["roc_auc", "average_precision"])
def test_score_average_one_wording(call):
    """average= of the ranking scores: metrics::parse_score_average's words."""
    assert python_message(call) == ('average must be one of "micro", "macro", "weighted", '
                                    '"samples" or None, found "bogus"')


@pytest.mark.parametrize("option, spelling", [("test", "test"), ("correction", "correction"),
                                              ("pairs", "pairs"), ("gate-on", "gate_on")])
def test_compare_options_one_wording(run_cli, data, option, spelling):
    """`assay compare --test`, assay.compare.compare(test=...) and the [compare] section."""
    path = data / "c2.csv"
    path.write_text("y,p,q\n" + "".join(f"{y},{p},{1 - p}\n" for y, p in zip(Y, P)))
    from_cli = after(cli_message(run_cli, "compare", path, "--label", "y", "--models", "p", "q",
                                 f"--{option}", "bogus"), f"--{option}")
    from_python = after(python_message(lambda: assay.compare.compare(
        Y, {"p": P, "q": 1 - P}, progress=False, **{spelling: "bogus"})), spelling)
    config = data / "compare.toml"
    config.write_text(f'[compare]\nfile = "c2.csv"\nlabel = "y"\n{spelling} = "bogus"\n'
                      'models = { p = "p", q = "q" }\n')
    from_toml = after(cli_message(run_cli, "report", config, "--check"), f"[compare] {spelling}")
    assert from_cli == from_python == from_toml
