"""The field of a JSON text that holds a given character, for the secret scanner.

A format-2 cassette stores a JSON body as its text in one YAML scalar, so the YAML node
tree ends at the body; `json_path_at` reads on into the text and names the key or item
under the character, as ``.messages[0].content``, the way the scanner names YAML
fields. It tokenizes without building the value, so a text of any size or depth costs
one pass, and a text that is not JSON gives the path as far as it could follow it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

__all__ = ["json_path_at"]

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+')


def _key(token: str) -> str:
    if not token.startswith('"'):
        return token
    try:
        return str(json.loads(token))
    except ValueError:
        return token.strip('"')


def json_path_at(text: str, offset: int, name: Callable[[str], str]) -> str:
    """The path from the top of the JSON ``text`` to the key or value holding the
    character at ``offset``: ``name(key)`` for each object key, ``[index]`` for each
    array item; empty when the character is in no key or value."""
    # Each open container: "{" with the current key and whether a key comes next, or
    # "[" with the current index.
    frames: list[list[object]] = []

    def path(*extra: str) -> str:
        parts = [f"[{f[1]}]" if f[0] == "[" else name(str(f[1])) for f in frames if f[1] != ""]
        return "".join([*parts, *extra])

    for match in _TOKEN.finditer(text):
        token, start, end = match[0], match.start(), match.end()
        if start > offset:
            break
        if token in ("{", "["):
            frames.append(["{", "", True] if token == "{" else ["[", 0, False])
        elif token in ("}", "]"):
            if frames:
                frames.pop()
        elif token == ",":
            if frames and frames[-1][0] == "[":
                frames[-1][1] = int(str(frames[-1][1])) + 1
            elif frames:
                frames[-1][2] = True
        elif token == ":":
            if frames:
                frames[-1][2] = False
        elif frames and frames[-1][0] == "{" and frames[-1][2]:
            frames[-1][1] = _key(token)
            if start <= offset < end:
                return path()
        elif start <= offset < end:
            return path()
    return ""
