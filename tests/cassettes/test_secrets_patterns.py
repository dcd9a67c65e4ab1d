"""The scanner's vendor token shapes: each documented format is found, near misses and
ordinary words are not, and no real cassette the project ships trips it."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_conformance.cassettes import SECRET_ENV_VARS, find_secrets

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = [ROOT / "tests" / "corpora" / "cassettes", ROOT / "fixtures" / "cassettes"]

# Every token is assembled from parts so that no line of this file looks like one.
ALNUM36 = "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c"
SLACK_SECRET = "Qw3Er6Ty9Ui2Op5As7Df1Gh4"
POSITIVES = [
    ("sk-" + "ant-api03-" + "Ab3_dEf6-hIj9" * 7 + "kLAA", "Anthropic API key"),
    ("sk-" + "ant-admin01-" + "Zx8Qw3Er6Ty9" * 8, "Anthropic API key"),
    ("hf" + "_" + "AbCdEfGhIjKlMnOpQrStUvWxYzAbCdEfGh", "Hugging Face token"),
    ("ghp" + "_" + ALNUM36, "GitHub token"),
    ("gho" + "_" + ALNUM36, "GitHub token"),
    ("ghu" + "_" + ALNUM36, "GitHub token"),
    ("ghs" + "_" + ALNUM36, "GitHub token"),
    ("ghr" + "_" + ALNUM36, "GitHub token"),
    ("github" + "_pat_" + ALNUM36[:22] + "_" + (ALNUM36 * 2)[:59], "GitHub fine-grained"),
    ("AKIA" + "Q3Z7XK2M4N6P7R5T", "AWS access key id"),
    ("ASIA" + "Q3Z7XK2M4N6P7R5T", "AWS access key id"),
    ("AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6q", "Google API key"),
    ("xoxb" + "-1234567890-1234567890123-" + SLACK_SECRET, "Slack token"),
    ("xoxp" + "-1234567890-1234567890-1234567890123-" + "a1b2c3d4" * 4, "Slack token"),
    ("gsk" + "_" + "Zx8Qw3Er6Ty9Ui2Op5As7Df1Gh4Jk0Lz8Xc3Vb6Nm9Qa2Ws5Ed", "Groq API key"),
]


@pytest.fixture(autouse=True)
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in SECRET_ENV_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(("token", "kind"), POSITIVES, ids=[kind for _, kind in POSITIVES])
def test_each_vendor_shape_is_found_in_text_and_in_a_url(token: str, kind: str) -> None:
    for text in (f"content: see {token} here\n", f"uri: https://h/x?k={token}&n=1\n"):
        [finding] = find_secrets(text)
        assert kind in finding.kind
        assert finding.length == len(token)


NEGATIVES = [
    "hf" + "_" + "abcdefghijklmnopqrstuvwxyzabcdefgh",
    "ghp" + "_" + ALNUM36[:-1],
    "ghp" + "_" + ALNUM36 + "Z",
    "ghx" + "_" + ALNUM36,
    "gh" + "p_" + "abcdefghijklmnopqrstuvwxyzabcdefghij",
    "AKIA" + "IOSFODNN7EXAMPLE",
    "AKIA" + "Q3Z7XK2M4N6P7R5",
    "AKIA" + "Q3Z7XK2M4N6P7R5T2",
    "xoxb" + "-not-a-real-token-at-all",
    "xoxa" + "-1234567890-1234567890123-" + SLACK_SECRET,
    "sk-" + "ant-api03-" + "X" * 90,
    "the hf_hub_download helper and the AKIA prefix of AWS key ids",
    "use github_pat_ tokens or ghp_ tokens, never xoxb- ones",
]


@pytest.mark.parametrize("text", NEGATIVES, ids=range(len(NEGATIVES)))
def test_near_misses_and_ordinary_words_are_not_secrets(text: str) -> None:
    assert find_secrets(f"content: {text}\n") == []


def test_no_cassette_the_project_ships_trips_the_scanner() -> None:
    files = sorted(
        path
        for root in SHIPPED
        for path in root.rglob("*")
        if path.suffix in (".yaml", ".yml", ".json") and path.is_file()
    )
    assert len(files) >= 61
    tripped = {
        str(path.relative_to(ROOT)): [finding.describe() for finding in findings]
        for path in files
        if (findings := find_secrets(path.read_text(encoding="utf-8")))
    }
    assert tripped == {}


UUID = "2f1c9a7b-e4d3-4c5f-a1b2-c3d4e5f60718"


@pytest.mark.parametrize(
    "text",
    [
        # The reference sends this header on every model request.
        f"request:\n  headers:\n    x-deepseek-harness-session-id:\n    - session-{UUID}\n",
        f"x-deepseek-harness-session-id: session-{UUID}\n",
        f'{{"sessionId": "session-{UUID}"}}\n',
        f"session_id = sess_run-{UUID}\n",
    ],
    ids=["yaml-header", "inline-header", "json-field", "assignment"],
)
def test_a_uuid_identifier_under_an_id_name_is_not_a_secret(text: str) -> None:
    assert find_secrets(text) == []


@pytest.mark.parametrize(
    "text",
    [
        f"request:\n  headers:\n    x-session-token:\n    - session-{UUID}\n",
        f"api_key: key-{UUID}-{UUID}\n",
        "x-session-id: " + ALNUM36 + "Qw3Er6Ty\n",
        f"session-id: {UUID}; token: session-{UUID}\n",
    ],
    ids=["token-name", "key-name", "id-name-random-run", "token-beside-an-id"],
)
def test_credential_names_and_random_runs_still_count(text: str) -> None:
    assert [finding.kind for finding in find_secrets(text)] == ["a long base64 key"]
