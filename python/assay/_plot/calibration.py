"""CalibrationDisplay: scikit-learn's reliability diagram (sklearn.calibration), its bins from
assay.metrics.calibration_error."""
import numpy as np

from .. import _classification
from ._base import (axes, binary_response, estimator_name, legend_name, resolved_pos_label,
                    style)


def calibration_points(y_true, y_prob, n_bins, strategy, pos_label):
    """(fraction of positives, mean predicted probability) of each non-empty bin, as
    scikit-learn's calibration_curve: calibration_error's reliability table without its empty
    bins."""
    table = _classification.calibration_error(y_true, y_prob, bins=n_bins, strategy=strategy,
                                              pos_label=pos_label)["bins"]
    filled = np.asarray(table["count"]) > 0
    return np.asarray(table["accuracy"])[filled], np.asarray(table["confidence"])[filled]


class CalibrationDisplay:
    """Reliability diagram, as scikit-learn's CalibrationDisplay.

    The fraction of positives against the mean predicted probability in each bin of the
    predicted probabilities, with the diagonal of a perfectly calibrated classifier.

    Parameters
    ----------
    prob_true : ndarray
        Fraction of positives in each non-empty bin.
    prob_pred : ndarray
        Mean predicted probability in each non-empty bin.
    y_prob : ndarray
        The predicted probabilities of the positive class the bins were made from.
    name : str, default=None
        Legend name; None shows none.
    pos_label : int, float, bool or str, default=None
        The positive class, shown in the axis labels when given.
    estimator_name : str, default=None
        The older spelling of ``name`` in scikit-learn (kept as an attribute with the same value).

    Attributes
    ----------
    line_ : matplotlib Line2D
        The calibration curve.
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding ``ax_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from assay.metrics import CalibrationDisplay
    >>> d = CalibrationDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9], n_bins=2)
    >>> d.prob_true.tolist(), d.prob_pred.tolist()
    ([0.0, 1.0], [0.2, 0.75])
    """

    def __init__(self, prob_true, prob_pred, y_prob, *, name=None, pos_label=None,
                 estimator_name=None):
        self.prob_true, self.prob_pred, self.y_prob = prob_true, prob_pred, y_prob
        self.pos_label = pos_label
        self.name = self.estimator_name = legend_name(name, estimator_name)

    def plot(self, *, ax=None, name=None, ref_line=True, **kwargs):
        """Draw the diagram.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        name : str, default=None
            Legend name; None uses the ``name`` attribute.
        ref_line : bool, default=True
            Draw the diagonal "Perfectly calibrated" (once per axes).
        **kwargs
            Keywords for matplotlib's ``plot`` of the curve.

        Returns
        -------
        CalibrationDisplay
            The display itself, with its artists set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import CalibrationDisplay
        >>> d = CalibrationDisplay([0.0, 1.0], [0.2, 0.75], [0.1, 0.3, 0.6, 0.9])
        >>> d.plot(name="model").ax_.get_legend_handles_labels()[1]
        ['Perfectly calibrated', 'model']
        """
        ax = axes(ax, "CalibrationDisplay.plot")
        name = self.name if name is None else name
        suffix = "" if self.pos_label is None else f" (Positive class: {self.pos_label})"
        kw = style({"label": name} if name is not None else {}, kwargs)
        already = "Perfectly calibrated" in ax.get_legend_handles_labels()[1]
        if ref_line and not already:
            ax.plot([0, 1], [0, 1], "k:", label="Perfectly calibrated")
        (self.line_,) = ax.plot(self.prob_pred, self.prob_true, "s-", **kw)
        ax.legend(loc="lower right")
        ax.set(xlabel=f"Mean predicted probability{suffix}",
               ylabel=f"Fraction of positives{suffix}")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @classmethod
    def from_predictions(cls, y_true, y_prob, *, n_bins=5, strategy="uniform", pos_label=None,
                         name=None, ax=None, ref_line=True, **kwargs):
        """Reliability diagram of true labels and predicted probabilities.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True binary labels.
        y_prob : array-like of shape (n_samples,)
            Predicted probabilities of the positive class.
        n_bins : int, default=5
            Number of bins of [0, 1].
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width bins, or bins with equally many predictions.
        pos_label : int, float, bool or str, default=None
            The positive class; None means the greater label.
        name : str, default=None
            Legend name; None shows none.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        ref_line : bool, default=True
            Draw the diagonal "Perfectly calibrated" (once per axes).
        **kwargs
            Keywords for matplotlib's ``plot`` of the curve.

        Returns
        -------
        CalibrationDisplay
            The drawn display.

        Raises
        ------
        assay.AssayError
            For labels that are not binary, probabilities outside [0, 1] or a bad n_bins or
            strategy.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import CalibrationDisplay
        >>> d = CalibrationDisplay.from_predictions([0, 1, 1, 1], [0.1, 0.3, 0.6, 0.9],
        ...                                         n_bins=2, strategy="quantile")
        >>> d.prob_true.tolist(), d.prob_pred.tolist()
        ([0.5, 1.0], [0.2, 0.75])
        """
        prob_true, prob_pred = calibration_points(y_true, y_prob, n_bins, strategy, pos_label)
        label = resolved_pos_label(y_true, pos_label)
        if label is None:
            label = np.unique(np.asarray(y_true))[-1].item()
        display = cls(prob_true, prob_pred, np.asarray(y_prob), name=name,
                      pos_label=label)
        return display.plot(ax=ax, ref_line=ref_line, **kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, n_bins=5, strategy="uniform", pos_label=None,
                       name=None, ax=None, ref_line=True, **kwargs):
        """Reliability diagram of a fitted binary classifier's ``predict_proba`` on (X, y).

        Parameters
        ----------
        estimator : fitted classifier
            A scikit-learn-style binary classifier with ``predict_proba``.
        X : array-like of shape (n_samples, n_features)
            Input rows.
        y : array-like of shape (n_samples,)
            True labels.
        n_bins : int, default=5
            Number of bins of [0, 1].
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width bins, or bins with equally many predictions.
        pos_label : int, float, bool or str, default=None
            The positive class; None means the estimator's ``classes_[1]``.
        name : str, default=None
            Legend name; None gives the estimator's class name.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        ref_line : bool, default=True
            Draw the diagonal "Perfectly calibrated" (once per axes).
        **kwargs
            Keywords for matplotlib's ``plot`` of the curve.

        Returns
        -------
        CalibrationDisplay
            The drawn display.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        ValueError
            If it is not a binary classifier.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import LogisticRegression
        >>> from assay.metrics import CalibrationDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
        >>> model = LogisticRegression().fit(X, y)
        >>> CalibrationDisplay.from_estimator(model, X, y, n_bins=2).prob_true.tolist()
        [0.0, 1.0]
        """
        prob, pos_label = binary_response(estimator, X, "predict_proba", pos_label,
                                          "CalibrationDisplay.from_estimator")
        return cls.from_predictions(y, prob, n_bins=n_bins, strategy=strategy,
                                    pos_label=pos_label,
                                    name=estimator_name(estimator) if name is None else name,
                                    ax=ax, ref_line=ref_line, **kwargs)
