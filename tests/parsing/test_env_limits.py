"""`integer_limit`: the value in code, then the variable, then the default; bad values refused."""

from __future__ import annotations

import pytest

from harness_conformance.parsing._limits import integer_limit


def _limit(given: int | None, env: dict[str, str], minimum: int = 1) -> int:
    return integer_limit(
        given, name="limit", variable="HC_LIMIT", default=7, minimum=minimum, env=env
    )


def test_precedence_is_code_then_variable_then_default() -> None:
    assert _limit(3, {"HC_LIMIT": "9"}) == 3
    assert _limit(None, {"HC_LIMIT": " 1_000 "}) == 1000
    assert _limit(None, {"HC_LIMIT": "  "}) == 7
    assert _limit(None, {}) == 7


@pytest.mark.parametrize(
    ("given", "env", "minimum", "message"),
    [
        (None, {"HC_LIMIT": "lots"}, 1, "HC_LIMIT must be a positive integer, not 'lots'"),
        (None, {"HC_LIMIT": "0"}, 1, "HC_LIMIT must be a positive integer, not 0"),
        (-1, {}, 0, "limit must be a non-negative integer, not -1"),
        (True, {}, 0, "limit must be a non-negative integer, not True"),
        (1, {}, 2, "limit must be an integer of at least 2, not 1"),
    ],
)
def test_bad_values_are_refused_naming_their_source(
    given: int | None, env: dict[str, str], minimum: int, message: str
) -> None:
    with pytest.raises(ValueError) as info:
        _limit(given, env, minimum)
    assert str(info.value) == message
