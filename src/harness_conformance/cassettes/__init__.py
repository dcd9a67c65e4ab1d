"""Cassettes: record and replay model traffic with vcrpy (the format, scrubbing, files).

`configure_vcr` (or `make_vcr`) sets up a ``vcr.VCR`` so that every cassette it writes
is in the harness_conformance format, scrubbed of credentials, checked for leftover
secrets and written atomically. `use_cassette` records or replays a block with our
matcher, readable misses, unplayed-interaction checks and the offline guard.
`replay_foreign` plays any recorded chat-completions traffic through the loop, and
`write_exchanges` writes the traffic a server of this library answered (a client in
another process or language) as a cassette. The
guides are ``docs/cassettes.md`` and ``docs/foreign-cassettes.md``.

Cassettes are read as untrusted input: YAML aliases may add at most `ALIAS_BUDGET` to a
document and a compressed body may decode to at most `MAX_BODY_BYTES` bytes (each
raised with an environment variable; see the guide).
"""

from ..offline import block_network
from ..parsing import ALIAS_BUDGET
from . import _format as serializer
from ._decompress import MAX_BODY_BYTES
from ._exchanges import Exchange, ExchangeRequest, write_exchanges
from ._format import (
    FORMAT_VERSION,
    KEPT_REQUEST_HEADERS,
    KEPT_RESPONSE_HEADERS,
    SERIALIZER_NAME,
    decoded_response,
    deserialize,
    load_document,
    serialize,
)
from ._match import (
    DEFAULT_VOLATILE,
    MATCH_ON,
    MatchingCassette,
    json_body_matcher,
    parse_volatile_path,
    register_json_body,
    unused_error,
)
from ._modes import (
    DEFAULT_MODE,
    MODES,
    CassetteUse,
    declare_secret,
    refuse_secrets_now,
    resolve_mode,
    use_cassette,
)
from ._names import refuse_secret_name, safe_part
from ._persist import CassettePersister, configure_vcr, make_vcr, write_atomically, write_problem
from ._secrets import (
    MIN_SECRET_LENGTH,
    REDACTED,
    SECRET_ENV_VARS,
    SECRET_HEADERS,
    SECRET_QUERY_PARAMS,
    Scrubber,
    Secret,
    SecretFinding,
    describe_findings,
    find_secrets,
    live_secrets,
    refuse_secrets,
)
from ._sse import dump_json, parse_json, sse_items, sse_text
from .foreign._load import Interaction, load_foreign_cassette
from .foreign._replay import (
    ForeignReplay,
    ForeignSession,
    InvalidToolCall,
    UncheckedToolCall,
    areplay_foreign,
    replay_foreign,
)

__all__ = [
    "ALIAS_BUDGET",
    "DEFAULT_MODE",
    "DEFAULT_VOLATILE",
    "FORMAT_VERSION",
    "KEPT_REQUEST_HEADERS",
    "KEPT_RESPONSE_HEADERS",
    "MATCH_ON",
    "MAX_BODY_BYTES",
    "MIN_SECRET_LENGTH",
    "MODES",
    "REDACTED",
    "SECRET_ENV_VARS",
    "SECRET_HEADERS",
    "SECRET_QUERY_PARAMS",
    "SERIALIZER_NAME",
    "CassettePersister",
    "CassetteUse",
    "Exchange",
    "ExchangeRequest",
    "ForeignReplay",
    "ForeignSession",
    "Interaction",
    "InvalidToolCall",
    "MatchingCassette",
    "Scrubber",
    "Secret",
    "SecretFinding",
    "UncheckedToolCall",
    "areplay_foreign",
    "block_network",
    "clear_caches",
    "configure_vcr",
    "declare_secret",
    "decoded_response",
    "describe_findings",
    "deserialize",
    "dump_json",
    "find_secrets",
    "json_body_matcher",
    "live_secrets",
    "load_document",
    "load_foreign_cassette",
    "make_vcr",
    "parse_json",
    "parse_volatile_path",
    "refuse_secret_name",
    "refuse_secrets",
    "refuse_secrets_now",
    "register_json_body",
    "replay_foreign",
    "resolve_mode",
    "safe_part",
    "serialize",
    "serializer",
    "sse_items",
    "sse_text",
    "unused_error",
    "use_cassette",
    "write_atomically",
    "write_exchanges",
    "write_problem",
]


def clear_caches() -> None:
    """Empty the caches of this part: the parsed cassette files kept for the next load,
    the canonical request bodies and volatile paths of matching, the JSON encoders of
    the body styles, the tool schemas foreign replays imported, the HTTP libraries
    found missing (`absent_patch_groups`), the bodies scrubbing found clean
    (`CLEAN_TEXTS`), the filtered requests and responses cassettes share, the loads
    of cassette files they share (`harness_conformance.cassettes._loaded`) and when
    each cassette folder was last swept of stale temporary files."""
    from ._clean_texts import CLEAN_TEXTS
    from ._file_lock import forget_sweeps
    from ._json_style import clear_encoders
    from ._loaded import LOADED
    from ._match import clear_match_caches
    from ._patch_groups import forget_absent_patch_groups
    from ._persist import clear_parsed_cassettes
    from ._shared_filters import SHARED_REQUESTS, SHARED_RESPONSES
    from .foreign._replay import clear_spec_cache

    forget_absent_patch_groups()
    CLEAN_TEXTS.clear()
    SHARED_REQUESTS.clear()
    SHARED_RESPONSES.clear()
    LOADED.clear()
    forget_sweeps()
    clear_parsed_cassettes()
    clear_match_caches()
    clear_encoders()
    clear_spec_cache()
