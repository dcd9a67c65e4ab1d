"""The YAML reader's caches of loader classes stay bounded, and `clear_caches` of the
part empties them, with the same values read before and after."""

from __future__ import annotations

import yaml

from harness_conformance import parsing
from harness_conformance.parsing import _construct, _resolve
from harness_conformance.parsing._yaml import load_yaml

TEXT = "a: [1, x, null, true]\nb: {c: d}\n"


def test_loaders_made_on_the_fly_do_not_pile_up_in_the_fast_path_answers() -> None:
    for _ in range(3 * _construct._MOST):
        made = type("Fresh", (yaml.SafeLoader,), {})
        assert load_yaml(TEXT, loader=made) == yaml.load(TEXT, Loader=made)
        assert len(_construct._FAST) <= _construct._MOST


def test_clear_caches_empties_both_caches_and_changes_no_value() -> None:
    before = load_yaml(TEXT, loader=yaml.SafeLoader)
    assert _construct._FAST
    assert _resolve._MADE
    parsing.clear_caches()
    assert _construct._FAST == {}
    assert _resolve._MADE == {}
    assert load_yaml(TEXT, loader=yaml.SafeLoader) == before
