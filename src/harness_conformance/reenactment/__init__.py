"""Re-enacting reference sessions (DESIGN §17): a session log's recorded model replies
and tool results are played through our loop, and our event stream is compared with
the log's, giving one verdict per log: ``identical``, ``differs`` (with the first
differing event) or ``not reenactable`` (with the missing feature's name, see
`REASONS`). The user guide is docs/reenact.md.
"""

from ._reasons import REASONS
from ._run import reenact
from ._verdict import DIFFERS, IDENTICAL, NOT_REENACTABLE, EventDifference, Reenactment, Verdict

__all__ = [
    "DIFFERS",
    "IDENTICAL",
    "NOT_REENACTABLE",
    "REASONS",
    "EventDifference",
    "Reenactment",
    "Verdict",
    "reenact",
]

# The module users import these from, where pickle finds them too.
for _cls in (EventDifference, Reenactment):
    _cls.__module__ = "harness_conformance"
del _cls
