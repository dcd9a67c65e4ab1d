"""Texts the scrubber already found free of the secrets it replaces.

A replay loads the same recorded bodies test after test, and vcrpy passes each loaded
request and response through the scrubber again (`Scrubber`). With a secret declared
(a key set in the environment, as in a developer's shell), scrubbing a streamed body
searches every spelling of the key in it and reassembles the stream to find a key cut
across events: about a millisecond per body. `CleanTexts` remembers which texts came
out of a scrub unchanged, so the same text under the same secrets is not searched again.

The table holds neither a secret nor a text: each entry is an HMAC-SHA256 digest, under
a key drawn for this process, of the secrets, the placeholder, the kind of scrub and
the text. Other secrets, another placeholder or any change to the text make another
digest, which is searched anew; a text that a scrub changed is never remembered.
"""

from __future__ import annotations

import hmac
import secrets
import threading
from collections import OrderedDict

from ..redaction import Redactor

__all__ = ["CLEAN_TEXTS", "CleanTexts"]


class CleanTexts:
    """The digests of the last ``size`` texts a scrub left as they were."""

    def __init__(self, size: int = 4096) -> None:
        self.size = size
        self._key = secrets.token_bytes(32)
        self._digests: OrderedDict[bytes, None] = OrderedDict()
        self._lock = threading.Lock()

    def digest(self, kind: str, text: str | bytes, redactor: Redactor) -> bytes:
        """What identifies ``text`` scrubbed by ``redactor`` for ``kind`` of scrub."""
        mac = hmac.new(self._key, digestmod="sha256")
        for secret in redactor.secrets:
            value = secret.reveal().encode("utf-8", "surrogatepass")
            mac.update(len(value).to_bytes(8, "big") + value)
        placeholder = redactor.placeholder.encode("utf-8", "surrogatepass")
        mac.update(len(placeholder).to_bytes(8, "big") + placeholder)
        mac.update(kind.encode("ascii") + (b"\0b" if isinstance(text, bytes) else b"\0s"))
        mac.update(text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass"))
        return mac.digest()

    def known(self, digest: bytes) -> bool:
        """Whether the text of ``digest`` came out of its scrub unchanged before."""
        with self._lock:
            if digest not in self._digests:
                return False
            self._digests.move_to_end(digest)
            return True

    def add(self, digest: bytes) -> None:
        """Remember that the text of ``digest`` came out of its scrub unchanged."""
        with self._lock:
            self._digests[digest] = None
            self._digests.move_to_end(digest)
            while len(self._digests) > self.size:
                self._digests.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._digests.clear()


CLEAN_TEXTS = CleanTexts()
"""The texts this process's scrubbers left as they were."""
