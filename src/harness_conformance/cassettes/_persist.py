"""Cassette files on disk: a vcrpy persister that scrubs, scans and writes atomically.

`CassettePersister` is what vcrpy calls to load and save a cassette. Saving scrubs the
interactions (`Scrubber`), serializes them, refuses the text if `find_secrets` still
finds a credential in it (``CASSETTE_SECRET``, nothing written) and then replaces the
file atomically: the text goes to a temporary file in the same folder, is flushed to
disk, and is renamed over the cassette, so a crash leaves the old file or the new one,
never half of one, and no temporary file. Loading reads our format or stock vcrpy
cassettes; a damaged file raises ``CASSETTE_CORRUPT`` naming it. `check_save` runs the
same scrub, serialization and scan without writing, so a refusal can be reported before
the cassette is saved.

The parsed form of the last cassettes read is kept (`_ParsedCache`, keyed by the file's
real path and checked against its bytes), so replaying one cassette in many tests parses
it once; every load still builds new requests and response dicts from it, so what vcrpy
or a test changes in a loaded cassette never reaches the next load.

Saves of one cassette never overlap, even across processes (`cassette_lock`), and a
save never drops what another process saved meanwhile: the persister remembers the
interactions a cassette held when it was opened, and when the file on disk has changed
since, the interactions other writers added are kept after this writer's own. A file
changed meanwhile into something unreadable is not overwritten: ``CASSETTE_CORRUPT``
names it, and nothing is written. Saving, and loading at most once a minute per folder,
also delete stale temporary files left beside the cassettes by a save that was killed
(`remove_stale_temporaries`, `sweep_folder`).

`configure_vcr` sets a ``vcr.VCR`` up so that every cassette it writes goes through all
of this, whatever else the caller configured; `make_vcr` builds one.
"""

from __future__ import annotations

import copy
import functools
import os
import secrets as _random
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import vcr  # type: ignore[import-untyped]
from vcr.persisters.filesystem import CassetteNotFoundError  # type: ignore[import-untyped]
from vcr.request import Request  # type: ignore[import-untyped]
from vcr.serialize import serialize as vcr_serialize  # type: ignore[import-untyped]
from vcr.serializers import (  # type: ignore[import-untyped]
    compat,
    jsonserializer,
    yamlserializer,
)

from ..errors import CassetteError
from ..parsing import load_yaml, parse_json
from . import _format
from ._file_lock import cassette_lock, remove_stale_temporaries, sweep_folder
from ._secrets import SECRET_HEADERS, Scrubber, Secret, refuse_secrets
from ._unpatch import unpatching_use_cassette

__all__ = [
    "CassettePersister",
    "clear_parsed_cassettes",
    "configure_vcr",
    "make_vcr",
    "write_atomically",
    "write_problem",
]


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable; folders cannot be opened for this on Windows."""
    if os.name != "posix":
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_problem(path: Path) -> str | None:
    """Why ``path`` cannot be written as a file, or None: it is a folder, a device or a
    pipe, a folder on its way is a file, or the nearest existing folder is not writable.
    Missing folders are not a problem (a save creates them)."""
    if path.exists() and not path.is_file():
        return f"{path} is not a regular file (a folder, a device or a pipe)"
    folder = path.parent
    while not folder.exists() and not folder.is_symlink() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"{folder} is not a folder, so nothing can be created below it"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    return None


def write_atomically(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) so that no reader ever sees half of it.

    Parent folders are created. On any failure the old file is left as it was, the
    temporary file is removed, and the exception propagates.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    temporary = target.with_name(f".{target.name}.{_random.token_hex(8)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    descriptor = os.open(temporary, flags, 0o666)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _fsync_folder(target.parent)


class _ParsedCache:
    """The parsed documents of the last ``size`` cassette files read, each kept with the
    bytes it was parsed from: an entry serves a load only when the file holds exactly
    those bytes again, so a file changed in any way is parsed (and checked) anew."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._entries: OrderedDict[tuple[str, str], tuple[bytes, Any]] = OrderedDict()

    def get(self, key: tuple[str, str], data: bytes) -> Any:
        entry = self._entries.get(key)
        if entry is None or entry[0] != data:
            return None
        self._entries.move_to_end(key)
        return entry[1]

    def put(self, key: tuple[str, str], data: bytes, document: Any) -> None:
        self._entries[key] = (data, document)
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def drop(self, path_key: str) -> None:
        for key in [key for key in self._entries if key[0] == path_key]:
            del self._entries[key]

    def clear(self) -> None:
        self._entries.clear()


