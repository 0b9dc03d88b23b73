"""Models that assay can count over: decision trees, tree ensembles, dense ReLU networks.

``from_sklearn(est)`` exports a fitted scikit-learn estimator (DecisionTreeClassifier /
Regressor, RandomForestClassifier, GradientBoostingClassifier / Regressor, MLPClassifier) to the
versioned assay JSON model format (docs/count.md); ``from_xgboost(booster)`` and ``load(path)``
read xgboost's own JSON models (``Booster.save_model("m.json")``); ``from_torch(module)`` exports
a PyTorch ``nn.Sequential`` of Linear / ReLU layers (when Debian's python3-torch is installed). Loaded models predict exactly as
the original library does, including on inputs that lie exactly on a split threshold.

A Model pickles (``pickle``, ``joblib``, ``copy.deepcopy``): its state is the JSON document and
``PICKLE_FORMAT_VERSION``, and unpickling rebuilds the compiled model from the document, so it
predicts bit-identically. A pickle of another format version is an ``AssayError`` naming both.
"""
import json
import os

import numpy as np

from . import _assay
from . import _sklearn_pipeline
from ._assay import AssayError, __version__

__all__ = ["Model", "from_sklearn", "from_torch", "from_xgboost", "save", "load"]

FORMAT_VERSION = 1
#: Version of the state a pickled Model holds (see Model.__getstate__).
PICKLE_FORMAT_VERSION = 1


def _not_fitted_error_class():
    # scikit-learn's own class when it is installed (imported only here: `import assay` stays
    # fast); otherwise one with its name and bases, so `except ValueError` / `AttributeError`
    # and hasattr() behave alike.
    try:
        from sklearn.exceptions import NotFittedError as cls
    except ImportError:
        class NotFittedError(ValueError, AttributeError):
            """Raised when an empty assay.models.Model is used (scikit-learn's semantics)."""
        cls = NotFittedError
    return cls


def __getattr__(name):
    if name == "NotFittedError":  # assay.models.NotFittedError, resolved on first use
        return _not_fitted_error_class()
    raise AttributeError(f"module 'assay.models' has no attribute {name!r}")


_MODEL_STATE = ("doc", "native", "_info", "classes_")


