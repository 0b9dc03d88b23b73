"""The drawing that ROC and precision-recall displays share: one curve or one per fold, legend
labels with the curve's summary (AUC, AP), a chance level line, a bootstrap band."""
import numpy as np

from ._base import despine as _despine
from ._base import draw_band, style

# One fold curve among many: thin and translucent so the folds read as a spread.
_FOLD_STYLE = {"alpha": 0.5, "linestyle": "--", "color": "tab:blue"}


def as_list(value):
    """A curve's arrays as a list of curves: a list of arrays stays a list; one array (or a
    list of numbers) becomes [array]."""
    if isinstance(value, (list, tuple)) and len(value) and np.ndim(value[0]) >= 1:
        return [np.asarray(v) for v in value]
    return [np.asarray(value)]


def per_curve(value, n):
    """A per-curve setting (name, score, prevalence): a list gives one entry per curve, a
    single value is repeated for the n curves."""
    return list(value) if isinstance(value, (list, tuple)) else [value] * n


def check_lengths(n, **named):
    """ValueError naming the parameter whose list does not hold one entry per curve."""
    for key, value in named.items():
        if isinstance(value, (list, tuple)) and len(value) != n:
            raise ValueError(f"{key} must hold one entry per curve: found {len(value)} for "
                             f"{n} curves")


def label(name, score, metric):
    """'name (AUC = 0.87)', 'AUC = 0.87', 'name' or None, as scikit-learn's legends."""
    if score is not None and name is not None:
        return f"{name} ({metric} = {score:0.2f})"
    if score is not None:
        return f"{metric} = {score:0.2f}"
    return name


def curve_styles(n, names, scores, metric, curve_kwargs):
    """The plot keywords of each of n curves. One dict (or None) styles every curve and, with
    several curves, gives one legend entry: the mean ± SD of the scores. A list gives each
    curve its own keywords and legend entry."""
    if isinstance(curve_kwargs, (list, tuple)):
        if len(curve_kwargs) != n:
            raise ValueError(f"curve_kwargs must be a dict or a list of {n} dicts (one per "
                             f"curve), found a list of {len(curve_kwargs)}")
        return [style({"label": label(names[i], scores[i], metric)}, curve_kwargs[i])
                for i in range(n)]
    if curve_kwargs is not None and not isinstance(curve_kwargs, dict):
        raise TypeError(f"curve_kwargs must be a dict or a list of dicts, found "
                        f"{type(curve_kwargs).__name__}")
    if n == 1:
        return [style({"label": label(names[0], scores[0], metric)}, curve_kwargs)]
    summary = None
    if all(s is not None for s in scores):
        summary = f"{metric} = {np.mean(scores):0.2f} +/- {np.std(scores):0.2f}"
    first = names[0] if len(set(names)) == 1 else None
    text = f"{first} ({summary})" if first and summary else (summary or first)
    common = style(_FOLD_STYLE, curve_kwargs)
    return [dict(common, label=text if i == 0 else "_nolegend_") for i in range(n)]


def draw(display, ax, xs, ys, kwargs_list, drawstyle=None):
    """Plot each curve; line_ is the artist for one curve, the list of artists for several."""
    lines = []
    for x, y, kw in zip(xs, ys, kwargs_list):
        if drawstyle is not None:
            kw = style({"drawstyle": drawstyle}, kw)
        (line,) = ax.plot(x, y, **kw)
        lines.append(line)
    display.line_ = lines[0] if len(lines) == 1 else lines
    return lines


def finish(display, ax, xlabel, ylabel, legend_loc, despine, band_kw):
    """Band (if computed), labels, square [0, 1] axes, legend; sets ax_ and figure_."""
    display.band_ = None
    if getattr(display, "band_lower", None) is not None:
        line = display.line_ if not isinstance(display.line_, list) else display.line_[0]
        display.band_ = draw_band(ax, display.band_x, display.band_lower, display.band_upper,
                                  display.confidence, line, band_kw)
    ax.set(xlabel=xlabel, ylabel=ylabel, xlim=(-0.01, 1.01), ylim=(-0.01, 1.01), aspect="equal")
    if despine:
        _despine(ax)
    handles, labels = ax.get_legend_handles_labels()
    if labels:
        ax.legend(loc=legend_loc)
    display.ax_ = ax
    display.figure_ = ax.figure
    return display


def cv_folds(cv_results, X, y, sample_weight):
    """(X_test, y_test, weights_test, estimator) of each fold of scikit-learn's cross_validate
    output with return_estimator=True and return_indices=True (or a dict with those keys)."""
    required = {"estimator", "indices"}
    if not isinstance(cv_results, dict) or not required <= set(cv_results) or \
            "test" not in cv_results["indices"]:
        raise ValueError("cv_results does not contain one of the following required keys: "
                         "{'estimator', 'indices'} (indices with a 'test' entry): pass "
                         "cross_validate's output with return_estimator=True and "
                         "return_indices=True")
    tests = cv_results["indices"]["test"]
    if len(tests) != len(cv_results["estimator"]):
        raise ValueError("cv_results holds a different number of estimators and test folds")
    n = len(y)
    if sum(len(t) for t in tests) > n or max(int(np.max(t)) for t in tests) >= n:
        raise ValueError("X and y do not match cv_results: a test index is beyond the data")
    yv = np.asarray(y)
    w = None if sample_weight is None else np.asarray(sample_weight)
    for est, test in zip(cv_results["estimator"], tests):
        rows = X.iloc[test] if hasattr(X, "iloc") else np.asarray(X)[test]
        yield rows, yv[test], (None if w is None else w[test]), est
