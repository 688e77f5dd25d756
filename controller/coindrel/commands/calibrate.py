"""``coindrel calibrate``: guided hall calibration (logic in coindrel.reconcile.guided)."""

from ..reconcile.guided import CALIBRATE_DESCRIPTION as DESCRIPTION
from ..reconcile.guided import CALIBRATE_HELP as HELP
from ..reconcile.guided import add_calibrate_arguments as add_arguments
from ..reconcile.guided import run_calibrate as run

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]
