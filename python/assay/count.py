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
``run_instances(csv, results=DIR)`` runs a VNN-COMP benchmark (an instances CSV) and writes one
result file per instance (``assay count --instances``).
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
           "spec_inputs", "count_vnnlib", "load_vnnlib", "parse_vnnlib", "network_bounds", "run_instances"]

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
    """Parse .spec text (see docs/count.md).

    Parameters
    ----------
    text : str
        The spec.
    file : str, default="<spec>"
        The name error messages give the text.

    Returns
    -------
    CountSpec
        The parsed spec, for ``count``, ``encode`` and ``spec_inputs``.

    Raises
    ------
    assay.AssayError
        A bad spec; the message reads "file:line:col: message".

    Examples
    --------
    >>> from assay import count
    >>> spec = count.parse_spec("input x[2] : int[0, 3]; truth 1 = x[0] > x[1];")
    >>> count.spec_inputs(spec)
    ['x[0]', 'x[1]']
    """
    return _assay.count_parse_spec(text, file)


def load_spec(path):
    """Read and parse a .spec file (see docs/count.md).

    Parameters
    ----------
    path : str or os.PathLike
        The spec file.

    Returns
    -------
    CountSpec
        The parsed spec.

    Raises
    ------
    assay.AssayError
        A missing file or a bad spec; the message reads "file:line:col: message".

    Examples
    --------
    >>> from assay import count
    >>> _ = open("pair.spec", "w").write("input x[2] : bool; truth 1 = x[0] and x[1];\\n")
    >>> count.spec_inputs(count.load_spec("pair.spec"))
    ['x[0]', 'x[1]']
    """
    return _assay.count_load_spec(str(path))


