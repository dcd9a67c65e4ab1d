"""Session logs in the reference's shape, written row by row for the re-enactment tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

Row = dict[str, Any]
MODEL = {"source": {"kind": "model"}}


class Log:
    """A session log in the reference's shape, numbered as it is written."""

    def __init__(self) -> None:
        self.rows: list[Row] = []

    def add(self, type_: str, data: Row, **envelope: Any) -> Log:
        self.rows.append(
            {"type": type_, "seq": len(self.rows), "time": 0, "data": data, **envelope}
        )
        return self

    def chunk(self, turn: int, step: int, **chunk: Any) -> Log:
        return self.add("assistant/chunk", {"turn": turn, "step": step, "chunk": chunk})

    def prompt(self, turn: int, text: str) -> Log:
        self.add("turn/start", {"turn": turn})
        self.add("step/start", {"turn": turn, "step": 1})
        content = [{"type": "text", "text": text}]
        data = {"content": content, "source": {"kind": "user"}, "role": "user", "id": f"u{turn}"}
        self.add("user/message", data, surfaceOp="append")
        return self

    def text_reply(self, turn: int, step: int, text: str, *, finish: str = "stop") -> Log:
        self.chunk(turn, step, type="block-start", index=0, blockType="text")
        self.chunk(turn, step, type="text-delta", index=0, text=text)
        self.chunk(turn, step, type="block-end", index=0, block={"type": "text", "text": text})
        self.chunk(turn, step, type="usage", usage={"inputTokens": 3, "outputTokens": 1})
        self.chunk(turn, step, type="finish", reason={"kind": finish})
        message: Row = {"role": "assistant", "content": [{"type": "text", "text": text}]}
        message["source"] = {"kind": "model", "provider": "p", "model": "m"}
        usage = {"inputTokens": 3, "outputTokens": 1}
        data = {"turn": turn, "step": step, "message": message, "usage": usage}
        return self.add("assistant/message", data, surfaceOp="append")

    def tool_step(self, turn: int, step: int, call_id: str, name: str, arguments: str) -> Log:
        block = {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
        self.chunk(turn, step, type="block-start", index=0, blockType="tool-call")
        self.chunk(
            turn, step, type="tool-call-delta", index=0, id=call_id, name=name,
            argumentsDelta=arguments,
        )  # fmt: skip
        self.chunk(turn, step, type="block-end", index=0, block=block)
        self.chunk(turn, step, type="finish", reason={"kind": "tool-calls"})
        message = {"role": "assistant", "content": [block], "source": {"kind": "model"}}
        self.add("assistant/message", {"turn": turn, "step": step, "message": message})
        data = {"turn": turn, "step": step, "callId": call_id, "name": name}
        return self.add("tool/call", {**data, "arguments": arguments})

    def result(
        self, turn: int, step: int, call_id: str, text: str, error: Row | None = None
    ) -> Log:
        block = {
            "type": "tool-result",
            "toolCallId": call_id,
            "content": [{"type": "text", "text": text}],
            "isError": text.startswith("Error: "),
        }
        message = {
            "role": "user",
            "content": [block],
            "source": {"kind": "tool", "callId": call_id},
        }
        data: Row = {"turn": turn, "step": step, "message": {**message, "id": "r"}}
        if error is not None:
            data["error"] = error
        return self.add("tool/result", data, surfaceOp="append")

    def end_step(self, turn: int, step: int) -> Log:
        return self.add("step/end", {"turn": turn, "step": step})

    def end_turn(self, turn: int, reason: Row | None = None) -> Log:
        return self.add("turn/end", {"turn": turn, "reason": reason or {"kind": "completed"}})

    def write(self, folder: Path, name: str = "session.jsonl") -> Path:
        header = {"type": "session", "version": 0, "id": "s", "createdAt": 0}
        path = folder / name
        lines = [json.dumps(row) for row in [header, *self.rows]]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    def calls_reply(self, turn: int, step: int, calls: list[tuple[str, str, str]]) -> Log:
        """A model call that asks for ``calls`` (id, name, arguments), and its message;
        the ``tool/call`` events are the caller's, in the order the loop wrote them."""
        blocks = []
        for index, (call_id, name, arguments) in enumerate(calls):
            block = {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
            blocks.append(block)
            self.chunk(turn, step, type="block-start", index=index, blockType="tool-call")
            self.chunk(
                turn, step, type="tool-call-delta", index=index, id=call_id, name=name,
                argumentsDelta=arguments,
            )  # fmt: skip
            self.chunk(turn, step, type="block-end", index=index, block=block)
        self.chunk(turn, step, type="finish", reason={"kind": "tool-calls"})
        message = {"role": "assistant", "content": blocks, **MODEL}
        return self.add("assistant/message", {"turn": turn, "step": step, "message": message})

    def call(self, turn: int, step: int, call_id: str, name: str, arguments: str) -> Log:
        data = {"turn": turn, "step": step, "callId": call_id, "name": name}
        return self.add("tool/call", {**data, "arguments": arguments})
