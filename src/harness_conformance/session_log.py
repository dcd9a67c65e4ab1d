"""Session logs: one JSONL file per session, read and written without loss.

The names live in `harness_conformance.events`, beside the events they hold, and are
importable from here as well.
"""

from .events import (
    PACKED_ROW_TYPES,
    SESSION_LOG_VERSION,
    SessionHeader,
    SessionLog,
    SessionLogError,
    SessionLogWriter,
    event_from_json,
    event_to_json,
    read_session_log,
    write_session_log,
)

__all__ = [
    "PACKED_ROW_TYPES",
    "SESSION_LOG_VERSION",
    "SessionHeader",
    "SessionLog",
    "SessionLogError",
    "SessionLogWriter",
    "event_from_json",
    "event_to_json",
    "read_session_log",
    "write_session_log",
]
