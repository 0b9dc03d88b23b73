"""scikit-learn Pipelines for assay.models.from_sklearn: feature scalers in front of a supported
estimator, folded into the exported model so that it predicts as the whole pipeline does.

- Networks and LogisticRegression: every supported scaler is an affine map per feature,
  z_j = a_j x_j + b_j, so it folds into the first layer (weights times a, bias plus W b). The
  scores then differ from the pipeline's by rounding only (as BLAS sums in another order do).
- Trees, forests, boosted ensembles: scikit-learn rounds the *scaled* feature to float32 before
  comparing it with a split threshold t. Scaling and rounding are monotone (each step is a
  correctly rounded operation with a positive factor), so the inputs x that go left, those with
  float32(scale(x)) <= t, are exactly the doubles x <= x*, where x* is the largest double that
  goes left. x* is found by bisection over the ordered doubles, evaluating the scalers with
  scikit-learn's own operations in its order, and the exported trees compare x itself
  (input_float32 false): every prediction, and so every count, equals the pipeline's.
"""
import numpy as np

from ._assay import AssayError

# Scalers whose transform is z_j = a_j x_j + b_j with a_j > 0, per feature.
SCALERS = ("StandardScaler", "MinMaxScaler", "MaxAbsScaler")
_DBL_MAX = np.finfo(np.float64).max


def _step_name(name, step):
    return f"step {name!r} ({type(step).__name__})"


def check_steps(pipe):
    """The transforming steps of `pipe` (passthrough steps dropped) and its final estimator;
    raises AssayError naming the first step that is not a supported scaler."""
    steps = list(pipe.steps)
    transforms = []
    for name, step in steps[:-1]:
        if step is None or (isinstance(step, str) and step == "passthrough"):
            continue
        kind = type(step).__name__
        if kind not in SCALERS:
            raise AssayError(
                f"Pipeline {_step_name(name, step)} is not supported: assay folds "
                f"{', '.join(SCALERS)} into the model that follows them; fit the model on "
                "features it can export, or export the final estimator alone")
        if not hasattr(step, "scale_"):
            raise AssayError(f"Pipeline {_step_name(name, step)} is not fitted")
        if kind == "MinMaxScaler" and getattr(step, "clip", False):
            raise AssayError(
                f"Pipeline {_step_name(name, step)} has clip=True: clipping is not an affine map, "
                "so it cannot be folded into the model")
        transforms.append((name, step))
    final_name, final = steps[-1]
    if final is None or (isinstance(final, str) and final == "passthrough"):
        raise AssayError("the Pipeline has no final estimator to export")
    return transforms, final


def affine(step, d):
    """(a, b): the scaler's transform as z = a * x + b, per feature (float64)."""
    kind = type(step).__name__
    if kind == "StandardScaler":
        scale = np.ones(d) if step.scale_ is None else np.asarray(step.scale_, float)
        mean = np.zeros(d) if step.mean_ is None or not step.with_mean else \
            np.asarray(step.mean_, float)
        if not step.with_std:
            scale = np.ones(d)
        return 1.0 / scale, -mean / scale
    if kind == "MinMaxScaler":
        return np.asarray(step.scale_, float), np.asarray(step.min_, float)
    return 1.0 / np.asarray(step.scale_, float), np.zeros(d)  # MaxAbsScaler


def apply(step, X):
    """The scaler's transform of a dense float64 X, in place, with scikit-learn's operations in
    its order (so with its rounding); unlike transform it accepts the infinities that scaling
    +-1.8e308 makes, which the bisection below needs. Tests compare it with transform."""
    kind = type(step).__name__
    if kind == "StandardScaler":
        if step.with_mean:
            X -= step.mean_
        if step.with_std:
            X /= step.scale_
    elif kind == "MinMaxScaler":
        X *= step.scale_
        X += step.min_
    else:
        X /= step.scale_
    return X


