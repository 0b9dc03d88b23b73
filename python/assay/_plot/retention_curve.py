"""RetentionCurveDisplay: the Shifts error-retention curve of assay.shift, with the oracle and
random curves of the same errors."""
import numpy as np

from .. import _shift
from ._base import axes, style


class RetentionCurveDisplay:
    """Error-retention curve plot (Shifts) of per-sample errors ranked by uncertainty.

    The error left when the most uncertain samples are rejected (replaced by ground truth,
    error 0), against the fraction rejected.

    The points are ``assay.shift.retention_curve``'s: ``curve[j]`` is drawn at j/n (j of n
    samples rejected). The oracle (rejecting the largest errors first) and the expected curve
    of a random order come from ``oracle_retention_curve`` and ``random_retention_curve``.
    A lower curve is better; R-AUC is the area under it (under ``convention``).

    Parameters
    ----------
    curve : ndarray of shape (n + 1,)
        The retention curve.
    r_auc : float, default=None
        Its area, shown in the legend.
    oracle : assay.shift.RetentionResult, default=None
        The oracle curve and area (no oracle line when None).
    random : assay.shift.RetentionResult, default=None
        The random curve and area (no random line when None).
    name : str, default=None
        Legend name of the curve.
    convention : str, default="shifts"
        The convention the areas were computed under (see docs/shift.md).

    Attributes
    ----------
    line_ : matplotlib Line2D
        The curve.
    oracle_line_, random_line_ : matplotlib Line2D or None
        The reference curves, if drawn.
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding ``ax_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from assay.shift import RetentionCurveDisplay
    >>> d = RetentionCurveDisplay.from_predictions([2.0, 1.0], [1.0, 0.0])
    >>> d.line_.get_xdata().tolist(), d.line_.get_ydata().tolist()
    ([0.0, 0.5, 1.0], [1.5, 0.5, 0.0])
    """

    def __init__(self, *, curve, r_auc=None, oracle=None, random=None, name=None,
                 convention="shifts"):
        self.curve, self.r_auc, self.oracle, self.random = curve, r_auc, oracle, random
        self.name, self.convention = name, convention

    def plot(self, ax=None, *, name=None, curve_kwargs=None, plot_oracle=True,
             plot_random=True):
        """Draw the curve and its references.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        name : str, default=None
            Legend name; None uses the ``name`` attribute.
        curve_kwargs : dict, default=None
            Keywords for the curve's ``plot``.
        plot_oracle, plot_random : bool, default=True
            Draw the oracle / random curve (when known).

        Returns
        -------
        RetentionCurveDisplay
            The display itself, with its artists set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.shift import RetentionCurveDisplay, retention_curve
        >>> result = retention_curve([2.0, 1.0], [1.0, 0.0])
        >>> d = RetentionCurveDisplay(curve=result.curve, r_auc=result.r_auc)
        >>> d.plot(name="model").line_.get_label()
        'model (R-AUC = 0.667)'
        """
        ax = axes(ax, "RetentionCurveDisplay.plot")
        name = self.name if name is None else name
        curve = np.asarray(self.curve)
        x = np.arange(len(curve)) / (len(curve) - 1)
        (self.line_,) = ax.plot(x, curve, **style({"label": self._label(name, self.r_auc)},
                                                  curve_kwargs))
        self.oracle_line_ = self.random_line_ = None
        if plot_oracle and self.oracle is not None:
            (self.oracle_line_,) = ax.plot(x, self.oracle.curve, color="k", linestyle="--",
                                           label=self._label("Oracle", self.oracle.r_auc))
        if plot_random and self.random is not None:
            (self.random_line_,) = ax.plot(x, self.random.curve, color="grey", linestyle=":",
                                           label=self._label("Random", self.random.r_auc))
        ax.set(xlabel="Fraction rejected (most uncertain first)",
               ylabel="Error (sum over retained / n)", xlim=(0, 1))
        ax.set_ylim(bottom=0)
        if ax.get_legend_handles_labels()[1]:
            ax.legend(loc="upper right")
        self.ax_, self.figure_ = ax, ax.figure
        return self

    @staticmethod
    def _label(name, r_auc):
        if r_auc is None:
            return name
        text = f"R-AUC = {r_auc:.3g}"
        return text if name is None else f"{name} ({text})"

    @classmethod
    def from_predictions(cls, errors, uncertainty, *, convention="shifts", name=None, ax=None,
                         curve_kwargs=None, plot_oracle=True, plot_random=True):
        """Retention curve of per-sample errors ranked by uncertainty.

        Parameters
        ----------
        errors : array-like of shape (n_samples,)
            Each sample's error (e.g. squared error, or 0/1 for misclassification).
        uncertainty : array-like of shape (n_samples,)
            Each sample's uncertainty; the most uncertain are rejected first.
        convention : {"shifts", "shifts-vpower"}, default="shifts"
            Tie handling and area rule (see docs/shift.md).
        name : str, default=None
            Legend name; None shows only the R-AUC.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        curve_kwargs : dict, default=None
            Keywords for the curve's ``plot``.
        plot_oracle : bool, default=True
            Draw the oracle curve.
        plot_random : bool, default=True
            Draw the random curve.

        Returns
        -------
        RetentionCurveDisplay
            The drawn display.

        Raises
        ------
        assay.AssayError
            For inputs of different lengths, no sample or an unknown convention.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.shift import RetentionCurveDisplay
        >>> d = RetentionCurveDisplay.from_predictions([2.0, 1.0], [0.0, 1.0])
        >>> d.oracle_line_.get_ydata().tolist(), d.random_line_.get_ydata().tolist()
        ([1.5, 0.5, 0.0], [1.5, 0.75, 0.0])
        """
        result = _shift.retention_curve(errors, uncertainty, convention)
        display = cls(curve=result.curve, r_auc=result.r_auc,
                      oracle=_shift.oracle_retention_curve(errors, convention),
                      random=_shift.random_retention_curve(errors, convention), name=name,
                      convention=convention)
        return display.plot(ax=ax, curve_kwargs=curve_kwargs, plot_oracle=plot_oracle,
                            plot_random=plot_random)