def spec_inputs(spec):
    """Name the scalar inputs of a spec, in feature order ("x[0]", "x[1]", ...).

    Parameters
    ----------
    spec : str, os.PathLike or CountSpec
        A .spec path, spec text, or a parsed spec (``parse_spec``).

    Returns
    -------
    list of str
        One name per feature of the model.

    Examples
    --------
    >>> from assay import count
    >>> count.spec_inputs("input x[2] : bool; input t : real[-1, 1] step 0.5;")
    ['x[0]', 'x[1]', 't']
    """
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
    """Count a model's outcomes exactly over the whole domain of a spec.

    Exact TP/FP/TN/FN per label, safety S/N and region robustness of ``model`` over the whole
    domain of ``spec``, plus estimates from the test set (``X_test``, ``y_test`` as label
    indices) and from uniform samples of each size in ``samples``. Each count's "guarantee" says
    how it was obtained. Ctrl-C stops the count cleanly and raises KeyboardInterrupt.

    Parameters
    ----------
    model : assay.models.Model, str, os.PathLike or estimator
        An assay.models.Model, a model file, or a fitted scikit-learn estimator.
    spec : str, os.PathLike or CountSpec
        A .spec path, spec text, or a parsed spec (``parse_spec``).
    property : str, default=None
        One predicate (the truth of label 1), safety property or region; None = all.
    samples : sequence of int, default=()
        Sizes of uniform samples of the domain, each giving an estimate.
    seed : int, default=0
        Seed of the samples.
    X_test : array-like of shape (n_samples, n_features), default=None
        A test set, for the estimate it gives.
    y_test : array-like of shape (n_samples,), default=None
        The test set's label indices.
    method : {"auto", "structural", "enumerate", "exact-cnf", "approx", "split"}, default="auto"
        How to count (docs/count.md). "split" (networks: domain splitting with sound bounds)
        stops at ``time_limit`` seconds, ``max_boxes`` boxes or when its undecided boxes reach
        ``max_memory`` megabytes per count, and its counts are then certified bounds.
    confidence : float, default=0.95
        Confidence level of the estimates' intervals.
    threads : int, default=0
        Threads; 0 = all cores.
    time_limit : float, default=0.0
        Seconds per CNF count or "split" count (0 = none; "auto": exact-cnf for this, 60 if 0,
        then approx for this, 60 if 0). Each uniform sample also stops after
        time_limit seconds (when set) with the points drawn so far (its "n" is then below its
        "requested", with a warning).
    epsilon : float, default=0.8
        The approximate CNF count is within a factor 1 + epsilon ...
    delta : float, default=0.2
        ... with probability 1 - delta.
    ambiguity_limit : int, default=100000
        The CNF methods settle at most this many inputs where a fixed-point circuit may
        disagree with the model (beyond: bounds).
    fraction_bits : int, default=0
        CNF encoding of ensembles: fractional bits of leaf values (0 = the fewest that are
        exact, up to 24, else 10 + log2(trees + 1)).
    weight_bits : int, default=12
        CNF encoding of networks: significant bits of quantised weights.
    activation_bits : int, default=12
        CNF encoding of networks: fractional bits of activations.
    max_boxes : int, default=0
        Most boxes of the "split" method (0 = none).
    max_memory : float, default=None
        Megabytes the "split" method's undecided boxes may take. None: half the memory
        available at the start.
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    CountResult
        A dict: the document of ``assay count --json``, with exact counts as Python ints: method,
        domain_size, correct, accuracy, labels (tp, fp, tn, fn, ... per label), safety,
        regions, samples, ...

    Raises
    ------
    assay.AssayError
        A bad spec, a model that does not fit the spec, or bad options.
    KeyboardInterrupt
        Ctrl-C, after the count has stopped cleanly.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from assay import count
    >>> spec = ("input x[2] : int[0, 3]; truth 1 = x[0] + x[1] >= 3; "
    ...         "safety Big = x[0] == 3 => label == 1;")
    >>> X = [[0, 0], [3, 0], [0, 3], [1, 1], [2, 2], [1, 2]]
    >>> model = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, [0, 1, 1, 0, 1, 1])
    >>> result = count.count(model, spec, progress=False)
    >>> result["domain_size"], result["correct"]
    (16, 14)
    >>> [(label["label"], label["tp"], label["fp"]) for label in result["labels"]]
    [('0', 5, 1), ('1', 9, 1)]
    >>> result["safety"][0]["violated"]
    0
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
    """Encode one counting query as a DIMACS CNF (``assay encode``).

    The CNF's projected model count is the number of inputs of the domain that satisfy the
    query.

    Parameters
    ----------
    model : assay.models.Model, str, os.PathLike or estimator
        An assay.models.Model, a model file, or a fitted scikit-learn estimator.
    spec : str, os.PathLike or CountSpec
        A .spec path, spec text, or a parsed spec (``parse_spec``).
    property : str, default=None
        The predicate, safety property or region the query is about.
    query : str, default=None
        "tp", "fp", "tn", "fn", "truth", "predicted" (truths); "satisfied", "violated", "pre"
        (safety); "robust", "not-robust", "region" (regions); None = tp / violated / robust.
    label : int, default=None
        The label index of the truth queries (None = 1 for two labels, else 0).
    out : str or os.PathLike, default=None
        A file to write (".gz" compresses); None returns the DIMACS text as "dimacs".
    fraction_bits : int, default=0
        CNF encoding of ensembles: fractional bits of leaf values (0 = the fewest that are
        exact, up to 24, else 10 + log2(trees + 1)).
    weight_bits : int, default=12
        CNF encoding of networks: significant bits of quantised weights.
    activation_bits : int, default=12
        CNF encoding of networks: fractional bits of activations.

    Returns
    -------
    dict
        Keys query, arithmetic, exact, ambiguous, variables, clauses, xors, projected, inputs (name,
        size and bits of each input), and dimacs (when ``out`` is None).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from assay import count
    >>> spec = ("input x[2] : int[0, 3]; truth 1 = x[0] + x[1] >= 3; "
    ...         "safety Big = x[0] == 3 => label == 1;")
    >>> X = [[0, 0], [3, 0], [0, 3], [1, 1], [2, 2], [1, 2]]
    >>> model = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, [0, 1, 1, 0, 1, 1])
    >>> cnf = count.encode(model, spec, query="tp")
    >>> cnf["query"], cnf["exact"], cnf["projected"]
    ('tp of label 1 (class "1")', True, 4)
    >>> _ = count.encode(model, spec, query="tp", out="tp.cnf")
    >>> count.count_cnf("tp.cnf", progress=False)["count"]  # the exact count's tp of label 1
    9
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
    """Count the projected models of a CNF formula (``assay count --cnf``).

    Ctrl-C raises KeyboardInterrupt.

    Parameters
    ----------
    path_or_clauses : str, os.PathLike or list of list of int
        A DIMACS file (plain or .gz; its ``c ind`` / ``c p show`` lines give the projection) or
        a list of clauses, each a list of non-zero ints (DIMACS literals).
    projection : None, list of int, str or os.PathLike, default=None
        None (the file's, else every variable), a list of variables, or a file of them.
    method : {"auto", "exact-cnf", "approx"}, default="auto"
        "auto" (exact within time_limit, default 60 s, then approximate), "exact-cnf" or
        "approx" (within a factor 1 + epsilon with probability 1 - delta, seeded).
    time_limit : float, default=0.0
        Seconds per count (0 = none; "auto": the exact count for this, 60 if 0, then the
        approximate count for this, none if 0).
    epsilon : float, default=0.8
        Tolerance of the approximate count.
    delta : float, default=0.2
        Failure probability of the approximate count.
    seed : int, default=0
        Seed of the approximate count.
    threads : int, default=0
        Threads; 0 = all cores.
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    CountResult
        A dict with keys count (int), guarantee (method, exact, bounded, epsilon, delta, seed,
        note), bounds ([lower, upper] ints, when bounded), variables, clauses, xors, projected,
        seconds.

    Examples
    --------
    >>> from assay import count
    >>> result = count.count_cnf([[1, 2], [-1, -2]], progress=False)  # x1 xor x2
    >>> result["count"], result["guarantee"]["exact"]
    (2, True)
    >>> count.count_cnf([[1, 2]], projection=[1], progress=False)["count"]
    2
    """
    f, name = _cnf(path_or_clauses, projection)
    with reporting(progress):
        text = _assay.cnf_count(f, method, float(time_limit), float(epsilon), float(delta),
                                int(seed), int(threads), name, bool(progress))
    return CountResult(_ints(json.loads(text)))


