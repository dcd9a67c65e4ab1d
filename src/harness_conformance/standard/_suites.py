"""The standard suites `ToolConformanceTests` and `SessionConformanceTests`."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from types import FunctionType, MappingProxyType
from typing import Any, ClassVar

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ..schema import is_lossless
from ..snapshots import (
    ValidationReport,
    ValidationReportEntry,
    as_tool,
    execute_call,
    validation_report,
)
from ..strategies import Corruption, corruption_examples, corruptions, register_profiles, valid_args
from ..tools import Tool
from ._signature import signature_problems, typed_signature

__all__ = [
    "STANDARD_TESTS",
    "SessionConformanceTests",
    "ToolConformanceTests",
    "ValidationReport",
    "ValidationReportEntry",
    "validation_report",
]

register_profiles()

_INVALID_ARGS = {"name": "ToolArgsError", "code": "INVALID_ARGS"}
_SIGNATURE_VISIBLE = frozenset({"wrong-type", "missing-required", "not-an-object"})
_CASSETTE_SUFFIXES = (".yaml", ".yml", ".json")


def _run_given(strategy: st.SearchStrategy[Any], check: Callable[[Any], None]) -> None:
    """Run ``check`` on values of ``strategy`` under the active Hypothesis profile.

    A fresh test function per call keeps each subclass's run separate, so one method
    inherited by many classes is never one Hypothesis test run by different executors.
    """
    given(strategy)(check)()


def _collect_error(message: str) -> pytest.Collector.CollectError:
    return pytest.Collector.CollectError(message)


class ToolConformanceTests:
    """The standard tests of one tool: subclass it and set ``tool``.

    ``tool`` is a `Tool` (not a raw one), a DSL spec or a JSON Schema dict. The tool's
    body never runs: every call goes through a registry holding the tool with a
    stand-in body.
    """

    tool: ClassVar[Any]
    """The tool under test."""

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """One ``test_corruption_is_rejected`` per corruption kind that applies."""
        probe = self._probe(metafunc.cls)
        if "corruption_kind" in metafunc.fixturenames:
            try:
                kinds = _kinds(probe)
            except Exception as exc:
                name = getattr(metafunc.cls, "__name__", "the class")
                raise _collect_error(f"{name}.tool cannot be tested: {exc}") from exc
            metafunc.parametrize("corruption_kind", kinds, ids=kinds)

    @staticmethod
    def _probe(cls: Any) -> Tool:
        target = getattr(cls, "tool", None)
        if target is None:
            raise _collect_error(
                f"{cls.__name__} subclasses ToolConformanceTests but sets no tool: "
                "add `tool = <a Tool, a DSL spec or a JSON Schema dict>` to the class"
            )
        try:
            return as_tool(target)
        except Exception as exc:
            raise _collect_error(f"{cls.__name__}.tool cannot be tested: {exc}") from exc

    def test_valid_args_are_accepted(self) -> None:
        """Generated valid arguments, sent as JSON text, pass the registry."""
        probe = self._probe(type(self))

        def check(args: Any) -> None:
            result = execute_call(probe, args)
            assert not result.is_error, f"valid arguments were refused: {result.content}"

        _run_given(valid_args(probe), check)

    def test_corruption_is_rejected(self, corruption_kind: str) -> None:
        """Each corruption of this kind gets ``INVALID_ARGS`` and names its path."""
        probe = self._probe(type(self))

        def check(corruption: Corruption) -> None:
            result = execute_call(probe, corruption.args)
            assert result.is_error, f"the registry accepted {corruption}"
            assert result.error == _INVALID_ARGS, f"{result.error} for {corruption}"
            assert corruption.expected_message in result.content, (
                f"{corruption.expected_message!r} is missing from {result.content!r}"
            )
            assert f'"{corruption.path}"' in result.content, (
                f"no message names {corruption.path!r}: {result.content!r}"
            )

        _run_given(corruptions(probe, kinds=[corruption_kind]), check)

    def test_oracle_accepts_valid_args(self) -> None:
        """python-jsonschema accepts every generated valid argument object."""
        jsonschema = pytest.importorskip(
            "jsonschema", reason="the oracle agreement tests need jsonschema installed"
        )
        probe = self._probe(type(self))
        oracle = jsonschema.Draft202012Validator(_shown_schema(type(self), probe))

        def check(args: Any) -> None:
            errors = [error.message for error in oracle.iter_errors(args)]
            assert not errors, f"the oracle rejects valid arguments {args!r}: {errors}"

        _run_given(valid_args(probe), check)

    def test_oracle_rejects_corruptions(self) -> None:
        """python-jsonschema rejects every corruption JSON can carry (NaN, the
        infinities and ``-0.0`` cannot be sent, and plain JSON Schema allows them)."""
        jsonschema = pytest.importorskip(
            "jsonschema", reason="the oracle agreement tests need jsonschema installed"
        )
        probe = self._probe(type(self))
        oracle = jsonschema.Draft202012Validator(_shown_schema(type(self), probe))
        kinds = [kind for kind in _kinds(probe) if kind != "non-finite-number"]
        if not kinds:
            pytest.skip("every corruption of this tool holds a number JSON cannot carry")

        def check(corruption: Corruption) -> None:
            if is_lossless(corruption.args):
                assert not oracle.is_valid(corruption.args), f"the oracle accepts {corruption}"

        _run_given(corruptions(probe, kinds=kinds), check)

    def test_valid_args_fit_the_signature(self) -> None:
        """Valid arguments reach the body with values its type annotations allow."""
        target = getattr(type(self), "tool", None)
        signature = typed_signature(target.fn) if isinstance(target, Tool) else None
        if signature is None:
            pytest.skip("the tool has no typed function signature to compare with its spec")
        probe = self._probe(type(self))

        def check(args: Any) -> None:
            problems = signature_problems(signature, args)
            assert not problems, (
                f"valid arguments {args!r} do not fit the signature of the tool's body:\n  "
                + "\n  ".join(problems)
            )

        _run_given(valid_args(probe), check)

    def test_type_corruptions_fail_the_signature(self) -> None:
        """Corruptions the annotations can see (a wrong type, a missing required
        argument, arguments that are not an object) break the body's signature too."""
        target = getattr(type(self), "tool", None)
        signature = typed_signature(target.fn) if isinstance(target, Tool) else None
        if signature is None:
            pytest.skip("the tool has no typed function signature to compare with its spec")
        probe = self._probe(type(self))
        kinds = [k for k in _kinds(probe) if k in _SIGNATURE_VISIBLE]
        if not kinds:
            pytest.skip("no corruption of this tool is visible to type annotations")

        def check(corruption: Corruption) -> None:
            assert signature_problems(signature, corruption.args), (
                f"{corruption.kind} at {corruption.path!r} fits the signature of the tool's "
                f"body although the spec refuses it: {corruption.args!r}"
            )

        _run_given(corruptions(probe, kinds=kinds), check)

    def test_validation_report_matches_snapshot(self, request: pytest.FixtureRequest) -> None:
        """The validation report equals its snapshot (``pytest --snapshot-update``
        writes it)."""
        try:
            snapshot = request.getfixturevalue("snapshot")
        except pytest.FixtureLookupError:
            pytest.fail(
                "the validation-report snapshot needs syrupy: pip install syrupy", pytrace=False
            )
        from ..snapshots import ValidationReportSnapshot

        report = validation_report(self._probe(type(self)))
        assert snapshot(extension_class=ValidationReportSnapshot) == report


