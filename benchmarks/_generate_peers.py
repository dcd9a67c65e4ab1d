"""The measurement behind ``generate.py``, and the runner for the peers.

``measure`` draws examples from one strategy and checks them; ``generate.py`` uses it for
our strategies, and this file, run as a script, uses it for the peers. The peers need a
Hypothesis release older than the one this package depends on, so ``generate.py`` runs
this file in a virtualenv of its own and talks to it one schema at a time, so that ours
and the peers are measured schema by schema, interleaved::

    python _generate_peers.py [N]

The runner first prints one JSON line: ``{"versions": {...}, "tools": {name:
{"available": bool, "reason": str | None}}}``. Then, for each line it reads on stdin
(``{"id": ..., "schema": ...}``), it draws ``N`` (default 50) examples with every
available peer, the peers in alternating order from one schema to the next, and prints
one JSON line ``{name: result}``, one result per peer as ``measure`` returns it. The
first schema is drawn once untimed by each peer before its timed draw, to warm it up.

* hypothesis-jsonschema: ``hypothesis_jsonschema.from_schema(schema)``;
* schemathesis: it has no public call that turns a bare JSON Schema into a strategy, so
  the schema becomes the JSON request body of the one operation of a minimal OpenAPI 3.1
  document (``schemathesis.openapi.from_dict``), and the examples are the ``body`` of
  the cases that ``operation.as_strategy()`` draws in its default (positive) mode.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

__all__ = ["EXAMPLES", "measure", "serve"]

EXAMPLES = 50
"""Examples drawn per schema."""
_FAILURE_TEXT = 160


def _settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )


def _undeclared(schema: Any, example: Any) -> bool:
    """Whether ``example`` has root keys that ``schema`` neither declares in ``properties``
    nor lists in ``required`` (a required key that is not declared must be present)."""
    if not isinstance(example, dict):
        return False
    root = schema if isinstance(schema, dict) else {}
    declared = root.get("properties")
    known = set(declared) if isinstance(declared, dict) else set()
    required = root.get("required")
    if isinstance(required, list):
        known.update(key for key in required if isinstance(key, str))
    return any(key not in known for key in example)


def measure(
    schema_id: str,
    schema: Any,
    make: Callable[[Any], st.SearchStrategy[Any]],
    pick: Callable[[Any], Any] = lambda value: value,
    examples: int = EXAMPLES,
) -> dict[str, Any]:
    """Time building ``make(schema)`` and running a ``@given`` test that records examples.

    The time covers building the strategy and the whole test call. Afterwards every
    example (``pick`` of the drawn value) is checked for undeclared root keys and with
    the draft 2020-12 validator. An exception, ``Unsatisfiable`` among them, is a failure.
    """
    drawn: list[Any] = []
    failure: str | None = None
    start = time.perf_counter()
    try:
        strategy = make(schema)

        @_settings(examples)
        @given(strategy)
        def record(value: Any) -> None:
            drawn.append(pick(value))

        record()
    except Exception as error:
        failure = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        failure = failure[:_FAILURE_TEXT]
    elapsed_ms = (time.perf_counter() - start) * 1000
    undeclared = invalid = unchecked = 0
    try:
        validator: Draft202012Validator | None = Draft202012Validator(schema)
    except Exception:
        validator = None
    for example in drawn:
        undeclared += _undeclared(schema, example)
        try:
            if validator is None:
                raise ValueError("no validator")
            invalid += not validator.is_valid(example)
        except Exception:
            unchecked += 1
    return {
        "id": schema_id,
        "ms": elapsed_ms,
        "examples": len(drawn),
        "undeclared": undeclared,
        "invalid": invalid,
        "unchecked": unchecked,
        "failure": failure,
    }


def _openapi(schema: Any) -> dict[str, Any]:
    """A minimal OpenAPI 3.1 document whose one operation takes ``schema`` as its body."""
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "tool", "version": "1"},
        "paths": {
            "/tool": {
                "post": {
                    "requestBody": {
                        "required": True,
                        "content": {"application/json": {"schema": schema}},
                    },
                    "responses": {"200": {"description": "ok"}},
                }
            }
        },
    }
    if isinstance(schema, dict):
        # Local references ("#/$defs/x") resolve against the document root.
        for key in ("$defs", "definitions"):
            if key in schema:
                document[key] = schema[key]
    return document


def _peers() -> dict[str, tuple[Callable[[Any], Any] | None, Callable[[Any], Any], str | None]]:
    """Per peer: the strategy maker (None when it cannot be used), the picker, the reason."""
    found: dict[str, tuple[Callable[[Any], Any] | None, Callable[[Any], Any], str | None]] = {}
    try:
        from hypothesis_jsonschema import from_schema

        found["hypothesis-jsonschema"] = (from_schema, lambda value: value, None)
    except Exception as error:
        found["hypothesis-jsonschema"] = (None, lambda value: value, f"import failed: {error}")
    try:
        import schemathesis

        def from_openapi(schema: Any) -> st.SearchStrategy[Any]:
            api = schemathesis.openapi.from_dict(_openapi(schema))
            return api["/tool"]["POST"].as_strategy()

        found["schemathesis"] = (from_openapi, lambda case: case.body, None)
    except Exception as error:
        found["schemathesis"] = (None, lambda value: value, f"import failed: {error}")
    return found


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def serve(lines: Any, out: Any, examples: int = EXAMPLES) -> None:
    """Answer each schema line of ``lines`` with one result line on ``out``."""
    peers = _peers()
    names = ("hypothesis", "hypothesis-jsonschema", "schemathesis", "jsonschema")
    header = {
        "versions": {name: _version(name) for name in names},
        "tools": {
            name: {"available": make is not None, "reason": reason}
            for name, (make, _, reason) in peers.items()
        },
    }
    out.write(json.dumps(header) + "\n")
    out.flush()
    usable = [(name, make, pick) for name, (make, pick, _) in peers.items() if make is not None]
    for number, line in enumerate(lines):
        if not line.strip():
            continue
        entry = json.loads(line)
        order = usable if number % 2 == 0 else usable[::-1]
        results = {}
        # Hypothesis and the peers may print while drawing; only results go to ``out``.
        with contextlib.redirect_stdout(io.StringIO()):
            for name, make, pick in order:
                if number == 0:
                    measure(entry["id"], entry["schema"], make, pick, examples)
                results[name] = measure(entry["id"], entry["schema"], make, pick, examples)
        out.write(json.dumps(results) + "\n")
        out.flush()


def main(argv: list[str]) -> int:
    if len(argv) > 2:
        print(__doc__, file=sys.stderr)
        return 2
    examples = int(argv[1]) if len(argv) == 2 else EXAMPLES
    serve(sys.stdin, sys.stdout, examples)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
