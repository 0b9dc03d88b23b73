"""Exact counting over a bounded input domain (QuantifyML), beside the estimates from test sets
and uniform samples. See docs/count.md.

``count(model, spec, ...)`` returns the document of ``assay count --json`` as a dict, with exact
counts as Python ints; ``robustness(model, x, epsilon, label, lower, upper)`` the exact size of
an L-infinity ball around x, how many of its points keep ``label``, and their ratio.
``encode(model, spec, ...)`` writes one counting query as a DIMACS CNF (``assay encode``);
``count_cnf(path_or_clauses, projection)`` counts a CNF's projected models exactly or with an
(epsilon, delta) guarantee (``assay count --cnf``).
``count_vnnlib(model, vnnlib, ...)`` gives the certified unsafe share of a VNN-LIB property's
input box for a network (ONNX or assay JSON), by domain splitting (``assay count --vnnlib``);
``network_bounds(model, lower, upper)`` sound bounds of a network's outputs over a box.
"""
import json
import numbers
import os

import numpy as np

from . import _assay
from ._options import InvalidParameterError
from ._outputs import check_outputs
from ._progress import reporting
from ._results import CountResult
from .models import Model, load as _load_model

__all__ = ["count", "robustness", "encode", "count_cnf", "parse_spec", "load_spec",
           "spec_inputs", "count_vnnlib", "load_vnnlib", "parse_vnnlib", "network_bounds"]

_EXACT_FIELDS = ("domain_size", "correct", "tp", "fp", "tn", "fn", "satisfied", "violated",
                 "total", "count")


def _int(text):
    # int() refuses decimal strings of more than 4300 digits (Python's guard against slow
    # conversions); a count such as 2^1000000 - 1 has 301030: joined from chunks.
    if len(text) <= 4000:
        return int(text)
    n = 0
    for i in range(0, len(text), 4000):
        chunk = text[i:i + 4000]
        n = n * 10 ** len(chunk) + int(chunk)
    return n


def _decimal_ints(obj):
    if isinstance(obj, str):
        return _int(obj)
    if isinstance(obj, dict):
        return {k: _decimal_ints(v) for k, v in obj.items()}
    return [_decimal_ints(v) for v in obj]


def _ints(obj):
    # Exact counts (and bounds) travel as decimal strings; give them back as Python ints.
    if isinstance(obj, dict):
        return {k: (_int(v) if k in _EXACT_FIELDS and isinstance(v, str)
                    else _decimal_ints(v) if k == "bounds" else _ints(v))
                for k, v in obj.items()}
    if isinstance(obj, list):
        return [_ints(v) for v in obj]
    return obj


def parse_spec(text, file="<spec>"):
    """Parses .spec text (see docs/count.md); errors read "file:line:col: message"."""
    return _assay.count_parse_spec(text, file)


def load_spec(path):
    return _assay.count_load_spec(str(path))


def spec_inputs(spec):
    """Names of the scalar inputs, in feature order ("x[0]", "x[1]", ...)."""
    return _assay.count_spec_inputs(_spec(spec))


def _spec(spec):
    if isinstance(spec, _assay.CountSpec):
        return spec
    if isinstance(spec, os.PathLike) or (isinstance(spec, str) and (
            os.path.exists(spec) or ("\n" not in spec and spec.endswith(".spec")))):
        return load_spec(spec)  # a missing file: "cannot open spec file ..."
    if isinstance(spec, str):
        return parse_spec(spec)
    raise TypeError(f"spec must be a path, spec text or a parsed spec, found {type(spec).__name__}")


def _model(model):
    if isinstance(model, Model):
        return model.native
    if isinstance(model, _assay.CountModel):
        return model
    if isinstance(model, (str, os.PathLike)):
        return _load_model(model).native  # JSON or ONNX, by content
    from .models import from_sklearn
    return from_sklearn(model).native


