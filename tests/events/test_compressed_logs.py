"""Session logs in zstd frames, as the reference writes ``session.jsonl.zstd``: read like
plain ones everywhere a log is read, and refused by name when damaged or too large."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import zstandard

from harness_conformance.cli import main
from harness_conformance.events import CompressedLogError, SessionLogError, read_session_log

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "upstream-sessions"
PLAIN = CORPUS / "empty-response-retry" / "session.jsonl"


def _frames(data: bytes, pieces: int = 3) -> bytes:
    """``data`` as several zstd frames one after another, as a log appended to is."""
    step = len(data) // pieces + 1
    compressor = zstandard.ZstdCompressor()
    return b"".join(compressor.compress(data[i : i + step]) for i in range(0, len(data), step))


def _compressed_copy(folder: Path, data: bytes | None = None) -> Path:
    target = folder / "sessions" / "abc" / "session.jsonl.zstd"
    target.parent.mkdir(parents=True)
    target.write_bytes(_frames(PLAIN.read_bytes() if data is None else data))
    return target


def test_a_log_in_zstd_frames_reads_as_the_plain_log(tmp_path: Path) -> None:
    compressed = read_session_log(_compressed_copy(tmp_path))
    plain = read_session_log(PLAIN)
    assert compressed.header == plain.header
    assert compressed.events == plain.events


@pytest.mark.parametrize("command", ["check-log", "reenact", "show"])
def test_every_command_reads_the_compressed_log(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _compressed_copy(tmp_path)
    # A folder is searched for the compressed name too, except by show, which takes a file.
    argument = target if command == "show" else tmp_path
    assert main([command, str(argument)]) == 0
    out = capsys.readouterr().out
    if command != "show":
        assert "1 log" in out
        assert "session.jsonl.zstd" in out


def test_a_log_cut_short_is_named_with_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = _compressed_copy(tmp_path)
    target.write_bytes(target.read_bytes()[:-7])
    with pytest.raises(CompressedLogError, match="cut short in its last frame"):
        read_session_log(target)
    assert main(["check-log", str(target)]) == 1
    captured = capsys.readouterr()
    assert "cut short in its last frame" in captured.out + captured.err
    assert "Traceback" not in captured.out + captured.err


def test_a_log_that_expands_past_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _compressed_copy(tmp_path)
    monkeypatch.setenv("HARNESS_CONFORMANCE_MAX_LOG_BYTES", "1000")
    with pytest.raises(CompressedLogError, match="HARNESS_CONFORMANCE_MAX_LOG_BYTES"):
        read_session_log(target)


def test_a_bomb_stops_at_the_cap_without_expanding_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "session.jsonl.zstd"
    # 64 MiB of zeros in a few kilobytes: reading stops past the 64 KiB cap.
    stream = zstandard.ZstdCompressor().compressobj()
    block = bytes(1024 * 1024)
    target.write_bytes(b"".join(stream.compress(block) for _ in range(64)) + stream.flush())
    assert target.stat().st_size < 64 * 1024
    monkeypatch.setenv("HARNESS_CONFORMANCE_MAX_LOG_BYTES", str(64 * 1024))
    with pytest.raises(CompressedLogError, match="more than 65,536 bytes"):
        read_session_log(target)


def test_text_that_is_not_utf8_names_the_compressed_log(tmp_path: Path) -> None:
    data = PLAIN.read_bytes().replace(b"Recovered.", b"Recovered\xff", 1)
    target = _compressed_copy(tmp_path, data)
    with pytest.raises(SessionLogError, match="of the zstd-compressed log is not UTF-8"):
        read_session_log(target)


def test_a_plain_log_under_the_compressed_name_is_read_as_plain(tmp_path: Path) -> None:
    target = tmp_path / "session.jsonl.zstd"
    shutil.copyfile(PLAIN, target)
    assert read_session_log(target).events == read_session_log(PLAIN).events


def test_a_damaged_frame_is_named_with_what_to_do(tmp_path: Path) -> None:
    target = _compressed_copy(tmp_path)
    data = bytearray(target.read_bytes())
    data[4:40] = bytes(36)  # the first frame's header and first block, zeroed
    target.write_bytes(bytes(data))
    with pytest.raises(CompressedLogError, match=r"session\.jsonl\.zstd is a zstd-compressed"):
        read_session_log(target)
