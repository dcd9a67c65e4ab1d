"""What the validator keeps per spec lives beside the spec: the spec is never written to,
equal specs keep their own entries, an entry dies with its spec, `clear_caches` drops
every entry without changing a message, and threads sharing a spec agree."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import pytest

from harness_conformance.schema import Spec, clear_caches, s, validate_args
from harness_conformance.schema import _validate as validate_module
from harness_conformance.schema._caches import ENTRIES, lookup
from harness_conformance.schema._validate import GENERATE_AFTER, checker
from harness_conformance.schema.generated import generated_validator


def _spec() -> Spec:
    return s.params({"a": s.string(required=True), "b": s.array(s.integer(minimum=0))})


VALUES: list[tuple[Any, list[str]]] = [
    ({"a": "x", "b": [1]}, []),
    ({"b": [-1]}, ['missing required property "a"', '"b[0]" must be >= 0']),
    ({"a": 1}, ['"a" must be a string']),
]


def _hot(spec: Spec) -> None:
    for call in range(GENERATE_AFTER + 1):
        value, expected = VALUES[call % len(VALUES)]
        assert validate_args(spec, value) == expected


def test_validation_writes_nothing_on_the_spec() -> None:
    spec = _spec()
    before = dict(vars(spec))
    _hot(spec)
    checker(spec)
    assert vars(spec) == before
    cached = lookup(spec)
    assert cached is not None
    assert cached.check is checker(spec)
    assert cached.hot is not None
    assert cached.run is cached.hot


def test_equal_specs_keep_their_own_entries() -> None:
    first, second = _spec(), _spec()
    assert first == second
    assert first is not second
    _hot(first)
    assert lookup(second) is None
    validate_args(second, {})
    assert lookup(first) is not lookup(second)


def test_an_entry_dies_with_its_spec() -> None:
    spec = _spec()
    _hot(spec)
    key, watch = id(spec), weakref.ref(spec)
    assert key in ENTRIES
    del spec
    gc.collect()
    assert watch() is None
    assert key not in ENTRIES


def test_a_recursive_spec_is_not_kept_alive_by_its_entry() -> None:
    node = s.object({"next": s.ref("N"), "n": s.integer()}, additional_properties=False)
    spec = s.defs(s.ref("N"), {"N": node})
    value = {"next": {"n": 1}, "n": "x"}
    for _ in range(GENERATE_AFTER + 1):
        assert validate_args(spec, value) == ['"n" must be an integer']
    key, watch = id(spec), weakref.ref(spec)
    del spec, node
    gc.collect()
    assert watch() is None
    assert key not in ENTRIES


def test_clear_caches_drops_every_entry_and_changes_no_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[object] = []

    def counting(spec: Any) -> Any:
        built.append(spec)
        return generated_validator(spec)

    monkeypatch.setattr(validate_module, "generated_validator", counting)
    spec = _spec()
    _hot(spec)
    assert built == [spec]
    clear_caches()
    assert lookup(spec) is None
    assert not ENTRIES
    for value, expected in VALUES:
        assert validate_args(spec, value) == expected
    assert built == [spec]
    _hot(spec)
    assert built == [spec, spec]


def test_threads_sharing_a_spec_agree() -> None:
    spec = _spec()
    failures: list[object] = []
    start = threading.Barrier(4)

    def work() -> None:
        start.wait()
        for call in range(3 * GENERATE_AFTER):
            value, expected = VALUES[call % len(VALUES)]
            got = validate_args(spec, value)
            if got != expected:
                failures.append(got)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert lookup(spec) is not None


def test_a_kept_validator_outlives_its_spec() -> None:
    spec = _spec()
    run = validate_module.validator(spec)
    watch = weakref.ref(spec)
    del spec
    gc.collect()
    assert watch() is None
    for call in range(GENERATE_AFTER + 1):
        value, expected = VALUES[call % len(VALUES)]
        assert run(value, None) == expected
