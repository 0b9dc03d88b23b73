"""Model-evaluation metrics with scikit-learn's names, arguments and return shapes.

The whole supervised set of ``sklearn.metrics`` (classification, ranking, regression,
scorers, plots), with scikit-learn's names, arguments, return shapes and input contract, computed by
the compiled library; plus the conventions scikit-learn lacks (VOC/COCO AP, grouped confusion
matrices, calibration tables, bootstrap intervals, DeLong tests).

- Label metrics: ``confusion_matrix``, ``grouped_confusion_matrix``,
  ``multilabel_confusion_matrix``, ``accuracy_score``, ``balanced_accuracy_score``,
  ``precision_recall_fscore_support``, ``precision_score``, ``recall_score``, ``f1_score``,
  ``fbeta_score``, ``jaccard_score``, ``matthews_corrcoef``, ``cohen_kappa_score``,
  ``class_likelihood_ratios``, ``hamming_loss``, ``zero_one_loss``, ``classification_report``,
  ``binary_rates``, ``predict_labels``.
- Probabilities: ``log_loss``, ``brier_score_loss``, ``d2_log_loss_score``, ``d2_brier_score``,
  ``calibration_error``, ``hinge_loss``.
- Ranking: ``roc_curve``, ``roc_auc_score``, ``precision_recall_curve``,
  ``interpolated_precision``, ``average_precision_score`` (scikit-learn's step rule and the
  VOC/COCO conventions), ``mean_average_precision``, ``det_curve``, ``auc``,
  ``top_k_accuracy_score``, ``confusion_matrix_at_thresholds``, ``metric_at_thresholds``,
  ``RankedScores``; multilabel ranking: ``coverage_error``,
  ``label_ranking_average_precision_score``, ``label_ranking_loss``, ``dcg_score``,
  ``ndcg_score``.
- Regression: ``mean_absolute_error``, ``mean_squared_error``, ``root_mean_squared_error``,
  ``mean_squared_log_error``, ``root_mean_squared_log_error``, ``median_absolute_error``,
  ``mean_absolute_percentage_error``, ``mean_pinball_loss``, ``max_error``,
  ``explained_variance_score``, ``r2_score``, ``mean_tweedie_deviance``,
  ``mean_poisson_deviance``, ``mean_gamma_deviance``, ``d2_tweedie_score``,
  ``d2_pinball_score``, ``d2_absolute_error_score``.
- Uncertainty and comparison: ``bootstrap``, ``summarize_runs``, ``delong_roc_test``,
  ``compare_pr_curves``.
- Scorers for scikit-learn's model selection: ``make_scorer``, ``get_scorer``,
  ``get_scorer_names``; everything ``assay metrics`` computes at once: ``evaluate``.
- Plots (matplotlib, scikit-learn's Display classes): ``RocCurveDisplay``,
  ``PrecisionRecallDisplay``, ``DetCurveDisplay``, ``ConfusionMatrixDisplay``,
  ``CalibrationDisplay``, ``PredictionErrorDisplay``.

Errors are ``assay.AssayError`` (a ValueError) unless scikit-learn raises another type for the
same call. The names, arguments and defaults are those of scikit-learn 1.9, the newest release;
code written for scikit-learn 1.2 keeps working where the two agree. Where a value is undefined
(for example ROC AUC with one class present, where scikit-learn raises, or MCC with one class,
where it returns 0) the result is NaN with an ``UndefinedMetricWarning`` (scikit-learn's name,
an ``assay.AssayWarning``). See docs/metrics.md and docs/conventions.md for every difference
from scikit-learn 1.9 and 1.2.

Examples
--------
>>> from assay import metrics
>>> print(round(metrics.roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), 4))
0.75
>>> print(round(metrics.f1_score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1]), 4))
0.8
"""
from ._assay import UndefinedMetricWarning  # noqa: F401  (scikit-learn's name, an AssayWarning)
from ._ranking import *  # noqa: F401,F403
from ._classification import *  # noqa: F401,F403
from ._label_metrics import *  # noqa: F401,F403
from ._label_ranking import *  # noqa: F401,F403
from ._regression import *  # noqa: F401,F403
from ._scorer import *  # noqa: F401,F403
from ._uncertainty import *  # noqa: F401,F403
from ._evaluate import *  # noqa: F401,F403
from ._plot import (CalibrationDisplay, ConfusionMatrixDisplay, DetCurveDisplay,  # noqa: F401
                    PrecisionRecallDisplay, PredictionErrorDisplay, RocCurveDisplay)
