"""Reconciliation (sensing.md section 4): group board events into drops,
predict each with the engine from the board as it is believed to be, compare,
diagnose every difference and correct the belief.

The pieces, in the order data flows: ``grouping`` (events into groups, with
``timing`` learned from the board), ``observed`` (a group as counts and
readings), ``search`` + ``physics`` + ``sensors`` (which faults make the
engine reproduce it), ``belief`` + ``world`` (ranked diagnosis, corrected
belief, persistent faults across drops), ``report`` and ``health``. The
``Reconciler`` ties them together for the daemon (``reporting`` builds its
lines); ``offline`` runs it over a log. The fault vocabulary is
``coindrel.engine.catalog``. ``calibrate`` and ``selftest`` are guided
procedures, ``guided`` their terminal commands (they stay here for now).
The board models and scorers used by tests and benchmarks live in
``benchmarks/`` (not installed).
"""

from .faults import fault_from_key, key, say
from .health import HealthReport
from .observed import Sensors
from .reconciler import Reconciler
from .report import DropReport
from .timing import Timing

__all__ = ["Reconciler", "DropReport", "HealthReport", "Sensors", "Timing", "fault_from_key", "key", "say"]