def fold_into_network(doc, transforms):
    """Folds the scalers (applied in order) into the first layer of a network document."""
    d = doc["n_features"]
    a, b = np.ones(d), np.zeros(d)
    for _, step in transforms:  # z = a2 (a x + b) + b2
        a2, b2 = affine(step, d)
        a, b = a2 * a, a2 * b + b2
    first = doc["layers"][0]
    W = np.asarray(first["weights"], float)  # [out][in]
    first["bias"] = (np.asarray(first["bias"], float) + W @ b).tolist()
    first["weights"] = (W * a[None, :]).tolist()


def _keys_to_doubles(k):
    # Ordered int64 keys (negative doubles: minus their magnitude's bits) back to doubles.
    bits = np.where(k >= 0, k, (-k) | np.int64(-0x8000000000000000))
    return bits.astype(np.int64).view(np.float64)


def _doubles_to_keys(x):
    bits = np.asarray(x, np.float64).view(np.int64)
    return np.where(bits >= 0, bits, -(bits & np.int64(0x7FFFFFFFFFFFFFFF)))


def _goes_left(transforms, d, features, xs, thresholds):
    X = np.zeros((len(xs), d))
    rows = np.arange(len(xs))
    X[rows, features] = xs
    with np.errstate(over="ignore", invalid="ignore"):
        for _, step in transforms:
            apply(step, X)
        z = X[rows, features].astype(np.float32)
    return z.astype(np.float64) <= thresholds


def raw_thresholds(transforms, d, features, thresholds):
    """Per split (feature, threshold on the scaled feature), the largest double x whose scaled
    value, rounded to float32 as scikit-learn's trees round their input, is <= the threshold."""
    features = np.asarray(features, int)
    thresholds = np.asarray(thresholds, float)
    lo = np.full(len(features), _doubles_to_keys(-_DBL_MAX), np.int64)
    hi = np.full(len(features), _doubles_to_keys(_DBL_MAX), np.int64)
    if not _goes_left(transforms, d, features, _keys_to_doubles(lo), thresholds).all():
        raise AssayError("a tree split sends no input left after the Pipeline's scaling; "
                         "export the final estimator alone")
    top = _goes_left(transforms, d, features, _keys_to_doubles(hi), thresholds)
    # Invariant: lo goes left, hi goes right (splits whose every input goes left are done).
    open_ = ~top
    while True:
        gap = open_ & (lo < hi - 1)  # (hi - lo would overflow int64)
        if not gap.any():
            break
        mid = (lo >> 1) + (hi >> 1) + (lo & hi & 1)
        left = _goes_left(transforms, d, features, _keys_to_doubles(mid), thresholds)
        lo = np.where(gap & left, mid, lo)
        hi = np.where(gap & ~left, mid, hi)
    return np.where(top, _DBL_MAX, _keys_to_doubles(lo))


def fold_into_trees(doc, transforms):
    """Maps every split threshold of a tree document back to the raw feature (see the module
    docstring); the trees then compare the raw double (input_float32 false)."""
    for name, step in transforms:
        if not (affine(step, doc["n_features"])[0] > 0).all():
            raise AssayError(f"Pipeline {_step_name(name, step)} scales a feature by a factor "
                             "<= 0: the trees' splits cannot be mapped back to the raw input")
    splits = {}
    for tree in doc["trees"]:
        for f, t, left in zip(tree["feature"], tree["threshold"], tree["left"]):
            if left >= 0:
                splits[(int(f), float(t))] = None
    keys = list(splits)
    if keys:
        raw = raw_thresholds(transforms, doc["n_features"], [f for f, _ in keys],
                             [t for _, t in keys])
        splits = {k: float(v) for k, v in zip(keys, raw)}
    for tree in doc["trees"]:
        tree["threshold"] = [splits[(int(f), float(t))] if left >= 0 else t
                             for f, t, left in zip(tree["feature"], tree["threshold"],
                                                   tree["left"])]
    doc["input_float32"] = False
