"""Cassettes whose HTTP patches come off even when saving fails.

vcrpy's context decorator saves the cassette before it removes its patches from the
HTTP libraries, so a save that raises (our persister refusing a secret, a full disk)
leaves ``http.client``, httpx and the rest patched until the decorator is garbage
collected, and the next request anywhere in the process goes through a closed cassette.
`unpatching_use_cassette` is what `configure_vcr` installs as the VCR's
``_use_cassette``: the same decorator, whose exit removes the patches whatever the save
does.
"""

from __future__ import annotations

import functools
from typing import Any

from vcr.cassette import Cassette, CassetteContextDecorator  # type: ignore[import-untyped]

__all__ = ["UnpatchingDecorator", "unpatching_use_cassette"]

_FINISH = "_CassetteContextDecorator__finish"
"""vcrpy's name for the generator that holds the patches (name-mangled)."""


class UnpatchingDecorator(CassetteContextDecorator):  # type: ignore[misc]
    """vcrpy's cassette context decorator, unpatching even when the save raises."""

    def __exit__(self, *exc_info: Any) -> None:
        try:
            super().__exit__(*exc_info)
        except BaseException:
            finish = getattr(self, _FINISH, None)
            setattr(self, _FINISH, None)
            if finish is not None:
                # Closing the suspended generator unwinds its ExitStack of patches.
                finish.close()
            raise


def unpatching_use_cassette(
    vcr_instance: Any, with_current_defaults: bool = False, **kwargs: Any
) -> UnpatchingDecorator:
    """``VCR._use_cassette`` of ``vcr_instance`` returning an `UnpatchingDecorator`."""
    if with_current_defaults:
        config = vcr_instance.get_merged_config(**kwargs)
        return UnpatchingDecorator(Cassette, lambda: dict(config))
    args_getter = functools.partial(vcr_instance.get_merged_config, **kwargs)
    return UnpatchingDecorator(Cassette, args_getter)
