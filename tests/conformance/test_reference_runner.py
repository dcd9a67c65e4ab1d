"""The reference runner of ``runners/reference`` names cases as this library does.

The runner's verdicts are keyed by case id, and its known disagreements are a map from
case id to reason; an id the runner derived differently from the loaders would make
every entry of that file stale or unexplained. The check runs the runner's own id
function with Node (no reference package is needed for it); the ledger check needs
neither.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from harness_conformance.conformance import (
    ERROR_VECTORS,
    INVARIANT_VECTORS,
    SCHEMA_VECTORS,
    WIRE_VECTORS,
)

ROOT = Path(__file__).resolve().parents[2]
RUNNER = ROOT / "runners" / "reference"
VECTORS = ROOT / "conformance"
KINDS = ("schema", "invariants", "errors", "wire")

PRINT_IDS = """
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { caseIds } from './compare.mjs'
const [vectors, ...kinds] = process.argv.slice(1)
const ids = {}
for (const kind of kinds) {
  ids[kind] = []
  const files = readdirSync(join(vectors, kind)).filter((name) => name.endsWith('.json'))
  for (const file of files.sort()) {
    const data = JSON.parse(readFileSync(join(vectors, kind, file), 'utf8'))
    ids[kind].push(...caseIds(kind, file, data))
  }
}
console.log(JSON.stringify(ids))
"""


def loader_ids() -> dict[str, list[str]]:
    schema: list[str] = []
    for vector in SCHEMA_VECTORS.load(VECTORS / "schema"):
        schema += [case.id for case in vector.cases] + [refusal.id for refusal in vector.refusals]
    invariants = [
        case.id
        for vector in INVARIANT_VECTORS.load(VECTORS / "invariants")
        for case in vector.cases
    ]
    errors = [case.id for vector in ERROR_VECTORS.load(VECTORS / "errors") for case in vector.cases]
    wire = [case.id for vector in WIRE_VECTORS.load(VECTORS / "wire") for case in vector.cases]
    return {"schema": schema, "invariants": invariants, "errors": errors, "wire": wire}


def test_the_runner_derives_the_loaders_case_ids() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not on PATH")
    result = subprocess.run(
        [node, "--input-type=module", "-e", PRINT_IDS, "--", str(VECTORS), *KINDS],
        cwd=RUNNER,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    expected = loader_ids()
    assert all(expected[kind] for kind in KINDS)
    assert json.loads(result.stdout) == expected


def test_every_known_disagreement_names_a_case_and_a_reason() -> None:
    known = json.loads((RUNNER / "known-disagreements.json").read_text(encoding="utf-8"))
    ids = {case for kind in loader_ids().values() for case in kind}
    assert sorted(set(known) - ids) == []
    assert [case for case, reason in known.items() if len(reason.split()) < 8] == []
