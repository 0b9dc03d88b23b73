"""PredictionErrorDisplay: scikit-learn's scatter of a regressor's errors."""
import numbers

import numpy as np

from ._base import axes, check_fitted

KINDS = ("actual_vs_predicted", "residual_vs_predicted")


def _subsample_size(subsample, n):
    """The number of points drawn: all (None), an int count, or a float fraction in (0, 1);
    ValueError otherwise, as scikit-learn."""
    if subsample is None:
        return n
    if isinstance(subsample, numbers.Integral) and not isinstance(subsample, bool):
        if subsample <= 0:
            raise ValueError(f"When an integer, subsample={subsample} should be positive.")
        return min(int(subsample), n)
    if isinstance(subsample, numbers.Real):
        if not 0 < subsample < 1:
            raise ValueError(f"When a floating-point, subsample={subsample} should be in the "
                             "(0, 1) range.")
        return int(n * subsample)
    raise TypeError(f"subsample must be an int, a float or None, found "
                    f"{type(subsample).__name__}")


class PredictionErrorDisplay:
    """A regressor's predictions against the truth, as scikit-learn's PredictionErrorDisplay.

    Actual against predicted values with the diagonal of perfect predictions, or residuals
    (actual - predicted) against predicted values with the zero line.

    Parameters
    ----------
    y_true : ndarray of shape (n_samples,)
        True values.
    y_pred : ndarray of shape (n_samples,)
        Predicted values.

    Attributes
    ----------
    line_ : matplotlib Line2D
        The diagonal or zero line.
    errors_lines_ : None
        Kept for scikit-learn's attribute set (no error bars are drawn).
    scatter_ : matplotlib PathCollection
        The points.
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding ``ax_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from assay.metrics import PredictionErrorDisplay
    >>> d = PredictionErrorDisplay.from_predictions([1.0, 2.0, 3.0], [1.5, 2.0, 2.0])
    >>> d.scatter_.get_offsets()[:, 1].tolist()
    [-0.5, 0.0, 1.0]
    """

    def __init__(self, *, y_true, y_pred):
        self.y_true, self.y_pred = y_true, y_pred

    def plot(self, ax=None, *, kind="residual_vs_predicted", scatter_kwargs=None,
             line_kwargs=None):
        """Draw the points and the reference line.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        kind : {"actual_vs_predicted", "residual_vs_predicted"}, default="residual_vs_predicted"
            What is drawn on the y axis.
        scatter_kwargs : dict, default=None
            Keywords for ``scatter``.
        line_kwargs : dict, default=None
            Keywords for the reference line's ``plot``.

        Returns
        -------
        PredictionErrorDisplay
            The display itself, with its artists set.

        Raises
        ------
        ValueError
            If kind is not one of the two.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import PredictionErrorDisplay
        >>> d = PredictionErrorDisplay(y_true=[1.0, 2.0, 3.0], y_pred=[1.5, 2.0, 2.0])
        >>> d.plot(kind="actual_vs_predicted").line_.get_xdata().tolist()
        [1.0, 3.0]
        """
        if kind not in KINDS:
            raise ValueError(f"`kind` must be one of {', '.join(KINDS)}. Got {kind!r} instead.")
        ax = axes(ax, "PredictionErrorDisplay.plot")
        scatter = {"color": "tab:blue", "alpha": 0.8}
        scatter.update(scatter_kwargs or {})
        line = {"color": "black", "alpha": 0.7, "linestyle": "--"}
        line.update(line_kwargs or {})
        y_true, y_pred = np.asarray(self.y_true), np.asarray(self.y_pred)
        if kind == "actual_vs_predicted":
            low = min(y_pred.min(), y_true.min())
            high = max(y_pred.max(), y_true.max())
            (self.line_,) = ax.plot([low, high], [low, high], **line)
            self.scatter_ = ax.scatter(y_pred, y_true, **scatter)
            ax.set(aspect="equal", xlim=(low, high), ylim=(low, high),
                   xlabel="Predicted values", ylabel="Actual values")
        else:
            self.scatter_ = ax.scatter(y_pred, y_true - y_pred, **scatter)
            (self.line_,) = ax.plot([y_pred.min(), y_pred.max()], [0, 0], **line)
            ax.set(xlabel="Predicted values", ylabel="Residuals (actual - predicted)")
        self.errors_lines_ = None
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(cls, y_true, y_pred, *, kind="residual_vs_predicted", subsample=1_000,
                         random_state=None, ax=None, scatter_kwargs=None, line_kwargs=None):
        """Prediction error plot of true and predicted values.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True values.
        y_pred : array-like of shape (n_samples,)
            Predicted values.
        kind : {"actual_vs_predicted", "residual_vs_predicted"}, default="residual_vs_predicted"
            What is drawn on the y axis.
        subsample : float, int or None, default=1000
            Points drawn: a count, a fraction in (0, 1), or None for all.
        random_state : int or numpy RandomState, default=None
            Seed of the subsample: numpy's legacy ``RandomState.choice``, drawing with
            replacement as scikit-learn does, so the same seed draws the same points as
            scikit-learn's display.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        scatter_kwargs : dict, default=None
            Keywords for ``scatter``.
        line_kwargs : dict, default=None
            Keywords for the reference line's ``plot``.

        Returns
        -------
        PredictionErrorDisplay
            The drawn display.

        Raises
        ------
        ValueError
            For a bad kind or subsample, or inputs of different lengths.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import PredictionErrorDisplay
        >>> d = PredictionErrorDisplay.from_predictions(list(range(10)), list(range(10)),
        ...                                             subsample=4, random_state=0)
        >>> len(d.scatter_.get_offsets())
        4
        """
        y_true = np.asarray(y_true, dtype=float).ravel()
        y_pred = np.asarray(y_pred, dtype=float).ravel()
        if len(y_true) != len(y_pred):
            raise ValueError("Found input variables with inconsistent numbers of samples: "
                             f"[{len(y_true)}, {len(y_pred)}]")
        if kind not in KINDS:
            raise ValueError(f"`kind` must be one of {', '.join(KINDS)}. Got {kind!r} instead.")
        size = _subsample_size(subsample, len(y_true))
        if size < len(y_true):
            rng = random_state if isinstance(random_state, np.random.RandomState) else \
                np.random.RandomState(random_state)
            rows = rng.choice(np.arange(len(y_true)), size=size)
            y_true, y_pred = y_true[rows], y_pred[rows]
        return cls(y_true=y_true, y_pred=y_pred).plot(
            ax=ax, kind=kind, scatter_kwargs=scatter_kwargs, line_kwargs=line_kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, kind="residual_vs_predicted", subsample=1_000,
                       random_state=None, ax=None, scatter_kwargs=None, line_kwargs=None):
        """Prediction error plot of a fitted regressor's ``predict`` on (X, y).

        Parameters
        ----------
        estimator : fitted regressor
            A scikit-learn-style regressor.
        X : array-like of shape (n_samples, n_features)
            Input rows.
        y : array-like of shape (n_samples,)
            True values.
        kind : {"actual_vs_predicted", "residual_vs_predicted"}, default="residual_vs_predicted"
            What is drawn on the y axis.
        subsample : float, int or None, default=1000
            Points drawn: a count, a fraction in (0, 1), or None for all.
        random_state : int or numpy RandomState, default=None
            Seed of the subsample, as in :meth:`from_predictions`.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        scatter_kwargs : dict, default=None
            Keywords for ``scatter``.
        line_kwargs : dict, default=None
            Keywords for the reference line's ``plot``.

        Returns
        -------
        PredictionErrorDisplay
            The drawn display.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import Ridge
        >>> from assay.metrics import PredictionErrorDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0.0, 1.0, 2.0, 3.0]
        >>> model = Ridge(alpha=0.0).fit(X, y)
        >>> PredictionErrorDisplay.from_estimator(model, X, y).ax_.get_ylabel()
        'Residuals (actual - predicted)'
        """
        check_fitted(estimator)
        return cls.from_predictions(y, estimator.predict(X), kind=kind, subsample=subsample,
                                    random_state=random_state, ax=ax,
                                    scatter_kwargs=scatter_kwargs, line_kwargs=line_kwargs)
