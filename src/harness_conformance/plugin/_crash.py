"""The crash line of a failure that an SDK wrapped around a cassette error.

SDKs turn an exception raised in their HTTP transport into their own: the anthropic SDK
raises ``APIConnectionError: Connection error.`` from a ``CASSETTE_MISMATCH``, litellm an
``InternalServerError``, pydantic-ai a ``ModelConnectionError``. The traceback still holds
the cassette error and its diff, but the crash line (what pytest's short summary, ``-r``
lines and JUnit XML show) names the wrapper. `name_the_cassette_error` rewrites that line
to lead with ``harness_conformance.CassetteError <CODE>: <first line>`` and say which
exception carried it; a cassette error that reached the test itself gets its code on the
line too (``harness_conformance.CassetteError <CODE>: <message>``). The traceback is left
as it is.
"""

from __future__ import annotations

import pytest

__all__ = ["name_the_cassette_error"]


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def _name(error: BaseException) -> str:
    kind = type(error)
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def name_the_cassette_error(report: pytest.TestReport, call: pytest.CallInfo[None]) -> None:
    """When ``call`` failed with a `CassetteError`, or with an exception that carries
    one (as a cause or context), make ``report``'s crash line name it with its code."""
    excinfo = call.excinfo
    crash = getattr(report.longrepr, "reprcrash", None)
    if excinfo is None or crash is None:
        return  # a passing phase loads nothing
    from ..errors import CassetteError
    from ..offline import exception_chain

    if isinstance(excinfo.value, CassetteError):
        plain = f"{_name(excinfo.value)}: "
        if crash.message.startswith(plain):
            named = f"{_name(excinfo.value)} {excinfo.value.code}: "
            crash.message = named + crash.message[len(plain) :]
        return
    carried = next(
        (link for link in exception_chain(excinfo.value) if isinstance(link, CassetteError)),
        None,
    )
    if carried is None:
        return
    wrapper = f"{_name(excinfo.value)}: {_first_line(excinfo.value)}".rstrip(": ")
    crash.message = (
        f"{_name(carried)} {carried.code}: {_first_line(carried)} (carried by {wrapper})"
    )
