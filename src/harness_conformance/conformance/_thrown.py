"""What an error vector's case throws, built from its description.

A thrown value is ``{"value": <JSON>}`` (not an error), ``{"unrenderable": true}`` (a
value whose text cannot be read) or an error ``{"name", "message", "code"?, "cause"?,
"errors"?, "id"?, "hostile"?}``. ``HarnessError`` and ``LlmError`` build this library's
classes; any other name a plain exception of that name, or an exception group when
``errors`` lists members (Python has no empty group, so ``"errors": []`` builds a plain
exception). ``hostile`` makes reading the message fail. ``{"ref": <id>}`` stands for
the error of that ``id``: a cause may refer to any error of the case (so cycles can be
written), a member only to one built before it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from ..errors import HarnessError, LlmError, LlmFailure

__all__ = ["ThrownProblem", "build_thrown"]

_OURS: dict[str, type[HarnessError]] = {"HarnessError": HarnessError, "LlmError": LlmError}


class ThrownProblem(ValueError):
    """A description that cannot be built, at a JSON path."""


def _fail(where: str, what: str) -> NoReturn:
    raise ThrownProblem(f"{where}: {what}")


def _raise_unreadable(self: object) -> str:
    raise RuntimeError("this value's text cannot be read")


class _Unrenderable:
    """A thrown value that is not an error and whose text cannot be read."""

    __str__ = _raise_unreadable
    __repr__ = _raise_unreadable


_CLASSES: dict[tuple[str, bool, bool], type[BaseException]] = {}


def _plain_class(name: str, *, group: bool, hostile: bool) -> type[BaseException]:
    """A class named ``name`` (an exception group when ``group``), made once per kind."""
    key = (name, group, hostile)
    if key not in _CLASSES:
        base: type[BaseException] = ExceptionGroup if group else Exception
        body: dict[str, Any] = {"__module__": __name__}
        if hostile and group:
            body["message"] = property(_raise_unreadable)
        elif hostile:
            body["__str__"] = _raise_unreadable
        _CLASSES[key] = type(name, (base,), body)
    return _CLASSES[key]


class _Builder:
    def __init__(self) -> None:
        self.ids: dict[str, BaseException] = {}
        self.causes: list[tuple[BaseException, Any, str]] = []

    def error(self, raw: Mapping[str, Any], where: str) -> BaseException:
        name, message, code = raw["name"], raw["message"], raw.get("code")
        raw_members = raw.get("errors") or []
        members = [
            self.member(item, f"{where}.errors[{index}]") for index, item in enumerate(raw_members)
        ]
        hostile = raw.get("hostile", False)
        cls = _OURS.get(name)
        if cls is None and name in {c.__name__ for c in _ours_subclasses()}:
            _fail(f"{where}.name", "only HarnessError and LlmError of this library can be built")
        if cls is not None and (members or hostile):
            _fail(where, f"a {name} is built without members and with a readable message")
        if cls is None and code is not None:
            _fail(f"{where}.code", "only a HarnessError or an LlmError carries a code")
        exc: BaseException
        if cls is LlmError:
            if code is None:
                _fail(where, "an LlmError needs a code")
            exc = LlmError(LlmFailure(message, code))
        elif cls is HarnessError:
            exc = HarnessError(message, code=code)
        elif members:
            exc = _plain_class(name, group=True, hostile=hostile)(message, members)
        else:
            exc = _plain_class(name, group=False, hostile=hostile)(message)
        if "id" in raw:
            if raw["id"] in self.ids:
                _fail(f"{where}.id", f"id {raw['id']!r} is used twice")
            self.ids[raw["id"]] = exc
        if raw.get("cause") is not None:
            self.causes.append((exc, raw["cause"], f"{where}.cause"))
        return exc

    def member(self, raw: Mapping[str, Any], where: str) -> BaseException:
        if "ref" in raw:
            found = self.ids.get(raw["ref"])
            if found is None:
                _fail(where, f"a member may refer only to an error built before it: {raw['ref']!r}")
            return found
        return self.error(raw, where)

    def link_causes(self) -> None:
        while self.causes:
            exc, raw, where = self.causes.pop(0)
            if "ref" in raw:
                if raw["ref"] not in self.ids:
                    _fail(where, f"no error has the id {raw['ref']!r}")
                exc.__cause__ = self.ids[raw["ref"]]
            else:
                exc.__cause__ = self.error(raw, where)


def _ours_subclasses() -> list[type[HarnessError]]:
    found, pending = [], [HarnessError]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending += cls.__subclasses__()
    return found


def build_thrown(raw: Mapping[str, Any], where: str = "$.error") -> object:
    """The value a case's ``error`` describes, built fresh. Raises `ValueError` naming
    the JSON path for a description no run could build (a dangling ``ref``, a code on a
    plain error...), and whatever this library raises when it refuses to build one."""
    if "value" in raw:
        return raw["value"]
    if "unrenderable" in raw:
        return _Unrenderable()
    builder = _Builder()
    root = builder.error(raw, where)
    builder.link_causes()
    return root
