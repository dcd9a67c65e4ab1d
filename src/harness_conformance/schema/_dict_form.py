"""The plain-dict form of a spec: the JSON the conformance vectors use.

A node is ``{"type": kind, ...}`` (``{"one_of": [...]}``, ``{"any_of": [...]}`` and
``{"ref": name}`` without ``type``), a parameter map is
``{"type": "params", "properties": {...}}`` and a spec with definitions is
``{"root": ..., "defs": {...}}``; keys are the builder keyword names. ``null`` is a
value only under ``default`` and ``const``; anywhere else it is refused (leave the key
out instead). `spec_from_dict` holds the result to the author rules of the builders,
lists every problem with its path, and refuses a dict that contains itself as
circular. Both directions walk the data on an explicit stack, so a spec of any depth
converts without recursion.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import SchemaError, SchemaProblem
from ._author import ANNOTATIONS, KEYS, literal_keys, make, plain_fields
from ._nodes import (
    UNSET,
    AnyOfNode,
    Defs,
    JsonNode,
    Node,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    Spec,
)

__all__ = ["spec_from_dict", "spec_to_dict"]

_NULLABLE = ("default", "const")


def spec_from_dict(data: Any) -> Spec:
    """Build a spec from its plain-dict form, listing every problem at once. Data whose
    own methods raise while it is read is refused with `SchemaError`, the original error
    as its cause."""
    problems: list[SchemaProblem] = []
    try:
        spec = _Reader(problems).read(data)
    except SchemaError:
        raise
    except Exception as exc:
        problem = SchemaProblem("(root)", f"could not be read: {type(exc).__name__} while reading")
        raise SchemaError(f"invalid spec: {problem.reason}", problems=[problem]) from exc
    if problems:
        count = len(problems)
        lines = "\n".join(f"  {p}" for p in problems)
        raise SchemaError(
            f"invalid spec, {count} problem{'s' if count > 1 else ''}:\n{lines}", problems=problems
        )
    return spec


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


@dataclass(eq=False)
class _Task:
    """One dict still to read: its children are read first, then ``finish`` builds it."""

    data: Any
    path: str
    parent: _Task | None = None
    slot: int = 0
    root_only_ok: bool = False
    entered: bool = False
    held: list[int] = field(default_factory=list)
    results: list[Any] = field(default_factory=list)
    finish: Callable[[list[Any]], Any] = lambda results: JsonNode()


class _Reader:
    def __init__(self, problems: list[SchemaProblem]) -> None:
        self.problems = problems
        self.on_path: set[int] = set()

    def problem(self, path: str, reason: str) -> None:
        self.problems.append(SchemaProblem(path or "(root)", reason))

    def read(self, data: Any) -> Spec:
        top = _Task(data, "", root_only_ok=True)
        stack = [top]
        result: Any = None
        while stack:
            task = stack[-1]
            if not task.entered:
                task.entered = True
                children = self.enter(task)
                task.results = [None] * len(children)
                stack.extend(reversed(children))
                continue
            stack.pop()
            self.on_path.difference_update(task.held)
            built = task.finish(task.results)
            if not task.root_only_ok and isinstance(built, (Params, Defs)):
                self.problem(task.path, f"a {built.kind} spec may only be the root")
                built = JsonNode()
            if task.parent is None:
                result = built
            else:
                task.parent.results[task.slot] = built
        spec: Spec = result
        return spec

    # -- entering one dict ----------------------------------------------------------

    def hold(self, task: _Task, value: Any, path: str) -> bool:
        """Put a container on the current path; False (and a problem) when it is
        already there, which makes the data circular."""
        if id(value) in self.on_path:
            self.problem(path, "is circular: it contains itself")
            return False
        self.on_path.add(id(value))
        task.held.append(id(value))
        return True

    def child(self, task: _Task, data: Any, path: str, slot: int) -> _Task:
        return _Task(data, path, parent=task, slot=slot)

    def enter(self, task: _Task) -> list[_Task]:
        data, path = task.data, task.path
        if not isinstance(data, dict):
            self.problem(path, f"must be an object, not {type(data).__name__}")
            return []
        if not self.hold(task, data, path):
            return []
        if "root" in data or "defs" in data:
            return self.enter_defs(task, data, path)
        for key, cls in (("one_of", OneOfNode), ("any_of", AnyOfNode)):
            if key in data:
                return self.enter_combinator(task, data, key, cls)
        if "ref" in data:
            fields = self.fields(data, ("ref",), path)
            task.finish = lambda _: self.guard(
                path, lambda: RefNode(name=data["ref"], **plain_fields("ref", fields))
            )
            return []
        kind = data.get("type")
        if kind == "params":
            return self.enter_params(task, data, path)
        if not isinstance(kind, str) or kind not in KEYS:
            self.problem(_at(path, "type"), f"unknown type {kind!r}")
            return []
        return self.enter_typed(task, data, kind)

    def enter_defs(self, task: _Task, data: dict[str, Any], path: str) -> list[_Task]:
        for key in data:
            if key not in ("root", "defs"):
                self.problem(_at(path, key), "is not a key of a defs spec")
        root = _Task(data.get("root"), _at(path, "root"), parent=task, root_only_ok=True)
        names, children = self.node_map(task, data.get("defs", {}), _at(path, "defs"), 1)

        def finish(results: list[Any]) -> Any:
            if isinstance(results[0], Defs):
                self.problem(_at(path, "root"), "a defs spec cannot nest")
                return JsonNode()
            pairs = tuple(zip(names, results[1:], strict=True))
            return self.guard(path, lambda: Defs(root=results[0], defs=pairs))

        task.finish = finish
        return [root, *children]

    def enter_combinator(
        self, task: _Task, data: dict[str, Any], key: str, cls: type[OneOfNode | AnyOfNode]
    ) -> list[_Task]:
        path = task.path
        if "type" in data:
            self.problem(_at(path, "type"), f"{key} takes no type beside it")
        fields = self.fields(data, (key, "type"), path)
        raw = fields.pop(key, None)
        fields.pop("type", None)
        where = _at(path, key)
        if not isinstance(raw, list):
            self.problem(where, "must be a list of specs")
            return []
        if not self.hold(task, raw, where):
            return []
        task.finish = lambda results: self.guard(
            path, lambda: cls(branches=tuple(results), **plain_fields(cls.kind, fields))
        )
        return [self.child(task, branch, f"{where}[{i}]", i) for i, branch in enumerate(raw)]

    def enter_params(self, task: _Task, data: dict[str, Any], path: str) -> list[_Task]:
        for key, value in data.items():
            if key not in ("type", "properties", "title", "description"):
                self.problem(_at(path, key), "is not a key of a params spec")
            elif value is None:
                self.problem(_at(path, key), "must not be null; leave the key out")
        properties = data.get("properties")
        names, children = self.node_map(
            task, {} if properties is None else properties, _at(path, "properties"), 0
        )
        title, description = data.get("title"), data.get("description")

        def finish(results: list[Any]) -> Any:
            pairs = tuple(zip(names, results, strict=True))
            return self.guard(
                path, lambda: Params(properties=pairs, title=title, description=description)
            )

        task.finish = finish
        return children

    def enter_typed(self, task: _Task, data: dict[str, Any], kind: str) -> list[_Task]:
        path = task.path
        fields = self.fields(data, ("type", *literal_keys(kind), *KEYS[kind]), path)
        fields.pop("type")
        children: list[_Task] = []
        names: list[str] = []
        if kind == "array" and "items" in fields:
            children.append(self.child(task, fields["items"], _at(path, "items"), 0))
        if kind == "object":
            fields["explicit_properties"] = "properties" in data
            names, children = self.node_map(
                task, fields.get("properties", {}), _at(path, "properties"), 0
            )
            extra = fields.get("additional_properties", UNSET)
            if isinstance(extra, dict):
                where = _at(path, "additional_properties")
                children.append(self.child(task, extra, where, len(children)))

        def finish(results: list[Any]) -> Any:
            if kind == "array" and results:
                fields["items"] = results[0]
            if kind == "object":
                fields["properties"] = tuple(zip(names, results, strict=False))
                if len(results) > len(names):
                    fields["additional_properties"] = results[-1]
            return self.guard(path, lambda: make(kind, fields))

        task.finish = finish
        return children

    # -- helpers --------------------------------------------------------------------

    def node_map(
        self, task: _Task, value: Any, path: str, first_slot: int
    ) -> tuple[list[str], list[_Task]]:
        """The names and child tasks of a name -> spec map."""
        if not isinstance(value, dict):
            self.problem(path, "must be an object of name -> spec")
            return [], []
        if not self.hold(task, value, path):
            return [], []
        names = list(value)
        children = [
            self.child(task, child, _at(path, name), first_slot + i)
            for i, (name, child) in enumerate(value.items())
        ]
        return names, children

    def fields(self, data: dict[str, Any], allowed: tuple[str, ...], path: str) -> dict[str, Any]:
        known = {*allowed, *ANNOTATIONS, "required"}
        out: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                self.problem(_at(path, key), "is not a key of this spec")
            elif value is None and key not in _NULLABLE:
                self.problem(_at(path, key), "must not be null; leave the key out")
            elif key != "ref":
                out[key] = value
        return out

    def guard(self, path: str, build: Callable[[], Any]) -> Any:
        try:
            return build()
        except SchemaError as exc:
            found = exc.problems or (SchemaProblem("", str(exc)),)
            self.problems.extend(
                SchemaProblem(_at(path, p.path) if p.path else path or "(root)", p.reason)
                for p in found
            )
            return JsonNode()


# -- the other direction ----------------------------------------------------------------


def _present(key: str, value: Any) -> bool:
    """Whether a field is set: ``None`` is a value for ``default`` and ``const``."""
    if key in _NULLABLE:
        return value is not UNSET
    return value is not None and value is not UNSET


def spec_to_dict(spec: Spec) -> dict[str, Any]:
    """The plain-dict form of a spec; `spec_from_dict` inverts it."""
    pending: list[tuple[Node, Any, Any]] = []
    if isinstance(spec, Defs):
        out = _root_to_dict(spec.root, pending)
        definitions: dict[str, Any] = {}
        for name, node in spec.defs:
            definitions[name] = None
            pending.append((node, definitions, name))
        out = {"root": out, "defs": definitions}
    else:
        out = _root_to_dict(spec, pending)
    while pending:
        node, container, key = pending.pop()
        container[key] = _node_to_dict(node, pending)
    return out


def _root_to_dict(spec: Node | Params, pending: list[tuple[Node, Any, Any]]) -> dict[str, Any]:
    if not isinstance(spec, Params):
        return _node_to_dict(spec, pending)
    out: dict[str, Any] = {"type": "params"}
    for key in ("title", "description"):
        if getattr(spec, key) is not None:
            out[key] = getattr(spec, key)
    out["properties"] = _map_to_dict(spec.properties, pending)
    return out


def _map_to_dict(
    pairs: tuple[tuple[str, Node], ...], pending: list[tuple[Node, Any, Any]]
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, child in pairs:
        out[name] = None
        pending.append((child, out, name))
    return out


def _node_to_dict(spec: Node, pending: list[tuple[Node, Any, Any]]) -> dict[str, Any]:
    out: dict[str, Any]
    if isinstance(spec, (OneOfNode, AnyOfNode)):
        branches: list[Any] = [None] * len(spec.branches)
        pending.extend((b, branches, i) for i, b in enumerate(spec.branches))
        out = {spec.kind: branches}
    elif isinstance(spec, RefNode):
        out = {"ref": spec.name}
    else:
        out = {"type": spec.kind}
    for key in ANNOTATIONS:
        value = getattr(spec, key)
        if _present(key, value):
            out[key] = list(value) if key == "examples" else value
    if spec.required:
        out["required"] = True
    if spec.kind not in KEYS:
        return out
    for key in (*literal_keys(spec.kind), *KEYS[spec.kind]):
        value = getattr(spec, key)
        if not _present(key, value) or (key == "unique_items" and value is False):
            continue
        if key == "items" or (key == "additional_properties" and not isinstance(value, bool)):
            out[key] = None
            pending.append((value, out, key))
        elif key == "properties":
            if value or (isinstance(spec, ObjectNode) and spec.explicit_properties):
                out[key] = _map_to_dict(value, pending)
        else:
            out[key] = list(value) if key == "enum" else value
    return out
