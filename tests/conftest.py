"""Hypothesis settings profiles for the test suite, and pytester for the plugin tests.

``ci`` is derandomized so a run is reproducible; ``dev`` draws more examples. The
``HYPOTHESIS_PROFILE`` environment variable picks a profile explicitly; otherwise a
set ``CI`` variable selects ``ci`` and anything else ``dev``.
"""

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

settings.register_profile(
    "ci",
    deadline=None,
    derandomize=True,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
)