def count(model, spec, property=None, *, samples=(), seed=0, X_test=None, y_test=None,
          method="auto", confidence=0.95, threads=0, time_limit=0.0, epsilon=0.8, delta=0.2,
          ambiguity_limit=100000, fraction_bits=0, weight_bits=12, activation_bits=12,
          max_boxes=0, max_memory=None, progress=True):
    """Exact TP/FP/TN/FN per label, safety S/N and region robustness of `model` over the whole
    domain of `spec`, plus estimates from the test set (X_test, y_test as label indices) and
    uniform samples of each size in `samples`.

    model: an assay.models.Model, a model file, or a fitted scikit-learn estimator.
    spec: a .spec path, spec text, or a parsed spec.
    property: one predicate (the truth of label 1), safety property or region; None = all.
    method: "auto", "structural", "enumerate", "exact-cnf" or "approx" (docs/count.md); each
    count's "guarantee" says how it was obtained. time_limit (seconds per CNF count), epsilon,
    delta, ambiguity_limit and the *_bits of the fixed-point encoding apply to the CNF methods;
    method "split" (networks: domain splitting with sound bounds) stops at time_limit seconds,
    max_boxes boxes or when its undecided boxes reach max_memory megabytes (default: half the
    memory available at the start) per count, and its counts are then certified bounds.
    Each uniform sample stops after time_limit seconds (when set) with the points drawn so far
    (its "n" is then below its "requested", with a warning). Ctrl-C stops the count cleanly and
    raises KeyboardInterrupt. progress: a progress bar on stderr when it is a terminal, or in
    Jupyter. Returns a ``CountResult`` (a dict).
    """
    xt = None if X_test is None else np.ascontiguousarray(np.asarray(X_test, dtype=np.float64))
    yt = None if y_test is None else np.ascontiguousarray(np.asarray(y_test, dtype=np.int32))
    options = {"time_limit": float(time_limit), "epsilon": float(epsilon),
               "delta": float(delta), "ambiguity_limit": int(ambiguity_limit),
               "fraction_bits": int(fraction_bits), "weight_bits": int(weight_bits),
               "activation_bits": int(activation_bits)}
    if max_boxes:
        options["max_boxes"] = int(max_boxes)
    if max_memory is not None:
        options["max_memory"] = float(max_memory)
    native_model, native_spec = _model(model), _spec(spec)
    with reporting(progress):
        text = _assay.count_count(native_model, native_spec, property or "", method,
                                  [int(n) for n in samples], int(seed), float(confidence),
                                  int(threads), xt, yt, options, bool(progress))
    return CountResult(_ints(json.loads(text)))


def encode(model, spec, property=None, *, query=None, label=None, out=None, fraction_bits=0,
           weight_bits=12, activation_bits=12):
    """One counting query as a CNF whose projected model count is the number of inputs of the
    domain that satisfy it (``assay encode``).

    query: "tp", "fp", "tn", "fn", "truth", "predicted" (truths); "satisfied", "violated", "pre"
    (safety); "robust", "not-robust", "region" (regions); None = tp / violated / robust.
    label: the label index of the truth queries (None = 1 for two labels, else 0).
    out: a file to write (".gz" compresses); None returns the DIMACS text as "dimacs".
    Returns a dict: query, arithmetic, exact, ambiguous, variables, clauses, xors, projected,
    inputs (name, size and bits of each input), and dimacs (when out is None).
    """
    check_outputs({"out": out}, {"the model": model, "the spec": spec})
    summary, text = _assay.count_encode(
        _model(model), _spec(spec), property or "", query or "",
        -1 if label is None else int(label), int(fraction_bits), int(weight_bits),
        int(activation_bits), "" if out is None else os.fspath(out))
    result = json.loads(summary)
    if out is None:
        result["dimacs"] = text
        result.pop("file", None)
    return result


def _cnf(path_or_clauses, projection):
    if isinstance(path_or_clauses, (str, os.PathLike)):
        name = os.fspath(path_or_clauses)
        f = _assay.cnf_read(name)
    else:
        name = "<clauses>"
        clauses = [[int(lit) for lit in c] for c in path_or_clauses]
        f = _assay.cnf_from_clauses(clauses, 0)
    if isinstance(projection, (str, os.PathLike)):
        _assay.cnf_read_projection(f, os.fspath(projection))
    elif projection is not None:
        _assay.cnf_set_projection(f, [int(v) for v in projection])
    return f, name


def count_cnf(path_or_clauses, projection=None, *, method="auto", time_limit=0.0, epsilon=0.8,
              delta=0.2, seed=0, threads=0, progress=True):
    """The projected model count of a CNF formula (``assay count --cnf``).

    path_or_clauses: a DIMACS file (plain or .gz; its ``c ind`` / ``c p show`` lines give the
    projection) or a list of clauses, each a list of non-zero ints (DIMACS literals).
    projection: None (the file's, else every variable), a list of variables, or a file of them.
    method: "auto" (exact within time_limit, default 60 s, then approximate), "exact-cnf" or
    "approx" (within a factor 1 + epsilon with probability 1 - delta, seeded).
    Returns a ``CountResult`` (a dict): count (int), guarantee (method, exact, bounded,
    epsilon, delta, seed, note), bounds ([lower, upper] ints, when bounded), variables, clauses,
    xors, projected, seconds. Ctrl-C raises KeyboardInterrupt; progress: a bar on a terminal's
    stderr or in Jupyter.
    """
    f, name = _cnf(path_or_clauses, projection)
    with reporting(progress):
        text = _assay.cnf_count(f, method, float(time_limit), float(epsilon), float(delta),
                                int(seed), int(threads), name, bool(progress))
    return CountResult(_ints(json.loads(text)))


