"""Which wire format a recorded request speaks, decided per request.

Formats are asked in order, the ones recognised by their URL first (Anthropic
``…/messages``, OpenAI ``…/responses``, Gemini ``…:generateContent`` and
``…:streamGenerateContent``), chat-completions last, since an Anthropic body has a
``messages`` list too. The answer depends on that one request only, never on the other
interactions of its recording.

`not_a_model_call` names the requests that are no model call at all (a ``GET``, a body
that is not a JSON object, and the side endpoints of the providers: embeddings, token
counting, files, moderation, model listings...); a recording may hold those beside its
model calls. Any other request no format claims is a model call in a format this
library does not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from ._format import WireFormat
from .anthropic import ANTHROPIC_MESSAGES
from .chat import OPENAI_CHAT
from .gemini import GEMINI
from .responses import OPENAI_RESPONSES

__all__ = ["FORMATS", "detect", "format_named", "not_a_model_call"]

FORMATS: tuple[WireFormat, ...] = (
    ANTHROPIC_MESSAGES,
    OPENAI_RESPONSES,
    GEMINI,
    OPENAI_CHAT,
)
"""Every format, in the order `detect` asks them."""


def detect(method: str, url: str, body: object) -> WireFormat | None:
    """The format of a recorded request, or None when it is no model call we know
    (side endpoints such as token counting are never a format's, whatever their body)."""
    if not_a_model_call(method, url, body):
        return None
    for candidate in FORMATS:
        if candidate.matches(method, url, body):
            return candidate
    return None


def format_named(name: str) -> WireFormat:
    """The format called ``name``; `KeyError` naming the known ones otherwise."""
    for candidate in FORMATS:
        if candidate.name == name:
            return candidate
    known = ", ".join(f.name for f in FORMATS)
    raise KeyError(f"no wire format named {name!r}; the formats are: {known}")


_SIDE_ENDPOINT = re.compile(
    r"(/embeddings|/moderations|/files(/.*)?|/models(/[^:]*)?|/count_tokens|/input_tokens"
    r"|/audio/.*|/images/.*|/batches(/.*)?|/vector_stores(/.*)?|/uploads(/.*)?"
    r"|/fine_tuning/.*|/cachedContents(/.*)?"
    r"|:(countTokens|embedContent|batchEmbedContents|predict|batchPredict))$"
)


def not_a_model_call(method: str, url: str, body: object) -> bool:
    """Whether a recorded request is no model call at all, so a replay may skip it."""
    if method.upper() != "POST" or not isinstance(body, Mapping):
        return True
    return _SIDE_ENDPOINT.search(urlsplit(url).path) is not None
