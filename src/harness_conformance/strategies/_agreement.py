"""``validator_agreement``: a tool's advertised schema against the framework's own
validator, on our valid arguments and our labelled corruptions.

The schema is imported once (`from_json_schema` for a dict) and is the reference:
`validate_args` on it must accept every valid example and reject every corruption (a
contradiction is a bug here, raised as `RuntimeError`). Each check then runs twice
under the loaded Hypothesis profile, derandomized and without the example database:
a count over at most ``max_examples`` examples whose every call returns, and, when
something disagreed, a `hypothesis.find` for the minimal disagreeing example within ten
times as many. When that search misses what the count met, the first example met is
reported unshrunk.

The validator is called with a deep copy of the arguments. It rejects by raising an
exception of ``rejects_with`` (any `Exception` by default, so an odd one such as
`AttributeError` on a list is a rejection) or by returning exactly ``False``; any
other return value, ``None`` and empty containers included, is acceptance. With a
narrower ``rejects_with``, another `Exception` is a crash: counted, kept with its first
example and never allowed. `BaseException`s that are not `Exception`s (Ctrl-C,
``SystemExit``) propagate. Nothing bounds the validator's own time.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, NoSuchExample

from ..schema import ROOT_LABEL, Spec, validate_args
from ._agreement_report import VALID, AgreementCheck, AgreementReport, ValidatorRun, check_names
from ._agreement_report import cut as _cut
from ._corrupt import Corruption, corruption_examples, corruptions
from ._valid import as_spec, valid_args

__all__ = ["Validator", "assert_validator_agrees", "validator_agreement"]

_SEARCH_FACTOR = 10
"""The search for a minimal disagreement draws this many times ``max_examples``."""

Validator = Callable[[Any], object]
"""A framework's validator: called with the arguments dict; rejects by raising or by
returning ``False``."""


@dataclass(frozen=True)
class _Verdict:
    run: ValidatorRun
    disagrees: bool
    crashed: bool


@dataclass
class _Tally:
    ran: int = 0
    disagreed: int = 0
    crashed: int = 0
    first: ValidatorRun | None = None
    crash: ValidatorRun | None = None
    mislabelled: list[ValidatorRun] = field(default_factory=list)


class _Judge:
    """Runs one example through the imported schema and the validator."""

    def __init__(
        self, spec: Spec, validator: Validator, rejects_with: tuple[type[Exception], ...]
    ) -> None:
        self.spec = spec
        self.validator = validator
        self.rejects_with = rejects_with

    def verdict(self, args: Any, path: str, valid: bool) -> tuple[_Verdict, bool]:
        """The validator's verdict, and whether the schema agrees with the label."""
        schema_says = tuple(validate_args(self.spec, args))
        given_args = copy.deepcopy(args)
        says, rejected, crashed, error = self.call(given_args)
        run = ValidatorRun(
            args=args,
            path=path,
            schema_says=schema_says,
            validator_says=says,
            shrunk=False,
            error=error,
        )
        disagrees = not crashed and rejected == valid
        return _Verdict(run, disagrees, crashed), (not schema_says) == valid

    def call(self, args: Any) -> tuple[str, bool, bool, BaseException | None]:
        """``(what it says, rejected, crashed, the crash's exception)``."""
        try:
            result = self.validator(args)
        except self.rejects_with as exc:
            return f"raises {_describe(exc)}", True, False, None
        except Exception as exc:
            return f"crashes with {_describe(exc)}", True, True, exc
        if result is False:
            return "returns False", True, False, None
        return "accepts", False, False, None


def _describe(exc: BaseException) -> str:
    try:
        message = str(exc)
    except Exception:  # a hostile __str__ must not hide the verdict
        message = "<message unavailable>"
    name = type(exc).__name__
    return _cut(f"{name}: {message}" if message else name)


def _settings(max_examples: int | None, phases: tuple[Phase, ...]) -> settings:
    """The loaded profile, made reproducible and quiet about health checks."""
    profile = settings()
    return settings(
        profile,
        max_examples=profile.max_examples if max_examples is None else max_examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=phases,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )


