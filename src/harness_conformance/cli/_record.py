"""The ``record`` command: run prompts or a scenario file against a live model into a cassette.

The API key is read from the environment only (``--api-key-env`` names the variable),
so it never shows in a shell history or a process list. It is held as a `Secret`; the
cassette, the ``--log`` session log and the summary lines printed are scrubbed of it.
The scenario format and the recording itself are in `harness_conformance.recording._scenario`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..cassettes import write_problem
from ..errors import CassetteError
from ..events import DurableEvent, ToolCallEvent, ToolResultEvent
from ..models import PROVIDERS
from ..recording import (
    Recording,
    ScenarioError,
    load_scenario,
    record_scenario,
    scenario_from_prompts,
)
from ..redaction import Redactor, Secret, declared_secrets
from ._output import UsageError, plural
from ._report import real_path, refuse_input

__all__ = ["add_record", "undeclared_calls"]

DEFAULT_PROVIDER = "openai-chat"
_SHOWN_TEXT = 120
_UNDECLARED = "UNKNOWN_TOOL"


def _shorten(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _SHOWN_TEXT else flat[: _SHOWN_TEXT - 3] + "..."


def undeclared_calls(events: tuple[DurableEvent, ...]) -> dict[int, list[str]]:
    """The tool names of the calls answered ``UNKNOWN_TOOL`` (a tool the scenario did not
    declare), by turn, in the order the model called them."""
    names = {
        (event.turn, event.call_id): event.name
        for event in events
        if isinstance(event, ToolCallEvent)
    }
    found: dict[int, list[str]] = {}
    for event in events:
        if isinstance(event, ToolResultEvent) and (event.error or {}).get("code") == _UNDECLARED:
            name = names.get((event.turn, event.call_id or ""), "?")
            found.setdefault(event.turn, []).append(name)
    return found


def _undeclared_note(names: list[str]) -> str:
    """``1 call of an undeclared tool: "get_wether" (UNKNOWN_TOOL)``."""
    distinct = list(dict.fromkeys(names))
    tools = "an undeclared tool" if len(distinct) == 1 else "undeclared tools"
    shown = ", ".join(json.dumps(name, ensure_ascii=False) for name in distinct)
    return f"{plural(len(names), 'call')} of {tools}: {shown} ({_UNDECLARED})"


def _summary(recording: Recording) -> list[str]:
    undeclared = undeclared_calls(recording.events)
    lines = [
        f"recorded {plural(recording.interactions, 'interaction')} into {recording.path}",
        f"turns: {len(recording.turns)}, tool calls: {recording.tool_calls}",
    ]
    for turn in recording.turns:
        kind = str(turn.reason.get("kind"))
        if kind == "error":
            error = turn.reason.get("error", {})
            code, message = error.get("code", "UNKNOWN"), error.get("message", "")
            lines.append(f"turn {turn.turn}: error {code}: {message}")
            if turn.turn in undeclared:
                lines.append(f"turn {turn.turn}: {_undeclared_note(undeclared[turn.turn])}")
        else:
            if turn.turn in undeclared:
                kind += ", " + _undeclared_note(undeclared[turn.turn])
            lines.append(f"turn {turn.turn}: {kind}: {_shorten(turn.text)!r}")
    if recording.prompts_left:
        lines.append(f"not sent after the error: {plural(recording.prompts_left, 'prompt')}")
    for violation in recording.violations:
        lines.append(f"invariant {violation.rule} at seq {violation.seq}: {violation.message}")
    return lines


def _check_writable(path: Path, option: str) -> None:
    """Refuse, before any model call, an output path that cannot be written: one below a
    file, or in a folder that is not writable. Missing folders are created by the run."""
    problem = write_problem(path)
    if problem is not None:
        raise UsageError(f"cannot write {option} {path}: {problem}; choose another path")


def _with_folder(log: Path | None) -> Path | None:
    """``log``, its folder created (as the cassette's is) so the log can be written."""
    if log is not None:
        try:
            log.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot create the folder of --log {log}: {exc.strerror}") from exc
    return log


def _run(args: argparse.Namespace) -> int:
    if args.scenario is not None and args.prompt:
        raise UsageError("give a scenario file or --prompt, not both")
    if args.scenario is None and not args.prompt:
        raise UsageError("give a scenario file or at least one --prompt")
    for number, prompt in enumerate(args.prompt, 1):
        if not prompt.strip():
            raise UsageError(f"--prompt {number} is empty; give the text to send")
    target = Path(args.output)
    if args.scenario is not None:
        refuse_input(target, "-o", [args.scenario])
    if target.is_dir():
        raise UsageError(f"{target} is a folder; give the cassette file to write with -o")
    if target.exists() and not args.force:
        raise UsageError(f"{target} already exists; pass --force to record over it")
    _check_writable(target, "-o")
    log = None if args.log is None else Path(args.log)
    if log is not None:
        if log.is_dir():
            raise UsageError(f"{log} is a folder; give the session log file to write with --log")
        if real_path(log) == real_path(target):
            raise UsageError(f"--log {log} is the cassette's path; give the log its own file")
        _check_writable(log, "--log")
        if args.scenario is not None:
            refuse_input(log, "--log", [args.scenario])
    if args.scenario is not None:
        source = Path(args.scenario)
        if source.exists() and not source.is_file():
            raise UsageError(f"scenario file {source} is not a file; give a YAML or JSON file")
    try:
        scenario = (
            load_scenario(args.scenario)
            if args.scenario is not None
            else scenario_from_prompts(args.prompt)
        )
    except ScenarioError as exc:
        raise UsageError(str(exc)) from exc
    provider = PROVIDERS[args.provider or scenario.provider or DEFAULT_PROVIDER]
    names = (args.api_key_env,) if args.api_key_env else provider.key_env
    key = Secret(next((os.environ[n] for n in names if os.environ.get(n, "").strip()), ""))
    if not key.reveal().strip():
        shown = " or ".join(names)
        raise UsageError(
            f"the environment variable {shown} is not set; export the API key there (or "
            "name another variable with --api-key-env)"
        )
    try:
        recording = record_scenario(
            scenario,
            target,
            model=args.model or scenario.model or provider.default_model,
            base_url=args.base_url or scenario.base_url or provider.base_url,
            provider=provider.wire,
            api_key=key,
            invariants=args.invariants,
            log=_with_folder(log),
        )
    except CassetteError as exc:
        raise UsageError(f"{exc} [{exc.code}] No cassette was written at {target}.") from exc
    except ScenarioError as exc:
        raise UsageError(str(exc)) from exc
    except KeyboardInterrupt:
        print(f"interrupted: no cassette was written at {target}", file=sys.stderr)
        return 130
    redactor = Redactor(declared_secrets([key]))
    for line in _summary(recording):
        print(redactor.text(line))
    failed = recording.error_codes or recording.violations or undeclared_calls(recording.events)
    return 1 if failed else 0


def add_record(commands: Any) -> None:
    parser = commands.add_parser(
        "record",
        help="record a session against a live model into a cassette",
        description=(
            "Send prompts (or a scenario file's prompts and tools) to a live model "
            "(chat-completions, Anthropic Messages, OpenAI Responses or Gemini) through "
            "the agent loop and write the traffic, scrubbed of credentials, to a cassette."
        ),
    )
    parser.add_argument(
        "scenario", nargs="?", default=None, metavar="SCENARIO", help="a YAML or JSON scenario file"
    )
    parser.add_argument(
        "--prompt", action="append", default=[], metavar="TEXT", help="a prompt; repeat for turns"
    )
    parser.add_argument(
        "-o", "--output", required=True, metavar="CASSETTE", help="the file to write"
    )
    parser.add_argument(
        "--provider",
        choices=tuple(PROVIDERS),
        default=None,
        help=f"the wire format to record (default {DEFAULT_PROVIDER}, or the scenario's)",
    )
    parser.add_argument(
        "--model", default=None, help="the model (default: the provider's, e.g. deepseek-chat)"
    )
    parser.add_argument(
        "--base-url", default=None, help="the API base URL (default: the provider's)"
    )
    parser.add_argument(
        "--api-key-env",
        default=None,
        metavar="NAME",
        help="the environment variable holding the key (default: the provider's, e.g. "
        "DEEPSEEK_API_KEY then OPENAI_API_KEY)",
    )
    parser.add_argument("--force", action="store_true", help="record over an existing cassette")
    parser.add_argument(
        "--invariants",
        choices=("off", "seed", "strict"),
        default="strict",
        help="check the live run's events (default strict)",
    )
    parser.add_argument("--log", default=None, metavar="FILE", help="also write the session log")
    parser.set_defaults(run=_run)
