"""Cassette names from hostile test ids, and cassette folders that cannot be written: a
281-character parametrize id gives a shortened name ending with a hash, the same under
record and replay; a key in a parametrize id never reaches a file name; a cassette dir
below a regular file errors with ``CASSETTE_UNWRITABLE`` before the model is called."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from _plugin_project import RECORD, SENTINEL, cassette_files, files_holding, recording, replaying

from harness_conformance.cassettes._names import MAX_NAME_BYTES, safe_part
from harness_conformance.server import TextResponse

GREETING_TEST = """
import asyncio

import pytest

from harness_conformance import Agent


@pytest.mark.parametrize("who", WHO, ids=WHO)
def test_greet(hc_model, replay_session, who):
    async def converse():
        async with hc_model:
            return await replay_session(Agent(hc_model), ["greet " + who[:20]])

    assert asyncio.run(converse()).ok
"""

LONG = "x" * 270 + "-the-end"


def test_a_long_id_gets_a_short_name_with_a_hash_under_record_and_replay(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=GREETING_TEST.replace("WHO", repr([LONG, LONG + "2"])))
    with recording(pytester, monkeypatch, [TextResponse("hello")] * 2):
        pytester.runpytest(RECORD).assert_outcomes(passed=2)
    names = [path.name for path in cassette_files(pytester.path)]
    assert len(names) == 2
    for name in names:
        assert len(name.encode()) <= MAX_NAME_BYTES + len(".yaml")
        assert re.fullmatch(r"test_greet\[x+-[0-9a-f]{12}\.yaml", name), name
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=2)


def test_a_key_in_a_parametrize_id_is_replaced_in_the_name(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=GREETING_TEST.replace("WHO", repr([SENTINEL])))
    with recording(pytester, monkeypatch, [TextResponse("hello")]):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    [path] = cassette_files(pytester.path)
    assert path.name == "test_greet[redacted].yaml"
    assert SENTINEL not in str(path)
    assert files_holding(pytester.path / "fixtures", SENTINEL) == []
    replaying(monkeypatch)  # the key is no longer declared; its shape alone names it
    pytester.runpytest().assert_outcomes(passed=1)


def test_a_cassette_dir_below_a_file_errors_before_the_model_is_called(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=GREETING_TEST.replace("WHO", repr(["ann"])))
    blocker = pytester.path / "blocker"
    blocker.write_text("not a folder", encoding="utf-8")
    with recording(pytester, monkeypatch, [TextResponse("hello")]) as server:
        result = pytester.runpytest(RECORD, f"--hc-cassette-dir={blocker / 'cassettes'}")
        assert server.requests == []
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "CASSETTE_UNWRITABLE" in out
    assert f"{blocker} is not a folder" in out
    assert "NotADirectoryError" not in out


def test_a_replay_does_not_need_a_writable_folder(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=GREETING_TEST.replace("WHO", repr(["ann"])))
    with recording(pytester, monkeypatch, [TextResponse("hello")]):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    folder = pytester.path / "fixtures" / "cassettes" / "test_agent"
    folder.chmod(0o555)
    try:
        replaying(monkeypatch)
        pytester.runpytest().assert_outcomes(passed=1)
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("plain", "plain"),
        ('a/b:c"<d>', "a_b_c_d_"),
        ("é" * 100, None),  # 200 bytes of UTF-8: shortened on a character boundary
        ("key " + "sk-" + "proj-Fz81xT5vB0aL9mN2cW7dR4eY6uK3", "key redacted"),
        ("ends with " + "sk-" + "ant-api03-" + "Q" * 40, "ends with redacted"),
    ],
)
def test_safe_part(name: str, expected: str | None) -> None:
    got = safe_part(name)
    assert got == safe_part(name)  # deterministic
    if expected is not None:
        assert got == expected
    else:
        assert len(got.encode()) <= MAX_NAME_BYTES
        assert re.fullmatch(r"é+-[0-9a-f]{12}", got), got


def test_declared_secrets_are_replaced_whatever_their_shape() -> None:
    assert safe_part("id-hunter2hunter2", ["hunter2hunter2"]) == "id-redacted"


def test_names_that_differ_only_past_the_cut_stay_apart(tmp_path: Path) -> None:
    one, two = safe_part("y" * 200 + "1"), safe_part("y" * 200 + "2")
    assert one != two
    assert one[:80] == two[:80]
