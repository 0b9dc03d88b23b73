"""What every display shares: matplotlib loaded on first use, the axes to draw on, legend
names, an estimator's scores for the positive class, and pointwise percentile bootstrap bands."""
import numpy as np

from .._assay import AssayError
from .._options import check_probability, check_resamples, check_unsigned


def pyplot(caller):
    """matplotlib.pyplot, imported only when a display draws (so ``import assay`` needs no
    matplotlib); ImportError naming the caller when it is missing, as scikit-learn does."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as error:
        raise ImportError(f"{caller} requires matplotlib. You can install matplotlib with "
                          "`pip install matplotlib` (Debian: apt install python3-matplotlib)"
                          ) from error
    return plt


def axes(ax, caller):
    """ax, or the axes of a new figure."""
    plt = pyplot(caller)
    if ax is None:
        _, ax = plt.subplots()
    return ax


def despine(ax):
    """Hide the top and right spines and keep the bottom and left ones to the [0, 1] range."""
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("bottom", "left"):
        ax.spines[side].set_bounds(0, 1)


def positive_label_suffix(pos_label):
    return "" if pos_label is None else f" (Positive label: {pos_label})"


def check_fitted(estimator):
    """scikit-learn's NotFittedError for an unfitted estimator: scikit-learn's own check when it
    is installed (it knows Pipelines), else "no fitted attribute (a name ending in '_')"."""
    try:
        from sklearn.utils.validation import check_is_fitted
    except ImportError:  # pragma: no cover - scikit-learn is a Debian dependency
        if not any(k.endswith("_") and not k.startswith("__") for k in vars(estimator)):
            raise AssayError(f"This {type(estimator).__name__} instance is not fitted yet. "
                             "Call 'fit' with appropriate arguments before using this "
                             "estimator.") from None
        return
    check_is_fitted(estimator)


def _is_classifier(estimator):
    final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
    return getattr(final, "_estimator_type", None) == "classifier"


def binary_response(estimator, X, response_method, pos_label, caller):
    """(scores of the positive class, pos_label) of a fitted binary classifier, with
    predict_proba's column or decision_function's sign flipped when pos_label is classes_[0];
    response_method='auto' tries predict_proba first."""
    check_fitted(estimator)
    if not _is_classifier(estimator):
        raise ValueError(f"{caller} only supports classifiers")
    classes = np.asarray(estimator.classes_)
    if len(classes) != 2:
        raise ValueError(f"Expected 'estimator' to be a binary classifier. Got {len(classes)} "
                         "classes instead.")
    if pos_label is None:
        pos_label = classes[1].item() if hasattr(classes[1], "item") else classes[1]
    elif pos_label not in classes.tolist():
        raise ValueError(f"pos_label={pos_label!r} is not a valid label: It should be one of "
                         f"{classes.tolist()}")
    methods = ["predict_proba", "decision_function"] if response_method == "auto" else \
        [response_method]
    for name in methods:
        if name not in ("predict_proba", "decision_function"):
            raise ValueError("response_method must be 'predict_proba', 'decision_function' or "
                             f"'auto', found {response_method!r}")
        method = getattr(estimator, name, None)
        if method is None:
            continue
        out = np.asarray(method(X))
        if name == "predict_proba":
            return out[:, classes.tolist().index(pos_label)], pos_label
        return (out if pos_label == classes[1] else -out), pos_label
    raise AttributeError(f"{type(estimator).__name__} has none of the following attributes: "
                         f"{', '.join(methods)}.")


def estimator_name(estimator):
    """The legend name scikit-learn gives an estimator: its class name."""
    return type(estimator).__name__


def check_bootstrap(n_bootstrap, confidence, seed):
    """The band options, checked as every bootstrap option of assay is: n_bootstrap 1..1000000
    (or None: no band), confidence in (0, 1), seed in 0..2**64-1."""
    if n_bootstrap is None:
        return
    if check_resamples(n_bootstrap, "n_bootstrap") == 0:  # the library's limit, one place
        raise AssayError("n_bootstrap: expected a positive number of resamples or None, found 0")
    check_probability(confidence, "confidence")
    check_unsigned(seed, "seed")


def percentile_band(curve_on_grid, y_true, y_score, sample_weight, n_bootstrap, confidence, seed):
    """Pointwise percentile band: the (1-confidence)/2 and (1+confidence)/2 percentiles, at
    each grid point, of curve_on_grid over n_bootstrap resamples of the rows drawn with
    replacement (numpy's default_rng(seed)). A resample that holds one class only has no curve
    and is left out; if every resample is left out the band cannot be drawn."""
    y = np.asarray(y_true)
    s = np.asarray(y_score)
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    rng = np.random.default_rng(seed)
    n = len(y)
    rows = []
    for _ in range(n_bootstrap):
        idx = rng.integers(0, n, n)
        if len(np.unique(y[idx])) < 2:
            continue
        rows.append(curve_on_grid(y[idx], s[idx], None if w is None else w[idx]))
    if not rows:
        raise AssayError("no bootstrap resample holds both classes: the band is undefined")
    tail = 100 * (1 - confidence) / 2
    lower, upper = np.percentile(np.array(rows), [tail, 100 - tail], axis=0)
    return lower, upper


def draw_band(ax, x, lower, upper, confidence, line, band_kw):
    """fill_between in the curve's colour, labelled for the legend."""
    kw = {"alpha": 0.25, "color": line.get_color(), "linewidth": 0,
          "label": f"{confidence:.0%} bootstrap band"}
    kw.update(band_kw or {})
    return ax.fill_between(x, lower, upper, **kw)


_ALIASES = {"c": "color", "ls": "linestyle", "lw": "linewidth", "mec": "markeredgecolor",
            "mfc": "markerfacecolor", "ms": "markersize", "mew": "markeredgewidth",
            "aa": "antialiased", "ec": "edgecolor", "fc": "facecolor"}


def style(defaults, user):
    """defaults overridden by the user's matplotlib keywords, an alias ('c', 'ls', 'lw', ...)
    replacing its full name; TypeError for both spellings of one property, as scikit-learn."""
    user = dict(user or {})
    for short, full in _ALIASES.items():
        if short in user and full in user:
            raise TypeError(f"Got both {short} and {full}, which are aliases of one another")
    out = dict(defaults)
    for key, value in user.items():
        full = _ALIASES.get(key, key)
        for name in (key, full) + tuple(k for k, v in _ALIASES.items() if v == full):
            out.pop(name, None)
        out[key] = value
    return out


def resolved_pos_label(y_true, pos_label):
    """The positive class the curve functions use: pos_label, else 1 when the labels are in
    {0, 1} or {-1, 1} (anything else is refused by the curve function itself)."""
    if pos_label is not None:
        return pos_label
    values = set(np.unique(np.asarray(y_true)).tolist())
    if values <= {0, 1} or values <= {-1, 1}:
        return 1
    return None


def legend_name(name, estimator_name):
    """The display's name from ``name`` or scikit-learn's older spelling ``estimator_name``."""
    if name is not None and estimator_name is not None and name != estimator_name:
        raise ValueError(f"name={name!r} and estimator_name={estimator_name!r} name the same "
                         "thing: pass one")
    return name if name is not None else estimator_name
