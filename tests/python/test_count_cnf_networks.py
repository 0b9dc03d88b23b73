"""assay.count's CNF route for a network on 25 boolean inputs: method exact-cnf (the circuit
route: the encoder's gates evaluated 64 inputs at a time, then the inputs where the fixed-point
circuit and the model might disagree settled) gives the same TP/FP/TN/FN as enumerating the
2^25 inputs, on every property of the 5-node graphs. Its own file so that pytest-xdist runs it
beside the other count tests (10-20 s per property on a busy 2-core machine). The domain-splitting
counter (method split: bounds on boxes of the 25 inputs, small undecided boxes enumerated) is held
to the same cells on two of them (SPLIT_CHECKED)."""
import os
import sys

import numpy as np
import pytest
from sklearn.neural_network import MLPClassifier

import assay.count as count
import assay.models as models

from test_count import ROOT
from test_count_cnf import GRAPH5, _cells

sys.path.insert(0, os.path.join(ROOT, "examples", "count"))
import graph_learnability  # noqa: E402


# Properties on which the domain-splitting counter is held to the same cells too (3-6 s each).
SPLIT_CHECKED = ("Reflexive", "Irreflexive")


def _network(name):
    X, y = graph_learnability.dataset(name, 5, np.random.default_rng(5), size=1500)
    est = MLPClassifier(hidden_layer_sizes=(4,), max_iter=60, random_state=0).fit(X, y)
    return models.from_sklearn(est)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("name", graph_learnability.PROPERTIES)
def test_exact_cnf_equals_enumeration_for_a_network_on_5_node_graphs(name):
    m = _network(name)
    want = count.count(m, GRAPH5, name, method="enumerate")
    got = count.count(m, GRAPH5, name, method="exact-cnf")
    assert _cells(got) == _cells(want)
    assert got["method"] == "exact-cnf"
    for lab in got["labels"]:
        assert lab["guarantee"]["exact"] and lab["guarantee"]["method"] == "exact-cnf"
    if name in SPLIT_CHECKED:
        by_split = count.count(m, GRAPH5, name, method="split")
        assert _cells(by_split) == _cells(got)
        for lab in by_split["labels"]:
            assert lab["guarantee"]["exact"] and lab["guarantee"]["method"] == "split"
