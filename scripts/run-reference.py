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
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

RUNNER = Path(__file__).resolve().parents[1] / "runners" / "reference"
MANIFESTS = ("package.json", "package-lock.json")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "harness-conformance"


def install() -> Path:
    """The folder holding the pinned packages, installed there first when needed."""
    lock = (RUNNER / "package-lock.json").read_bytes()
    target = cache_root() / f"reference-{hashlib.sha256(lock).hexdigest()[:16]}"
    done = target / "node_modules" / ".package-lock.json"
    if done.is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("run-reference: npm is not on PATH; install Node.js 20 or newer with npm")
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    for name in MANIFESTS:
        shutil.copyfile(RUNNER / name, partial / name)
    command = [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"]
    print(f"run-reference: installing the reference packages into {target}", flush=True)
    result = subprocess.run(command, cwd=partial, check=False)
    if result.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        sys.exit(
            f"run-reference: `{' '.join(command)}` failed with status {result.returncode}; "
            "the npm registry must be reachable to install the reference"
        )
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target


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
