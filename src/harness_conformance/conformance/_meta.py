"""The meta-schemas vector files are checked against, and where this package keeps them.

Each kind's files must satisfy its meta-schema in ``conformance/meta/``. The package
ships that folder (`shipped_vectors`): inside an installed wheel it is the
`PACKAGED_FOLDER`, in a source checkout the repository's ``conformance/``.
`MetaSchema` checks a document, or one of the meta-schema's ``$defs``, with
python-jsonschema (Draft 2020-12) and names the JSON path of every problem.
`read_checked` reads a format 2 vector file: its version, its tagged values and its
shape, as written.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from ._declared import version_problems
from ._files import VectorFileError, read_json
from ._values import decode_values

__all__ = ["PACKAGED_FOLDER", "MetaSchema", "read_checked", "shipped_vectors"]

PACKAGED_FOLDER = "_vectors"
"""The folder inside the installed package that holds the repository's ``conformance/``."""

_NO_JSONSCHEMA = (
    "vector files are checked against their meta-schemas with python-jsonschema, "
    "which is not installed: pip install jsonschema"
)


def shipped_vectors() -> Path | None:
    """The conformance folder this package ships: the copy inside an installed wheel, or
    the repository's ``conformance/`` when the package runs from a source checkout."""
    packaged = files("harness_conformance") / PACKAGED_FOLDER
    if isinstance(packaged, Path) and (packaged / "meta").is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "conformance"
    if (checkout / "meta").is_dir() and (checkout.parent / "pyproject.toml").is_file():
        return checkout
    return None


class MetaSchema:
    """One meta-schema file, read once, checking documents with python-jsonschema.
    Raises `VectorFileError` naming the file when it cannot be read, or when
    python-jsonschema is not installed."""

    def __init__(self, path: Path) -> None:
        try:
            import jsonschema
        except ImportError:
            raise VectorFileError(path, [_NO_JSONSCHEMA]) from None
        self.path = path
        self._schema: dict[str, Any] = read_json(path)
        self._validator = jsonschema.Draft202012Validator
        self._checkers: dict[str | None, Any] = {}

    def problems(self, document: Any, definition: str | None = None) -> list[str]:
        """Every way ``document`` breaks the meta-schema (or its ``$defs`` entry
        ``definition``), as ``<JSON path>: <what>``, sorted by path."""
        checker = self._checkers.get(definition)
        if checker is None:
            schema = self._schema
            if definition is not None:
                schema = {"$defs": schema.get("$defs", {}), "$ref": f"#/$defs/{definition}"}
            checker = self._checkers[definition] = self._validator(schema)
        errors = sorted(checker.iter_errors(document), key=_error_order)
        return [f"{error.json_path}: {_message(error)}" for error in errors]


def read_checked(
    path: Path, meta: MetaSchema, *, definition: str | None = None, versioned: bool = True
) -> Any:
    """The JSON document of ``path``, its tags decoded, after ``meta`` (or its
    ``definition``) found no problem in the document as written; raises
    `VectorFileError` listing every problem otherwise. A ``versioned`` file must say
    ``"vectors": 2``."""
    data = read_json(path)
    problems = version_problems(data) if versioned else []
    if problems:
        raise VectorFileError(path, problems)
    decoded, problems = decode_values(data)
    if problems:
        raise VectorFileError(path, problems)
    problems = meta.problems(data, definition)
    if problems:
        raise VectorFileError(path, problems)
    return decoded


def _message(error: Any) -> str:
    """What an error says. A failed ``oneOf`` or ``anyOf`` repeats the whole document
    and names no cause; its deepest sub-error (from the branch with the fewest errors,
    when several are as deep) says what to fix."""
    context = list(getattr(error, "context", None) or ())
    if not context:
        return str(error.message)
    branches: dict[Any, int] = {}
    for sub in context:
        branches[sub.relative_schema_path[0]] = branches.get(sub.relative_schema_path[0], 0) + 1
    best = min(context, key=lambda e: (-_depth(e), branches[e.relative_schema_path[0]], e.message))
    closest = f"{best.json_path}: {_message(best)}"
    return f"matches none of the forms the meta-schema allows; closest: {closest}"


def _depth(error: Any) -> int:
    return len(error.absolute_path)


def _error_order(error: Any) -> tuple[Any, ...]:
    # Indices sort numerically and before keys, so mixed paths never compare int to str.
    steps = tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path)
    return (steps, error.message)
