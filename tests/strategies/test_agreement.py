"""`validator_agreement` against real frameworks: the openai SDK's strict schema of a
pydantic model against ``Model.model_validate``, google-genai's declaration of an
``int`` parameter against the argument check of its automatic function calling, and
python-jsonschema on the same schemas, which agrees.

The counts come from derandomized runs, so they are the same on every run of one
Hypothesis version; the tests pin what holds on every version (all, some, none) and
the shrunk examples, which are the minimal ones."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import openai
import pytest
from google.genai import _extra_utils, types
from hypothesis import settings
from jsonschema import Draft202012Validator
from pydantic import BaseModel

from harness_conformance.strategies import (
    AgreementReport,
    ValidatorRun,
    assert_validator_agrees,
    validator_agreement,
)

EXAMPLES = 20


class Search(BaseModel):
    query: str
    limit: int = 10


STRICT = openai.pydantic_function_tool(Search)["function"]["parameters"]


def add_days(days: int, label: str = "days") -> str:
    """Adds days to today."""
    return f"{days} {label}"


DECLARATION = types.FunctionDeclaration.from_callable_with_api_option(
    callable=add_days, use_json_schema=True
)


def automatic_function_calling_accepts(args: Any) -> bool:
    """What google-genai does with a model's call of ``add_days``: the response part is
    parsed, its arguments converted and checked against the annotations, the function
    called; a failure becomes an ``error`` response instead of a result."""
    call = types.FunctionCall(name="add_days", args=args)
    content = types.Content(role="model", parts=[types.Part(function_call=call)])
    response = types.GenerateContentResponse(candidates=[types.Candidate(content=content)])
    [part] = _extra_utils.get_function_response_parts(response, {"add_days": add_days})
    assert part.function_response is not None
    return "error" not in (part.function_response.response or {})


@pytest.fixture(scope="module")
def openai_report() -> AgreementReport:
    return validator_agreement(STRICT, Search.model_validate, max_examples=EXAMPLES)


@pytest.fixture(scope="module")
def genai_report() -> AgreementReport:
    assert DECLARATION.parameters_json_schema is not None
    return validator_agreement(
        DECLARATION.parameters_json_schema,
        automatic_function_calling_accepts,
        max_examples=EXAMPLES,
    )


def test_the_strict_schema_requires_every_key_and_closes_the_object() -> None:
    assert STRICT["required"] == ["query", "limit"]
    assert STRICT["additionalProperties"] is False


def test_model_validate_accepts_extra_keys_the_strict_schema_refuses(
    openai_report: AgreementReport,
) -> None:
    extra = openai_report.check("extra-key-closed")
    assert extra.ran == EXAMPLES
    assert extra.disagreed == extra.ran
    assert extra.example == ValidatorRun(
        args={"query": "", "limit": 0, "extra": None},
        path="extra",
        schema_says=('"extra" is not a declared property (additionalProperties: false)',),
        validator_says="accepts",
        shrunk=True,
    )


def test_model_validate_fills_the_default_the_strict_schema_requires(
    openai_report: AgreementReport,
) -> None:
    missing = openai_report.check("missing-required")
    # Leaving out ``limit`` is accepted (the default fills it), ``query`` is not.
    assert 0 < missing.disagreed < missing.ran
    assert missing.example is not None
    assert (missing.example.args, missing.example.path) == ({"query": ""}, "limit")
    assert missing.example.schema_says == ('missing required property "limit"',)


def test_model_validate_agrees_on_valid_arguments_and_non_objects(
    openai_report: AgreementReport,
) -> None:
    assert openai_report.check("valid").disagreed == 0
    assert openai_report.check("valid").ran == EXAMPLES
    assert openai_report.check("not-an-object").disagreed == 0
    assert openai_report.crashes() == ()
    names = {check.name for check in openai_report.disagreements()}
    assert {"missing-required", "extra-key-closed"} <= names


def test_automatic_function_calling_takes_false_for_an_integer(
    genai_report: AgreementReport,
) -> None:
    assert DECLARATION.parameters_json_schema == {
        "type": "object",
        "properties": {
            "days": {"type": "integer"},
            "label": {"type": "string", "default": "days"},
        },
        "required": ["days"],
    }
    wrong = genai_report.check("wrong-type")
    assert 0 < wrong.disagreed < wrong.ran
    assert wrong.example is not None
    assert wrong.example.args == {"days": False}
    assert wrong.example.schema_says == ('"days" must be an integer',)
    assert automatic_function_calling_accepts({"days": False})
    assert not automatic_function_calling_accepts({"days": "3"})


def test_automatic_function_calling_agrees_elsewhere(genai_report: AgreementReport) -> None:
    assert genai_report.check("valid").disagreed == 0
    assert genai_report.check("missing-required").disagreed == 0
    assert genai_report.check("not-an-object").disagreed == 0
    names = [check.name for check in genai_report.disagreements()]
    # ``-0.0`` passes as an integral float, and is converted to 0.
    assert names == ["wrong-type", "non-finite-number"]


def test_jsonschema_agrees_with_the_schema_it_validates() -> None:
    schema = {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-z]+$"},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 2},
            "mode": {"enum": ["fast", "slow"]},
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    report = assert_validator_agrees(schema, Draft202012Validator(schema).is_valid, max_examples=10)
    assert report.agrees()
    assert [check.name for check in report.checks] == [
        "valid",
        "missing-required",
        "wrong-type",
        "enum-miss",
        "too-long",
        "too-short",
        "pattern-miss",
        "extra-key-closed",
        "bad-item",
        "not-an-object",
    ]


def test_jsonschema_differs_only_on_negative_zero_for_an_integer() -> None:
    # JSON Schema calls every integral float an integer, -0.0 included; validate_args
    # does not (docs/strategies.md: non-finite-number).
    report = assert_validator_agrees(
        STRICT,
        Draft202012Validator(STRICT).is_valid,
        allow=["non-finite-number"],
        max_examples=EXAMPLES,
    )
    [differs] = report.disagreements()
    assert differs.example is not None
    assert differs.example.args == {"query": "", "limit": -0.0}


def test_the_report_is_the_same_on_every_run() -> None:
    first = validator_agreement(STRICT, Search.model_validate, max_examples=10)
    assert validator_agreement(STRICT, Search.model_validate, max_examples=10) == first


def test_the_loaded_profile_sets_the_number_of_examples() -> None:
    loaded = settings.get_current_profile_name()
    settings.register_profile("agreement-tiny", settings.get_profile(loaded), max_examples=4)
    settings.load_profile("agreement-tiny")
    try:
        report = validator_agreement(STRICT, Search.model_validate)
    finally:
        settings.load_profile(loaded)
    assert report.max_examples == 4
    assert all(check.ran <= 4 for check in report.checks)


def test_the_guide_shows_the_report_as_it_is(openai_report: AgreementReport) -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "strategies.md").read_text("utf-8")
    shown = re.search(r"`print\(report\)` reads[^`]*?:\n\n```text\n(.*?)```", guide, re.S)
    assert shown is not None
    # Another Hypothesis release draws other examples: the counts may differ, the
    # layout, the checks that disagree and their shrunk examples may not.
    assert _counts_masked(shown.group(1)) == _counts_masked(f"{openai_report}\n")


def _counts_masked(text: str) -> str:
    return re.sub(r"(accepted|rejected) \d+ of", r"\1 N of", text)