_PARSED = _ParsedCache()


def clear_parsed_cassettes() -> None:
    """Forget the parsed cassette files kept for the next load (the next load of each
    parses it again)."""
    _PARSED.clear()


_CACHED_SERIALIZERS = {id(_format): "harness_conformance", id(yamlserializer): "yaml"}
"""Serializers whose parsed documents are cached (a foreign one may keep state)."""


class CassettePersister:
    """Loads and saves cassettes for vcrpy (``vcr.register_persister``).

    ``secrets`` are live values to scrub on top of the `SECRET_ENV_VARS`. With
    ``allow_missing`` (the default) a missing or empty file raises vcrpy's
    ``CassetteNotFoundError``, which vcrpy takes as "nothing recorded yet"; without it,
    loading a missing file raises ``CassetteError(code="CASSETTE_MISSING")``.
    """

    def __init__(self, *, secrets: Iterable[str | Secret] = (), allow_missing: bool = True) -> None:
        self.scrubber = Scrubber(secrets)
        self.allow_missing = allow_missing
        self._opened: dict[str, bytes] = {}

    def load_cassette(self, cassette_path: str | os.PathLike[str], serializer: Any) -> Any:
        """``(requests, responses)``, plus vcrpy metadata when the cassette has some."""
        path = Path(cassette_path)
        data = self.read(path)
        if not data.strip():
            if self.allow_missing:
                raise CassetteNotFoundError(f"cassette {path} does not exist yet")
            raise CassetteError(
                f"cassette {path} does not exist (or is empty) and this run does not record. "
                "Record it first (record mode once, new_episodes or all), or check the path.",
                code="CASSETTE_MISSING",
                path=str(path),
            )
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise CassetteError(
                f"cassette {path} is damaged at line {line}: it is not UTF-8 text "
                f"({exc.reason} at byte {exc.start}). Fix the file by hand, or delete it "
                "and record it again.",
                code="CASSETTE_CORRUPT",
                path=str(path),
            ) from exc
        name = _CACHED_SERIALIZERS.get(id(serializer))
        if name is None:
            return _to_vcr(_document(serializer, text, path), path)
        key = (_key(path), name)
        document = _PARSED.get(key, data)
        if document is not None:
            return _to_vcr(document, path)
        document = _document(serializer, text, path)
        loaded = _to_vcr(document, path)  # a document vcrpy cannot take is never cached
        _PARSED.put(key, data, document)
        return loaded

    def read(self, cassette_path: str | os.PathLike[str]) -> bytes:
        """The bytes of ``cassette_path`` as a load reads them (empty when there is no
        file), noted as what it held when opened; stale temporary files beside it are
        removed first (`sweep_folder`)."""
        path = Path(cassette_path)
        sweep_folder(path.parent)
        data = path.read_bytes() if path.is_file() else b""
        self._opened[_key(path)] = data
        return data

    def opened(self, cassette_path: str | os.PathLike[str]) -> bytes | None:
        """What ``cassette_path`` held when it was last loaded or read, if it was."""
        return self._opened.get(_key(Path(cassette_path)))

    def remember(self, cassette_path: str | os.PathLike[str], serializer: Any) -> None:
        """Note what ``cassette_path`` holds now without loading it for vcrpy (a cassette
        recorded from scratch), so that a later save keeps what others add meanwhile."""
        path = Path(cassette_path)
        sweep_folder(path.parent)
        self._opened[_key(path)] = path.read_bytes() if path.is_file() else b""

    def save_cassette(
        self,
        cassette_path: str | os.PathLike[str],
        cassette_dict: Mapping[str, Any],
        serializer: Any,
    ) -> None:
        """Scrub, merge what others saved meanwhile, serialize, scan and write
        atomically, holding the cassette's lock; nothing is written on failure."""
        path = Path(cassette_path)
        scrubbed = self.scrubber.scrub_cassette(cassette_dict)
        path.parent.mkdir(parents=True, exist_ok=True)
        with cassette_lock(path):
            remove_stale_temporaries(path.parent, held=path)
            scrubbed = self._merged(path, scrubbed, serializer)
            text = vcr_serialize(scrubbed, serializer)
            refuse_secrets(text, path=str(cassette_path), secrets=self.scrubber.secrets)
            _PARSED.drop(_key(path))
            write_atomically(path, text)
            self._opened[_key(path)] = text.encode("utf-8")

    def check_save(
        self,
        cassette_path: str | os.PathLike[str],
        cassette_dict: Mapping[str, Any],
        serializer: Any,
    ) -> None:
        """Raise ``CASSETTE_SECRET`` as `save_cassette` would for ``cassette_dict``,
        without writing or locking anything (what others saved meanwhile is not merged:
        their own saves scanned it)."""
        text = vcr_serialize(self.scrubber.scrub_cassette(cassette_dict), serializer)
        refuse_secrets(text, path=str(cassette_path), secrets=self.scrubber.secrets)

    def _merged(self, path: Path, scrubbed: dict[str, Any], serializer: Any) -> dict[str, Any]:
        """``scrubbed`` plus the interactions other writers saved since it was opened."""
        opened = self._opened.get(_key(path))
        data = path.read_bytes() if path.is_file() else b""
        if opened is None or data == opened or not data.strip():
            return scrubbed
        try:
            current = _interactions_of(serializer, data, path)
        except CassetteError as exc:
            raise CassetteError(
                f"cassette {path} was changed by another process after this one opened it "
                f"and cannot be read now ({exc}), so the interactions recorded here cannot "
                "be merged into it; nothing was written. Fix or delete the file and record "
                "again.",
                code="CASSETTE_CORRUPT",
                path=str(path),
            ) from exc
        try:
            before = _interactions_of(serializer, opened, path)
        except CassetteError:
            before = []  # it was damaged when opened: whatever it holds now is new
        added = [item for item in current if item not in before]
        if not added:
            return scrubbed
        requests, responses, *_ = _to_vcr({"interactions": added}, path)
        return {
            **scrubbed,
            "requests": [*scrubbed["requests"], *requests],
            "responses": [*scrubbed["responses"], *responses],
        }


