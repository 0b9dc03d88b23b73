"""ConfusionMatrixDisplay: scikit-learn's confusion matrix heat map, its numbers from
assay.metrics.confusion_matrix."""
import numpy as np

from .. import _classification
from ._base import axes, check_fitted


def _cell_text(value, values_format, integer):
    """values_format if given; else the shorter of '.2g' and (for counts) 'd', as scikit-learn."""
    if values_format is not None:
        return format(value, values_format)
    text = format(value, ".2g")
    if integer:
        whole = format(value, "d")
        if len(whole) < len(text):
            text = whole
    return text


class ConfusionMatrixDisplay:
    """Confusion matrix heat map, as scikit-learn's ConfusionMatrixDisplay.

    Rows are true labels and columns predicted labels; each cell's value is written in the
    colour that reads on its shade.

    Parameters
    ----------
    confusion_matrix : ndarray of shape (n_classes, n_classes)
        The matrix, as ``assay.metrics.confusion_matrix`` returns it.
    display_labels : array-like of shape (n_classes,), default=None
        Tick labels; None numbers the classes 0..n_classes-1.

    Attributes
    ----------
    im_ : matplotlib AxesImage
        The heat map.
    text_ : ndarray of shape (n_classes, n_classes) of matplotlib Text, or None
        The cell values; None when ``include_values=False``.
    ax_ : matplotlib Axes
        The axes drawn on.
    figure_ : matplotlib Figure
        The figure holding ``ax_``.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from assay.metrics import ConfusionMatrixDisplay
    >>> d = ConfusionMatrixDisplay.from_predictions(["a", "b", "b", "a"], ["a", "b", "a", "a"])
    >>> d.confusion_matrix.tolist(), [t.get_text() for t in d.text_.ravel()]
    ([[2, 0], [1, 1]], ['2', '0', '1', '1'])
    """

    def __init__(self, confusion_matrix, *, display_labels=None):
        self.confusion_matrix = confusion_matrix
        self.display_labels = display_labels

    def plot(self, *, include_values=True, cmap="viridis", xticks_rotation="horizontal",
             values_format=None, ax=None, colorbar=True, im_kw=None, text_kw=None):
        """Draw the heat map.

        Parameters
        ----------
        include_values : bool, default=True
            Write each cell's value.
        cmap : str or matplotlib Colormap, default="viridis"
            Colour map.
        xticks_rotation : {"vertical", "horizontal"} or float, default="horizontal"
            Rotation of the predicted-label ticks.
        values_format : str, default=None
            Format of the cell values; None: '.2g', or 'd' for counts when shorter.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        colorbar : bool, default=True
            Add a colour bar.
        im_kw : dict, default=None
            Keywords for ``imshow``.
        text_kw : dict, default=None
            Keywords for the cells' ``text``.

        Returns
        -------
        ConfusionMatrixDisplay
            The display itself, with its artists set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import ConfusionMatrixDisplay
        >>> d = ConfusionMatrixDisplay([[5, 1], [2, 7]], display_labels=["no", "yes"])
        >>> [t.get_text() for t in d.plot(colorbar=False).ax_.get_xticklabels()]
        ['no', 'yes']
        """
        ax = axes(ax, "ConfusionMatrixDisplay.plot")
        cm = np.asarray(self.confusion_matrix)
        n = cm.shape[0]
        kw = {"interpolation": "nearest", "cmap": cmap}
        kw.update(im_kw or {})
        self.im_ = ax.imshow(cm, **kw)
        self.text_ = None
        if include_values:
            self.text_ = self._write_values(ax, cm, values_format, text_kw)
        labels = np.arange(n) if self.display_labels is None else self.display_labels
        if colorbar:
            ax.figure.colorbar(self.im_, ax=ax)
        ax.set(xticks=np.arange(n), yticks=np.arange(n), xticklabels=labels, yticklabels=labels,
               ylabel="True label", xlabel="Predicted label")
        ax.set_ylim((n - 0.5, -0.5))
        for tick in ax.get_xticklabels():
            tick.set_rotation(xticks_rotation)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    def _write_values(self, ax, cm, values_format, text_kw):
        # Dark text on light cells and light text on dark ones: the colour map's two ends.
        dark, light = self.im_.cmap(0), self.im_.cmap(1.0)
        middle = (cm.max() + cm.min()) / 2.0
        text = np.empty_like(cm, dtype=object)
        integer = cm.dtype.kind in "iu"
        for i, j in np.ndindex(cm.shape):
            kw = {"ha": "center", "va": "center", "color": light if cm[i, j] < middle else dark}
            kw.update(text_kw or {})
            text[i, j] = ax.text(j, i, _cell_text(cm[i, j], values_format, integer), **kw)
        return text

    @classmethod
    def from_predictions(cls, y_true, y_pred, *, labels=None, sample_weight=None,
                         normalize=None, display_labels=None, include_values=True,
                         xticks_rotation="horizontal", values_format=None, cmap="viridis",
                         ax=None, colorbar=True, im_kw=None, text_kw=None):
        """Confusion matrix of true and predicted labels.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            True labels.
        y_pred : array-like of shape (n_samples,)
            Predicted labels.
        labels : array-like of shape (n_classes,), default=None
            Classes and their order; None: the sorted classes of y_true and y_pred.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        normalize : {"true", "pred", "all"}, default=None
            Normalise over true labels (rows), predicted labels (columns) or all cells.
        display_labels : array-like of shape (n_classes,), default=None
            Tick labels; None uses the classes.
        include_values : bool, default=True
            Write each cell's value.
        xticks_rotation : {"vertical", "horizontal"} or float, default="horizontal"
            Rotation of the predicted-label ticks.
        values_format : str, default=None
            Format of the cell values; None: '.2g', or 'd' for counts when shorter.
        cmap : str or matplotlib Colormap, default="viridis"
            Colour map.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        colorbar : bool, default=True
            Add a colour bar.
        im_kw : dict, default=None
            Keywords for ``imshow``.
        text_kw : dict, default=None
            Keywords for the cells' ``text``.

        Returns
        -------
        ConfusionMatrixDisplay
            The drawn display.

        Raises
        ------
        ValueError
            As ``assay.metrics.confusion_matrix`` for bad labels or normalize.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from assay.metrics import ConfusionMatrixDisplay
        >>> d = ConfusionMatrixDisplay.from_predictions([0, 1, 1, 1], [0, 1, 0, 1],
        ...                                             normalize="true")
        >>> [t.get_text() for t in d.text_.ravel()]
        ['1', '0', '0.33', '0.67']
        """
        cm = _classification.confusion_matrix(y_true, y_pred, labels=labels,
                                              sample_weight=sample_weight, normalize=normalize)
        if display_labels is None:
            display_labels = labels if labels is not None else \
                np.unique(np.concatenate([np.asarray(y_true).ravel(),
                                          np.asarray(y_pred).ravel()]))
        display = cls(cm, display_labels=display_labels)
        return display.plot(include_values=include_values, cmap=cmap, ax=ax,
                            xticks_rotation=xticks_rotation, values_format=values_format,
                            colorbar=colorbar, im_kw=im_kw, text_kw=text_kw)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, labels=None, sample_weight=None, normalize=None,
                       display_labels=None, include_values=True, xticks_rotation="horizontal",
                       values_format=None, cmap="viridis", ax=None, colorbar=True, im_kw=None,
                       text_kw=None):
        """Confusion matrix of a fitted classifier's predictions on (X, y).

        Parameters
        ----------
        estimator : fitted classifier
            A scikit-learn-style classifier (``predict``).
        X : array-like of shape (n_samples, n_features)
            Input rows.
        y : array-like of shape (n_samples,)
            True labels.
        labels : array-like of shape (n_classes,), default=None
            Classes and their order; None: the sorted classes of y and the predictions.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.
        normalize : {"true", "pred", "all"}, default=None
            Normalise over true labels (rows), predicted labels (columns) or all cells.
        display_labels : array-like of shape (n_classes,), default=None
            Tick labels; None uses the classes.
        include_values : bool, default=True
            Write each cell's value.
        xticks_rotation : {"vertical", "horizontal"} or float, default="horizontal"
            Rotation of the predicted-label ticks.
        values_format : str, default=None
            Format of the cell values; None: '.2g', or 'd' for counts when shorter.
        cmap : str or matplotlib Colormap, default="viridis"
            Colour map.
        ax : matplotlib Axes, default=None
            Axes to draw on; None makes a new figure.
        colorbar : bool, default=True
            Add a colour bar.
        im_kw : dict, default=None
            Keywords for ``imshow``.
        text_kw : dict, default=None
            Keywords for the cells' ``text``.

        Returns
        -------
        ConfusionMatrixDisplay
            The drawn display.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If the estimator is not fitted.
        ValueError
            If it is not a classifier.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from sklearn.linear_model import LogisticRegression
        >>> from assay.metrics import ConfusionMatrixDisplay
        >>> X, y = [[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1]
        >>> model = LogisticRegression().fit(X, y)
        >>> ConfusionMatrixDisplay.from_estimator(model, X, y).confusion_matrix.tolist()
        [[2, 0], [0, 2]]
        """
        check_fitted(estimator)
        final = estimator.steps[-1][1] if hasattr(estimator, "steps") else estimator
        if getattr(final, "_estimator_type", None) != "classifier":
            raise ValueError("ConfusionMatrixDisplay.from_estimator only supports classifiers")
        return cls.from_predictions(
            y, estimator.predict(X), labels=labels, sample_weight=sample_weight,
            normalize=normalize, display_labels=display_labels, include_values=include_values,
            xticks_rotation=xticks_rotation, values_format=values_format, cmap=cmap, ax=ax,
            colorbar=colorbar, im_kw=im_kw, text_kw=text_kw)
