"""The ``harness-conformance`` command line (also ``python -m harness_conformance``).

One module per command (``replay``, ``record``, ``show``, ``check-log``, ``reenact``,
``validate``, ``conformance``, ``fuzz``), what they print (`_output`, `_report`) and, in
`timeline`, the text and HTML timelines ``show`` draws.
"""

from ._main import (
    build_parser,
    main,
)

__all__ = [
    "build_parser",
    "main",
]
