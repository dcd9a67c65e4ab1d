"""The layout of the package, read from its imports (``docs/architecture.md``).

Every module's imports are read with `ast`, never by importing it, so a broken rule
fails here even when nothing runs the offending line. The rules:

- each part (a top-level folder of the package) imports only the parts `ALLOWED`
  names for it, so the layering holds: the core knows nothing of cassettes, the pytest
  wiring or the command line; nothing but ``__main__`` imports the command line and
  nothing imports the pytest wiring;
- a part meets another at its front door: it imports the other part's package or a
  public module or sub-package of it, never a private module, and no ``_name``;
- no import cycle between modules, imports under ``TYPE_CHECKING`` included;
- no module over 500 lines, no three private modules of one folder sharing a prefix,
  no module named after its own folder, and nothing at the package root but the facade
  and the modules `ROOT_MODULES` names.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "harness_conformance"
NAME = "harness_conformance"

CORE = {
    "errors",
    "parsing",
    "schema",
    "events",
    "wire",
    "tools",
    "invariants",
    "models",
    "agent",
}
ALLOWED: dict[str, set[str]] = {
    "errors": set(),
    "parsing": set(),
    "sharding": {"parsing"},
    "offline": {"errors"},
    "schema": {"errors"},
    "events": {"errors", "parsing"},
    "redaction": {"events"},
    "tools": {"errors", "events", "schema"},
    "invariants": {"errors", "events"},
    "wire": {"errors", "events", "parsing"},
    "models": {"errors", "events", "wire"},
    "agent": {"errors", "events", "invariants", "models", "schema", "tools"},
    "server": {"errors", "events", "models", "wire"},
    "replay": {"agent", "errors", "events", "invariants", "models", "schema", "tools"},
    "reenactment": {"agent", "errors", "events", "invariants", "models", "schema", "tools"},
    "strategies": {"errors", "schema", "tools"},
    "cassettes": CORE | {"_version", "offline", "redaction"},
    "recording": CORE | {"cassettes", "redaction"},
    "chaos": {"cassettes", "errors", "events", "invariants", "models", "wire"},
    "proxy": {"cassettes", "chaos", "errors", "wire"},
    "mcp": {"errors", "schema", "strategies"},
    "snapshots": {
        "cassettes",
        "errors",
        "events",
        "redaction",
        "replay",
        "schema",
        "strategies",
        "tools",
    },
    "standard": CORE | {"cassettes", "replay", "snapshots", "strategies"},
    "conformance": CORE | {"cassettes", "chaos", "replay"},
    "plugin": CORE
    | {
        "cassettes",
        "chaos",
        "mcp",
        "offline",
        "proxy",
        "redaction",
        "replay",
        "sharding",
        "snapshots",
        "standard",
        "strategies",
    },
    "cli": CORE
    | {
        "_version",
        "cassettes",
        "chaos",
        "conformance",
        "mcp",
        "proxy",
        "recording",
        "redaction",
        "reenactment",
        "replay",
        "sharding",
    },
    # The facade, the session-log path, the version and ``python -m``.
    "__init__": CORE - {"parsing"} | {"_version", "cassettes", "reenactment", "replay"},
    "session_log": {"events"},
    "_version": set(),
    "__main__": {"cli"},
}
"""The parts each part may import; a part may always import its own modules."""

ROOT_MODULES = {"__init__", "__main__", "_version", "session_log"}
"""The only modules at the package root; everything else lives in a part's folder."""

MAX_LINES = 500


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool

    @property
    def part(self) -> str:
        parts = self.name.split(".")
        return parts[1] if len(parts) > 1 else "__init__"


@dataclass(frozen=True)
class Import:
    source: Module
    target: str
    line: int
    type_checking: bool


