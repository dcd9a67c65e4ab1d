"""`valid_args`, `corruptions` and `corruption_examples` over the real tool-schema
corpus (3,677 schemas from six public sources).

For every schema `from_json_schema` imports, strategies build (except the schemas in
`UNSATISFIABLE`, which no value can satisfy), a few derandomized valid values and
corruptions are drawn, and each is checked twice: by `validate_args` on the imported
spec and by the jsonschema oracle on the *original* schema. Valid values must pass
both; corruptions must fail both (the oracle is skipped for ``non-finite-number``,
which JSON cannot carry) and carry their expected message. The fixed examples of
`corruption_examples` are checked the same way. The README's command sweeps every
other schema of each shard, ``tox -e sweep`` every schema (``_sweep.py``).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pytest
from _sweep import EVERY
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from jsonschema import Draft202012Validator

from _corpus import ToolSchema, tool_schemas
from harness_conformance.errors import SchemaError
from harness_conformance.schema import Spec, from_json_schema, validate_args
from harness_conformance.strategies import Corruption, corruption_examples, corruptions, valid_args

UNSATISFIABLE = {
    # A required array whose enum lists strings: no array equals a string.
    "bfcl:270456123b": '"intents" accepts none of its literals ["Weather","News","Traffic"]',
    "bfcl:e128877a93": '"metrics" accepts none of its literals ["favorability",',
    # A required integer whose enum lists the digits as strings.
    "bfcl:104da4b065": '"number_of_tickets" accepts none of its literals ["1","2",',
}
"""Corpus ids whose schema no value satisfies, with the reason the error must give."""


DRAWS = 3
"""Derandomized examples per schema, each a valid value and a corruption."""

_DRAW = settings(
    max_examples=DRAWS,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.generate],
    suppress_health_check=list(HealthCheck),
)


@dataclass
class CorpusRun:
    imported: int = 0
    unsatisfiable: dict[str, str] = field(default_factory=dict)
    valid: int = 0
    corrupt: Counter[str] = field(default_factory=Counter)
    examples: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def counts(self) -> str:
        return (
            f"{self.imported} imported, {len(self.unsatisfiable)} unsatisfiable, {self.valid} "
            f"valid values, {sum(self.corrupt.values())} corruptions, "
            f"{sum(self.examples.values())} fixed examples"
        )


def _shown(value: Any) -> str:
    return json.dumps(value, default=repr)[:200]


def _check_corruption(
    ident: str, spec: Spec, oracle: Draft202012Validator, corruption: Corruption, run: CorpusRun
) -> None:
    messages = validate_args(spec, corruption.args)
    if corruption.expected_message not in messages:
        run.failures.append(f"{ident}: {corruption!r} got {messages}")
    if corruption.kind != "non-finite-number" and oracle.is_valid(corruption.args):
        run.failures.append(f"{ident}: the oracle accepts {corruption!r}")


def _check_schema(ident: str, schema: dict[str, Any], spec: Spec, run: CorpusRun) -> None:
    oracle = Draft202012Validator(schema)
    try:
        valid = valid_args(spec)
    except Unsatisfiable as exc:
        run.unsatisfiable[ident] = str(exc)
        return
    examples = corruption_examples(spec)
    for example in examples:
        run.examples[example.kind] += 1
        _check_corruption(ident, spec, oracle, example, run)

    @_DRAW
    @given(value=valid, corruption=corruptions(spec) if examples else st.none())
    def draw(value: Any, corruption: Corruption | None) -> None:
        run.valid += 1
        messages = validate_args(spec, value)
        if messages or not oracle.is_valid(value):
            run.failures.append(f"{ident}: valid value {_shown(value)} got {messages}")
        if corruption is not None:
            run.corrupt[corruption.kind] += 1
            _check_corruption(ident, spec, oracle, corruption, run)

    before = run.valid
    draw()
    if run.valid == before:
        run.failures.append(f"{ident}: no valid value was drawn")


SHARDS = 8
"""The corpus is checked in this many interleaved shards, one test each, so that xdist
spreads the work over its workers; every schema is in exactly one shard."""

KINDS = {
    "missing-required",
    "wrong-type",
    "enum-miss",
    "out-of-range",
    "too-long",
    "too-short",
    "extra-key-closed",
    "bad-item",
    "not-an-object",
    "one-of-none",
    "non-finite-number",
}
"""The corruption kinds the corpus has: it has no patterns and no non-object roots, and
its only const literals sit inside one_of branches, which corruptions never enter."""


@cache
def _corpus() -> list[ToolSchema]:
    return tool_schemas()


def _shard(shard: int) -> list[ToolSchema]:
    return _corpus()[shard::SHARDS]


def _swept(shard: int) -> list[ToolSchema]:
    """The schemas of a shard this run checks: every `EVERY`-th (``_sweep.py``)."""
    return _shard(shard)[::EVERY]


def _run_shard(shard: int) -> CorpusRun:
    result = CorpusRun()
    for row in _swept(shard):
        try:
            spec = from_json_schema(row.schema)
        except SchemaError:
            continue  # refusals are pinned by test_corpus.py
        result.imported += 1
        _check_schema(row.id, row.schema, spec, result)
    return result


@pytest.mark.slow
@pytest.mark.parametrize("shard", range(SHARDS), ids=lambda shard: f"shard-{shard}")
def test_strategies_agree_with_the_oracle_on_the_corpus(shard: int) -> None:
    run = _run_shard(shard)
    assert run.failures == [], f"{len(run.failures)} failures ({run.counts()}):\n" + "\n".join(
        run.failures[:30]
    )
    assert sum(run.corrupt.values()) == run.valid, run.counts()
    ids = {row.id for row in _swept(shard)}
    assert set(run.unsatisfiable) == set(UNSATISFIABLE) & ids, run.unsatisfiable
    for ident, reason in run.unsatisfiable.items():
        assert UNSATISFIABLE[ident] in reason, (ident, reason)
    assert run.imported >= len(ids) - (len(_corpus()) - 3670), run.counts()
    assert set(run.examples) <= KINDS, run.examples
    assert set(run.corrupt) <= KINDS, run.corrupt
    # Which kinds three derandomized draws per schema reach depends on the Hypothesis
    # release: a shard holds one or two schemas with a range or a closed object, so those
    # kinds come and go. The six common ones always appear; every kind the corpus has is
    # pinned by the fixed examples (test_the_fixed_examples_reach_every_kind_...).
    assert len(run.corrupt) >= 6, run.corrupt


def test_the_shards_cover_the_corpus_once() -> None:
    shards = [row.id for shard in range(SHARDS) for row in _shard(shard)]
    assert sorted(shards) == sorted(row.id for row in _corpus())
    assert len(set(shards)) == len(_corpus()) >= 3677
    assert set(UNSATISFIABLE) <= set(shards)


@pytest.mark.slow
def test_the_fixed_examples_reach_every_kind_the_corpus_has() -> None:
    kinds: set[str] = set()
    for row in _corpus():
        if row.id in UNSATISFIABLE:
            continue  # no value satisfies it, so nothing can be corrupted
        try:
            spec = from_json_schema(row.schema)
        except SchemaError:
            continue
        kinds.update(example.kind for example in corruption_examples(spec))
    assert kinds == KINDS, kinds
