"""The offline guard: while a cassette replays, nothing leaves the machine.

`block_network` patches the places where Python code opens connections or resolves
names: ``socket.socket.connect``, ``socket.socket.connect_ex``,
``socket.create_connection``, ``socket.getaddrinfo``, ``socket.gethostbyname`` and
``socket.gethostbyname_ex``. Beneath them an audit hook (`sys.addaudithook`) watches
what the interpreter's socket module does whoever calls it, the private ``_socket``
module and raw sockets included: connecting, sending to an address (UDP ``sendto``
and ``sendmsg``, TCP Fast Open's ``sendto`` with ``MSG_FASTOPEN``), forward lookups
and reverse ones (``gethostbyaddr``, ``getnameinfo``, and so ``getfqdn``). An attempt
to reach a host outside ``allow_hosts`` (loopback by default) raises `CassetteError`
with code ``NETWORK_BLOCKED`` naming the host and port, and no packet is sent. The
audit hook cannot be removed once added; it does nothing while no guard is active.

HTTP clients and SDKs often wrap transport failures in their own exceptions, and an
agent loop turns any model failure into an error turn, so the error may never reach the
test on its own. Every blocked attempt is therefore also kept on each active
`NetworkGuard` (`NetworkGuard.blocked`), and leaving a guard re-raises the first one
unless the exception leaving the block already carries it.

Guards nest: a host is allowed only when every active guard allows it. The patches are
process-wide (sockets are), installed when the first guard opens and removed when the
last one closes, under a lock, whatever the order in which threads leave their guards.
Sockets that are not IP sockets (Unix domain sockets) are never blocked.
"""

from __future__ import annotations

import errno
import functools
import ipaddress
import socket
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import CassetteError
from ._host_hints import NOT_A_MODEL_REQUEST, host_hint

__all__ = [
    "LOOPBACK_HOSTS",
    "REPLAY_REASON",
    "NetworkGuard",
    "activate",
    "block_network",
    "deactivate",
    "exception_chain",
    "unreported",
]

LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1", "::1", "localhost")
"""The hosts a replay may still reach: the loopback addresses and ``localhost``."""

REPLAY_REASON = (
    "while a cassette replays; a replay must not reach the network; to record this "
    "exchange instead, run once with --hc-record-mode=once (or rewrite) and the "
    "provider's API key in the environment"
)
"""What a refusal says by default, after the hosts that may be reached."""

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def _as_ip(host: str) -> _Address | None:
    """``host`` as an IP address (an IPv4-mapped IPv6 address as its IPv4 form). The
    answers for short texts are kept: a guard is built for every test phase from the
    same few hosts."""
    if len(host) <= _KEPT_HOST_LENGTH:
        return _short_as_ip(host)
    return _parse_ip(host)


_KEPT_HOST_LENGTH = 64


@functools.lru_cache(maxsize=512)
def _short_as_ip(host: str) -> _Address | None:
    return _parse_ip(host)


def _parse_ip(host: str) -> _Address | None:
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def _host_text(host: object) -> str:
    if isinstance(host, bytes):
        return host.decode("ascii", "replace")
    return str(host)


