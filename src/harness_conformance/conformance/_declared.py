"""What a format 2 vector file declares: its version and what each entry requires.

Every vector file carries ``"vectors": 2``. A file's ``requires`` lists what every
entry of it requires, an entry's own ``requires`` what it requires beyond that, each a
``kind:name`` word of one of these kinds:

- ``op:<operation>``: an operation of `OPERATIONS`;
- ``dsl:<keyword>``: a DSL keyword outside the core set `CORE_DSL`;
- ``rule:<id>``: an invariant rule whose violations the case lists;
- ``profile:<name>``: the invariants profile the case is checked under;
- ``events:live`` / ``events:without-seq``: a log holding live events, or entries
  without a seq (plugin events, tool pipeline hooks);
- ``log:malformed``: a log breaking the reference's event or chunk shapes on purpose;
- ``wire:<format>`` and ``wire:non-streamed-body``.

The loaders derive each entry's requirements from what it holds and refuse a file
whose declarations say anything else (`declaration_problems`), so the declarations a
port reads cannot drift from the data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "CORE_DSL",
    "FORMAT",
    "OPERATIONS",
    "REWRITE",
    "Entry",
    "declaration_problems",
    "entry_requires",
    "file_problems",
    "log_requirements",
    "requirement_problems",
    "spec_requirements",
    "version_problems",
]

FORMAT = 2
"""The vector format version these loaders read."""

REWRITE = "scripts/rewrite-vectors-2.py"
"""The one-off rewrite of a version 1 file, named in the refusal of one."""

OPERATIONS = (
    "compile-spec",
    "import-schema",
    "refuse-spec",
    "validate",
    "render-error",
    "check-failure-facts",
    "check-log",
    "read-response",
    "read-request",
    "replay",
)
"""The operations a vector can ask an implementation for."""

CORE_DSL = frozenset(
    {
        "type",
        "items",
        "properties",
        "additional_properties",
        "one_of",
        "enum",
        "const",
        "required",
        "description",
        "title",
        "default",
        "examples",
    }
)
"""The DSL keywords every implementation is expected to read; any other keyword, a
``const`` or ``enum`` on a container, a schema-valued ``additional_properties``, named
definitions and parameter-root keys beyond ``properties`` are extensions."""

_CLOSED = {
    "op": frozenset(OPERATIONS),
    "events": frozenset({"live", "without-seq"}),
    "log": frozenset({"malformed"}),
}
_LIVE = frozenset({"agent/status", "agent/error"})
_CONTAINERS = frozenset({"array", "object", "json"})
_BRANCHES = ("one_of", "any_of", "all_of")


def version_problems(data: Any) -> list[str]:
    """The problem of a document that is not a format 2 vector file, if it is one."""
    if isinstance(data, dict) and data.get("vectors") == FORMAT:
        return []
    found = data.get("vectors", "no") if isinstance(data, dict) else "no"
    return [
        f'$.vectors: the file is in vector format {found!s}, these loaders read "vectors": '
        f"{FORMAT} only; rewrite it with `python {REWRITE} <file or folder>`"
    ]


def requirement_problems(
    words: Iterable[str], where: str, known: Mapping[str, Iterable[str]]
) -> list[str]:
    """The words of one ``requires`` list (unique ``kind:name`` words, as the
    meta-schemas require) outside the vocabulary: ``known`` adds the closed word sets
    of kinds this file's loader knows (``rule``, ``profile``, ``wire``)."""
    closed = {**_CLOSED, **{kind: frozenset(values) for kind, values in known.items()}}
    problems: list[str] = []
    for index, word in enumerate(words):
        kind, _, name = word.partition(":")
        if kind in closed and name not in closed[kind]:
            problems.append(f"{where}[{index}]: {word!r} is not one of {sorted(closed[kind])}")
    return problems


