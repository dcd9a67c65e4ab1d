"""Put the conformance vectors, and the session logs this library's loop writes, to the
published reference harness.

Installs the packages that ``runners/reference/package-lock.json`` pins with ``npm ci``
into the user's cache (``$XDG_CACHE_HOME`` or ``~/.cache``, under
``harness-conformance/reference-<hash of the lock file>``), once per lock file. Then
``scripts/write-loop-logs.py`` writes the logs of every shipped cassette's replay into a
temporary folder, and ``runners/reference/run.mjs`` runs the vectors and loads those logs
with Node. Arguments are passed on to the runner (``--verbose`` lists every skip reason
and known disagreement).

Exit status: the runner's (0 agreement, 1 a disagreement nobody explained or a stale
explanation); 2 when Node or npm is missing or the install fails, with the reason.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _npm_cache import cache_root, npm_ci, partial_for, settle

RUNNER = Path(__file__).resolve().parents[1] / "runners" / "reference"
MANIFESTS = ("package.json", "package-lock.json")


def install() -> Path:
    """The folder holding the pinned packages, installed there first when needed."""
    lock = (RUNNER / "package-lock.json").read_bytes()
    target = cache_root() / f"reference-{hashlib.sha256(lock).hexdigest()[:16]}"
    done = target / "node_modules" / ".package-lock.json"
    if done.is_file():
        return target
    partial = partial_for(target)
    for name in MANIFESTS:
        shutil.copyfile(RUNNER / name, partial / name)
    print(f"run-reference: installing the reference packages into {target}", flush=True)
    npm_ci(partial, partial, "run-reference", "the reference")
    return settle(partial, target)


def main() -> int:
    node = shutil.which("node")
    if node is None:
        sys.exit("run-reference: node is not on PATH; install Node.js 20 or newer")
    deps = install()
    with tempfile.TemporaryDirectory(prefix="loop-logs-") as logs:
        writer = [sys.executable, str(Path(__file__).with_name("write-loop-logs.py")), logs]
        if subprocess.run(writer, check=False).returncode != 0:
            return 1
        command = [node, str(RUNNER / "run.mjs"), "--deps", str(deps), "--logs", logs]
        return subprocess.run([*command, *sys.argv[1:]], check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
