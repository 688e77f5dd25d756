"""``coindrel selftest``: guided check of every sensor (logic in coindrel.reconcile.guided)."""

from ..reconcile.guided import SELFTEST_DESCRIPTION as DESCRIPTION
from ..reconcile.guided import SELFTEST_HELP as HELP
from ..reconcile.guided import add_selftest_arguments as add_arguments
from ..reconcile.guided import run_selftest as run

__all__ = ["HELP", "DESCRIPTION", "add_arguments", "run"]
