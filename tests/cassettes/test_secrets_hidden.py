"""Secrets hidden from a plain search are found: a key with zero-width or other
invisible characters between its characters (written as themselves or as escapes, in a
stream, a JSON body or a YAML string), a declared secret spelled that way, a password in a
URL's userinfo, and a key written with percent-escapes in any part of a URL or a form
body. Recording replaces the userinfo password; ``replay`` refuses a cassette holding any
of them; no message shows the value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _bounded import run_bounded
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import Scrubber, find_secrets, refuse_secrets, serialize
from harness_conformance.cli import main
from harness_conformance.errors import CassetteError

KEY = "sk-proj-" + "Hx7Kq2Lm9Np4Rs6Tv8Wy1Za3Bc5De0Fg"
PASSWORD = "correct" + "horsebattery"


def _cassette(content: str, uri: str = "https://api.openai.com/v1/chat/completions") -> str:
    event = '{"choices":[{"index":0,"delta":{"content":"' + content + '"}}]}'
    request = {"method": "POST", "uri": uri, "body": '{"model":"gpt"}', "headers": {}}
    response: dict[str, Any] = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": ["text/event-stream"]},
        "body": {"string": f"data: {event}\n\ndata: [DONE]\n\n"},
    }
    return str(
        serialize({"version": 1, "interactions": [{"request": request, "response": response}]})
    )


SPELLINGS = {
    "zero-width joiners": "\u200d".join(KEY),
    "zero-width spaces": "\u200b".join(KEY),
    "a word joiner and a BOM": KEY[:10] + "\u2060" + KEY[10:20] + "\ufeff" + KEY[20:],
    "soft hyphens": "\u00ad".join(KEY),
    "escaped joiners": "\\u200d".join(KEY),
}


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_key_with_invisible_characters_is_found(spelling: str) -> None:
    text = _cassette(SPELLINGS[spelling])
    assert KEY not in text
    findings = find_secrets(text)
    assert findings, text
    assert any("with invisible characters inside" in f.kind for f in findings)
    with pytest.raises(CassetteError) as raised:
        refuse_secrets(text, path="c.yaml")
    assert raised.value.code == "CASSETTE_SECRET"
    assert KEY not in str(raised.value)


def test_a_declared_secret_with_invisible_characters_is_found() -> None:
    declared = "plain" + "lowercasesecretvalue"
    text = "note: " + "\u200c".join(declared) + "\n"
    [finding] = find_secrets(text, [declared])
    assert finding.kind == "a live API key value with invisible characters inside"
    assert (finding.line, finding.column) == (1, 7)


def test_invisible_characters_in_harmless_text_are_not_findings() -> None:
    assert find_secrets(_cassette("caf\u00e9 \u200dwith a joiner\u200b and sk-\u200dshort")) == []


@pytest.mark.parametrize(
    "uri",
    [
        f"https://bob:{PASSWORD}@api.example.test/v1/chat/completions",
        f"http://user:{PASSWORD}@127.0.0.1:8080/v1/chat/completions",
    ],
)
def test_a_password_in_the_url_userinfo_is_found(uri: str) -> None:
    text = _cassette("hi", uri)
    [finding] = find_secrets(text)
    assert finding.kind == "a password in a URL (scheme://user:password@host)"
    assert finding.length == len(PASSWORD)
    assert finding.field == "interactions[0].request.uri"


@pytest.mark.parametrize(
    "uri",
    [
        "https://bob@api.example.test/v1",
        "https://bob:<redacted>@api.example.test/v1",
        "https://bob:***@api.example.test/v1",
        "https://api.example.test/v1?a=b:c@d",
    ],
)
def test_userinfo_without_a_password_is_not_a_finding(uri: str) -> None:
    assert find_secrets(_cassette("hi", uri)) == []


PERCENT = {
    "every character escaped": "".join(f"%{ord(c):02X}" for c in KEY),
    "the first letter escaped": "%73" + KEY[1:],
    "the hyphens escaped": KEY.replace("-", "%2D"),
}


@pytest.mark.parametrize("spelling", list(PERCENT))
@pytest.mark.parametrize("part", ["query", "path", "fragment"])
def test_a_key_written_with_percent_escapes_in_a_url_is_found(spelling: str, part: str) -> None:
    escaped = PERCENT[spelling]
    base = "https://api.example.test/v1"
    uri = {
        "query": f"{base}?token={escaped}",
        "path": f"{base}/keys/{escaped}/use",
        "fragment": f"{base}#{escaped}",
    }[part]
    [finding] = find_secrets(_cassette("hi", uri))
    assert finding.kind == "an OpenAI-style API key (sk-...) written with percent-escapes"
    assert finding.field == "interactions[0].request.uri"


def test_a_key_written_with_percent_escapes_in_a_form_body_is_found() -> None:
    [finding] = find_secrets(f"body: grant=client&secret_value={PERCENT['the hyphens escaped']}\n")
    assert finding.kind.endswith("written with percent-escapes")


def test_harmless_percent_escapes_are_not_findings() -> None:
    uri = "https://api.example.test/v1?q=hello%20world&path=%2Ftmp%2Fsk-short"
    assert find_secrets(_cassette("hi", uri)) == []


def test_recording_replaces_the_userinfo_password() -> None:
    request = Request("POST", f"https://bob:{PASSWORD}@api.example.test/v1", b"{}", {})
    scrubbed = Scrubber().scrub_request(request)
    assert scrubbed.uri == "https://bob:<redacted>@api.example.test/v1"


@pytest.mark.parametrize("case", ["invisible", "userinfo", "percent"])
def test_replay_refuses_them(tmp_path: Path, capsys: pytest.CaptureFixture[str], case: str) -> None:
    cassette = tmp_path / "hidden.yaml"
    text = {
        "invisible": _cassette(SPELLINGS["zero-width joiners"]),
        "userinfo": _cassette("hi", f"https://bob:{PASSWORD}@api.openai.com/v1/chat/completions"),
        "percent": _cassette(
            "hi", f"https://api.openai.com/v1/chat/completions?k={PERCENT['the hyphens escaped']}"
        ),
    }[case]
    cassette.write_text(text, encoding="utf-8")
    assert main(["replay", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert "CASSETTE_SECRET" in out
    assert KEY not in out
    assert PASSWORD not in out


SHAPES = {
    "letters and dots": "'a.' * 400_000",
    "a broken escape before a long run": "'%zz' + 'a' * 800_000",
    "many schemes": "'h://a:b' * 100_000",
    "one scheme and many colons": "'h://' + 'a:' * 400_000",
    "invisible characters between letters": "'\\u200ba' * 200_000",
}


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_hidden_secret_search_is_linear(shape: str) -> None:
    """Letters and dots, and a broken escape before a long run, took time quadratic in
    their length (minutes at this size) while the userinfo and percent-escape searches
    scanned back over every run; the other shapes hold the remaining searches to it."""
    out = run_bounded(
        "from harness_conformance.cassettes import find_secrets\n"
        f"print(len(find_secrets('x: ' + {SHAPES[shape]} + '\\n')))\n",
        seconds=60,
    )
    assert out.split() == ["0"]
