"""Metrics with scikit-learn's names, arguments, return shapes and input contract (the whole
supervised set of sklearn.metrics: classification, ranking, regression, scorers), computed by
the compiled library; plus the conventions scikit-learn lacks (VOC/COCO AP, grouped confusion
matrices, calibration tables, bootstrap intervals, DeLong tests). See docs/metrics.md."""
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
