"""assay in Jupyter: a notebook built here (nbformat) calls evaluate, bootstrap and soak.run and
shows their results; run on an IPython kernel (nbclient), its outputs hold each result's HTML
table and the progress bars' HTML."""
import json
import os
import sys

import pytest

from conftest import ROOT

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

CELLS = [
    """import numpy as np
import assay.metrics as am
from assay import soak
rng = np.random.default_rng(0)
y = rng.integers(0, 2, 200)
score = np.clip(0.5 + 0.3 * (y - 0.5) + rng.normal(0, 0.25, 200), 0, 1)""",
    "am.evaluate(y, score, n_bootstrap=200)",
    "am.bootstrap(am.accuracy_score, y, score > 0.5, n_resamples=500, seed=1)",
    """X = rng.normal(0, 1, (200, 3)) + y[:, None]
soak.run(X, y, subset=np.repeat(["A", "B"], 100), learners=["featureless", "cart"],
         n_splits=3)""",
    "am.bootstrap(am.accuracy_score, y, score > 0.5, n_resamples=500, progress=False)",
]


def kernel_env(tmp_path):
    """A kernelspec "python3" on /usr/bin/python3 (Debian's, with numpy and ipykernel) that
    imports assay from this checkout's PYTHONPATH."""
    python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
    folder = tmp_path / "jupyter" / "kernels" / "python3"
    folder.mkdir(parents=True)
    path = os.environ.get("PYTHONPATH") or os.path.join(ROOT, "python")
    spec = {"argv": [python, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (assay test)", "language": "python",
            "env": {"PYTHONPATH": path}}
    (folder / "kernel.json").write_text(json.dumps(spec))
    return str(tmp_path / "jupyter")


def outputs_of(cell):
    return [o for o in cell.get("outputs", []) if "data" in o]


def test_notebook_shows_result_tables_and_progress(tmp_path, monkeypatch):
    monkeypatch.setenv("JUPYTER_PATH", kernel_env(tmp_path))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    client = nbclient.NotebookClient(notebook, kernel_name="python3", timeout=300,
                                     resources={"metadata": {"path": str(tmp_path)}})
    from nbclient.exceptions import CellExecutionError
    try:
        client.execute()
    except CellExecutionError:  # the kernel ran: a cell failed, a real failure
        raise
    except Exception as e:  # noqa: BLE001 - no kernel here: say why, do not fail
        if not any(cell.get("execution_count") for cell in notebook.cells):  # none ran
            pytest.skip(f"no IPython kernel could start: {type(e).__name__}: {e}")
        raise
    evaluate, boot, run, quiet = (outputs_of(notebook.cells[i]) for i in (1, 2, 3, 4))

    def html(outputs):
        return [o["data"]["text/html"] for o in outputs if "text/html" in o["data"]]

    # Each result shows its _repr_html_: a table and a chart.
    result = html(evaluate)[-1]
    assert '<div class="assay-result">' in result and "<table>" in result and "roc_auc" in result
    assert '<img alt="chart" src="data:image/png;base64,' in result
    assert "<table>" in html(boot)[-1] and "estimate" in html(boot)[-1]
    # The short text beside it (text/plain), not the replicates.
    assert evaluate[-1]["data"]["text/plain"].startswith("evaluation: 200 samples")
    assert "replicates" not in boot[-1]["data"]["text/plain"]
    # The progress bars: HTML displayed in the cell (bootstrap in evaluate, bootstrap, soak).
    for outputs, task in ((evaluate, "bootstrap"), (boot, "bootstrap"), (run, "soak")):
        bars = [h for h in html(outputs) if 'class="assay-progress"' in h]
        assert bars and "<progress" in bars[0] and task in bars[0], (task, html(outputs))
    assert not [h for h in html(quiet) if "assay-progress" in h]
    assert "<table" in html(run)[-1]  # soak.run's DataFrame
