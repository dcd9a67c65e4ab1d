"""The offline guard: connections and name lookups outside loopback are refused.

`block_network` closes the network for a block of code in this process (and
`child_guard` for the Python child processes it starts); a refusal raises
`harness_conformance.errors.CassetteError` with code ``NETWORK_BLOCKED`` naming the
host, and is kept so that a client that swallowed it cannot hide it. A refusal of a
host that carries no model request advises ignoring it or turning it off where it
starts (naming the switch of the hosts it knows), never recording it. This part imports
nothing but the error taxonomy, so the pytest plugin can close the network before
anything else loads.
"""

from ._child_guard import (
    ChildUnguardedWarning,
    child_guard,
    guard_this_process,
)
from ._ci import is_ci
from ._guard import (
    LOOPBACK_HOSTS,
    NetworkGuard,
    activate,
    block_network,
    deactivate,
    exception_chain,
    unreported,
)

__all__ = [
    "LOOPBACK_HOSTS",
    "ChildUnguardedWarning",
    "NetworkGuard",
    "activate",
    "block_network",
    "child_guard",
    "deactivate",
    "exception_chain",
    "guard_this_process",
    "is_ci",
    "unreported",
]
