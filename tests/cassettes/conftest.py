"""Hostile cassette texts, and a child process with a time and memory limit to load
them in, so that a regression fails fast instead of exhausting the machine. The tests
reach these helpers through the ``hostile`` fixture (this module)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from _bounded import run_bounded


def laughs(levels: int = 9, width: int = 9, indent: str = "") -> str:
    """Mappings ``a0`` to ``a<levels-1>``: a list of ``width`` strings, then lists of
    ``width`` aliases of the previous one (``width ** levels`` strings in all)."""
    lines = [f"{indent}a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        aliases = ", ".join([f"*a{level - 1}"] * width)
        lines.append(f"{indent}a{level}: &a{level} [{aliases}]")
    return "\n".join(lines) + "\n"


def laughs_cassette(levels: int = 9) -> str:
    """A stock (pydantic-ai style) cassette whose response body is the last list of
    `laughs`; anything that walks the body walks every string."""
    return (
        "anchors:\n" + laughs(levels, indent="  ") + "interactions:\n"
        "- request:\n"
        "    method: POST\n"
        "    uri: https://api.example.test/v1/chat/completions\n"
        "    headers: {}\n"
        "    parsed_body: {model: m, messages: [{role: user, content: hi}]}\n"
        "  response:\n"
        "    status: {code: 200, message: OK}\n"
        "    headers: {content-type: [application/json]}\n"
        f"    parsed_body: {{choices: *a{levels - 1}}}\n"
    )


def gzip_bomb(decoded: int = 2 * 1024**3) -> bytes:
    """A gzip body of ``decoded`` zero bytes: one 1 MiB member repeated (a client
    decodes every member), about a thousandth of that size."""
    import gzip

    member = gzip.compress(bytes(1024 * 1024), compresslevel=9)
    return member * (decoded // (1024 * 1024))


def stock_cassette(body: bytes | str, headers: dict[str, list[str]], uri: str = "") -> str:
    """A stock vcrpy YAML cassette of one interaction whose response is ``body``."""
    from vcr.serializers import yamlserializer  # type: ignore[import-untyped]

    return str(
        yamlserializer.serialize(
            {
                "interactions": [
                    {
                        "request": {
                            "body": None,
                            "headers": {},
                            "method": "POST",
                            "uri": uri or "https://api.example.test/v1/chat/completions",
                        },
                        "response": {
                            "body": {"string": body},
                            "headers": headers,
                            "status": {"code": 200, "message": "OK"},
                        },
                    }
                ],
                "version": 1,
            }
        )
    )


@pytest.fixture
def hostile() -> SimpleNamespace:
    """The helpers of this module: `run_bounded`, `laughs`, `laughs_cassette`,
    `gzip_bomb` and `stock_cassette`. (Not the module itself: every folder's conftest
    is imported under the one name ``conftest``, so ``sys.modules`` may hold another.)"""
    return SimpleNamespace(
        run_bounded=run_bounded,
        laughs=laughs,
        laughs_cassette=laughs_cassette,
        gzip_bomb=gzip_bomb,
        stock_cassette=stock_cassette,
    )
