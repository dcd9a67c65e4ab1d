"""How far the corpus sweeps go in one run.

The README's test command runs the corpus sweeps over every `EVERY`-th schema of each
shard (every fourth) and the oracle's thorough tests at `ORACLE_FACTOR` times the
profile's examples (once);
``HARNESS_CONFORMANCE_SWEEP=full`` (``tox -e sweep``, which CI runs after the README's
command) sweeps every schema and draws five times the profile's examples. Both are
derandomized, so each is the same run on every machine.
"""

from __future__ import annotations

import os

ENV = "HARNESS_CONFORMANCE_SWEEP"
FULL = os.environ.get(ENV) == "full"
"""Whether this run draws the full sweeps."""

ORACLE_FACTOR = 5 if FULL else 1
"""How many times the profile's examples the oracle's thorough tests draw."""

EVERY = 1 if FULL else 4
"""The corpus sweeps (strategies against the oracle, generated validators against the
closures) check every ``EVERY``-th schema of each shard: every schema under the full
sweep."""
