"""SoakErrorDisplay: the SOAK paper's error chart (its Figure 3) from assay.soak results."""
import warnings

import numpy as np

from .._assay import AssayError, AssayWarning
from .._learning_common import frame, soak_statistics
from ._base import pyplot

# Rows from top to bottom, as the HTML report's chart.
TRAIN_ROWS = ("all", "same", "other")


def _p_text(p):
    return "p undefined" if not np.isfinite(p) else f"p={p:.2g}"


class SoakErrorDisplay:
    """The SOAK error chart (the SOAK paper's Figure 3) of assay.soak results.

    One panel per test subset; in each, the mean (circle) and mean ± SD (segment) over folds
    of the test measure of models trained on All, Same and Other subsets, one colour per
    learner; optionally the paired t-test p-value of Other-Same and All-Same under the Other
    and All means.

    Only full-size train sets are drawn (the rows with ``n.train.groups`` = 0 of
    ``assay.soak.summaries``); the numbers are those of ``assay.soak.summaries`` and
    ``assay.soak.pvalues``.

    Parameters
    ----------
    summary : pandas.DataFrame
        Rows of ``assay.soak.summaries`` to draw (columns learner, test.subset,
        train.subsets, mean, sd).
    pvalues : pandas.DataFrame, default=None
        Rows of ``assay.soak.pvalues`` (columns learner, test.subset, comparison, p_paired);
        None draws no p-values.
    measure : str, default="error_percent"
        The measure, for the axis title.

    Attributes
    ----------
    ax_ : ndarray of matplotlib Axes
        One panel per test subset.
    figure_ : matplotlib Figure
        The figure.
    errorbars_ : dict
        {(learner, test subset): the ErrorbarContainer of its three rows}.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> import assay.soak as soak
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(120, 2))
    >>> region = np.repeat(["N", "S"], 60)
    >>> y = (X[:, 0] + rng.normal(size=120) > 0).astype(int)
    >>> results = soak.run(X, y, subset=region, learners=["featureless"], n_splits=3)
    >>> d = soak.SoakErrorDisplay.from_results(results)
    >>> [a.get_title() for a in d.ax_]
    ['test subset N', 'test subset S']
    """

    def __init__(self, summary, pvalues=None, *, measure="error_percent"):
        self.summary, self.pvalues, self.measure = summary, pvalues, measure

    def plot(self, ax=None):
        """Draw the panels.

        Parameters
        ----------
        ax : matplotlib Axes or sequence of Axes, default=None
            One axes per test subset (a single Axes when there is one); None makes a figure
            with one panel per test subset, side by side.

        Returns
        -------
        SoakErrorDisplay
            The display itself, with its artists set.

        Raises
        ------
        ValueError
            If ax does not hold one axes per test subset.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import pandas as pd
        >>> from assay.soak import SoakErrorDisplay
        >>> summary = pd.DataFrame({"learner": "glmnet", "test.subset": "A",
        ...                         "train.subsets": ["all", "same", "other"],
        ...                         "mean": [20.0, 21.0, 30.0], "sd": [2.0, 2.5, 3.0]})
        >>> d = SoakErrorDisplay(summary).plot()
        >>> d.errorbars_["glmnet", "A"].lines[0].get_xdata().tolist()
        [20.0, 21.0, 30.0]
        """
        subsets = sorted(self.summary["test.subset"].unique(), key=str)
        learners = list(dict.fromkeys(self.summary["learner"]))
        if ax is None:
            _, ax = pyplot("SoakErrorDisplay.plot").subplots(
                1, len(subsets), figsize=(3.2 * len(subsets) + 1, 1.0 + 0.45 * 3 *
                                          max(2, len(learners))), squeeze=False, sharey=True)
        panels = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
        if len(panels) != len(subsets):
            raise ValueError(f"ax must hold one axes per test subset ({len(subsets)}), found "
                             f"{len(panels)}")
        self.errorbars_ = {}
        for panel, subset in zip(panels, subsets):
            self._draw_panel(panel, subset, learners)
        if len(learners) > 1:
            panels[-1].legend(loc="center left", bbox_to_anchor=(1.02, 0.5), title="learner")
        self.ax_, self.figure_ = panels, panels[0].figure
        return self

    def _draw_panel(self, ax, subset, learners):
        rows = self.summary[self.summary["test.subset"] == subset]
        offsets = np.linspace(-0.25, 0.25, len(learners)) if len(learners) > 1 else [0.0]
        for k, learner in enumerate(learners):
            mine = rows[rows["learner"] == learner].set_index("train.subsets")
            trains = [t for t in TRAIN_ROWS if t in mine.index]
            y = np.array([TRAIN_ROWS.index(t) for t in trains]) + offsets[k]
            mean = mine.loc[trains, "mean"].to_numpy(float)
            sd = mine.loc[trains, "sd"].to_numpy(float)
            self.errorbars_[(learner, subset)] = ax.errorbar(
                mean, y, xerr=sd, fmt="o", mfc="none", capsize=3, color=f"C{k}", label=learner)
            self._write_pvalues(ax, subset, learner, mine, y, trains)
        ax.set_yticks(range(len(TRAIN_ROWS)))
        ax.set_yticklabels(TRAIN_ROWS)
        ax.set_ylim(len(TRAIN_ROWS) - 0.5, -0.5)
        ax.set_title(f"test subset {subset}")
        ax.set_xlabel(_measure_title(self.measure))
        ax.set_ylabel("train subsets")
        ax.margins(x=0.25)

    def _write_pvalues(self, ax, subset, learner, mine, y, trains):
        if self.pvalues is None:
            return
        tests = self.pvalues[(self.pvalues["test.subset"] == subset) &
                             (self.pvalues["learner"] == learner)]
        for _, test in tests.iterrows():
            train = test["comparison"].split("-")[0]
            if train in trains:
                at = trains.index(train)
                ax.annotate(_p_text(float(test["p_paired"])), (mine.loc[train, "mean"], y[at]),
                            xytext=(0, -9), textcoords="offset points", ha="center",
                            va="top", fontsize=8, color="#595959")

    @classmethod
    def from_results(cls, results, *, measure=None, data=None, learners=None,
                     show_pvalues=True, ax=None):
        """The chart of ``assay.soak.run`` / ``run_estimators`` results.

        Parameters
        ----------
        results : pandas.DataFrame
            The results (one row per split).
        measure : str, default=None
            "error_percent", "auc", "mse" or "mae"; None: error_percent for classification
            results, mse for regression (as ``assay.soak.summaries``).
        data : str, default=None
            The data set to draw; None requires the results to hold one.
        learners : list of str, default=None
            The learners to draw, in this order; None draws all.
        show_pvalues : bool, default=True
            Write each Other-Same and All-Same paired t-test p-value under the Other / All
            mean ("p undefined" where the test is).
        ax : matplotlib Axes or sequence of Axes, default=None
            As :meth:`plot`.

        Returns
        -------
        SoakErrorDisplay
            The drawn display.

        Raises
        ------
        assay.AssayError
            For several data sets without ``data``, or an unknown data set or learner.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> import assay.soak as soak
        >>> rng = np.random.default_rng(0)
        >>> X, y = rng.normal(size=(90, 2)), rng.integers(0, 2, 90)
        >>> results = soak.run(X, y, subset=np.repeat(["N", "S"], 45), n_splits=3)
        >>> d = soak.SoakErrorDisplay.from_results(results, show_pvalues=False)
        >>> sorted({learner for learner, _ in d.errorbars_})
        ['featureless']
        """
        with warnings.catch_warnings():
            # An undefined p-value is written as such on the chart; its warning adds nothing.
            warnings.simplefilter("ignore", AssayWarning)
            statistics = soak_statistics(results, measure)
        summary = frame(statistics["summaries"])
        tests = frame(statistics["pvalues"]) if show_pvalues else None
        measure = measure or ("mse" if _is_regression(results) else "error_percent")
        summary = _select(summary, data, learners)
        if tests is not None:
            tests = _select(tests, data, learners)
        return cls(summary, tests, measure=measure).plot(ax=ax)


def _is_regression(results):
    return "mse" in results and np.isfinite(np.asarray(results["mse"], dtype=float)).any()


def _select(frame, data, learners):
    """The full-size rows of one data set and the chosen learners (in their order)."""
    frame = frame[frame["n.train.groups"] == 0]
    names = list(dict.fromkeys(frame["data"]))
    if data is None and len(names) > 1:
        raise AssayError(f"the results hold several data sets {names}: pass data= to pick one")
    data = names[0] if data is None else data
    if data not in names:
        raise AssayError(f"no results for data set {data!r}; found {names}")
    frame = frame[frame["data"] == data]
    if learners is not None:
        missing = [name for name in learners if name not in set(frame["learner"])]
        if missing:
            raise AssayError(f"no results for learner(s) {missing}; found "
                             f"{sorted(set(frame['learner']))}")
        frame = frame[frame["learner"].isin(learners)]
        order = {name: i for i, name in enumerate(learners)}
        frame = frame.sort_values("learner", key=lambda s: s.map(order), kind="stable")
    return frame


def _measure_title(measure):
    return {"error_percent": "test error (%)", "auc": "test AUC", "mse": "test MSE",
            "mae": "test MAE"}.get(measure, measure)