def robustness(model, x, epsilon, label, lower, upper, *, step=1.0, samples=(), seed=0,
               confidence=0.95, method="auto", threads=0, time_limit=0.0, progress=True):
    """Measure a model's robustness around a point, exactly.

    The region is every grid point (lower + k*step) within ``epsilon`` of ``x`` in each
    feature, clipped to [lower, upper]. A step so fine that the grid's points are not distinct
    doubles (or more than 9e15 of them per feature) is refused. Ctrl-C raises
    KeyboardInterrupt.

    Parameters
    ----------
    model : assay.models.Model, str, os.PathLike or estimator
        An assay.models.Model, a model file, or a fitted scikit-learn estimator.
    x : array-like of shape (n_features,)
        The centre of the region.
    epsilon : float
        The L-infinity radius.
    label : int
        The class index the points should keep.
    lower : float or array-like of shape (n_features,)
        Lower bound of the domain (a scalar or one value per feature).
    upper : float or array-like of shape (n_features,)
        Upper bound of the domain.
    step : float, default=1.0
        The grid's step.
    samples : sequence of int, default=()
        Sizes of uniform samples of the region, each giving an estimate.
    seed : int, default=0
        Seed of the samples.
    confidence : float, default=0.95
        Confidence level of the estimates' intervals.
    method : str, default="auto"
        How to count, as in ``count``.
    threads : int, default=0
        Threads; 0 = all cores.
    time_limit : float, default=0.0
        Each sample stops after time_limit seconds (0 = none) with the points drawn so far (a
        warning says so).
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    CountResult
        A dict with keys count (points predicted ``label``, exact int), total (region size, exact
        int), robustness (count / total), samples (estimates from uniform samples of the region),
        method, seconds.

    Raises
    ------
    assay.AssayError
        A label that is not an integer, or a grid that is too fine.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from assay import count
    >>> spec = ("input x[2] : int[0, 3]; truth 1 = x[0] + x[1] >= 3; "
    ...         "safety Big = x[0] == 3 => label == 1;")
    >>> X = [[0, 0], [3, 0], [0, 3], [1, 1], [2, 2], [1, 2]]
    >>> model = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, [0, 1, 1, 0, 1, 1])
    >>> result = count.robustness(model, [2, 2], 1, 1, 0, 3, progress=False)
    >>> result["count"], result["total"], round(result["robustness"], 4)
    (7, 9, 0.7778)
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
    """Parse VNN-LIB text (declare-const X_i / Y_j, asserts).

    Parameters
    ----------
    text : str
        The property.
    file : str, default="<vnnlib>"
        The name error messages give the text.

    Returns
    -------
    VnnProperty
        The parsed property, for ``count_vnnlib``.

    Raises
    ------
    assay.AssayError
        A bad property; the message reads "file:line:col: ...".

    Examples
    --------
    >>> from assay import count
    >>> prop = count.parse_vnnlib("(declare-const X_0 Real) (declare-const Y_0 Real) "
    ...                           "(assert (>= X_0 0.0)) (assert (<= X_0 1.0)) "
    ...                           "(assert (< Y_0 0.0))")
    >>> type(prop).__name__
    'VnnProperty'
    """
    return _assay.vnnlib_parse(text, file)


def load_vnnlib(path):
    """Read and parse a VNN-LIB file.

    Parameters
    ----------
    path : str or os.PathLike
        The .vnnlib file.

    Returns
    -------
    VnnProperty
        The parsed property, for ``count_vnnlib``.

    Raises
    ------
    assay.AssayError
        A missing file or a bad property; the message reads "file:line:col: ...".

    Examples
    --------
    >>> from assay import count
    >>> _ = open("p.vnnlib", "w").write("(declare-const X_0 Real) (declare-const Y_0 Real) "
    ...                                 "(assert (>= X_0 0.0)) (assert (<= X_0 1.0)) "
    ...                                 "(assert (< Y_0 0.0))")
    >>> type(count.load_vnnlib("p.vnnlib")).__name__
    'VnnProperty'
    """
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
    """Certify the unsafe share of a VNN-LIB property's input box for a network.

    By domain splitting (``assay count --model net.onnx --vnnlib prop.vnnlib``;
    docs/count_networks.md). Without ``time_limit``, ``max_boxes`` or ``stop_when_decided`` the
    run still ends in bounded memory: when the undecided boxes reach ``max_memory`` megabytes it
    stops with its certified interval ("stopped_by": "memory budget", "stop_message" says which
    option to raise, and a warning). Ctrl-C stops the run cleanly and raises KeyboardInterrupt.

    Parameters
    ----------
    model : str, os.PathLike or assay.models.Model
        An ONNX file, an assay network (file or assay.models.Model).
    vnnlib : str, os.PathLike or VnnProperty
        A .vnnlib path, VNN-LIB text, or a parsed property (``load_vnnlib``).
    time_limit : float, default=0.0
        Seconds (0 = none).
    max_boxes : int, default=0
        Most boxes (0 = none).
    stop_when_decided : bool, default=False
        End the run once the property is decided.
    samples : int, default=10000
        Uniform points for the statistical estimate and early counterexamples.
    confidence : float, default=0.999
        Confidence level of the estimate (Clopper-Pearson).
    seed : int, default=0
        Seed of the samples.
    threads : int, default=0
        Threads; 0 = all cores.
    bounds : str, default="linear"
        The bounds of each box: "linear" (back-substitution) or "interval".
    enumerate_limit : int, default=4096
        Integer boxes of at most this many points are enumerated instead of split.
    html : str or os.PathLike, default=None
        Also write the HTML page (with the chart of the interval against time).
    max_memory : float, default=None
        Megabytes the undecided boxes may take. None: half the memory available at the start.
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    CountResult
        A dict with keys decision ("violated", "holds", "unknown"), unsafe {"lower", "upper"}
        (certified fractions), safe, finished, counterexample (x, y, source) or None, boxes,
        seconds, decision_seconds, stopped_by, sample, trace; on Int domains total and unsafe_count
        as ints.

    Examples
    --------
    >>> import torch
    >>> from assay import count, models
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 2))
    >>> with torch.no_grad():
    ...     for layer in (net[0], net[2]):
    ...         _ = layer.weight.copy_(torch.eye(2)), layer.bias.zero_()
    >>> network = models.from_torch(net)
    >>> prop = ("(declare-const X_0 Real) (declare-const X_1 Real) (declare-const Y_0 Real) "
    ...         "(declare-const Y_1 Real) (assert (>= X_0 0.0)) (assert (<= X_0 1.0)) "
    ...         "(assert (>= X_1 0.0)) (assert (<= X_1 1.0)) (assert (>= Y_1 Y_0))")
    >>> result = count.count_vnnlib(network, prop, max_boxes=200, samples=100, progress=False)
    >>> result["decision"], result["stopped_by"]
    ('violated', 'max boxes')
    >>> result["unsafe"]["lower"] <= 0.5 <= result["unsafe"]["upper"]
    True
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
    """Compute sound bounds of every output of a ReLU network over a box.

    Parameters
    ----------
    model : str, os.PathLike or assay.models.Model
        The network (an ONNX file, an assay network file or an assay.models.Model).
    lower : array-like of shape (n_inputs,)
        The box's lower corner.
    upper : array-like of shape (n_inputs,)
        The box's upper corner.
    method : {"linear", "interval"}, default="linear"
        Back-substitution ("linear") or interval arithmetic.

    Returns
    -------
    low : numpy.ndarray of shape (n_outputs,)
        Lower bounds: low <= network(x) for every x in the box, rounding included.
    high : numpy.ndarray of shape (n_outputs,)
        Upper bounds: network(x) <= high for every x in the box, rounding included.

    Examples
    --------
    >>> import torch
    >>> from assay import count, models
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 2))
    >>> with torch.no_grad():
    ...     for layer in (net[0], net[2]):
    ...         _ = layer.weight.copy_(torch.eye(2)), layer.bias.zero_()
    >>> network = models.from_torch(net)
    >>> low, high = count.network_bounds(network, [0, 0], [1, 2])
    >>> high
    array([1., 2.])
    >>> bool((low <= 0).all() and (low > -1e-9).all())
    True
    """
    lo = [float(v) for v in np.asarray(lower, dtype=np.float64).ravel()]
    hi = [float(v) for v in np.asarray(upper, dtype=np.float64).ravel()]
    low, high = _assay.count_network_bounds(_model(model), lo, hi, method)
    return np.asarray(low), np.asarray(high)