class Model:
    """A model in assay's representation.

    ``doc`` is the JSON document (assay format, or an xgboost JSON model as xgboost wrote it);
    ``native`` the compiled model used for prediction and counting. ``Model()`` without a
    document holds no model: using it raises scikit-learn's ``NotFittedError`` (a ValueError and
    an AttributeError), as an unfitted estimator does. Build models with ``from_sklearn``,
    ``from_xgboost``, ``from_torch`` or ``load``.

    A Model pickles (``pickle``, ``joblib``, ``copy.deepcopy``): its state is the JSON document
    and ``PICKLE_FORMAT_VERSION``, and unpickling rebuilds the compiled model from the document,
    so it predicts bit-identically.

    Parameters
    ----------
    doc : dict, default=None
        The JSON document. None (with ``native`` None): an empty Model.
    where : str, default="model"
        What error messages call the document (e.g. its file name).
    native : object, default=None
        The compiled model, when the caller has already built it from ``doc``.

    Attributes
    ----------
    doc : dict
        The JSON document.
    native : object
        The compiled model.
    classes_ : numpy.ndarray
        The class labels of a classifier.

    Raises
    ------
    assay.AssayError
        A document that is not a valid model (the message names ``where``).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from assay import models
    >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
    >>> model = models.from_sklearn(tree)
    >>> model
    Model(kind='tree', task='classification', n_features=2, n_parameters=6)
    >>> model.classes_
    array(['no', 'yes'], dtype='<U3')
    >>> models.Model()
    Model(not fitted)
    """

    def __init__(self, doc=None, where="model", native=None):
        if doc is None and native is None:
            return  # empty: every use raises NotFittedError (see __getattr__)
        self.doc = doc
        if native is None and doc.get("format") == "onnx-graph":
            native = _assay.count_load_onnx(doc["path"])  # unpickled: read the file again
        self.native = (native if native is not None
                       else _assay.count_parse_model(json.dumps(doc), where))
        self._info = json.loads(_assay.count_model_info(self.native))
        classes = doc.get("classes") if doc.get("format") == "assay-model" else None
        self.classes_ = np.asarray(classes if classes else self._info["classes"])

    def __getattr__(self, name):
        # Runs only for attributes that are not set: the state of an empty Model (Model(), or
        # Model.__new__(Model) as some tools build objects), and the properties reading it
        # (Python retries a property whose getter raised an AttributeError here).
        if name in _MODEL_STATE or isinstance(getattr(type(self), name, None), property):
            raise _not_fitted_error_class()(
                "This assay.models.Model instance holds no model yet: build it with "
                "assay.models.from_sklearn, from_xgboost, from_torch or load (or Model(doc)) "
                "before using it.")
        raise AttributeError(f"'Model' object has no attribute {name!r}")

    @property
    def n_features(self):
        """Number of input features.

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from assay import models
        >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
        >>> model = models.from_sklearn(tree)
        >>> model.n_features
        2
        """
        return self._info["n_features"]

    @property
    def kind(self):
        """Kind of model: "tree", "forest", "boosted", "network" or "graph".

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from assay import models
        >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
        >>> model = models.from_sklearn(tree)
        >>> model.kind
        'tree'
        """
        return self._info["kind"]

    def info(self):
        """Describe the model.

        Returns
        -------
        dict
            Kind, task, inputs, outputs, trees/nodes/leaves or layer sizes, parameter count.

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from assay import models
        >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
        >>> model = models.from_sklearn(tree)
        >>> info = model.info()
        >>> info["task"], info["n_nodes"], info["n_leaves"], info["max_depth"]
        ('classification', 3, 2, 1)
        """
        return dict(self._info)

    def predict_index(self, X):
        """Predict the label index (0..n_classes-1) of each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.

        Returns
        -------
        numpy.ndarray of shape (n_samples,)
            The index of each row's predicted class in ``classes_``.

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from assay import models
        >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
        >>> model = models.from_sklearn(tree)
        >>> model.predict_index([[0.9, 0.2], [0.1, 0.3]])
        array([1, 0]...)
        """
        return _assay.count_predict_label(self.native, _as_2d(X))

    def predict(self, X):
        """Predict the labels (the original classes) of a classifier, the values of a regressor.

        Loaded models predict exactly as the original library does, including on inputs that lie
        exactly on a split threshold.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.

        Returns
        -------
        numpy.ndarray of shape (n_samples,)
            The predicted labels or values.

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from assay import models
        >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
        >>> model = models.from_sklearn(tree)
        >>> model.predict([[0.9, 0.2], [0.1, 0.3]])
        array(['yes', 'no'], dtype='<U3')
        """
        X = _as_2d(X)
        if self._info["task"] == "regression":
            return self.predict_scores(X)[:, 0]
        return self.classes_[self.predict_index(X)]

    def predict_scores(self, X):
        """Compute the scores of each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The inputs.

        Returns
        -------
        numpy.ndarray of shape (n_samples, n_outputs)
            Class fractions (trees, forests), margins (boosting) or network outputs.

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from assay import models
        >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
        >>> model = models.from_sklearn(tree)
        >>> model.predict_scores([[0.9, 0.2]])
        array([[0., 1.]])
        """
        return _assay.count_predict_scores(self.native, _as_2d(X))

    def to_json(self):
        """Return the model's JSON document as text.

        Returns
        -------
        str
            The document, as ``save`` writes it (without its indentation).

        Examples
        --------
        >>> from sklearn.tree import DecisionTreeClassifier
        >>> from assay import models
        >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
        >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
        >>> model = models.from_sklearn(tree)
        >>> import json
        >>> document = json.loads(model.to_json())
        >>> document["format"], document["kind"]
        ('assay-model', 'tree')
        """
        _refuse_graph_json(self)
        return json.dumps(self.doc)

    def __getstate__(self):
        # The compiled model is rebuilt from the document; the version guards the layout.
        return {"format_version": PICKLE_FORMAT_VERSION, "assay_version": __version__,
                "doc": self.__dict__.get("doc")}

    def __setstate__(self, state):
        version = state.get("format_version") if isinstance(state, dict) else None
        if version != PICKLE_FORMAT_VERSION:
            by = state.get("assay_version", "unknown") if isinstance(state, dict) else "unknown"
            raise AssayError(
                f"this assay.models.Model was pickled in format version {version} (by assay "
                f"{by}); this assay {__version__} reads format version {PICKLE_FORMAT_VERSION} "
                f"only: export the model again with this assay, or unpickle it with assay {by}")
        self.__init__(state["doc"], where="pickled assay.models.Model")

    def __repr__(self):
        if "_info" not in self.__dict__:
            return "Model(not fitted)"
        i = self._info
        return (f"Model(kind={i['kind']!r}, task={i['task']!r}, n_features={i['n_features']}, "
                f"n_parameters={i['n_parameters']})")