def _shown_schema(cls: Any, probe: Tool) -> Any:
    """The JSON Schema the oracle judges by: the one given, else the compiled one."""
    target = getattr(cls, "tool", None)
    return target if isinstance(target, dict) else probe.json_schema


def _kinds(probe: Tool) -> list[str]:
    return [example.kind for example in corruption_examples(probe)]


def _cassette_files(cls: Any, folder: Path) -> list[Path]:
    listed = getattr(cls, "cassettes", None)
    if listed is None:
        raise _collect_error(
            f"{cls.__name__} subclasses SessionConformanceTests but sets no cassettes: add "
            "`cassettes = [...]` (cassette files or folders, relative to the test file)"
        )
    entries: Iterable[Any] = [listed] if isinstance(listed, (str, Path)) else listed
    files: list[Path] = []
    for entry in entries:
        path = folder / entry
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.suffix in _CASSETTE_SUFFIXES)
            if not found:
                raise _collect_error(f"{cls.__name__}: the folder {path} holds no cassette")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise _collect_error(
                f"{cls.__name__}: the cassette {path} does not exist (relative paths are "
                "taken from the folder of the test file)"
            )
    return list(dict.fromkeys(files))


def _cassette_id(path: Path, folder: Path) -> str:
    return path.relative_to(folder).as_posix() if path.is_relative_to(folder) else str(path)


def _replay_problems(replay: Any) -> list[str]:
    """What keeps a replay from passing: no session at all, or invariant violations."""
    if not replay.sessions:
        return [f"{replay.path} holds no chat-completions session to replay"]
    return [str(violation) for violation in replay.violations]


class SessionConformanceTests:
    """The standard tests of recorded sessions: subclass it and set ``cassettes``.

    ``cassettes`` is a cassette file, a folder (every ``*.yaml``, ``*.yml`` and
    ``*.json`` under it) or a list of both; relative paths are taken from the folder
    of the test file. Each cassette, ours or a third party's, is replayed through the
    loop with `replay_foreign` under the test's invariant profile (the
    ``hc_invariants`` marker or ``--hc-invariants``; ``strict`` by default).
    """

    cassettes: ClassVar[str | Path | Iterable[str | Path]]
    """The cassettes to replay."""

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        """One ``test_cassette_replays_without_violations`` per cassette."""
        if "session_cassette" in metafunc.fixturenames:
            folder = metafunc.definition.path.parent
            files = _cassette_files(metafunc.cls, folder)
            ids = [_cassette_id(path, folder) for path in files]
            metafunc.parametrize("session_cassette", files, ids=ids)

    def test_cassette_replays_without_violations(
        self, session_cassette: Path, invariants: str
    ) -> None:
        """The cassette replays through the loop with zero invariant violations."""
        if invariants == "off":
            pytest.skip("the invariant profile is off, so there is nothing to check")
        from ..cassettes.foreign import replay_foreign

        replay = replay_foreign(session_cassette, profile=invariants)
        problems = _replay_problems(replay)
        if problems:
            pytest.fail(
                f"{session_cassette} under {invariants!r}:\n  " + "\n  ".join(problems),
                pytrace=False,
            )


def _standard_tests(cls: type) -> MappingProxyType[str, FunctionType]:
    return MappingProxyType(
        {
            n: f
            for n, f in vars(cls).items()
            if n.startswith("test_") and isinstance(f, FunctionType)
        }
    )


STANDARD_TESTS: MappingProxyType[type, MappingProxyType[str, FunctionType]] = MappingProxyType(
    {
        ToolConformanceTests: _standard_tests(ToolConformanceTests),
        SessionConformanceTests: _standard_tests(SessionConformanceTests),
    }
)
"""Each suite's standard tests as defined here, for the plugin's collection check."""
