"""The framework recipes run under ``tox -e frameworks``, which installs the newest
release of every framework and sets ``HARNESS_CONFORMANCE_FRAMEWORKS``; the README's
test command leaves them to it (each recipe records and replays in several pytest
subprocesses)."""

import os

collect_ignore_glob = [] if os.environ.get("HARNESS_CONFORMANCE_FRAMEWORKS") else ["test_*.py"]