def _refuse_graph_json(model):
    if model.doc.get("format") == "onnx-graph":
        raise AssayError(f"{model.doc['path']}: a graph network (convolutions, pooling, skip "
                         "connections) has no assay JSON form; it is read from its ONNX file")


def _as_2d(X):
    return np.ascontiguousarray(np.asarray(X, dtype=np.float64))


def _tree_arrays(tree, classification):
    t = tree.tree_
    if t.n_outputs != 1:
        raise AssayError(f"multi-output trees are not supported (found {t.n_outputs} outputs)")
    leaf = t.children_left < 0
    feature = np.where(leaf, 0, t.feature).astype(int)
    threshold = np.where(leaf, 0.0, t.threshold)
    value = t.value[:, 0, :]
    return {
        "feature": feature.tolist(),
        "threshold": [float(v) for v in threshold],
        "left": t.children_left.astype(int).tolist(),
        "right": t.children_right.astype(int).tolist(),
        "value": value.tolist(),
    }


def _header(kind, task, source, n_features, n_outputs, classes):
    return {
        "format": "assay-model",
        "version": FORMAT_VERSION,
        "kind": kind,
        "task": task,
        "source": source,
        "n_features": int(n_features),
        "n_outputs": int(n_outputs),
        "classes": classes,
    }


def _classes(est):
    return [c.item() if hasattr(c, "item") else c for c in est.classes_]


def from_sklearn(est):
    """Export a fitted scikit-learn estimator to an assay Model.

    Supported: DecisionTreeClassifier / Regressor, RandomForestClassifier,
    GradientBoostingClassifier / Regressor, MLPClassifier and LogisticRegression, in the versioned
    assay JSON model format (docs/count.md), and a Pipeline of StandardScaler, MinMaxScaler
    (clip=False) and MaxAbsScaler steps (or "passthrough") in front of one of them: the scalers
    are folded into the model (into the first layer of a network or LogisticRegression; into the
    split thresholds of trees, which then compare the raw input, so that predictions and counts
    equal the pipeline's including its float32 rounding of the scaled features).

    A LogisticRegression becomes a network of one identity layer whose outputs are its
    ``decision_function``: label = argmax for three or more classes (``multi_class`` "ovr" or
    "multinomial" alike, as ``predict`` does), and for two classes the outputs are
    ``[0, decision]``, so label 1 iff the decision is > 0, as ``predict`` says.

    Parameters
    ----------
    est : estimator
        The fitted estimator or Pipeline.

    Returns
    -------
    Model
        The model; it predicts as the estimator does.

    Raises
    ------
    assay.AssayError
        An unsupported or unfitted estimator, or a Pipeline step that is not a supported scaler
        (the message names the step).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from assay import models
    >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
    >>> model = models.from_sklearn(tree)
    >>> bool((model.predict(X) == tree.predict(X)).all())
    True
    """
    if type(est).__name__ == "Pipeline":
        return _from_pipeline(est)
    doc = _estimator_doc(est)
    return Model(doc, where=type(est).__name__)


