"""Write the session logs this library's loop produces for every shipped cassette.

Each cassette under ``fixtures/cassettes/`` and each replay vector's cassette under
``conformance/replay/`` is replayed through the agent loop (`replay_foreign`, the
``strict`` profile), and a replay vector with a fault is replayed a second time under
that fault, through the provider SDK clients, as its vector prescribes. Every session
is written as one JSONL session log into OUT, named after the cassette (``-faulted``
for the second replay) and the session's place in it. A session the loop's own checker
faults is reported and makes the exit status 1, since such a log is not one the loop
should write.

Usage: ``python scripts/write-loop-logs.py OUT``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from harness_conformance.cassettes import ForeignReplay, replay_foreign
from harness_conformance.conformance import REPLAY_VECTORS, ReplayVector
from harness_conformance.conformance._replay_faults import replay_faulted
from harness_conformance.errors import CassetteError
from harness_conformance.events import write_session_log

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "cassettes"
REPLAY = ROOT / "conformance" / "replay"


def _faulted(vector: ReplayVector) -> ForeignReplay:
    assert vector.fault is not None
    return replay_faulted(vector.cassette, vector.fault)[0]


def replays() -> Iterator[tuple[str, Callable[[], ForeignReplay]]]:
    """(log name, a thunk giving the `ForeignReplay`) for every replay to write."""
    for path in sorted(FIXTURES.rglob("*.yaml")):
        name = "-".join(path.relative_to(ROOT).with_suffix("").parts)
        yield name, partial(replay_foreign, path)
    for vector in REPLAY_VECTORS.load(REPLAY):
        name = "conformance-replay-" + vector.path.name
        yield name, partial(replay_foreign, vector.cassette)
        if vector.fault is not None:
            yield name + "-faulted", partial(_faulted, vector)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    written = replayed = failed = 0
    for name, replay_of in replays():
        replayed += 1
        try:
            replay = replay_of()
        except CassetteError as exc:
            print(f"write-loop-logs: {name}: {exc}", file=sys.stderr)
            failed += 1
            continue
        for index, session in enumerate(replay.sessions):
            if session.violations:
                print(f"write-loop-logs: {name} session {index}: {session.violations[0]}")
                failed += 1
            write_session_log(out / f"{name}-{index}.jsonl", session.events)
            written += 1
    print(f"write-loop-logs: {written} session logs of {replayed} replays in {out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
