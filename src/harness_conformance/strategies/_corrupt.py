"""``corruptions`` and ``corruption_examples``: valid arguments with one targeted
change, and the message `validate_args` must give for it.

A corruption starts from a `valid_args` value, lists its sites (``_sites``),
picks a kind and a site of that kind, and makes that one change. When a drawn value
offers no site of the wanted kinds (its optional properties left out, say), the
spec's fixed sample value, the fullest one, is used instead. `corruption_examples`
starts from that same sample value, so every kind it lists can be drawn.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..schema import ROOT_LABEL, Spec
from ._sites import MISSING, Site, SiteWalker
from ._valid import Plan, as_spec, plan_for
from ._values import Where

__all__ = ["KINDS", "Corruption", "corruption_examples", "corruptions"]

KINDS = (
    "missing-required",
    "wrong-type",
    "enum-miss",
    "const-miss",
    "out-of-range",
    "too-long",
    "too-short",
    "pattern-miss",
    "extra-key-closed",
    "bad-item",
    "not-an-object",
    "one-of-none",
    "one-of-many",
    "non-finite-number",
)
"""Every corruption kind, in the order `corruption_examples` lists them."""


@dataclass(frozen=True, kw_only=True)
class Corruption:
    """Arguments that break a spec in one known way."""

    args: Any
    """The corrupted arguments."""
    kind: str
    """One of `KINDS`."""
    path: str
    """Where the change is, as the message names it: dotted keys, ``[i]`` for items,
    ``arguments`` for the root; for a missing or undeclared key, that key's path."""
    expected_message: str
    """A message ``validate_args(spec, args)`` includes."""


def _replace(value: Any, where: Where, new: Any) -> Any:
    """``value`` with ``new`` at ``where``; containers on the way are copied."""
    new = copy.deepcopy(new)
    if not where:
        return new
    top: Any = copy.copy(value)
    node = top
    for key in where[:-1]:
        child = copy.copy(node[key])
        node[key] = child
        node = child
    node[where[-1]] = new
    return top


@dataclass(frozen=True)
class _CorruptionPlan:
    valid: Plan
    walker: SiteWalker
    base: Any
    """The fullest fixed sample value, or a marker when the spec has none."""
    base_sites: list[Site]


_CACHE_ATTR = "_harness_conformance_corrupt"


def _plan(spec: Spec) -> _CorruptionPlan:
    plan: _CorruptionPlan | None = getattr(spec, _CACHE_ATTR, None)
    if plan is None:
        valid = plan_for(spec)
        walker = SiteWalker(valid.builder)
        base = copy.deepcopy(valid.root.samples[0]) if valid.root.samples else MISSING
        plan = _CorruptionPlan(valid, walker, base, walker.sites(base, valid.node))
        object.__setattr__(spec, _CACHE_ATTR, plan)
    return plan


def _corruption(value: Any, site: Site, option: tuple[Any, str]) -> Corruption:
    return Corruption(
        args=_replace(value, site.where, option[0]),
        kind=site.kind,
        path=site.path or ROOT_LABEL,
        expected_message=option[1],
    )


@st.composite
def _draw(draw: st.DrawFn, plan: _CorruptionPlan, wanted: frozenset[str]) -> Corruption:
    value = draw(plan.valid.root.strategy)
    sites = [s for s in plan.walker.sites(value, plan.valid.node) if s.kind in wanted]
    if not sites:
        value = copy.deepcopy(plan.base)
        sites = [s for s in plan.base_sites if s.kind in wanted]
    present = [kind for kind in KINDS if any(s.kind == kind for s in sites)]
    kind = draw(st.sampled_from(present))
    site = draw(st.sampled_from([s for s in sites if s.kind == kind]))
    return _corruption(value, site, draw(st.sampled_from(site.options)))


def corruptions(spec: Any, *, kinds: Iterable[str] | None = None) -> st.SearchStrategy[Corruption]:
    """Corruptions of valid arguments: each draws a `valid_args` value, picks one site
    where a change of one of ``kinds`` (default: all of `KINDS`) applies, makes that
    one change, and states the message `validate_args` must include.

    ``spec`` is a DSL spec, a `Tool` or a JSON Schema dict, as for `valid_args`. Kinds
    that do not apply to a drawn value are never produced. Raises `InvalidArgument`
    for an unknown kind, or when none of ``kinds`` applies to the spec's fixed sample
    value (the one `corruption_examples` starts from).
    """
    wanted = frozenset(KINDS if kinds is None else kinds)
    unknown = sorted(wanted - set(KINDS))
    if unknown:
        raise InvalidArgument(f"unknown corruption kinds {unknown}; the kinds are {list(KINDS)}")
    plan = _plan(as_spec(spec))
    if not any(site.kind in wanted for site in plan.base_sites):
        raise InvalidArgument(f"no corruption of kinds {sorted(wanted)} applies to this spec")
    return _draw(plan, wanted)


def corruption_examples(spec: Any) -> list[Corruption]:
    """One corruption per kind that applies to the spec's fixed sample value, in the
    order of `KINDS`; built without randomness, so every call returns the same list.

    The sample value is the fullest fixed valid value: every optional property present,
    arrays holding an item when they may, the first enum literal, the simplest string
    and the number nearest zero. A spec with no fixed sample value (a pattern the sample
    builder cannot match, say) gets only the changes that replace the whole arguments.
    """
    plan = _plan(as_spec(spec))
    examples: list[Corruption] = []
    for kind in KINDS:
        site = next((s for s in plan.base_sites if s.kind == kind), None)
        if site is not None:
            examples.append(_corruption(copy.deepcopy(plan.base), site, site.options[0]))
    return examples