def robustness(model, x, epsilon, label, lower, upper, *, step=1.0, samples=(), seed=0,
               confidence=0.95, method="auto", threads=0, time_limit=0.0, progress=True):
    """Robustness of `model` around `x`: the region is every grid point (lower + k*step) within
    `epsilon` of x in each feature, clipped to [lower, upper] (scalars or one value per feature).
    A step so fine that the grid's points are not distinct doubles (or more than 9e15 of them per
    feature) is refused.

    Returns a ``CountResult`` (a dict): count (points predicted `label`, exact int), total
    (region size, exact int), robustness (count / total), samples (estimates from uniform
    samples of the region), method, seconds. Each sample stops after time_limit seconds (0 =
    none) with the points drawn so far (a warning says so). Ctrl-C raises KeyboardInterrupt;
    progress: a bar on a terminal's stderr or in Jupyter.
    """
    if isinstance(label, bool) or not isinstance(label, numbers.Integral):
        # int(1.5) would silently count label 1
        raise InvalidParameterError(f"label: expected a class index (an integer), found {label!r}")
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64).ravel())
    lower = np.atleast_1d(np.asarray(lower, dtype=np.float64)).tolist()
    upper = np.atleast_1d(np.asarray(upper, dtype=np.float64)).tolist()
    native_model = _model(model)
    with reporting(progress):
        text = _assay.count_robustness(native_model, x, float(epsilon), int(label), lower, upper,
                                       float(step), [int(n) for n in samples], int(seed),
                                       float(confidence), method, int(threads),
                                       float(time_limit), bool(progress))
    return CountResult(_ints(json.loads(text)))


def parse_vnnlib(text, file="<vnnlib>"):
    """Parses VNN-LIB text (declare-const X_i / Y_j, asserts); errors read "file:line:col: ..."."""
    return _assay.vnnlib_parse(text, file)


def load_vnnlib(path):
    return _assay.vnnlib_load(os.fspath(path))


def _vnnlib(prop):
    if isinstance(prop, _assay.VnnProperty):
        return prop, "<vnnlib>"
    if isinstance(prop, os.PathLike) or (isinstance(prop, str) and "(" not in prop):
        return load_vnnlib(prop), os.fspath(prop)
    if isinstance(prop, str):
        return parse_vnnlib(prop), "<vnnlib>"
    raise TypeError(f"vnnlib must be a path, VNN-LIB text or a parsed property, "
                    f"found {type(prop).__name__}")


def count_vnnlib(model, vnnlib, *, time_limit=0.0, max_boxes=0, stop_when_decided=False,
                 samples=10000, confidence=0.999, seed=0, threads=0, bounds="linear",
                 enumerate_limit=4096, html=None, max_memory=None, progress=True):
    """The unsafe share of a VNN-LIB property's input box for a network, by domain splitting
    (``assay count --model net.onnx --vnnlib prop.vnnlib``; docs/count_networks.md).

    model: an ONNX file, an assay network (file or assay.models.Model).
    vnnlib: a .vnnlib path, VNN-LIB text, or a parsed property (load_vnnlib).
    time_limit (seconds, 0 = none) and max_boxes (0 = none) bound the work; with
    stop_when_decided the run ends once the property is decided. Without them the run still ends
    in bounded memory: when the undecided boxes reach max_memory megabytes (default: half the
    memory available at the start) it stops with its certified interval ("stopped_by": "memory
    budget", "stop_message" says which option to raise, and a warning). samples uniform points
    give the statistical estimate (Clopper-Pearson at `confidence`) and early counterexamples.
    Ctrl-C stops the run cleanly and raises KeyboardInterrupt; progress: a bar on a terminal or
    in Jupyter. Returns a ``CountResult`` (a dict): decision ("violated", "holds", "unknown"),
    unsafe {"lower", "upper"} (certified fractions), safe, finished, counterexample (x, y,
    source) or None, boxes, seconds, decision_seconds, stopped_by, sample, trace; on Int domains
    total and unsafe_count as ints.
    html: also write the HTML page (with the chart of the interval against time).
    """
    check_outputs({"html": html}, {"the model": model, "the property": vnnlib})
    prop, name = _vnnlib(vnnlib)
    model_name = os.fspath(model) if isinstance(model, (str, os.PathLike)) else "<model>"
    options = {"time_limit": float(time_limit), "max_boxes": int(max_boxes),
               "stop_when_decided": bool(stop_when_decided), "samples": int(samples),
               "confidence": float(confidence), "seed": int(seed), "threads": int(threads),
               "bounds": str(bounds), "enumerate_limit": int(enumerate_limit),
               "max_memory": max_memory, "progress": bool(progress)}
    native_model = _model(model)
    with reporting(progress):
        text = _assay.count_vnnlib(native_model, prop, options, model_name, name,
                                   "" if html is None else os.fspath(html))
    result = CountResult(json.loads(text))
    if "total" in result:
        result["total"] = int(result["total"])
        result["unsafe_count"] = [int(v) for v in result["unsafe_count"]]
    return result


def network_bounds(model, lower, upper, *, method="linear"):
    """Sound bounds of every output of a ReLU network over the box lower <= x <= upper (one value
    per input): returns (low, high) numpy arrays with low <= network(x) <= high for every x in
    the box, rounding included. method: "linear" (back-substitution) or "interval"."""
    lo = [float(v) for v in np.asarray(lower, dtype=np.float64).ravel()]
    hi = [float(v) for v in np.asarray(upper, dtype=np.float64).ravel()]
    low, high = _assay.count_network_bounds(_model(model), lo, hi, method)
    return np.asarray(low), np.asarray(high)
