"""The ``fuzz`` command: search cassettes for a chunking or a fault the stack mishandles.

Each cassette is scanned for secrets (a cassette holding one is refused, as ``replay``
refuses it) and fuzzed with `fuzz_cassette`: re-chunkings of its response bodies, and
every fault label some response can take, drawn by Hypothesis from ``--seed``. The
output is a table with a row per cassette, a table with a row per property (the
chunking property and each fault label), every failure with its shrunk example and the
command that replays it (``--reproduce``), and a totals line. A cassette that cannot be
replayed is an error row; one with no model call is a row saying so.

``--reproduce`` replays one example, in the JSON form a failure prints, on one cassette
and prints what its property finds wrong. Its text is bounded before it is parsed (at
most `REPRODUCE_BYTES` bytes, nested at most `REPRODUCE_DEPTH` deep), its numbers and
offsets are held to their ranges (`FuzzExample.from_json`, `check_fits`), and anything
else is a usage error naming the text or the file.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CassetteError
from ..parsing import JsonTextError, parse_json
from ._cassette_check import _secret_error
from ._fuzz_report import Fuzzed, fuzz_report, render_fuzz, summary
from ._output import Progress, UsageError
from ._report import (
    InputFile,
    check_report_path,
    find_inputs,
    unreadable,
    without_report,
    write_report,
)

if TYPE_CHECKING:  # the engine (SDK clients, Hypothesis) loads when the command runs
    from ..chaos.fuzz import FuzzExample

__all__ = ["add_fuzz", "fuzz_cassette_file"]

DEFAULT_EXAMPLES = 30
"""Examples per cassette when ``--examples`` is not given (the engine's default)."""

CASSETTE_SUFFIXES = (".yaml", ".yml", ".json")

REPRODUCE_BYTES = 1_000_000
"""The most bytes ``--reproduce`` takes, as its text or from a file: the example a
failure prints is a JSON object of a few hundred."""

REPRODUCE_DEPTH = 64
"""How deep the ``--reproduce`` JSON may nest arrays and objects; an example nests four
deep."""

_JSON_TOKENS = re.compile(r'"(?:[^"\\]+|\\.)*"?|[\[\]{}]', re.DOTALL)
"""A JSON string (to the end of the text when it is not closed) or a bracket."""

_RETRY = "give the JSON object a failure prints, or a file holding it"


def fuzz_cassette_file(file: InputFile, examples: int, seed: int, start: int = 0) -> Fuzzed:
    """Fuzz one input file (``start`` as `fuzz_cassette` takes it); a file that cannot be
    read, holds a secret or fails in a way the readers do not name is an error result,
    never the end of the run."""
    from ..chaos.fuzz import FuzzResult, fuzz_cassette

    path = str(file.path)
    error: CassetteError | None = None
    if file.problem is not None:
        error = CassetteError(file.problem, code="CASSETTE_MISSING", path=path)
    else:
        error = _secret_error(file.path)
    if error is not None:
        return Fuzzed(file, FuzzResult(path=path, seed=seed, error=error))
    try:
        return Fuzzed(file, fuzz_cassette(file.path, examples=examples, seed=seed, start=start))
    except ImportError as exc:
        from ..chaos import SdkMissing

        if isinstance(exc, SdkMissing):  # what to install, for the whole run
            raise UsageError(f"{file.path}: {exc}") from None
        error = CassetteError(unreadable(file.path, exc), code="CASSETTE_CORRUPT", path=path)
        return Fuzzed(file, FuzzResult(path=path, seed=seed, error=error))
    except Exception as exc:  # the last line of defence: one file never ends the run
        error = CassetteError(unreadable(file.path, exc), code="CASSETTE_CORRUPT", path=path)
        return Fuzzed(file, FuzzResult(path=path, seed=seed, error=error))


def _too_deep(text: str) -> bool:
    """Whether ``text`` nests arrays and objects deeper than `REPRODUCE_DEPTH`, counting
    the brackets outside its strings."""
    depth = 0
    for token in _JSON_TOKENS.finditer(text):
        mark = text[token.start()]
        if mark in "[{":
            depth += 1
            if depth > REPRODUCE_DEPTH:
                return True
        elif mark != '"':
            depth -= 1
    return False


def _too_large(source: str, size: int | None = None) -> UsageError:
    held = f"{size:,} bytes" if size is not None else "more bytes"
    return UsageError(
        f"{source} holds {held}, more than the {REPRODUCE_BYTES:,} an example may take; {_RETRY}"
    )


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:  # a name too long for the file system
        return False


def _example_text(value: str) -> tuple[str, str]:
    """The JSON text ``--reproduce`` names (given inline, or a file holding it) and
    where it came from; at most `REPRODUCE_BYTES` bytes of it."""
    if value.lstrip().startswith(("{", "[")):
        source = "the --reproduce text"
        size = len(value.encode("utf-8", "replace"))
        if size > REPRODUCE_BYTES:
            raise _too_large(source, size)
        return value, source
    path = Path(value)
    if not _is_file(path):
        shown = value if len(value) <= 80 else value[:77] + "..."
        raise UsageError(f"--reproduce {shown}: {_RETRY}")
    try:
        size = path.stat().st_size
        if size > REPRODUCE_BYTES:
            raise _too_large(str(path), size)
        with path.open("rb") as file:
            data = file.read(REPRODUCE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"--reproduce {path}: cannot read the file ({exc})") from None
    if len(data) > REPRODUCE_BYTES:  # the file grew after its size was read
        raise _too_large(str(path))
    try:
        return data.decode("utf-8"), str(path)
    except UnicodeDecodeError as exc:
        raise UsageError(f"--reproduce {path}: cannot read the file ({exc})") from None


def _parse_example(value: str) -> FuzzExample:
    """The example ``--reproduce`` gives; a `UsageError` naming the text or the file for
    text too large or too deep, text that is not JSON, and a JSON form that is no
    example."""
    from ..chaos.fuzz import FuzzExample

    text, source = _example_text(value)
    if _too_deep(text):
        raise UsageError(
            f"{source} nests arrays and objects more than {REPRODUCE_DEPTH} deep; {_RETRY}"
        )
    try:
        data = parse_json(text)
    except JsonTextError as exc:
        if exc.problem.startswith("not JSON: "):
            raise UsageError(
                f"{source} is not JSON ({exc.problem.removeprefix('not JSON: ')}); {_RETRY}"
            ) from None
        raise UsageError(f"{source} cannot be read: {exc.problem}; {_RETRY}") from None
    except (RecursionError, MemoryError, OverflowError) as exc:
        raise UsageError(
            f"{source} cannot be read: it is too large or too deep ({type(exc).__name__}); {_RETRY}"
        ) from None
    try:
        return FuzzExample.from_json(data)
    except ValueError as exc:
        raise UsageError(f"{source}: {exc}") from None
    except (RecursionError, MemoryError, OverflowError) as exc:
        raise UsageError(f"{source}: the example is too large ({type(exc).__name__})") from None


def _reproduce(args: argparse.Namespace) -> int:
    given = [
        flag
        for flag, value in (
            ("--json", args.json),
            ("--examples", args.examples),
            ("--seed", args.seed),
        )
        if value is not None
    ]
    if given:
        raise UsageError(f"--reproduce replays one example and takes no {', '.join(given)}")
    if len(args.paths) != 1 or not _is_file(Path(args.paths[0])):
        raise UsageError(
            f"--reproduce replays one example on one cassette: give exactly one cassette "
            f"file, not {' '.join(args.paths)}"
        )
    from ..chaos.fuzz import run_example

    path = Path(args.paths[0])
    example = _parse_example(args.reproduce)
    try:
        problems = run_example(path, example)
    except CassetteError as exc:
        raise UsageError(f"{path}: {exc.code}: {exc}") from None
    except ValueError as exc:
        raise UsageError(f"{path}: the example does not fit the cassette: {exc}") from None
    out = sys.stdout
    shown = json.dumps(example.as_json(), separators=(",", ":"))
    out.write(f"{path}: {example.label}: {shown}\n")
    if not problems:
        out.write("ok: the replay does what the property asks\n")
        return 0
    out.write("FAIL:\n")
    for problem in problems:
        out.write(f"    {problem}\n")
    return 1


def _needs_hypothesis() -> None:
    try:
        import hypothesis  # noqa: F401 - only whether it is there
    except ImportError:
        raise UsageError(
            "fuzz draws its examples with Hypothesis, which is not installed: "
            'pip install "harness-conformance[fuzz]"'
        ) from None


def _run(args: argparse.Namespace) -> int:
    _needs_hypothesis()
    try:
        return _fuzz(args)
    except ImportError as exc:  # a cassette's provider SDK is not installed
        from ..chaos import SdkMissing

        if not isinstance(exc, SdkMissing):
            raise
        raise UsageError(str(exc)) from None


def _fuzz(args: argparse.Namespace) -> int:
    if args.reproduce is not None:
        return _reproduce(args)
    examples = DEFAULT_EXAMPLES if args.examples is None else args.examples
    seed = random.SystemRandom().randrange(1, 1_000_000) if args.seed is None else args.seed
    report = check_report_path(args.json)
    files = without_report(
        find_inputs(args.paths, CASSETTE_SUFFIXES, what="cassette", plural_what="cassettes"),
        report,
        args.paths,
    )
    items: list[Fuzzed] = []
    with Progress(len(files), "fuzz") as progress:
        for number, file in enumerate(files):
            items.append(fuzz_cassette_file(file, examples, seed, start=number * examples))
            progress.advance(file.name)
    if report is not None:
        write_report(report, fuzz_report(items, seed=seed, examples=examples))
    if args.quiet:
        sys.stdout.write(summary(items, seed) + "\n")
    else:
        sys.stdout.write(render_fuzz(items, seed) + "\n")
    return 0 if all(item.result.passed for item in items) else 1


def _whole(least: int, refusal: str) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``least``; ``refusal`` words a
    smaller one (``{value}`` is the number)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < least:
            raise argparse.ArgumentTypeError(refusal.format(value=value))
        return value

    return parse


def add_fuzz(commands: Any) -> None:
    parser = commands.add_parser(
        "fuzz",
        help="re-chunk and fault cassettes' responses until the stack mishandles one",
        description=(
            "Replay each cassette through the provider SDKs many times with its response "
            "bodies re-chunked and one response spoiled by a fault (error statuses, "
            "resets, truncated or malformed streams, keep-alive floods, stalls), and "
            "check that each session says what the recording says or ends its turn with "
            "the documented code. Failures are shrunk and printed with the command that "
            "replays them."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a cassette, or a directory searched recursively for *.yaml, *.yml, *.json",
    )
    parser.add_argument(
        "--examples",
        type=_whole(1, "needs at least 1 example, got {value}"),
        metavar="N",
        help=f"examples per cassette (default {DEFAULT_EXAMPLES}; at least one per property)",
    )
    parser.add_argument(
        "--seed",
        type=_whole(0, "a seed counts from 0, got {value}"),
        metavar="S",
        help="the seed examples are drawn from (default: a random one, printed)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    parser.add_argument(
        "--reproduce",
        metavar="JSON",
        help="replay one example (the JSON a failure prints, or a file holding it) on the "
        "one cassette given",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print the summary line only")
    parser.set_defaults(run=_run)
