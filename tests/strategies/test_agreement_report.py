"""The agreement report: its text, the assertion form, and how a validator's verdicts
are read (exceptions, ``False``, other return values, crashes, changed arguments)."""

from __future__ import annotations

import math
import re
from typing import Any, NoReturn

import pytest
from hypothesis.errors import InvalidArgument

from harness_conformance.strategies import (
    CHECKS,
    KINDS,
    AgreementCheck,
    AgreementReport,
    ValidatorRun,
    _agreement,
    assert_validator_agrees,
    validator_agreement,
)

COUNT = {
    "type": "object",
    "properties": {"n": {"type": "integer", "minimum": 0}},
    "required": ["n"],
    "additionalProperties": False,
}
EXAMPLES = 15


def _run(args: Any, path: str, *schema_says: str, says: str = "accepts") -> ValidatorRun:
    return ValidatorRun(
        args=args, path=path, schema_says=schema_says, validator_says=says, shrunk=True
    )


REPORT = AgreementReport(
    max_examples=20,
    checks=(
        AgreementCheck(
            name="valid",
            ran=20,
            disagreed=1,
            crashed=0,
            example=_run({"n": 0}, "arguments", says="raises ValueError: zero"),
            crash=None,
        ),
        AgreementCheck(name="wrong-type", ran=13, disagreed=0, crashed=0, example=None, crash=None),
        AgreementCheck(
            name="extra-key-closed",
            ran=20,
            disagreed=20,
            crashed=0,
            example=_run(
                {"n": 0, "extra": None},
                "extra",
                '"extra" is not a declared property (additionalProperties: false)',
            ),
            crash=None,
        ),
    ),
)


def test_the_text_lists_every_check_then_each_minimal_example() -> None:
    assert str(REPORT) == REPORT.format()
    assert REPORT.format() == "\n".join(
        [
            "the validator disagrees on valid, extra-key-closed (20 examples per check at most)",
            "  valid             rejected 1 of 20   DISAGREES",
            "  wrong-type        accepted 0 of 13",
            "  extra-key-closed  accepted 20 of 20  DISAGREES",
            "",
            "valid: the validator rejects valid arguments",
            "  arguments: {'n': 0}",
            "  path:      arguments",
            "  schema:    accepts",
            "  validator: raises ValueError: zero",
            "",
            "extra-key-closed: the validator accepts it",
            "  arguments: {'n': 0, 'extra': None}",
            "  path:      extra",
            '  schema:    "extra" is not a declared property (additionalProperties: false)',
            "  validator: accepts",
        ]
    )


def test_allowed_checks_are_marked_and_leave_the_summary() -> None:
    text = REPORT.format(allow=["extra-key-closed"])
    assert text.splitlines()[0] == (
        "the validator disagrees on valid (20 examples per check at most)"
    )
    assert "  extra-key-closed  accepted 20 of 20  (allowed)" in text.splitlines()
    everything = REPORT.format(allow=["valid", "extra-key-closed"])
    assert everything.splitlines()[0] == (
        "the validator agrees with the schema (3 checks, 20 examples per check at most)"
    )
    assert REPORT.agrees(allow=["valid", "extra-key-closed"])
    assert not REPORT.agrees(allow=["valid"])
    assert [c.name for c in REPORT.disagreements(allow="valid")] == ["extra-key-closed"]


def test_the_checks_are_valid_then_the_kinds() -> None:
    assert ("valid", *KINDS) == CHECKS
    assert REPORT.check("wrong-type").verb == "accepted"
    assert REPORT.check("valid").verb == "rejected"
    with pytest.raises(KeyError):
        REPORT.check("pattern-miss")


def test_an_unknown_check_name_is_refused() -> None:
    with pytest.raises(InvalidArgument, match=r"unknown checks \['extra-key'\]"):
        REPORT.format(allow=["extra-key"])
    with pytest.raises(InvalidArgument, match="unknown checks"):
        assert_validator_agrees(COUNT, lambda args: True, allow=["nope"])


def _accepts_dicts_with_n(args: Any) -> bool:
    return isinstance(args, dict) and "n" in args


def test_the_assertion_message_is_the_report() -> None:
    with pytest.raises(AssertionError) as raised:
        assert_validator_agrees(COUNT, _accepts_dicts_with_n, max_examples=EXAMPLES)
    report = validator_agreement(COUNT, _accepts_dicts_with_n, max_examples=EXAMPLES)
    assert str(raised.value) == report.format()
    assert [c.name for c in report.disagreements()] == [
        "wrong-type",
        "out-of-range",
        "extra-key-closed",
        "non-finite-number",
    ]
    assert report.check("out-of-range").example == _run({"n": -1}, "n", '"n" must be >= 0')
    allowed = [c.name for c in report.disagreements()]
    assert (
        assert_validator_agrees(COUNT, _accepts_dicts_with_n, allow=allowed, max_examples=EXAMPLES)
        == report
    )


