"""What cassette errors advise: each remedy names an option, ini key, marker or argument
that exists, in pytest (the plugin), in the library (`use_cassette`) and in the
``proxy`` command."""

from __future__ import annotations

__all__ = ["BASE_URL", "NEW_EPISODES", "REWRITE", "UNUSED", "VOLATILE", "base_url_hint"]

REWRITE = (
    "re-record with --hc-record-mode=rewrite (the proxy command's --record-mode rewrite) and "
    "the provider's API key in the environment"
)
BASE_URL = (
    "replay with the base URL it was recorded with (--hc-base-url or the hc_base_url ini "
    "key for the hc_model fixture, else the base_url your client is given)"
)
VOLATILE = (
    "leave that body path out of matching: the hc_volatile ini key or "
    "@pytest.mark.hc_cassette(volatile=[...]) in pytest, volatile=[...] of use_cassette, "
    "--volatile of the proxy command"
)
NEW_EPISODES = (
    "a cassette extended with --hc-record-mode=new_episodes keeps the interactions that "
    "changed requests no longer play, so it fails this way on the next replay; rewrite "
    "re-records it from scratch"
)

UNUSED = (
    f"the code under test made fewer requests than were recorded; if that is intended, "
    f"{REWRITE}, or allow it with a reason (allow_unused=..., the hc_allow_unused marker, "
    "the proxy command's --allow-unused)\n"
    f"{NEW_EPISODES}"
)


def base_url_hint(live: tuple[str, str, str], recorded: tuple[str, str, str]) -> list[str]:
    """The line saying that a request and the recording closest to it went to other base
    URLs, given their (method, host, path); nothing when they differ otherwise."""
    if not _other_base_url(live, recorded):
        return []
    return [
        f"the base URL differs from the recording: this request went to {live[1]}{live[2]}, "
        f"the recording was made against {recorded[1]}{recorded[2]}; {BASE_URL}"
    ]


def _other_base_url(live: tuple[str, str, str], recorded: tuple[str, str, str]) -> bool:
    """Whether two routes differ as requests to one API under other base URLs would: the
    same method, and another host or a path that only adds or drops a prefix."""
    if live[0] != recorded[0]:
        return False
    if live[1] != recorded[1]:
        return True
    return live[2] != recorded[2] and (
        live[2].endswith(recorded[2]) or recorded[2].endswith(live[2])
    )
