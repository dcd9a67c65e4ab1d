"""The report of `validator_agreement`: one `AgreementCheck` per check, each with the
shrunk example of its disagreement, and the readable text of them all.

A check is ``"valid"`` (valid arguments the validator must accept) or a corruption
kind (corruptions it must reject). A disagreement is a valid example the validator
rejects or a corruption it accepts; a crash is an exception outside the validator's
declared rejections. Crashes are never allowed: they fail `AgreementReport.agrees`
whatever ``allow`` names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis.errors import InvalidArgument

from ._corrupt import KINDS

__all__ = ["CHECKS", "VALID", "AgreementCheck", "AgreementReport", "ValidatorRun", "check_names"]

VALID = "valid"
"""The name of the check of valid arguments."""
CHECKS = (VALID, *KINDS)
"""Every check name, in report order: ``"valid"``, then the corruption kinds."""
_SHOWN_CHARS = 300  # longer arguments and messages are cut in the text


@dataclass(frozen=True, kw_only=True)
class ValidatorRun:
    """The validator's verdict on one example, beside the schema's."""

    args: Any
    """The arguments the validator was given (a copy: it may change its own)."""
    path: str
    """Where the corruption is (`Corruption.path`); ``arguments`` for a valid example."""
    schema_says: tuple[str, ...]
    """The messages of ``validate_args`` on the imported schema; empty when it accepts."""
    validator_says: str
    """``accepts``, ``returns False``, ``raises <type>: <message>`` or, for a crash,
    ``crashes with <type>: <message>``."""
    shrunk: bool
    """Whether Hypothesis shrank this example to a minimal one."""
    error: BaseException | None = field(default=None, compare=False, repr=False)
    """The exception of a crash, kept so a failed assertion can chain it."""


@dataclass(frozen=True, kw_only=True)
class AgreementCheck:
    """How the validator did on the examples of one check."""

    name: str
    """``"valid"`` or one of `KINDS`."""
    ran: int
    """How many examples ran."""
    disagreed: int
    """How many the validator judged against the schema: valid ones it rejected, or
    corruptions it accepted."""
    crashed: int
    """How many made the validator raise outside its declared rejections."""
    example: ValidatorRun | None
    """The minimal disagreeing example, shrunk by Hypothesis; None when all agreed."""
    crash: ValidatorRun | None
    """The first example that crashed the validator (not shrunk); None when none did."""

    @property
    def verb(self) -> str:
        """What a disagreement is here: ``rejected`` for valid, else ``accepted``."""
        return "rejected" if self.name == VALID else "accepted"


def check_names(names: Iterable[str]) -> frozenset[str]:
    """``names`` as a set, refusing one that is no check (`CHECKS`)."""
    wanted = frozenset([names] if isinstance(names, str) else names)
    unknown = sorted(wanted - set(CHECKS))
    if unknown:
        raise InvalidArgument(f"unknown checks {unknown}; the checks are {list(CHECKS)}")
    return wanted


@dataclass(frozen=True, kw_only=True)
class AgreementReport:
    """Where a framework's validator and a tool's advertised schema disagree."""

    checks: tuple[AgreementCheck, ...]
    """``"valid"`` first, then each corruption kind that applies to the schema, in the
    order of `KINDS`."""
    max_examples: int
    """The examples each check drew."""

    def check(self, name: str) -> AgreementCheck:
        """The check called ``name``; `KeyError` when it does not apply to the schema."""
        for found in self.checks:
            if found.name == name:
                return found
        raise KeyError(name)

    def disagreements(self, allow: Iterable[str] = ()) -> tuple[AgreementCheck, ...]:
        """The checks with a disagreement, leaving out those ``allow`` names."""
        allowed = check_names(allow)
        return tuple(c for c in self.checks if c.disagreed and c.name not in allowed)

    def crashes(self) -> tuple[AgreementCheck, ...]:
        """The checks where the validator crashed at least once."""
        return tuple(c for c in self.checks if c.crashed)

    def agrees(self, allow: Iterable[str] = ()) -> bool:
        """No crash, and no disagreement but those ``allow`` names."""
        return not self.disagreements(allow) and not self.crashes()

    def format(self, allow: Iterable[str] = ()) -> str:
        """The readable report: a summary line, one line per check, then each
        disagreement's minimal example and each crash."""
        allowed = check_names(allow)
        failing = [c.name for c in self.disagreements(allowed)]
        crashed = [c.name for c in self.crashes()]
        each = f"{self.max_examples} examples per check at most"
        if not failing and not crashed:
            head = f"the validator agrees with the schema ({len(self.checks)} checks, {each})"
        else:
            parts = [f"disagrees on {_names(failing)}"] if failing else []
            parts += [f"crashes on {_names(crashed)}"] if crashed else []
            head = f"the validator {' and '.join(parts)} ({each})"
        width = max(len(c.name) for c in self.checks)
        tallies = [f"{c.verb} {c.disagreed} of {c.ran}" for c in self.checks]
        tally_width = max(len(t) for t in tallies)
        lines = [head]
        for check, tally in zip(self.checks, tallies, strict=True):
            marks = []
            if check.disagreed:
                marks.append("(allowed)" if check.name in allowed else "DISAGREES")
            if check.crashed:
                marks.append(f"CRASHED {check.crashed}")
            line = f"  {check.name:<{width}}  {tally:<{tally_width}}  {'  '.join(marks)}"
            lines.append(line.rstrip())
        for check in self.checks:
            if check.example is not None:
                what = "rejects valid arguments" if check.name == VALID else "accepts it"
                lines += ["", f"{check.name}: the validator {what}", *_run_lines(check.example)]
            if check.crash is not None:
                lines += ["", f"{check.name}: the validator crashed", *_run_lines(check.crash)]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()


def _names(names: list[str]) -> str:
    return ", ".join(names)


def _run_lines(run: ValidatorRun) -> list[str]:
    schema = "; ".join(run.schema_says) if run.schema_says else "accepts"
    shrunk = "" if run.shrunk else " (not shrunk)"
    return [
        f"  arguments: {shown(run.args)}{shrunk}",
        f"  path:      {run.path}",
        f"  schema:    {cut(schema)}",
        f"  validator: {run.validator_says}",
    ]


def cut(text: str) -> str:
    """``text`` on one line and at most a few hundred characters."""
    text = " ".join(text.split())
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def shown(value: Any) -> str:
    """The Python ``repr`` of arguments (it tells ``-0.0``, ``3.0`` and ``False`` apart),
    cut like `cut`; a value whose ``repr`` fails is named by its type."""
    try:
        text = repr(value)
    except Exception:  # a hostile __repr__ must not hide the report
        text = f"<{type(value).__name__} whose repr fails>"
    return cut(text)