def _modules() -> dict[str, Module]:
    found: dict[str, Module] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = [NAME, *path.relative_to(PACKAGE).with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        found[".".join(parts)] = Module(".".join(parts), path, is_package)
    return found


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    guarded: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            guarded.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return guarded


def _absolute(module: Module, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.name.split(".")
    if not module.is_package:
        base.pop()
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def _imports(module: Module) -> Iterator[Import]:
    tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
    guarded = _type_checking_nodes(tree)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Import | ast.ImportFrom):
            continue
        targets: list[str] = []
        if isinstance(node, ast.ImportFrom):
            base = _absolute(module, node.level, node.module)
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                targets.append(submodule if submodule in MODULES else base)
        else:
            targets = [alias.name for alias in node.names]
        for target in targets:
            if target == NAME or target.startswith(NAME + "."):
                yield Import(module, target, node.lineno, id(node) in guarded)


@cache
def _all_imports() -> tuple[Import, ...]:
    """Every import of a package module in the package, parsed on first use (not at
    collection, which every xdist worker repeats)."""
    return tuple(found for module in MODULES.values() for found in _imports(module))


def _part_of(target: str) -> str:
    while target not in MODULES:
        target = target.rsplit(".", 1)[0]
    return MODULES[target].part


def _where(found: Import) -> str:
    return f"{found.source.path.relative_to(PACKAGE.parent)}:{found.line}"


def test_every_part_is_in_the_table() -> None:
    parts = {module.part for module in MODULES.values()}
    assert parts == set(ALLOWED), (
        "add each new part to ALLOWED (and to docs/architecture.md) with the parts it "
        f"may import; unknown: {sorted(parts - set(ALLOWED))}, "
        f"gone: {sorted(set(ALLOWED) - parts)}"
    )


@pytest.mark.slow
def test_parts_import_only_what_the_layering_allows() -> None:
    broken = [
        f"{_where(found)}: {found.source.part} imports {_part_of(found.target)} ({found.target})"
        for found in _all_imports()
        if _part_of(found.target) != found.source.part
        and _part_of(found.target) not in ALLOWED[found.source.part]
    ]
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("lower", sorted(CORE))
def test_the_core_knows_nothing_of_cassettes_the_plugin_or_the_cli(lower: str) -> None:
    assert not ALLOWED[lower] & {"cassettes", "plugin", "cli"}


def _documented_rows() -> dict[str, set[str]]:
    """The "May import" column of each table row of ``docs/architecture.md``."""
    rows: dict[str, set[str]] = {}
    doc = PACKAGE.parents[1] / "docs" / "architecture.md"
    for line in doc.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        allowed = cells[3]
        named = set(re.findall(r"`([\w.]+)`", allowed))
        if allowed.startswith("the core but"):
            first, _, rest = allowed.partition(",")
            rows[cells[0].strip("`")] = (CORE - set(re.findall(r"`(\w+)`", first))) | set(
                re.findall(r"`(\w+)`", rest)
            )
        elif allowed.startswith("the core"):
            rows[cells[0].strip("`")] = CORE | named
        else:
            rows[cells[0].strip("`")] = named
    return rows


def test_the_architecture_page_states_the_same_rules() -> None:
    assert _documented_rows() == ALLOWED


def test_only_python_dash_m_imports_the_cli_and_nothing_imports_the_plugin() -> None:
    assert [part for part, allowed in ALLOWED.items() if "cli" in allowed] == ["__main__"]
    assert [part for part, allowed in ALLOWED.items() if "plugin" in allowed] == []


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _edges(*, type_checking: bool) -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {name: set() for name in MODULES}
    for found in _all_imports():
        if found.type_checking and not type_checking:
            continue
        if found.target in MODULES:
            edges[found.source.name].add(found.target)
        else:
            edges[found.source.name].add(found.target.rsplit(".", 1)[0])
    for name in edges:
        edges[name].discard(name)
    return edges


def test_there_are_no_import_cycles() -> None:
    assert _cycles(_edges(type_checking=False)) == []


def test_no_cycle_hides_behind_type_checking() -> None:
    """An import under ``TYPE_CHECKING`` never runs, but a cycle it closes is a cycle of
    the design all the same: two modules that each need the other's names."""
    guarded = sum(found.type_checking for found in _all_imports())
    assert _cycles(_edges(type_checking=True)) == [], f"{guarded} imports under TYPE_CHECKING"


def _private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split(".")[1:])


def _back_doors() -> list[str]:
    """Imports that reach into another part past its front door."""
    found: list[str] = []
    for module in MODULES.values():
        tree = ast.parse(module.path.read_text(encoding="utf-8"), str(module.path))
        for node in ast.walk(tree):
            targets: list[tuple[str, str | None]]
            if isinstance(node, ast.Import):
                targets = [(alias.name, None) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _absolute(module, node.level, node.module)
                targets = [(base, alias.name) for alias in node.names]
            else:
                continue
            for base, name in targets:
                if not base.startswith(NAME + ".") or base == f"{NAME}._version":
                    continue
                if _part_of(base) == module.part:
                    continue
                where = f"{module.path.relative_to(PACKAGE.parent)}:{node.lineno}"
                if _private(base):
                    found.append(f"{where}: {module.part} imports {base}")
                elif name is not None and name.startswith("_"):
                    found.append(f"{where}: {module.part} imports {name} from {base}")
    return found


@pytest.mark.slow
def test_parts_meet_at_their_front_door() -> None:
    assert _back_doors() == [], "export the name from the part's package and import it there"


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(edges) == [["a", "b", "c"]]


def test_no_module_is_over_500_lines() -> None:
    long = {
        str(module.path.relative_to(PACKAGE)): lines
        for module in MODULES.values()
        if (lines := len(module.path.read_text(encoding="utf-8").splitlines())) > MAX_LINES
    }
    assert long == {}, "split these by concept"


def test_the_package_root_holds_only_the_facade_and_the_root_modules() -> None:
    root = {path.stem for path in PACKAGE.glob("*.py")}
    assert root == ROOT_MODULES


def _first_word(stem: str) -> str:
    return stem.lstrip("_").split("_")[0]


def test_no_folder_has_a_family_of_prefixed_private_modules() -> None:
    families: list[str] = []
    for folder in sorted({module.path.parent for module in MODULES.values()}):
        stems = [path.stem for path in folder.glob("_*.py") if path.stem != "__init__"]
        words = [_first_word(stem) for stem in stems]
        for word in sorted(set(words)):
            members = sorted(stem for stem in stems if _first_word(stem) == word)
            if len(members) >= 3:
                families.append(f"{folder.relative_to(PACKAGE.parent)}: {members}")
    assert families == [], "three modules that share a prefix are a folder"


def test_no_module_is_named_for_its_folder() -> None:
    named = [
        str(module.path.relative_to(PACKAGE))
        for module in MODULES.values()
        if not module.is_package
        and module.path.parent != PACKAGE
        and _first_word(module.path.stem) == module.path.parent.name
    ]
    assert named == []


def test_every_package_says_what_it_is() -> None:
    silent = [
        str(module.path.relative_to(PACKAGE))
        for module in MODULES.values()
        if module.is_package and not ast.get_docstring(ast.parse(module.path.read_text("utf-8")))
    ]
    assert silent == []
