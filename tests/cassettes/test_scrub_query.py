"""Credential query parameters (Gemini's ``?key=``) never reach a cassette."""

from __future__ import annotations

import pytest
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import SECRET_QUERY_PARAMS, Scrubber, find_secrets
from harness_conformance.cassettes._scrub import scrub_query

GOOGLE_KEY = "AIza" + "Sy" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent"


@pytest.mark.parametrize(
    ("uri", "expected"),
    [
        (f"{GEMINI}?key={GOOGLE_KEY}", f"{GEMINI}?key=<redacted>"),
        (f"{GEMINI}?alt=sse&key={GOOGLE_KEY}", f"{GEMINI}?alt=sse&key=<redacted>"),
        (f"{GEMINI}?KEY={GOOGLE_KEY}&alt=sse", f"{GEMINI}?KEY=<redacted>&alt=sse"),
        (
            "https://x.test/a?api_key=s3cr3t-value#top",
            "https://x.test/a?api_key=<redacted>#top",
        ),
        (
            "https://x.test/a?access_token=t&key=k",
            "https://x.test/a?access_token=<redacted>&key=<redacted>",
        ),
        ("https://x.test/a?monkey=1&keys=2&keyx=3", "https://x.test/a?monkey=1&keys=2&keyx=3"),
        ("https://x.test/a?key", "https://x.test/a?key"),
        ("https://x.test/key=1", "https://x.test/key=1"),
        ("https://x.test/a", "https://x.test/a"),
    ],
)
def test_only_credential_parameters_are_replaced(uri: str, expected: str) -> None:
    assert scrub_query(uri) == expected


def test_the_parameter_names_are_the_documented_ones() -> None:
    assert {"key", "api_key", "api-key", "apikey", "access_token"} == SECRET_QUERY_PARAMS


def test_an_undeclared_key_in_the_query_is_scrubbed_from_the_request() -> None:
    request = Request("POST", f"{GEMINI}?alt=sse&key={GOOGLE_KEY}", b"{}", {})
    scrubbed = Scrubber().scrub_request(request)
    assert GOOGLE_KEY not in scrubbed.uri
    assert scrubbed.uri.endswith("?alt=sse&key=<redacted>")
    assert find_secrets(scrubbed.uri) == []
    assert find_secrets(request.uri) != []
