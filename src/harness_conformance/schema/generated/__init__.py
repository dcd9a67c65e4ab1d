"""Generated validators: a spec compiled to the source of one Python function.

`generated_validator(spec)` writes the checks of every node of ``spec`` into one
function, with paths and messages fixed where they are static, and compiles it; the
messages, their order and the handling of values that break a check are those of the
compiled closures (``schema/_compile.py``), which stay the reference and the fallback.

Generated: parameter maps, objects, arrays, ``one_of``, ``any_of``, ``json`` and the
scalar nodes. Handed to the node's compiled closure from inside the generated function:
every value of a string with a ``pattern`` (its time budget travels with the message
list) or a number with ``multiple_of``; a scalar value whose type is not exactly the
node's (subclasses, ``-0.0``, NaN, wrong types: the closure writes the message); and a
subtree nested deeper than one function may nest (the limits on blocks,
indentation levels and nested nodes of ``_emit.py``). Not generated at all (the closures run
instead): `Defs` specs, whose references keep the closures' cycle guard, and a spec that
reuses nodes so often that it unfolds beyond the line limit there.
"""

from ._assemble import Validator, generate_source, generated_validator

__all__ = [
    "Validator",
    "generate_source",
    "generated_validator",
]