class NetworkGuard:
    """One active `block_network` block: what it allows and what it blocked.

    ``quiet_hosts`` are refused like any host outside ``allow_hosts``, but as an
    unreachable host is (``ConnectionRefusedError``, ``socket.gaierror`` for a lookup)
    and never kept: hosts that carry no model traffic (a price map, telemetry, a trace
    export) whose loss the client tolerates. ``model_hosts``, when given, are the
    hosts of model APIs: a refusal of any other host says it is not a model request
    (`NOT_A_MODEL_REQUEST`) instead of the advice of ``reason``, since recording it
    would store it. A reason reads ``"while <when>; <advice>"``. Of the guards that
    refuse a host, the one of lowest ``rank`` gives the reason (the first activated
    among equals): a block of code or a cassette replay (0) before the guard around a
    test phase (1) before the guard of the whole run (2). `opened` lifts the guard for
    a block (a recording test's call).
    """

    __slots__ = (
        "_addresses",
        "_model_hosts",
        "_names",
        "_on_block",
        "_open",
        "_quiet",
        "blocked",
        "rank",
        "reason",
    )

    def __init__(
        self,
        allow_hosts: Iterable[str],
        reason: str = REPLAY_REASON,
        on_block: Callable[[CassetteError], None] | None = None,
        *,
        quiet_hosts: Iterable[str] = (),
        model_hosts: Iterable[str] | None = None,
        rank: int = 0,
    ) -> None:
        hosts = _host_list(allow_hosts, "allow_hosts")
        self._addresses = {ip for ip in map(_as_ip, hosts) if ip is not None}
        self._names = {h.lower().rstrip(".") for h in hosts if _as_ip(h) is None}
        self._quiet = {_folded(h) for h in _host_list(quiet_hosts, "quiet_hosts")}
        self._model_hosts = (
            None
            if model_hosts is None
            else {_folded(h) for h in _host_list(model_hosts, "model_hosts")}
        )
        self._open = 0
        self.blocked: list[CassetteError] = []
        """Every attempt this guard refused, oldest first (quiet hosts aside)."""
        self.reason = reason
        """Why the network is closed, as a refusal says it after the allowed hosts."""
        self._on_block = on_block
        self.rank = rank
        """Which reason wins when several guards refuse: the lowest rank's."""

    def refused(self, error: CassetteError) -> None:
        """Keep ``error`` in `blocked` and tell the ``on_block`` callback, if any."""
        self.blocked.append(error)
        if self._on_block is not None:
            self._on_block(error)

    def allows(self, host: str) -> bool:
        """Whether ``host`` (a name or an IP address) may be contacted."""
        if self._open:
            return True
        address = _as_ip(host)
        if address is not None:
            return address in self._addresses
        return host.lower().rstrip(".") in self._names

    def quiet(self, host: str) -> bool:
        """Whether a refusal of ``host`` is raised without being kept or reported."""
        return _folded(host) in self._quiet

    def reason_for(self, host: str) -> str:
        """What a refusal of ``host`` says after the hosts that may be reached."""
        if self._model_hosts is not None and _folded(host) not in self._model_hosts:
            return self.reason.partition(";")[0] + NOT_A_MODEL_REQUEST
        return self.reason

    @contextmanager
    def opened(self) -> Iterator[None]:
        """Let every host through this guard inside the block (other guards still
        apply); blocks nest and may overlap across threads."""
        with _lock:
            self._open += 1
        try:
            yield
        finally:
            with _lock:
                self._open -= 1


def _host_list(hosts: Iterable[str], name: str) -> list[str]:
    listed = list(hosts)
    if isinstance(hosts, str) or not all(isinstance(h, str) for h in listed):
        raise TypeError(f"{name} must be a sequence of host names or IP addresses")
    return listed


def _folded(host: str) -> str:
    address = _as_ip(host)
    return str(address) if address is not None else host.lower().rstrip(".")


_lock = threading.Lock()
_active: list[NetworkGuard] = []
_saved: dict[tuple[object, str], object] = {}
_MISSING = object()


def _check(host: object, port: object, action: str) -> None:
    """Raise NETWORK_BLOCKED when an active guard refuses ``host`` and record it on all;
    when an active guard lists the host as quiet, raise the `OSError` an unreachable
    host gives instead (`socket.gaierror` for a lookup) and record nothing."""
    text = _host_text(host)
    with _lock:
        guards = list(_active)
    if all(guard.allows(text) for guard in guards):
        return
    where = text if port in (None, "", 0) else f"{text}:{port}"
    error = CassetteError(
        f"network blocked: {action} {where} was refused because only "
        f"{', '.join(_allowed_summary(guards))} may be reached {_reason(guards, text)}",
        code="NETWORK_BLOCKED",
    )
    if any(guard.quiet(text) for guard in guards):
        # An ignored host fails as an unreachable one does, so the client falls back
        # as it would offline; nothing is kept.
        quiet = f"{error} (an ignored host, refused as unreachable)"
        if action == "resolving":
            raise socket.gaierror(socket.EAI_NONAME, quiet)
        raise ConnectionRefusedError(errno.ECONNREFUSED, quiet)
    for guard in guards:
        guard.refused(error)
    raise error