def _key(path: Path) -> str:
    return os.path.normcase(os.path.realpath(path))


def _document(serializer: Any, text: str, path: Path) -> Any:
    if serializer is _format:
        return _format.load_document(text, path=str(path))
    document = _foreign_serializer_load(serializer, text, path)
    if not isinstance(document, Mapping) or not isinstance(document.get("interactions"), list):
        raise _corrupt(path, "", "it has no list of interactions")
    return document


def _interactions_of(serializer: Any, data: bytes, path: Path) -> list[Any]:
    """The interactions of a cassette file's bytes (none when it is empty)."""
    if not data.strip():
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        problem = f"it is not UTF-8 text ({exc.reason} at byte {exc.start})"
        raise _corrupt(path, "", problem) from exc
    return list(_document(serializer, text, path)["interactions"])


def _corrupt(path: Path, where: str, problem: object) -> CassetteError:
    return CassetteError(
        f"cassette {path} is damaged{where}: {problem}. Fix the file by hand, or delete it "
        "and record it again.",
        code="CASSETTE_CORRUPT",
        path=str(path),
    )


def _foreign_serializer_load(serializer: Any, text: str, path: Path) -> Any:
    """A document read by a serializer other than ours (vcrpy's ``yaml`` or ``json``);
    vcrpy's own two are read with the same bounds as ours."""
    try:
        if serializer is yamlserializer:
            return load_yaml(text, loader=_format.VCR_YAML_LOADER)
        if serializer is jsonserializer:
            return parse_json(text)
        return serializer.deserialize(text)
    except CassetteError:
        raise
    except Exception as exc:  # a serializer may raise anything on a bad file
        raise _corrupt(path, "", f"{type(exc).__name__}: {exc}") from exc


