"""Classification metrics: scikit-learn's names, arguments and return shapes where scikit-learn
has the function, plus the conventions it lacks (VOC/COCO AP, grouped confusion matrices,
calibration tables, bootstrap intervals, DeLong tests). See docs/metrics.md."""
from ._ranking import *  # noqa: F401,F403
from ._classification import *  # noqa: F401,F403
from ._uncertainty import *  # noqa: F401,F403
from ._evaluate import *  # noqa: F401,F403
