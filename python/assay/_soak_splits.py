"""SOAK splitter: Same/Other/All K-fold cross-validation as a scikit-learn splitter (SOAK paper).

The splits are computed by the compiled ``_assay.SoakSplits`` (assay/soak/splits.hpp), with the
semantics of R's mlr3resampling::ResamplingSameOtherSizesCV. This module only converts arguments.
"""
import numpy as np

from . import _assay
from . import _learning_common as _common

__all__ = ["SOAKFold"]


def _n_rows(X):
    if X is None:
        return None
    shape = getattr(X, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    return len(X)


def _looks_like_classes(y):
    """scikit-learn's type_of_target idea for 1-D y: labels unless floats with fractions."""
    if y.ndim != 1:
        return False
    if y.dtype.kind in "biuOUS":
        return True
    if y.dtype.kind == "f":
        finite = np.isfinite(y)
        return bool(finite.all() and np.all(y == np.round(y)))
    return False


class SOAKFold:
    """Same/Other/All K-fold cross-validation (SOAK) splitter.

    For every test subset σ and test fold κ it yields the train sets "all" (rows not in fold κ),
    "other" (not in fold κ and not in subset σ) and "same" (not in fold κ, in subset σ), each
    with the test set (fold κ, subset σ): 3·S·K splits for S subsets (only "same", i.e. plain
    K-fold CV, when S = 1). The order is mlr3resampling's: train subsets (all, other, same),
    test fold, test subset (sorted subset values), seed, train size.

    Parameters
    ----------
    n_splits : int, default=10
        K, the number of folds (ignored when a ``fold`` column is given).
    subsets : str, default="SOA"
        Train sets to build: a combination of "S" (same), "O" (other), "A" (all).
    sizes : int, default=-1
        Down-sampled train sizes (mlr3resampling): -1 = full size only; 0 = also the smaller
        full sizes; j >= 1 = also min(groups)·ratio^1..j groups.
    ratio : float, default=0.5
        Ratio between successive down-sampled sizes, in (0, 1).
    seeds : int, default=1
        Repetitions of the down-sampling with different random group orders.
    random_state : None, int, RandomState or Generator, default=None
        Seed of the fold assignment and down-sampling. None means seed 1, so the splits are
        deterministic by default (unlike scikit-learn's shuffle splitters); a RandomState or
        Generator draws one seed per ``split`` call.

    Attributes
    ----------
    folds_ : numpy.ndarray
        The fold (1..K) of every row in the last ``split`` call.

    See Also
    --------
    run : A whole SOAK experiment with assay's built-in learners.
    run_estimators : The same with scikit-learn estimators.

    Notes
    -----
    ``split(X, y, groups, subset=..., fold=None, strata=None)`` takes the subset of each row as
    a keyword. scikit-learn's ``cross_validate`` / ``GridSearchCV`` call
    ``cv.split(X, y, groups)`` without it: bind them first,
    ``cv = SOAKFold(5).bind(subset=s)`` (``bind`` returns a new splitter; keywords given to
    ``split`` override the bound ones).

    - ``groups``: rows of a group always share a fold (balanced greedy assignment).
    - ``fold``: a given fold per row (relabelled 1..K in sorted order; constant within groups).
    - ``strata``: None (default) stratifies by ``y`` when y looks like class labels (bool,
      strings, integers or integer-valued floats, as scikit-learn's type_of_target), else not at
      all; False = no strata; or an array (1-D, or 2-D whose rows are crossed). Strata are
      always crossed with the subset.

    After ``split``: ``iteration_table()``, ``split_info()`` and ``folds_`` describe the last
    call's splits.

    Examples
    --------
    >>> import numpy as np
    >>> from assay import soak
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 2))
    >>> y = (X[:, 0] > 0).astype(int)
    >>> subset = np.repeat(["a", "b"], 20)
    >>> cv = soak.SOAKFold(n_splits=2)
    >>> splits = list(cv.split(X, y, subset=subset))
    >>> len(splits)  # 3 train sets x 2 subsets x 2 folds
    12
    >>> train, test = splits[0]
    >>> test[:5]
    array([1, 5, 7, 8, 9])
    """

    def __init__(self, n_splits=10, subsets="SOA", sizes=-1, ratio=0.5, seeds=1,
                 random_state=None):
        self.n_splits = n_splits
        self.subsets = subsets
        self.sizes = sizes
        self.ratio = ratio
        self.seeds = seeds
        self.random_state = random_state
        self._bound = {}
        self._last = None

    def __repr__(self):
        return (f"SOAKFold(n_splits={self.n_splits}, subsets={self.subsets!r}, "
                f"sizes={self.sizes}, ratio={self.ratio}, seeds={self.seeds}, "
                f"random_state={self.random_state!r})")

    def bind(self, subset=None, fold=None, strata=None):
        """Return a copy of this splitter with subset, fold and strata bound.

        The copy works where ``split`` gets no keywords, as in scikit-learn's
        ``cross_validate(estimator, X, y, groups=g, cv=SOAKFold(5).bind(subset=s))``. Keywords
        given to the copy's ``split`` override the bound ones; None keeps what this splitter bound.

        Parameters
        ----------
        subset : array-like of shape (n_samples,), default=None
            The subset of each row. None: the bound one, else one subset (plain K-fold CV).
        fold : array-like of shape (n_samples,), default=None
            A given fold per row (relabelled 1..K in sorted order; constant within groups).
        strata : None, False or array-like, default=None
            None stratifies by ``y`` when y looks like class labels (bool, strings, integers or
            integer-valued floats, as scikit-learn's type_of_target), else not at all; False = no
            strata; or an array (1-D, or 2-D whose rows are crossed). Strata are always crossed with
            the subset.

        Returns
        -------
        SOAKFold
            A new splitter with the same parameters and these columns bound.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import soak
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> subset = np.repeat(["a", "b"], 20)
        >>> from sklearn.linear_model import LogisticRegression
        >>> from sklearn.model_selection import cross_validate
        >>> cv = soak.SOAKFold(n_splits=2).bind(subset=subset)
        >>> len(cross_validate(LogisticRegression(), X, y, cv=cv)["test_score"])
        12
        """
        other = SOAKFold(self.n_splits, self.subsets, self.sizes, self.ratio, self.seeds,
                         self.random_state)
        other._bound = dict(self._bound)
        for key, value in (("subset", subset), ("fold", fold), ("strata", strata)):
            if value is not None:
                other._bound[key] = value
        return other

    def _build(self, X, y, groups, subset, fold, strata):
        subset = self._bound.get("subset") if subset is None else subset
        fold = self._bound.get("fold") if fold is None else fold
        strata = self._bound.get("strata") if strata is None else strata
        if subset is None:
            raise _assay.AssayError(
                "SOAKFold needs subset= (one subset value per row): pass it to split(), or bind "
                "it for scikit-learn: SOAKFold(...).bind(subset=s)")
        names, subset_codes = _common.unique_codes(subset, "subset")
        n = len(subset_codes)
        for what, arr in (("X", X), ("y", y), ("groups", groups), ("fold", fold)):
            m = _n_rows(arr)
            if m is not None and m != n:
                raise _assay.AssayError(f"{what} has {m} rows, subset has {n}")
        # Integer ids go through as they are, so error messages name the caller's values.
        group_codes = None
        if groups is not None:
            g = np.asarray(groups)
            if g.dtype.kind in "iu" and g.ndim == 1 and (
                    len(g) == 0 or (g.min() >= 0 and g.max() < 2**31)):
                group_codes = g.astype(np.int32)
            else:
                group_codes = _common.unique_codes(g, "groups")[1]
        fold_codes = None if fold is None else _common.fold_codes(fold)
        stratum = None
        if strata is None:
            if y is not None:
                y_arr = np.asarray(y)
                if _looks_like_classes(y_arr):
                    stratum = _common.unique_codes(y_arr, "y")[1]
        elif strata is not False:
            s = np.asarray(strata)
            if s.ndim == 2:
                if s.shape[0] != n:
                    raise _assay.AssayError(f"strata has {s.shape[0]} rows, subset has {n}")
                stratum = np.unique(s, axis=0, return_inverse=True)[1].reshape(-1).astype(np.int32)
            else:
                if _n_rows(s) != n:
                    raise _assay.AssayError(f"strata has {_n_rows(s)} rows, subset has {n}")
                stratum = _common.unique_codes(s, "strata")[1]
        splits = _assay.SoakSplits(
            subset_codes, [str(v) for v in names], group=group_codes, stratum=stratum,
            fold=fold_codes, folds=int(self.n_splits), subsets=str(self.subsets),
            sizes=int(self.sizes), ratio=float(self.ratio), seeds=int(self.seeds),
            seed=_common.seed(self.random_state))
        return splits

    def split(self, X, y=None, groups=None, *, subset=None, fold=None, strata=None):
        """Generate the (train, test) row indices of every split, in mlr3resampling's order.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The features (only their number of rows is used).
        y : array-like of shape (n_samples,), default=None
            The labels (used for the default strata).
        groups : array-like of shape (n_samples,), default=None
            Rows of a group always share a fold (balanced greedy assignment).
        subset : array-like of shape (n_samples,), default=None
            The subset of each row. None: the bound one, else one subset (plain K-fold CV).
        fold : array-like of shape (n_samples,), default=None
            A given fold per row (relabelled 1..K in sorted order; constant within groups).
        strata : None, False or array-like, default=None
            None stratifies by ``y`` when y looks like class labels (bool, strings, integers or
            integer-valued floats, as scikit-learn's type_of_target), else not at all; False = no
            strata; or an array (1-D, or 2-D whose rows are crossed). Strata are always crossed with
            the subset.

        Returns
        -------
        generator of (numpy.ndarray, numpy.ndarray)
            ``(train, test)`` per split: the int64 row indices of its train and test sets.

        Raises
        ------
        assay.AssayError
            Bad input, raised here, not at the first ``next()``.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import soak
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> subset = np.repeat(["a", "b"], 20)
        >>> cv = soak.SOAKFold(n_splits=2)
        >>> sizes = [(len(train), len(test)) for train, test in cv.split(X, y, subset=subset)]
        >>> sizes[:3]
        [(19, 11), (19, 10), (21, 9)]
        """
        splits = self._build(X, y, groups, subset, fold, strata)
        self._last = splits

        def generate():
            for i in range(len(splits)):
                yield splits.train_rows(i), splits.test_rows(i)
        return generate()

    def get_n_splits(self, X=None, y=None, groups=None, *, subset=None, fold=None, strata=None):
        """Return the number of splits ``split`` yields for this data.

        It needs the subset (given here or bound) because it depends on the number of subsets
        (3·S·K at full size); groups and fold matter for ``sizes`` and given folds, and y / strata
        too (a subset whose strata are all smaller than K leaves some folds empty, and an empty test
        fold gives no split), so it takes the same arguments as ``split`` and always agrees with it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            The features (only their number of rows is used).
        y : array-like of shape (n_samples,), default=None
            The labels (used for the default strata).
        groups : array-like of shape (n_samples,), default=None
            Rows of a group always share a fold.
        subset : array-like of shape (n_samples,), default=None
            The subset of each row. None: the bound one, else one subset (plain K-fold CV).
        fold : array-like of shape (n_samples,), default=None
            A given fold per row (relabelled 1..K in sorted order; constant within groups).
        strata : None, False or array-like, default=None
            None stratifies by ``y`` when y looks like class labels (bool, strings, integers or
            integer-valued floats, as scikit-learn's type_of_target), else not at all; False = no
            strata; or an array (1-D, or 2-D whose rows are crossed). Strata are always crossed with
            the subset.

        Returns
        -------
        int
            The number of splits.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import soak
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> subset = np.repeat(["a", "b"], 20)
        >>> soak.SOAKFold(n_splits=2).get_n_splits(X, y, subset=subset)
        12
        """
        return len(self._build(X, y, groups, subset, fold, strata))

    def _require_last(self):
        if self._last is None:
            raise _assay.AssayError("no splits yet: call split() first")
        return self._last

    @property
    def folds_(self):
        """Fold (1..K) of every row in the last ``split`` call.

        Raises
        ------
        assay.AssayError
            ``split`` was not called yet.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import soak
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> subset = np.repeat(["a", "b"], 20)
        >>> cv = soak.SOAKFold(n_splits=2)
        >>> _ = cv.split(X, y, subset=subset)
        >>> cv.folds_[:6]
        array([2, 1, 2, 2, 2, 1]...)
        """
        return self._require_last().folds()

    def split_info(self):
        """Describe each split of the last ``split`` call.

        Returns
        -------
        list of dict
            One dict per split: iteration, test_subset, train_subsets, groups, test_fold, seed,
            n_train_groups.

        Raises
        ------
        assay.AssayError
            ``split`` was not called yet.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import soak
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> subset = np.repeat(["a", "b"], 20)
        >>> cv = soak.SOAKFold(n_splits=2)
        >>> _ = cv.split(X, y, subset=subset)
        >>> cv.split_info()[0]
        {'iteration': 1, 'test_subset': 'a', 'train_subsets': 'all', 'groups': 20,
         'test_fold': 1, 'seed': 1, 'n_train_groups': 20}
        """
        splits = self._require_last()
        out = []
        for i in range(len(splits)):
            d = splits.info(i)
            del d["test_subset_code"]
            out.append(d)
        return out

    def iteration_table(self, one_based_rows=False):
        """Return mlr3resampling's iteration table of the last ``split`` call.

        Parameters
        ----------
        one_based_rows : bool, default=False
            Number the rows in ``test`` and ``train`` from 1 (as R does) instead of 0.

        Returns
        -------
        pandas.DataFrame or dict
            Columns test.subset, train.subsets, groups, test.fold, test, train (row index arrays),
            seed, n.train.groups, iteration. A pandas DataFrame when pandas is importable, else a
            dict of columns.

        Raises
        ------
        assay.AssayError
            ``split`` was not called yet.

        Examples
        --------
        >>> import numpy as np
        >>> from assay import soak
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(40, 2))
        >>> y = (X[:, 0] > 0).astype(int)
        >>> subset = np.repeat(["a", "b"], 20)
        >>> cv = soak.SOAKFold(n_splits=2)
        >>> _ = cv.split(X, y, subset=subset)
        >>> table = cv.iteration_table()
        >>> table[["test.subset", "train.subsets", "test.fold"]].head(3)
          test.subset train.subsets  test.fold
        0           a           all          1
        1           b           all          1
        2           a           all          2
        """
        table = self._require_last().iteration_table(one_based_rows)
        try:
            import pandas as pd
        except ImportError:
            return table
        columns = {}
        for key, value in table.items():
            if key in ("test", "train"):
                col = np.empty(len(value), dtype=object)
                for i, rows in enumerate(value):
                    col[i] = rows
                columns[key] = col
            else:
                columns[key] = value
        return pd.DataFrame(columns)
