"""Run one command and print its wall time and peak resident memory as one JSON line.

    python _rusage.py OUTPUT -- COMMAND...

The command's output goes to the file ``OUTPUT``. The CPU time is the user and system
time of the command's whole tree that was waited for; the peak memory is
``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` of this process once the command has
ended: the largest resident set of any process of the command's tree that was waited
for (the pytest-xdist controller and its workers alike), so each measured command runs
under a fresh copy of this script. Unix only (``resource``).
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

__all__ = ["main"]


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[1], "wb") as output:
        start = time.perf_counter()
        code = subprocess.run(argv[3:], stdout=output, stderr=subprocess.STDOUT).returncode
        seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    mib = usage.ru_maxrss / (1 << 20) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    cpu = usage.ru_utime + usage.ru_stime
    print(
        json.dumps({"seconds": seconds, "cpu_seconds": cpu, "max_rss_mib": mib, "returncode": code})
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