def declaration_problems(
    where: str, shared: Iterable[str], own: Iterable[str], derived: Iterable[str]
) -> list[str]:
    """How an entry's declaration (its file's ``shared`` words and its ``own``) differs
    from what the entry holds (``derived``), as problems naming the words to add or
    remove."""
    shared_set, own_set, need = set(shared), set(own), set(derived)
    problems = [
        f"{where}.requires: {word!r} is already required by the file's requires"
        for word in sorted(own_set & shared_set)
    ]
    declared = shared_set | own_set
    missing, extra = sorted(need - declared), sorted(declared - need)
    if missing:
        problems.append(f"{where}.requires: the entry requires {missing} but does not say so")
    if extra:
        problems.append(f"{where}.requires: declares {extra}, which the entry does not hold")
    return problems


def spec_requirements(spec: Any) -> set[str]:
    """The ``dsl:`` words of a plain-dict spec: every extension it uses."""
    found: set[str] = set()
    if isinstance(spec, dict) and ("root" in spec or "defs" in spec):
        found.add("dsl:defs")
        nodes: list[Any] = [spec.get("root")]
        defs = spec.get("defs")
        nodes += list(defs.values()) if isinstance(defs, dict) else []
    elif isinstance(spec, dict) and spec.get("type") == "params":
        found |= {f"dsl:params.{key}" for key in spec if key not in ("type", "properties")}
        properties = spec.get("properties")
        nodes = list(properties.values()) if isinstance(properties, dict) else []
    else:
        nodes = [spec]
    while nodes:
        node = nodes.pop()
        if not isinstance(node, dict):
            continue
        if node.get("type") == "params":
            found |= {f"dsl:params.{key}" for key in node if key not in ("type", "properties")}
        container = node.get("type") in _CONTAINERS or "one_of" in node
        for key, inner in node.items():
            if key not in CORE_DSL:
                found.add(f"dsl:{key}")
            if container and key in ("const", "enum"):
                found.add(f"dsl:{key}-on-{node.get('type', 'one_of')}")
            if key == "additional_properties" and not isinstance(inner, bool):
                found.add("dsl:additional_properties-schema")
                nodes.append(inner)
        properties = node.get("properties")
        nodes += list(properties.values()) if isinstance(properties, dict) else []
        nodes.append(node.get("items"))
        for key in _BRANCHES:
            branches = node.get(key)
            nodes += branches if isinstance(branches, list) else []
    return found


def log_requirements(log: Any) -> set[str]:
    """The ``events:`` and ``log:`` words of a log in its vector form."""
    found: set[str] = set()
    for entry in log if isinstance(log, list) else ():
        if not isinstance(entry, dict):
            continue
        if entry.get("type") in _LIVE:
            found.add("events:live")
        elif "seq" not in entry and "seq0" not in entry:
            found.add("events:without-seq")
        data = entry.get("data")
        chunk = data.get("chunk") if isinstance(data, dict) else None
        if isinstance(chunk, dict) and chunk.get("type") == "block-end" and "block" not in chunk:
            found.add("log:malformed")
    return found


Entry = tuple[str, Mapping[str, Any] | None, set[str]]
"""One entry of a file: its JSON path, its object (``None`` for a check that belongs to
the file itself, such as a schema file's compiled schema) and what it holds."""


def file_problems(
    data: Mapping[str, Any], entries: Iterable[Entry], known: Mapping[str, Iterable[str]]
) -> list[str]:
    """Every problem of a file's declarations: words outside the vocabulary, and every
    entry whose declared requirements differ from what it holds."""
    shared = data.get("requires", [])
    problems = requirement_problems(shared, "$.requires", known)
    if problems:
        return problems
    for where, entry, derived in entries:
        own = entry.get("requires", []) if entry is not None else []
        found = requirement_problems(own, f"{where}.requires", known)
        problems += found or declaration_problems(where, shared, own, derived)
    return problems


def entry_requires(data: Mapping[str, Any], entry: Mapping[str, Any]) -> frozenset[str]:
    """What an entry of a checked file requires: its file's words and its own."""
    return frozenset(data["requires"]) | frozenset(entry.get("requires", ()))