def _from_pipeline(pipe):
    transforms, final = _sklearn_pipeline.check_steps(pipe)
    doc = _estimator_doc(final)
    if transforms:
        if doc["kind"] == "network":
            _sklearn_pipeline.fold_into_network(doc, transforms)
        else:
            _sklearn_pipeline.fold_into_trees(doc, transforms)
    names = [type(s).__name__ for _, s in transforms] + [type(final).__name__]
    doc["source"] = f"sklearn.pipeline.Pipeline({', '.join(names)})"
    return Model(doc, where="Pipeline")


def _logistic_regression_doc(est, source, d):
    classes = _classes(est)
    W = np.asarray(est.coef_, dtype=float)
    b = np.broadcast_to(np.asarray(est.intercept_, dtype=float), (W.shape[0],))
    if W.shape[0] == 1:
        # predict: classes_[decision > 0]. As outputs [0, decision], argmax (ties to the first)
        # picks label 1 exactly when decision > 0.
        W = np.vstack([np.zeros_like(W), W])
        b = np.array([0.0, b[0]])
    doc = _header("network", "classification", source, d, W.shape[0], classes)
    doc["layers"] = [{"weights": W.tolist(), "bias": b.tolist(), "activation": "identity"}]
    return doc


def _estimator_doc(est):
    name = type(est).__name__
    source = f"{type(est).__module__.split('._')[0]}.{name}"
    if not hasattr(est, "n_features_in_"):
        raise AssayError(f"{name} is not fitted (no n_features_in_)")
    d = est.n_features_in_
    if name in ("DecisionTreeClassifier", "DecisionTreeRegressor"):
        clf = name.endswith("Classifier")
        classes = _classes(est) if clf else []
        doc = _header("tree", "classification" if clf else "regression", source, d,
                      len(classes) if clf else 1, classes)
        doc.update(split_rule="<=", input_float32=True, trees=[_tree_arrays(est, clf)])
    elif name == "RandomForestClassifier":
        classes = _classes(est)
        doc = _header("forest", "classification", source, d, len(classes), classes)
        doc.update(split_rule="<=", input_float32=True, aggregation="average",
                   trees=[_tree_arrays(t, True) for t in est.estimators_])
    elif name in ("GradientBoostingClassifier", "GradientBoostingRegressor"):
        clf = name.endswith("Classifier")
        loss = getattr(est, "loss", "")
        if clf and loss not in ("log_loss", "deviance"):
            raise AssayError(f"GradientBoostingClassifier with loss={loss!r} is not supported "
                             "(only log_loss)")
        if not clf and loss != "squared_error":
            raise AssayError(f"GradientBoostingRegressor with loss={loss!r} is not supported "
                             "(only squared_error)")
        base = est._raw_predict_init(np.zeros((1, d), dtype=np.float32))[0]
        K = est.estimators_.shape[1]
        classes = _classes(est) if clf else []
        link = "identity" if not clf else ("logistic" if K == 1 else "softmax")
        doc = _header("boosted", "classification" if clf else "regression", source, d, K, classes)
        trees = []
        for stage in est.estimators_:
            for k, t in enumerate(stage):
                arrays = _tree_arrays(t, False)
                arrays.update(output=k, scale=float(est.learning_rate))
                trees.append(arrays)
        doc.update(split_rule="<=", input_float32=True, link=link,
                   base=[float(b) for b in base], sum_float32=False, logistic_rule="p>1-p",
                   trees=trees)
    elif name == "LogisticRegression":
        doc = _logistic_regression_doc(est, source, d)
    elif name == "MLPClassifier":
        if est.activation not in ("relu", "identity", "logistic"):
            raise AssayError(f"MLPClassifier with activation={est.activation!r} is not supported "
                             "(relu, identity, logistic)")
        if est.out_activation_ == "logistic" and est.coefs_[-1].shape[1] > 1:
            raise AssayError("multilabel MLPClassifier is not supported (one label per input is "
                             "counted; this network predicts several independent labels)")
        classes = _classes(est)
        layers = []
        n = len(est.coefs_)
        for i, (W, b) in enumerate(zip(est.coefs_, est.intercepts_)):
            act = est.out_activation_ if i == n - 1 else est.activation
            layers.append({"weights": np.asarray(W).T.tolist(), "bias": np.asarray(b).tolist(),
                           "activation": act})
        doc = _header("network", "classification", source, d, est.coefs_[-1].shape[1], classes)
        doc["layers"] = layers
    else:
        raise AssayError(
            f"unsupported model type {source} (supported: DecisionTreeClassifier, "
            "DecisionTreeRegressor, RandomForestClassifier, GradientBoostingClassifier, "
            "GradientBoostingRegressor, MLPClassifier, LogisticRegression, and Pipelines of "
            "scalers before them)")
    return doc


