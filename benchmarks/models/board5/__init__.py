"""board5: a fifth board model, held out (issue 13), written from the specs
(rules.md, sensing.md), firmware/PROTOCOL.md and hardware/ alone, without
reading the other models or the reconciler.

``Session(seed, drops=70, stream=None, faults=[(name, where, start_drop,
rate, opts)]).run()`` gives an observation log (sensing.md section 3) and
the truth ``benchmarks/scoring.py`` reads.
"""

from .session import Session

__all__ = ["Session"]
