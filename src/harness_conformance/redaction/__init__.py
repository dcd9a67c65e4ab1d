"""Secrets kept out of everything written or shown: `Secret` holds a live credential so
that it never prints by accident, `declared_secrets` gathers the ones a run declares,
and `Redactor` and `redact_events` replace them in text, bytes, JSON values and event
logs, in every spelling they take (a key cut across the chunks of a reply included).
"""

from ._redact import (
    Piece,
    Redactor,
    crossing,
    encoded_forms,
    joined_texts,
    redact_events,
    redact_split,
    text_streams,
)
from ._secret import (
    MIN_SECRET_LENGTH,
    REDACTED,
    SECRET_ENV_VARS,
    Secret,
    declared_secrets,
)

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SECRET_ENV_VARS",
    "Piece",
    "Redactor",
    "Secret",
    "crossing",
    "declared_secrets",
    "encoded_forms",
    "joined_texts",
    "redact_events",
    "redact_split",
    "text_streams",
]

# The module users import these from, where pickle finds them too.
for _cls in (Secret,):
    _cls.__module__ = "harness_conformance.cassettes"
del _cls