def from_torch(module, classes=None):
    """Export a PyTorch ``nn.Sequential`` of ``Linear`` and ``ReLU`` layers to an assay Model.

    The sequence may start with ``Flatten`` and end with ``Sigmoid`` / ``Softmax``. The
    network's outputs are class scores: with K >= 2 outputs the label is the argmax (first
    maximum); with one output the label is 1 iff the output is > 0 (a logit; exported with a
    logistic output, so the scores are sigmoid probabilities) or > 0.5 after a final Sigmoid.
    Weights are widened from float32 to float64, so scores agree with torch's to float32
    precision and labels agree except on inputs within rounding of a decision boundary. Needs
    PyTorch (Debian's python3-torch).

    Parameters
    ----------
    module : torch.nn.Sequential
        The network.
    classes : sequence, default=None
        The labels. None: 0..K-1 (0, 1 for one output).

    Returns
    -------
    Model
        A "network" model.

    Raises
    ------
    assay.AssayError
        PyTorch is missing, or a layer other than those above.

    Examples
    --------
    >>> import torch
    >>> from assay import models
    >>> net = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    >>> with torch.no_grad():
    ...     for layer in (net[0], net[2]):
    ...         _ = layer.weight.fill_(0.5), layer.bias.zero_()
    ...     net[2].bias[1] = 1.0
    >>> model = models.from_torch(net, classes=["cat", "dog"])
    >>> model.kind, model.n_features
    ('network', 2)
    >>> model.predict([[1.0, 2.0]])
    array(['dog'], dtype='<U3')
    """
    try:
        import torch
    except ImportError:
        raise AssayError("from_torch needs PyTorch (Debian: apt-get install python3-torch)")
    if not isinstance(module, torch.nn.Sequential):
        raise AssayError(f"from_torch expects torch.nn.Sequential, found {type(module).__name__}")
    layers, children = [], list(module.children())
    for i, child in enumerate(children):
        kind = type(child).__name__
        last = i == len(children) - 1
        if isinstance(child, torch.nn.Linear):
            W = child.weight.detach().cpu().double().numpy()
            b = (child.bias.detach().cpu().double().numpy() if child.bias is not None
                 else np.zeros(W.shape[0]))
            layers.append({"weights": W.tolist(), "bias": b.tolist(), "activation": "identity"})
        elif isinstance(child, torch.nn.Flatten) and not layers:
            continue
        elif isinstance(child, torch.nn.Identity):
            continue
        elif isinstance(child, (torch.nn.ReLU, torch.nn.Sigmoid, torch.nn.Softmax)) and layers:
            act = {"ReLU": "relu", "Sigmoid": "logistic", "Softmax": "softmax"}[kind]
            if act != "relu" and not last:
                raise AssayError(f"layer {i} ({kind}) is only supported as the last layer")
            if layers[-1]["activation"] != "identity":
                raise AssayError(f"layer {i} ({kind}): two activations in a row")
            layers[-1]["activation"] = act
        else:
            raise AssayError(f"layer {i} ({kind}) is not supported: expected Linear, ReLU "
                             "(hidden), Flatten (first), Sigmoid or Softmax (last)")
    if not layers:
        raise AssayError("from_torch: the network has no Linear layer")
    if layers[-1]["activation"] == "relu":
        raise AssayError("from_torch: a ReLU on the output layer is not supported (scores "
                         "must be logits, probabilities or a softmax)")
    n_out = len(layers[-1]["bias"])
    if n_out == 1 and layers[-1]["activation"] == "identity":
        layers[-1]["activation"] = "logistic"  # logit > 0  <=>  sigmoid(logit) > 0.5
    if classes is None:
        classes = [0, 1] if n_out == 1 else list(range(n_out))
    classes = [c.item() if hasattr(c, "item") else c for c in classes]
    if len(classes) != (2 if n_out == 1 else n_out):
        raise AssayError(f"classes has {len(classes)} labels, expected "
                         f"{2 if n_out == 1 else n_out} for {n_out} output(s)")
    n_in = len(layers[0]["weights"][0])
    doc = _header("network", "classification", "torch.nn.Sequential", n_in, n_out, classes)
    doc["layers"] = layers
    return Model(doc, where="torch.nn.Sequential")


