"""The shapes of credentials the cassette secret scanner looks for.

Each key pattern starts with its literal prefix (``sk-``, ``gsk_``, ``AIza``...), so the
regular expression engine can jump to it. The two contextual patterns, long hex and
long base64 runs, count only next to a credential-like name (`find_secrets` decides);
`key_matches` searches them only inside runs of key characters long enough to hold
one, which is where all their matches lie.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["CONTEXTUAL", "KEYED", "PATTERNS", "RUN", "KeyPattern", "key_matches", "runs"]

_PLACEHOLDER_WORDS = ("redacted", "xxxx", "placeholder", "dummy", "fake", "example", "your")


def _is_placeholder(token: str) -> bool:
    lowered = token.lower()
    return len(set(lowered)) < 5 or any(word in lowered for word in _PLACEHOLDER_WORDS)


def _mixed_case(token: str) -> bool:
    return any(c.isupper() for c in token) and any(c.islower() for c in token)


def _looks_random(token: str) -> bool:
    return (
        any(c.isdigit() for c in token)
        and any(c.isalpha() for c in token)
        and not _is_placeholder(token)
    )


@dataclass(frozen=True)
class KeyPattern:
    kind: str
    regex: re.Pattern[str]
    accept: Callable[[str], bool]
    needs_context: bool = False


# Each key pattern starts with its literal prefix, so the regex engine can jump to it;
# the look-behind after the prefix keeps it from matching inside a longer word.
PATTERNS = (
    KeyPattern(
        "an Anthropic API key (sk-ant-...)",
        re.compile(r"sk-ant-(?<![\w-]sk-ant-)[a-z]+[0-9]{2}-[A-Za-z0-9_-]{80,}"),
        lambda token: not _is_placeholder(token[7:]),
    ),
    KeyPattern(
        "an OpenAI-style API key (sk-...)",
        re.compile(r"sk-(?<![\w-]sk-)[A-Za-z0-9_-]{20,}"),
        lambda token: not _is_placeholder(token[3:]),
    ),
    KeyPattern(
        "a Groq API key (gsk_...)",
        re.compile(r"gsk_(?<![\w-]gsk_)[A-Za-z0-9]{20,}"),
        lambda token: not _is_placeholder(token[4:]),
    ),
    KeyPattern(
        "an xAI API key (xai-...)",
        re.compile(r"xai-(?<![\w-]xai-)[A-Za-z0-9]{20,}"),
        lambda token: not _is_placeholder(token[4:]),
    ),
    KeyPattern(
        "a Google API key (AIza...)",
        re.compile(r"AIza(?<![\w-]AIza)[0-9A-Za-z_-]{35}(?![\w-])"),
        lambda token: not _is_placeholder(token[4:]),
    ),
    KeyPattern(
        "a Hugging Face token (hf_...)",
        re.compile(r"hf_(?<![\w-]hf_)[A-Za-z0-9]{34}(?![\w-])"),
        lambda token: _mixed_case(token[3:]) and not _is_placeholder(token[3:]),
    ),
    KeyPattern(
        "a GitHub token (ghp_, gho_, ghu_, ghs_, ghr_...)",
        re.compile(r"gh[pousr]_(?<![\w-]gh[pousr]_)[A-Za-z0-9]{36}(?![\w-])"),
        lambda token: _looks_random(token[4:]),
    ),
    KeyPattern(
        "a GitHub fine-grained token (github_pat_...)",
        re.compile(r"github_pat_(?<![\w-]github_pat_)[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![\w-])"),
        lambda token: _looks_random(token[11:]),
    ),
    KeyPattern(
        "an AWS access key id (AKIA..., ASIA...)",
        re.compile(r"A[KS]IA(?<![\w-]A[KS]IA)[A-Z2-7]{16}(?![\w-])"),
        lambda token: not _is_placeholder(token[4:]),
    ),
    KeyPattern(
        "a Slack token (xoxb-..., xoxp-...)",
        re.compile(
            r"xox[bp]-(?<![\w-]xox[bp]-)[0-9]{8,13}-[0-9]{8,13}(?:-[0-9]{8,13})?"
            r"-[A-Za-z0-9]{24,34}(?![\w-])"
        ),
        lambda token: not _is_placeholder(token.rsplit("-", 1)[-1]),
    ),
    KeyPattern(
        "a bearer token (Bearer ...)",
        re.compile(r"Bearer(?<!\wBearer)\s+([A-Za-z0-9._~+/=-]{16,})"),
        lambda token: _looks_random(token.split()[-1]),
    ),
    KeyPattern(
        "a long hex key",
        re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{32,}(?![0-9A-Za-z])"),
        _looks_random,
        needs_context=True,
    ),
    KeyPattern(
        "a long base64 key",
        re.compile(r"(?<![A-Za-z0-9+/_=-])[A-Za-z0-9+/_-]{40,}={0,2}"),
        _looks_random,
        needs_context=True,
    ),
)


KEYED = tuple(pattern for pattern in PATTERNS if not pattern.needs_context)
CONTEXTUAL = tuple(pattern for pattern in PATTERNS if pattern.needs_context)
_RUN_LENGTH = 32
RUN = re.compile(rf"[A-Za-z0-9+/_-]{{{_RUN_LENGTH},}}")
"""A run of the characters every contextual pattern is made of, as long as the shortest
of them: each contextual match lies inside one such run (plus two ``=`` of padding)."""
_KEY_CHARACTERS = string.ascii_letters + string.digits + "+/_-"
_AS_RUNS = str.maketrans({chr(c): "a" if chr(c) in _KEY_CHARACTERS else " " for c in range(128)})


def runs(text: str) -> list[tuple[int, int]]:
    """Where `RUN` matches in ``text``. An ASCII text is mapped to ``a`` for a run
    character and a space for any other, and the runs are found with plain substring
    searches, several times faster than the pattern."""
    if not text.isascii():
        return [run.span() for run in RUN.finditer(text)]
    shape = text.translate(_AS_RUNS)
    probe = "a" * _RUN_LENGTH
    runs: list[tuple[int, int]] = []
    start = shape.find(probe)
    while start >= 0:
        end = shape.find(" ", start + _RUN_LENGTH)
        end = len(shape) if end < 0 else end
        runs.append((start, end))
        start = shape.find(probe, end)
    return runs


def key_matches(text: str) -> Iterator[tuple[KeyPattern, re.Match[str]]]:
    """Every pattern's matches in ``text``, as ``pattern.regex.finditer(text)`` gives
    them. The contextual patterns are searched only inside the runs `runs` finds,
    which is where all their matches are; their look-behinds still see the text before
    a run."""
    for pattern in KEYED:
        for match in pattern.regex.finditer(text):
            yield pattern, match
    windows = [(start, end + 2) for start, end in runs(text)]
    for pattern in CONTEXTUAL:
        for start, end in windows:
            for match in pattern.regex.finditer(text, start, end):
                yield pattern, match