def _to_vcr(document: Any, path: Path) -> Any:
    """vcrpy's ``(requests, responses[, metadata])`` from a loaded document, sharing no
    mutable part with it (vcrpy converts response bodies in place)."""
    if not isinstance(document, Mapping) or not isinstance(document.get("interactions"), list):
        raise _corrupt(path, "", "it has no list of interactions")
    requests, responses = [], []
    for index, item in enumerate(document["interactions"]):
        try:
            requests.append(Request._from_dict(copy.deepcopy(item["request"])))
            responses.append(compat.convert_to_bytes(copy.deepcopy(item["response"])))
        except (KeyError, TypeError, AttributeError) as exc:
            raise _corrupt(path, f" (interaction {index})", f"{type(exc).__name__}: {exc}") from exc
    if document.get("metadata"):
        return requests, responses, copy.deepcopy(document["metadata"])
    return requests, responses


def _chain(existing: Any, hook: Callable[[Any], Any]) -> tuple[Callable[[Any], Any], ...]:
    if existing is None:
        return (hook,)
    if callable(existing):
        return (existing, hook)
    return (*existing, hook)


def configure_vcr(
    vcr_instance: Any, *, secrets: Iterable[str | Secret] = (), allow_missing: bool = True
) -> Any:
    """Route every cassette of ``vcr_instance`` through our format and scrubbing.

    Registers the ``harness_conformance`` serializer and a `CassettePersister` and makes
    them the defaults, decodes compressed responses, filters `SECRET_HEADERS`, and adds
    the `Scrubber` as the last ``before_record_request`` and ``before_record_response``
    hook, after the caller's own, and makes its cassettes remove their HTTP patches even
    when saving fails (`harness_conformance.cassettes._unpatch`). Returns
    ``vcr_instance``.
    """
    persister = CassettePersister(secrets=secrets, allow_missing=allow_missing)
    vcr_instance.register_serializer(_format.SERIALIZER_NAME, _format)
    vcr_instance.register_persister(persister)
    vcr_instance.serializer = _format.SERIALIZER_NAME
    vcr_instance.decode_compressed_response = True
    filtered = {
        str(h[0] if isinstance(h, tuple) else h).lower() for h in vcr_instance.filter_headers
    }
    vcr_instance.filter_headers = (
        *vcr_instance.filter_headers,
        *sorted(SECRET_HEADERS - filtered),
    )
    vcr_instance.before_record_request = _chain(
        vcr_instance.before_record_request, persister.scrubber.scrub_request
    )
    vcr_instance.before_record_response = _chain(
        vcr_instance.before_record_response, persister.scrubber.scrub_response
    )
    vcr_instance._use_cassette = functools.partial(unpatching_use_cassette, vcr_instance)
    return vcr_instance


def make_vcr(
    *, secrets: Iterable[str | Secret] = (), allow_missing: bool = True, **options: Any
) -> Any:
    """A new ``vcr.VCR(**options)`` passed through `configure_vcr`."""
    return configure_vcr(vcr.VCR(**options), secrets=secrets, allow_missing=allow_missing)
