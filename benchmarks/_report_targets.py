"""What ``report.py`` knows of each benchmark: its targets and its tables.

A `Target` is one goal: a measured ratio with its bound, or a yes/no check. A `Bench` is
one script's run: its command, failure, targets and table rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Bench", "Target"]


@dataclass(frozen=True)
class Target:
    """One target of the issue: a ratio with its bound, or a yes/no check."""

    bench: str
    label: str
    short: str
    measured: float | None
    bound: float
    higher_is_better: bool
    reason: str = ""
    check: tuple[str, bool] | None = None
    """For a yes/no target: the value as the benchmark printed it, and whether it passed."""
    zh: str = ""
    """The label in Chinese, when the label is not in the fixed table."""
    plotted: bool = True
    """Whether the plot shows it (a ratio of speeds; memory ratios are not)."""
    why: dict[str, str] = field(default_factory=dict, hash=False, compare=False)
    """Figures of the same run that explain a miss, a sentence per language."""
    unit: str = ""
    """The unit of a measured quantity that is not a ratio (``ms``), shown with it."""

    @classmethod
    def boolean(cls, bench: str, label: str, value: str, passed: bool) -> Target:
        return cls(bench, label, label, None, math.nan, True, check=(value, passed))

    @property
    def passed(self) -> bool:
        if self.check is not None:
            return self.check[1]
        if self.measured is None:
            return False
        if self.higher_is_better:
            return self.measured >= self.bound
        return self.measured <= self.bound

    @property
    def speed(self) -> float:
        """The measured ratio turned so that above 1 means ours is faster."""
        assert self.measured is not None
        return self.measured if self.higher_is_better else 1.0 / self.measured

    @property
    def target_speed(self) -> float:
        return self.bound if self.higher_is_better else 1.0 / self.bound

    def required_text(self, language: str = "en") -> str:
        if self.check is not None:
            return "yes" if language == "en" else "是"
        if self.bench == "loop":
            word = "overhead" if language == "en" else "开销"
            return f"{word} <= {1.0 / self.bound - 1.0:.0%}"
        if self.unit:
            return f"{'>=' if self.higher_is_better else '<='} {self.bound:g} {self.unit}"
        return f"{'>=' if self.higher_is_better else '<='} {self.bound:g}x"

    def measured_text(self, language: str = "en") -> str:
        if self.check is not None:
            return self.check[0]
        if self.measured is None:
            return "-"
        if self.bench == "loop":
            word = "overhead" if language == "en" else "开销"
            return f"{word} {1.0 / self.measured - 1.0:.1%}"
        if self.unit:
            return f"{self.measured:.2f} {self.unit}"
        return f"{self.measured:.2f}x"


@dataclass
class Bench:
    """One benchmark script's run: its command, failure, targets and table rows."""

    name: str
    command: str
    failure: str
    targets: list[Target]
    rows: list[list[str]]
    data: dict[str, Any] = field(default_factory=dict)
    more: list[tuple[str, list[list[str]]]] = field(default_factory=list)
    """Further tables: (the key of their header row in the text tables, the rows)."""
    notes: dict[str, str] = field(default_factory=dict)
    """A sentence per language written after the tables, when the numbers call for one."""