def run_instances(csv, results=None, *, time_limit=0.0, max_boxes=0, samples=10000, seed=0,
                  threads=0, bounds="linear", max_memory=None, csv_out=None, progress=True):
    """Run a VNN-COMP benchmark: every instance of an instances CSV, by domain splitting.

    ``assay count --instances CSV --results DIR`` (docs/count_vnncomp.md). The CSV has rows
    ``network,property,time limit`` without a header, paths relative to its folder. Every
    network (each once) and property is read and checked before the first instance runs. Each
    instance runs until decided or its time limit (capped by ``time_limit``); its result file
    ``<network stem>_<property stem>.txt`` in ``results`` says ``sat`` (with the counterexample,
    confirmed by a forward pass), ``unsat``, ``timeout`` or ``unknown``.

    Parameters
    ----------
    csv : str or os.PathLike
        The instances CSV.
    results : str or os.PathLike, default=None
        Folder of the result files (created when missing); None writes none.
    time_limit : float, default=0.0
        Cap on every row's time limit in seconds (0 = the rows' own limits).
    max_boxes : int, default=0
        Most boxes per instance (0 = none).
    samples : int, default=10000
        Uniform points drawn first per instance (early counterexamples).
    seed : int, default=0
        Seed of the samples.
    threads : int, default=0
        Threads; 0 = all cores.
    bounds : str, default="linear"
        The bounds of each box: "linear" or "interval".
    max_memory : float, default=None
        Megabytes the undecided boxes of one instance may take. None: half the memory available.
    csv_out : str or os.PathLike, default=None
        Also write the summary as CSV.
    progress : bool, default=True
        A progress bar while it runs (on a terminal's stderr, or in Jupyter).

    Returns
    -------
    CountResult
        The document of ``assay count --instances --json``: counts {"sat", "unsat", "timeout",
        "unknown", "error", "not run", "decided"}, rows (one dict per instance: line, network,
        property, result, seconds, unsafe {"lower", "upper"}, message, result_file,
        counterexample {"x", "y"} or None), seconds, interrupted.

    Raises
    ------
    assay.AssayError
        A bad CSV ("file:line:col: ..."), a network or property that cannot be read or whose
        input count differs from the other's ("file:line: ..."), or a result file that would
        replace an input.

    Examples
    --------
    >>> from assay import count
    >>> _ = open("net.json", "w").write(
    ...     '{"format": "assay-model", "version": 1, "kind": "network", "task": "regression",'
    ...     ' "n_features": 1, "n_outputs": 1, "layers": [{"activation": "identity",'
    ...     ' "weights": [[1.0]], "bias": [0.0]}]}')
    >>> _ = open("p.vnnlib", "w").write(
    ...     "(declare-const X_0 Real) (declare-const Y_0 Real) (assert (>= X_0 0))"
    ...     " (assert (<= X_0 1)) (assert (>= Y_0 2))")
    >>> _ = open("bench.csv", "w").write("net.json,p.vnnlib,5\\n")
    >>> r = count.run_instances("bench.csv", results="out", progress=False)
    >>> r["rows"][0]["result"], open("out/net_p.txt").read()
    ('unsat', 'unsat\\n')
    """
    check_outputs({"csv_out": csv_out}, {"the instances file": csv})
    options = {"max_boxes": int(max_boxes), "samples": int(samples), "seed": int(seed),
               "threads": int(threads), "bounds": str(bounds), "max_memory": max_memory,
               "progress": bool(progress)}
    with reporting(progress):
        text = _assay.count_run_instances(
            os.fspath(csv), "" if results is None else os.fspath(results), float(time_limit),
            options, "" if csv_out is None else os.fspath(csv_out))
    return CountResult(json.loads(text))
