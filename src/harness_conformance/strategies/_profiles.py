"""The Hypothesis profiles the standard suites and the plugin's users run under.

`register_profiles` registers ``ci`` (derandomized, 100 examples, no deadline,
reproduction blobs printed) and ``dev`` (300 examples, no deadline), leaving a profile
of the same name that the project registered alone. It only registers;
``--hypothesis-profile`` (or the project) picks the profile to load. Hypothesis is
imported when the function runs, not when this module is imported.
"""

from __future__ import annotations

from typing import Any

__all__ = ["register_profiles"]


def register_profiles() -> None:
    """Register the ``ci`` and ``dev`` Hypothesis profiles, unless already registered."""
    from hypothesis import HealthCheck, settings
    from hypothesis.errors import InvalidArgument

    profiles: dict[str, dict[str, Any]] = {
        "ci": {
            "deadline": None,
            "derandomize": True,
            "max_examples": 100,
            "suppress_health_check": [HealthCheck.too_slow],
            "print_blob": True,
        },
        "dev": {"max_examples": 300, "deadline": None},
    }
    for name, values in profiles.items():
        try:
            settings.get_profile(name)
        except InvalidArgument:
            settings.register_profile(name, settings.get_profile("default"), **values)