def test_returning_false_rejects_and_any_other_value_accepts() -> None:
    def none_for_dicts(args: Any) -> object:
        return None if _accepts_dicts_with_n(args) else False

    report = validator_agreement(COUNT, none_for_dicts, max_examples=EXAMPLES)
    assert report.check("valid").disagreed == 0
    assert report.check("missing-required").disagreed == 0
    assert report.check("wrong-type").disagreed == report.check("wrong-type").ran

    def empty_dict(args: Any) -> dict[str, Any]:
        return {}  # falsy, yet not False: acceptance

    assert validator_agreement(COUNT, empty_dict, max_examples=5).check("valid").disagreed == 0


def test_any_exception_rejects_by_default() -> None:
    def strict(args: Any) -> None:
        # ``args["n"]`` raises TypeError on a list or a string: a rejection all the same.
        n = args["n"]
        if set(args) != {"n"} or isinstance(n, bool) or not isinstance(n, int | float):
            raise ValueError("not one number n")
        if not math.isfinite(n) or n != int(n) or n < 0 or math.copysign(1, n) < 0:
            raise ValueError("n is no integer >= 0")

    report = assert_validator_agrees(COUNT, strict, max_examples=EXAMPLES)
    assert report.crashes() == ()
    assert report.check("not-an-object").disagreed == 0


def _rejects_values_crashes_on_lists(args: Any) -> None:
    if isinstance(args, list):
        raise TypeError("lists are a surprise")
    if not isinstance(args, dict) or args.get("n") != 0:
        raise ValueError("not n=0")


def test_an_exception_outside_rejects_with_is_a_crash_never_allowed() -> None:
    with pytest.raises(AssertionError) as raised:
        assert_validator_agrees(
            COUNT,
            _rejects_values_crashes_on_lists,
            allow=CHECKS,
            rejects_with=[ValueError],
            max_examples=EXAMPLES,
        )
    cause = raised.value.__cause__
    assert isinstance(cause, TypeError)
    assert str(cause) == "lists are a surprise"
    text = str(raised.value)
    # Every disagreement is allowed; the crash is not.
    assert text.startswith("the validator crashes on not-an-object (")
    assert re.search(r"  not-an-object +accepted 0 of \d+ +CRASHED \d+", text)
    assert "not-an-object: the validator crashed" in text
    assert "  validator: crashes with TypeError: lists are a surprise" in text
    report = validator_agreement(
        COUNT, _rejects_values_crashes_on_lists, rejects_with=[ValueError], max_examples=EXAMPLES
    )
    crashed = report.check("not-an-object")
    assert crashed.crash is not None
    assert not crashed.crash.shrunk
    assert isinstance(crashed.crash.args, list)


def test_rejects_with_names_exception_classes() -> None:
    bad_lists: list[list[Any]] = [[], [KeyboardInterrupt], ["ValueError"]]
    for bad in bad_lists:
        with pytest.raises(InvalidArgument, match="rejects_with="):
            validator_agreement(COUNT, _accepts_dicts_with_n, rejects_with=bad)


def test_a_validator_that_changes_its_arguments_changes_no_example() -> None:
    def clears(args: Any) -> bool:
        if isinstance(args, dict):
            args.clear()
        return True

    report = validator_agreement(COUNT, clears, max_examples=EXAMPLES)
    example = report.check("extra-key-closed").example
    assert example is not None
    assert example.args == {"n": 0, "extra": None}


def test_an_unprintable_exception_still_reads() -> None:
    class Opaque(Exception):
        def __str__(self) -> str:
            raise RuntimeError("no")

    def opaque(args: Any) -> NoReturn:
        raise Opaque

    report = validator_agreement(COUNT, opaque, max_examples=3)
    example = report.check("valid").example
    assert example is not None
    assert example.validator_says == "raises Opaque: <message unavailable>"


def test_a_schema_contradicting_its_own_label_is_a_bug_report(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_agreement, "validate_args", lambda spec, args: ["always wrong"])
    with pytest.raises(RuntimeError, match=r"harness_conformance bug: .* 'valid' label"):
        validator_agreement(COUNT, _accepts_dicts_with_n, max_examples=3)