def from_xgboost(booster):
    """Convert an xgboost Booster or XGBModel to an assay Model.

    The booster is read through xgboost's own JSON format.

    Parameters
    ----------
    booster : xgboost.Booster or xgboost.XGBModel
        The trained booster (or a scikit-learn style xgboost model).

    Returns
    -------
    Model
        A "boosted" model.

    Examples
    --------
    >>> import xgboost
    >>> from assay import models
    >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    >>> booster = xgboost.XGBClassifier(n_estimators=2, max_depth=2).fit(X, [0, 0, 1, 1])
    >>> model = models.from_xgboost(booster)
    >>> model.kind
    'boosted'
    """
    if hasattr(booster, "get_booster"):
        booster = booster.get_booster()
    raw = booster.save_raw(raw_format="json")
    return Model(json.loads(bytes(raw).decode()), where="xgboost booster")


def save(model, path):
    """Write the model's JSON document to a file.

    The file is written atomically: a failure leaves no partial file.

    Parameters
    ----------
    model : Model
        The model.
    path : str or os.PathLike
        The file to write.

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from assay import models
    >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
    >>> model = models.from_sklearn(tree)
    >>> models.save(model, "tree.json")
    >>> models.load("tree.json").predict([[0.9, 0.2]])
    array(['yes'], dtype='<U3')
    """
    _refuse_graph_json(model)
    _assay._write_file_atomic(os.fspath(path), json.dumps(model.doc, indent=1).encode())


def _is_onnx(path):
    # By content, as the CLI does: JSON text starts with "{" (after spaces), an ONNX model with
    # the tag byte of its ir_version field; the ".onnx" name decides only when neither shows.
    try:
        with open(path, "rb") as f:
            head = f.read(64).lstrip(b" \t\r\n")
    except OSError:
        head = b""  # a folder or a missing file: the loader gives the message
    if head[:1] in (b"{", b"["):
        return False
    return head[:1] == b"\x08" or str(path).lower().endswith(".onnx")


def load(path):
    """Read an assay JSON model, an xgboost JSON model or an ONNX network.

    The format is recognised by content, whatever the file's name; an ONNX network is imported
    as dense layers, or as a graph network (kind "graph") when it has convolutions, pooling or
    skip connections (docs/count_networks.md).

    Parameters
    ----------
    path : str or os.PathLike
        The model file.

    Returns
    -------
    Model
        The model.

    Raises
    ------
    assay.AssayError
        An unreadable or invalid model; the message names the file (and line:col for JSON).

    Examples
    --------
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from assay import models
    >>> X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    >>> tree = DecisionTreeClassifier(random_state=0).fit(X, ["no", "no", "yes", "yes"])
    >>> model = models.from_sklearn(tree)
    >>> models.save(model, "tree.json")
    >>> models.load("tree.json")
    Model(kind='tree', task='classification', n_features=2, n_parameters=6)
    """
    if _is_onnx(path):
        native = _assay.count_load_onnx(str(path))
        if json.loads(_assay.count_model_info(native))["kind"] == "graph":
            return Model({"format": "onnx-graph", "path": str(path)}, where=str(path),
                         native=native)  # a graph network has no assay JSON form
        return Model(json.loads(_assay.count_model_to_json(native)), where=str(path),
                     native=native)
    native = _assay.count_load_model(str(path))  # errors name the file (line:col for bad JSON)
    with open(path) as f:
        doc = json.load(f)
    return Model(doc, where=str(path), native=native)