def _run_check(
    name: str,
    strategy: st.SearchStrategy[Any],
    judge: Callable[[Any], tuple[_Verdict, bool]],
    max_examples: int | None,
) -> AgreementCheck:
    tally = _Tally()

    @_settings(max_examples, (Phase.generate,))
    @given(strategy)
    def count(value: Any) -> None:
        verdict, labelled = judge(value)
        if not labelled:
            tally.mislabelled.append(verdict.run)
            return
        tally.ran += 1
        if verdict.crashed:
            tally.crashed += 1
            tally.crash = tally.crash or verdict.run
        elif verdict.disagrees:
            tally.disagreed += 1
            tally.first = tally.first or verdict.run

    count()
    if tally.mislabelled:
        bad = tally.mislabelled[0]
        raise RuntimeError(
            f"harness_conformance bug: the imported schema contradicts the {name!r} label of "
            f"{bad.args!r} (validate_args says {list(bad.schema_says)}); please report it"
        )
    example = tally.first
    if example is not None:
        example = _shrink(strategy, judge, max_examples) or example
    return AgreementCheck(
        name=name,
        ran=tally.ran,
        disagreed=tally.disagreed,
        crashed=tally.crashed,
        example=example,
        crash=tally.crash,
    )


def _shrink(
    strategy: st.SearchStrategy[Any],
    judge: Callable[[Any], tuple[_Verdict, bool]],
    max_examples: int | None,
) -> ValidatorRun | None:
    def disagrees(value: Any) -> bool:
        verdict, labelled = judge(value)
        return labelled and verdict.disagrees

    # The search stops at its first hit, so a larger budget only costs time when
    # disagreements are rare; it then keeps the count's rare find from going unshrunk.
    budget = (settings().max_examples if max_examples is None else max_examples) * _SEARCH_FACTOR
    config = _settings(budget, (Phase.generate, Phase.shrink))
    try:
        minimal = find(strategy, disagrees, settings=config)
    except NoSuchExample:
        return None
    run = judge(minimal)[0].run
    return ValidatorRun(
        args=run.args,
        path=run.path,
        schema_says=run.schema_says,
        validator_says=run.validator_says,
        shrunk=True,
    )


def _rejections(rejects_with: Iterable[type[Exception]]) -> tuple[type[Exception], ...]:
    kinds = tuple(rejects_with)
    if not kinds or not all(isinstance(k, type) and issubclass(k, Exception) for k in kinds):
        raise InvalidArgument(f"rejects_with={kinds!r} must name one or more Exception subclasses")
    return kinds


def validator_agreement(
    schema: Any,
    validator: Validator,
    *,
    max_examples: int | None = None,
    rejects_with: Iterable[type[Exception]] = (Exception,),
    extra_keys: bool = False,
) -> AgreementReport:
    """Run valid arguments and every applicable kind of corruption of ``schema``
    through ``validator``, and report where it disagrees with the schema.

    ``schema`` is the tool's advertised JSON Schema dict (or a DSL spec or a `Tool`).
    ``validator`` is called with each example's arguments; it rejects them by raising
    one of ``rejects_with`` or by returning ``False`` (see the module docstring).
    Each check draws at most ``max_examples`` examples (default: the loaded Hypothesis
    profile's ``max_examples``), derandomized, so the report is the same on every run.
    With ``extra_keys`` the valid examples include undeclared keys where the schema
    allows them.

    Raises `SchemaError` for a schema the importer refuses and `Unsatisfiable` for one
    no value satisfies.
    """
    spec = as_spec(schema)
    judge = _Judge(spec, validator, _rejections(rejects_with))

    def valid(args: Any) -> tuple[_Verdict, bool]:
        return judge.verdict(args, ROOT_LABEL, True)

    def corrupt(corruption: Corruption) -> tuple[_Verdict, bool]:
        return judge.verdict(corruption.args, corruption.path, False)

    checks = [_run_check(VALID, valid_args(spec, extra_keys=extra_keys), valid, max_examples)]
    for example in corruption_examples(spec):
        kind = example.kind
        checks.append(_run_check(kind, corruptions(spec, kinds=[kind]), corrupt, max_examples))
    ran = max_examples if max_examples is not None else settings().max_examples
    return AgreementReport(checks=tuple(checks), max_examples=ran)


def assert_validator_agrees(
    schema: Any,
    validator: Validator,
    *,
    allow: Iterable[str] = (),
    max_examples: int | None = None,
    rejects_with: Iterable[type[Exception]] = (Exception,),
    extra_keys: bool = False,
) -> AgreementReport:
    """`validator_agreement`, failing with the readable report as an `AssertionError`
    when the validator disagrees on a check ``allow`` does not name (``"valid"`` or a
    corruption kind) or crashes at all; returns the report when it agrees. The
    assertion is chained to the first crash's exception, if any.
    """
    allowed = check_names(allow)
    report = validator_agreement(
        schema,
        validator,
        max_examples=max_examples,
        rejects_with=rejects_with,
        extra_keys=extra_keys,
    )
    if not report.agrees(allowed):
        crash = next((c.crash.error for c in report.crashes() if c.crash is not None), None)
        raise AssertionError(report.format(allowed)) from crash
    return report
