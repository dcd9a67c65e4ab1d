"""Read and parse every ``*.yaml`` file under the given folders with PyYAML's C loader.

    python _parse_files.py FOLDER...

The files are taken in path order, each read as UTF-8 and loaded with
``yaml.CSafeLoader``, as `harness-conformance replay` reads them. ``replay_scale.py``
runs this over the same copies as the command, in a process of its own, as the
yardstick the command's time is compared with.
"""

from __future__ import annotations

import sys
from pathlib import Path

import yaml

__all__ = ["main"]


def main(folders: list[str]) -> int:
    if not folders:
        print(__doc__, file=sys.stderr)
        return 2
    count = 0
    for folder in folders:
        for path in sorted(Path(folder).rglob("*.yaml")):
            yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
            count += 1
    print(f"{count} files parsed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
