"""assay.models.from_torch: a PyTorch Sequential of Linear/ReLU layers predicts as torch does,
and counts exactly (enumeration agrees with torch on every 4-node graph). Needs Debian's
python3-torch (installed by scripts/install-deps.sh)."""
import itertools
import os

import numpy as np
import pytest

import assay
import assay.count as count
import assay.models as models

torch = pytest.importorskip("torch", reason="python3-torch is not installed")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRAPH4 = os.path.join(ROOT, "examples", "count", "graph4.spec")


def _net(*layers, seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(*layers).double()


@pytest.mark.parametrize("seed", [0, 1])
def test_multiclass_logits_match_torch(seed):
    net = _net(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 8), torch.nn.ReLU(),
               torch.nn.Linear(8, 3), seed=seed)
    m = models.from_torch(net)
    X = np.random.default_rng(seed).normal(size=(500, 6))
    with torch.no_grad():
        logits = net(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(m.predict_scores(X), logits, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(m.predict(X), logits.argmax(axis=1))
    info = m.info()
    assert info["kind"] == "network" and info["n_features"] == 6
    assert info["n_parameters"] == sum(p.numel() for p in net.parameters())


def test_single_logit_and_final_activations():
    X = np.random.default_rng(3).normal(size=(400, 4))
    net = _net(torch.nn.Flatten(), torch.nn.Linear(4, 5), torch.nn.ReLU(), torch.nn.Linear(5, 1))
    m = models.from_torch(net, classes=["no", "yes"])
    with torch.no_grad():
        z = net(torch.from_numpy(X)).numpy()[:, 0]
    np.testing.assert_array_equal(m.predict(X), np.where(z > 0, "yes", "no"))
    np.testing.assert_allclose(m.predict_scores(X)[:, 0], 1 / (1 + np.exp(-z)), rtol=1e-12)
    sig = _net(torch.nn.Linear(4, 1), torch.nn.Sigmoid())
    with torch.no_grad():
        p = sig(torch.from_numpy(X)).numpy()[:, 0]
    np.testing.assert_array_equal(models.from_torch(sig).predict(X), (p > 0.5).astype(int))
    soft = _net(torch.nn.Linear(4, 3), torch.nn.Softmax(dim=1))
    with torch.no_grad():
        q = soft(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(models.from_torch(soft).predict_scores(X), q, rtol=1e-12)


def test_float32_network_labels_agree():
    torch.manual_seed(5)
    net = torch.nn.Sequential(torch.nn.Linear(16, 12), torch.nn.ReLU(), torch.nn.Linear(12, 2))
    m = models.from_torch(net)
    X = np.random.default_rng(5).normal(size=(1000, 16)).astype(np.float32)
    with torch.no_grad():
        logits = net(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(m.predict_scores(X), logits, rtol=1e-4, atol=1e-5)
    close = np.abs(logits[:, 0] - logits[:, 1]) < 1e-5
    np.testing.assert_array_equal(m.predict(X)[~close], logits.argmax(axis=1)[~close])


def test_counts_equal_torch_on_every_4_node_graph():
    torch.manual_seed(2)
    net = torch.nn.Sequential(torch.nn.Linear(16, 10), torch.nn.ReLU(),
                              torch.nn.Linear(10, 2)).double()
    ALL = np.array(list(itertools.product([0.0, 1.0], repeat=16)))
    with torch.no_grad():  # shift class 1's bias so that both labels are predicted
        z = net(torch.from_numpy(ALL)).numpy()
        net[2].bias[1] += float(np.median(z[:, 0] - z[:, 1])) + 1e-3
        pred = net(torch.from_numpy(ALL)).numpy().argmax(axis=1) == 1
    assert 0.2 < pred.mean() < 0.8
    m = models.from_torch(net)
    r = count.count(m, GRAPH4, "Symmetric")
    A = ALL.reshape(-1, 4, 4)
    truth = (A == A.transpose(0, 2, 1)).all(axis=(1, 2))
    got = {k: r["labels"][1][k] for k in ("tp", "fp", "tn", "fn")}
    assert got == {"tp": int(np.sum(pred & truth)), "fp": int(np.sum(pred & ~truth)),
                   "tn": int(np.sum(~pred & ~truth)), "fn": int(np.sum(~pred & truth))}


@pytest.mark.parametrize("net, message", [
    (lambda: torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2)),
     r"layer 1 \(Tanh\) is not supported"),
    (lambda: torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Sigmoid(),
                                 torch.nn.Linear(4, 2)), "only supported as the last layer"),
    (lambda: torch.nn.Sequential(torch.nn.ReLU()), "not supported"),
    (lambda: torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU()), "ReLU on the output"),
    (lambda: torch.nn.Linear(3, 2), "expects torch.nn.Sequential"),
])
def test_unsupported_networks(net, message):
    with pytest.raises(assay.AssayError, match=message):
        models.from_torch(net())


def test_classes_must_match_outputs():
    with pytest.raises(assay.AssayError, match="classes has 3 labels, expected 2"):
        models.from_torch(torch.nn.Sequential(torch.nn.Linear(3, 2)), classes=["a", "b", "c"])
