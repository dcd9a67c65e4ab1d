"""The OpenAI Agents SDK's strict tool schema against the validation its tools run.

``function_tool`` advertises a strict schema (every key required, no other key), and
before calling the function builds the pydantic model behind it from the model's
arguments (``params_pydantic_model(**arguments)`` in ``agents/tool.py``), which fills
defaults and ignores undeclared keys. `assert_validator_agrees` names that gap.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any, Literal

import pytest

from harness_conformance.strategies import assert_validator_agrees, validator_agreement


def get_weather(town: Literal["Paris", "Lyon", "Nice"], days: int = 1) -> str:
    """The weather in a French town."""
    return f"sunny in {town} for {days} day(s)"


@pytest.fixture(scope="module")
def schema() -> Any:
    if importlib.util.find_spec("agents") is None:
        pytest.skip("agents is not installed (tox -e frameworks installs it)")
    function_schema = importlib.import_module("agents.function_schema").function_schema
    return function_schema(get_weather)


def _built(schema: Any) -> Any:
    model = schema.params_pydantic_model

    def validate(arguments: Any) -> object:
        return model(**arguments) if arguments else model()

    return validate


def test_the_strict_schema_closes_what_the_tool_accepts(schema: Any) -> None:
    advertised = schema.params_json_schema
    assert schema.strict_json_schema
    assert advertised["required"] == ["town", "days"]
    assert advertised["additionalProperties"] is False
    report = validator_agreement(advertised, _built(schema), max_examples=20)
    disagreeing = {check.name for check in report.disagreements()}
    assert {"missing-required", "extra-key-closed"} <= disagreeing
    assert "enum-miss" not in disagreeing
    missing = report.check("missing-required")
    assert missing.example is not None
    assert missing.example.args == {"town": "Paris"}
    extra = report.check("extra-key-closed")
    assert extra.disagreed == extra.ran
    with pytest.raises(AssertionError, match="disagrees on missing-required"):
        assert_validator_agrees(advertised, _built(schema), max_examples=20)
