"""`SdkModel`: what every model backed by a provider SDK shares.

A model takes either a ready SDK client (its own base URL, key, timeout and retries are
then used, and ``base_url``, ``api_key``, ``timeout`` and ``max_retries`` must be left
out) or those options, from which it builds its own client on first use in each event
loop, since a client's connection pool belongs to the loop that opened it. The key is
``api_key``, else the first of the provider's environment variables that is set; with
neither, a call fails with MISSING_CREDENTIAL naming them. ``extra_body`` is kept for the
subclass to merge into every request. `aclose` (or ``async with``) closes the client the
model built in the running loop; a client passed in is left open.

A subclass names its default base URL and key variables and builds its SDK client
(`_build_client`); how one call is made is its own business.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any, ClassVar, Self

import anyio.lowlevel

from ..errors import LlmError, LlmFailure

__all__ = ["DEFAULT_TIMEOUT", "SdkModel"]

DEFAULT_TIMEOUT = 120.0
"""Seconds allowed for connecting and for each read; keep-alive comments reset it."""


class SdkModel:
    """The options, the per-loop client and the closing of a model backed by an SDK."""

    PROVIDER: ClassVar[str]
    """The wire format the subclass speaks, as `harness_conformance.wire` names it."""

    DEFAULT_BASE_URL: ClassVar[str]
    """The base URL used when none is given."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: Any = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        if client is not None and not (
            base_url is None and api_key is None and timeout is None and max_retries is None
        ):
            raise ValueError(
                "pass base_url, api_key, timeout and max_retries to the client you built, "
                "or leave client out and let the model build one"
            )
        self._model = model
        self._base_url = base_url if base_url is not None else self.DEFAULT_BASE_URL
        self._api_key = api_key
        self._given_client = client
        self._timeout = DEFAULT_TIMEOUT if timeout is None else timeout
        self._max_retries = 0 if max_retries is None else max_retries
        self._extra_body = dict(extra_body or {})
        self._owned: Any = None
        self._owned_loop: object = None

    @property
    def name(self) -> str:
        """The model name sent with every request (unless settings override it)."""
        return self._model

    @property
    def provider(self) -> str:
        """The provider route assistant messages record: the model's wire format."""
        return self.PROVIDER

    @property
    def base_url(self) -> str:
        """Where requests go."""
        if self._given_client is not None:
            return self._given_base_url(self._given_client)
        return self._base_url

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._model!r}, base_url={self.base_url!r})"

    # -- what a subclass says ---------------------------------------------------------

    def _key_names(self) -> tuple[str, ...]:
        """The environment variables searched for the key, in order."""
        raise NotImplementedError

    def _build_client(self, key: str) -> Any:
        """A new SDK client (or whatever `_client_of` reads it from) for this loop."""
        raise NotImplementedError

    def _client_of(self, owned: Any) -> Any:
        """The SDK client in what `_build_client` returned."""
        return owned

    def _given_base_url(self, client: Any) -> str:
        """The base URL of a client passed in."""
        return str(client.base_url)

    async def _close(self, owned: Any, *, same_loop: bool) -> None:
        """Close what `_build_client` returned; ``same_loop`` says whether the loop that
        built it is the running one (only then can its connections be closed)."""
        if same_loop:
            await owned.close()

    # -- the client -------------------------------------------------------------------

    def _api_key_now(self) -> str:
        if self._api_key:
            return self._api_key
        names = self._key_names()
        for name in names:
            value = os.environ.get(name, "").strip()
            if value:
                return value
        raise LlmError(
            LlmFailure(
                message=(
                    f"no API key for {self._base_url}: pass api_key= to "
                    f"{type(self).__name__} or set {' or '.join(names)}"
                ),
                code="MISSING_CREDENTIAL",
            )
        )

    def _client(self) -> Any:
        """The SDK client for this event loop, built on first use in each loop."""
        if self._given_client is not None:
            return self._given_client
        loop = anyio.lowlevel.current_token()
        if self._owned is not None and self._owned_loop == loop:
            return self._client_of(self._owned)
        self._owned = self._build_client(self._api_key_now())
        self._owned_loop = loop
        return self._client_of(self._owned)

    async def aclose(self) -> None:
        """Close the client this model built in the running event loop (a client passed
        in is left open). Call it before the loop ends, or the client's idle connections
        are left for the garbage collector."""
        owned, self._owned = self._owned, None
        if owned is not None:
            same_loop = self._owned_loop == anyio.lowlevel.current_token()
            await self._close(owned, same_loop=same_loop)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
