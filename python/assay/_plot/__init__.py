"""Display classes drawn with matplotlib (scikit-learn's Display API): each module holds one
display; matplotlib is imported only when a display draws. See docs/plots.md."""
from .calibration import CalibrationDisplay
from .confusion_matrix import ConfusionMatrixDisplay
from .det_curve import DetCurveDisplay
from .precision_recall_curve import PrecisionRecallDisplay
from .regression import PredictionErrorDisplay
from .retention_curve import RetentionCurveDisplay
from .roc_curve import RocCurveDisplay
from .soak_error import SoakErrorDisplay

__all__ = ["CalibrationDisplay", "ConfusionMatrixDisplay", "DetCurveDisplay",
           "PrecisionRecallDisplay", "PredictionErrorDisplay", "RetentionCurveDisplay",
           "RocCurveDisplay", "SoakErrorDisplay"]