def _reason(guards: list[NetworkGuard], host: str) -> str:
    """What the refusal of ``host`` says after the hosts that may be reached: the
    reason of the refusing guard of lowest rank (the first activated among equals),
    and a hint for a host `host_hint` knows."""
    refusing = [guard for guard in guards if not guard.allows(host)]
    first = min(refusing, key=lambda guard: guard.rank)
    return first.reason_for(host) + host_hint(host)


def _allowed_summary(guards: list[NetworkGuard]) -> list[str]:
    """The hosts every active guard allows, for the error message."""
    named: set[str] = set()
    for guard in guards:
        named.update(guard._names)
        named.update(str(address) for address in guard._addresses)
    return sorted(h for h in named if all(g.allows(h) for g in guards)) or ["no host"]


def _check_address(address: object, action: str) -> None:
    """Check a socket address; non-IP addresses (Unix socket paths) pass."""
    if isinstance(address, tuple) and len(address) >= 2:
        _check(address[0], address[1], action)


def _patched_connect(original: Callable[..., Any]) -> Callable[..., Any]:
    def connect(self: socket.socket, address: Any, /) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _check_address(address, "connecting to")
        return original(self, address)

    return connect


def _patched_create_connection(original: Callable[..., Any]) -> Callable[..., Any]:
    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        _check_address(address, "connecting to")
        return original(address, *args, **kwargs)

    return create_connection


def _patched_getaddrinfo(original: Callable[..., Any]) -> Callable[..., Any]:
    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        # A None host asks for local (bind) addresses, not a lookup.
        if host is not None:
            _check(host, port, "resolving")
        return original(host, port, *args, **kwargs)

    return getaddrinfo


def _patched_gethostbyname(original: Callable[..., Any]) -> Callable[..., Any]:
    def gethostbyname(host: Any, /) -> Any:
        _check(host, None, "resolving")
        return original(host)

    return gethostbyname


def _sockaddr_event(args: tuple[Any, ...], action: str) -> None:
    sock, address = args[0], args[1]
    if getattr(sock, "family", None) in (socket.AF_INET, socket.AF_INET6):
        _check_address(address, action)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    """Check the socket module's audit events while a guard is active."""
    if not _active or not event.startswith("socket."):
        return
    if event == "socket.connect":
        _sockaddr_event(args, "connecting to")
    elif event in ("socket.sendto", "socket.sendmsg"):
        _sockaddr_event(args, "sending to")
    elif event == "socket.getaddrinfo":
        if args[0] is not None:
            _check(args[0], args[1], "resolving")
    elif event == "socket.gethostbyname":
        _check(args[0], None, "resolving")
    elif event == "socket.gethostbyaddr":
        _check(args[0], None, "looking up the name of")
    elif event == "socket.getnameinfo":
        address = args[0]
        if isinstance(address, tuple) and address:
            _check(address[0], None, "looking up the name of")


_audit_installed = False


_PATCHES: tuple[tuple[object, str, Callable[[Callable[..., Any]], Callable[..., Any]]], ...] = (
    (socket.socket, "connect", _patched_connect),
    (socket.socket, "connect_ex", _patched_connect),
    (socket, "create_connection", _patched_create_connection),
    (socket, "getaddrinfo", _patched_getaddrinfo),
    (socket, "gethostbyname", _patched_gethostbyname),
    (socket, "gethostbyname_ex", _patched_gethostbyname),
)


