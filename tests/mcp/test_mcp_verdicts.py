"""The verdict on one answer: which property a corruption is in, and whether the answer
names it."""

from __future__ import annotations

import pytest

from harness_conformance.mcp import Reply, failing, judge, property_name


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("city", "city"),
        ("options.depth", "depth"),
        ("tags[0]", "tags"),
        ("matrix[1][2]", "matrix"),
        ("rows[0].cells[3]", "cells"),
        ("arguments", None),
        ("", None),
    ],
)
def test_the_property_of_a_path_is_its_last_key(path: str, name: str | None) -> None:
    assert property_name(path) == name


def _result(text: str, *, error: bool) -> Reply:
    return Reply(outcome="result", is_error=error, text=text)


@pytest.mark.parametrize(
    ("reply", "path", "verdict"),
    [
        (_result("city: Field required", error=True), "city", "rejected"),
        (_result("invalid at $.opts.depth: too big", error=True), "opts.depth", "rejected"),
        (_result("'tags' must hold strings", error=True), "tags[2]", "rejected"),
        (_result("something went wrong", error=True), "city", "rejected-unnamed"),
        # a longer name holding the property's is not the property
        (_result("cityName is required", error=True), "city", "rejected-unnamed"),
        (_result("arguments must be an object", error=True), "arguments", "rejected"),
        (_result("sunny", error=False), "city", "accepted"),
        (Reply(outcome="protocol-error", text="city", code=-32602), "city", "protocol-error"),
        (Reply(outcome="crashed"), "city", "crashed"),
        (Reply(outcome="timed-out"), "city", "timed-out"),
        (_result("sunny", error=False), None, "succeeded"),
        (_result("no such city", error=True), None, "tool-error"),
        (Reply(outcome="crashed"), None, "crashed"),
    ],
)
def test_each_answer_gets_its_verdict(reply: Reply, path: str | None, verdict: str) -> None:
    assert judge(reply, path) == verdict


def test_only_accepted_crashed_and_timed_out_fail_unless_strict() -> None:
    verdicts = ["rejected", "rejected-unnamed", "protocol-error", "accepted", "crashed"]
    verdicts += ["timed-out", "succeeded", "tool-error"]
    assert [v for v in verdicts if failing(v)] == ["accepted", "crashed", "timed-out"]
    assert [v for v in verdicts if failing(v, strict=True)] == [
        "rejected-unnamed",
        "protocol-error",
        "accepted",
        "crashed",
        "timed-out",
    ]
