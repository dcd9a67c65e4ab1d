"""`from_json_schema`: a JSON Schema (the dialect real tool definitions use) read into a
DSL spec, or refused with a `SchemaError` naming the keyword and its path.
"""

from ._reader import (
    from_json_schema,
)

__all__ = [
    "from_json_schema",
]