def _install() -> None:
    global _audit_installed
    if not _audit_installed:
        sys.addaudithook(_audit)
        _audit_installed = True
    for owner, name, wrap in _PATCHES:
        # The class attribute may be inherited (socket.socket.connect comes from the
        # C base class); remember whether it was the owner's own so exit restores it.
        _saved[(owner, name)] = vars(owner).get(name, _MISSING)
        setattr(owner, name, wrap(getattr(owner, name)))


def _uninstall() -> None:
    for owner, name, _wrap in reversed(_PATCHES):
        original = _saved.pop((owner, name))
        if original is _MISSING:
            delattr(owner, name)
        else:
            setattr(owner, name, original)


def activate(guard: NetworkGuard) -> None:
    """Put ``guard`` in force until `deactivate` removes it (`block_network` removes its
    own when its block ends; a guard a child process installs at start-up stays)."""
    with _lock:
        if not _active:
            _install()
        _active.append(guard)


def deactivate(guard: NetworkGuard) -> None:
    """Take ``guard`` out of force; the patches go when the last guard does. A guard
    that is not in force is left alone."""
    with _lock:
        if guard in _active:
            _active.remove(guard)
            if not _active:
                _uninstall()


@contextmanager
def block_network(
    allow_hosts: Iterable[str] = LOOPBACK_HOSTS,
    *,
    reason: str = REPLAY_REASON,
    quiet_hosts: Iterable[str] = (),
    model_hosts: Iterable[str] | None = None,
    rank: int = 0,
) -> Iterator[NetworkGuard]:
    """Refuse every connection and name lookup outside ``allow_hosts`` inside the block.

    ``allow_hosts`` holds host names (compared case-insensitively) and IP addresses
    (compared as addresses, so ``::ffff:127.0.0.1`` is ``127.0.0.1``). A refused
    attempt raises `CassetteError` ``NETWORK_BLOCKED`` where it happens and is added to
    the yielded guard's `NetworkGuard.blocked`. When the block ends and something was
    blocked, the first blocked error is raised on exit unless the block's own
    exception is or wraps one (see `unreported`); the block's exception, if any, is
    kept as its ``__context__``. So a client that swallowed the error cannot hide it.
    Everything patched is restored on exit, also when the block raises. ``reason``
    ends a refusal's message after the hosts that may be reached (`REPLAY_REASON` by
    default); ``quiet_hosts``, ``model_hosts`` and ``rank`` are as `NetworkGuard`
    takes them.
    """
    guard = NetworkGuard(
        allow_hosts, reason, quiet_hosts=quiet_hosts, model_hosts=model_hosts, rank=rank
    )
    activate(guard)
    hidden: CassetteError | None = None
    try:
        yield guard
    except Exception as exc:
        hidden = unreported(guard.blocked, exc)
        if hidden is None:
            raise
        hidden.__context__ = exc
    else:
        hidden = guard.blocked[0] if guard.blocked else None
    finally:
        deactivate(guard)
    if hidden is not None:
        raise hidden


def exception_chain(exc: BaseException) -> Iterator[BaseException]:
    """``exc``, its causes and contexts, and the members of exception groups in them."""
    pending, seen = [exc], set()
    while pending:
        link = pending.pop()
        if id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        pending += [e for e in (link.__cause__, link.__context__) if e is not None]
        if isinstance(link, BaseExceptionGroup):
            pending += list(link.exceptions)


def unreported(failures: list[CassetteError], exc: BaseException) -> CassetteError | None:
    """The first of ``failures`` when ``exc`` does not already carry one of them.

    Used when a block ends with ``exc``: a recorded cassette failure that the exception
    neither is nor wraps was swallowed on the way (an SDK or the agent loop turned it
    into something else) and must be raised in its place.
    """
    if not failures:
        return None
    carried = {id(link) for link in exception_chain(exc)}
    if any(id(failure) in carried for failure in failures):
        return None
    return failures[0]
