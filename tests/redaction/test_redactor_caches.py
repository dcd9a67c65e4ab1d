"""A `Redactor` keeps the patterns built from its secrets on itself alone: once the
caller drops it, no object of the process holds the secret."""

from __future__ import annotations

import gc
import json
from urllib.parse import quote

import pytest

from harness_conformance.redaction import REDACTED, Redactor, Secret


def _secrets_alive(value: str) -> int:
    gc.collect()
    return sum(
        1 for item in gc.get_objects() if isinstance(item, Secret) and item.reveal() == value
    )


@pytest.mark.slow
def test_a_dropped_redactor_leaves_no_secret_behind() -> None:
    value = "sk-only-in-this-test-" + "Zq7" * 8
    redactor = Redactor([Secret(value)])
    assert redactor.text(f"key={value}") == f"key={REDACTED}"
    assert _secrets_alive(value) == 1
    del redactor
    assert _secrets_alive(value) == 0


def test_two_redactors_of_one_secret_replace_the_same_spellings() -> None:
    value = "key-é-\U0001f511-" + "w9" * 8
    spellings = [value, json.dumps(value), json.dumps(value, ensure_ascii=True), quote(value)]
    first, second = Redactor([Secret(value)]), Redactor([Secret(value)])
    for text in spellings:
        assert first.text(f"<{text}>") == second.text(f"<{text}>")
        assert value not in first.text(f"<{text}>")
        assert REDACTED in first.text(f"<{text}>")
