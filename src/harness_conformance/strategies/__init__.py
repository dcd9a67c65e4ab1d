"""Hypothesis strategies for tool parameter specs, their arguments and corruptions.

- `valid_args(spec)` draws arguments a spec accepts, built from the spec tree.
- `corruptions(spec)` draws `Corruption` values: valid arguments with one targeted
  change, the kind of change, where it is and the message `validate_args` must give.
- `corruption_examples(spec)` lists one fixed corruption per applicable kind.
- `validator_agreement(schema, validator)` runs valid arguments and every kind of
  corruption through a framework's own validator and reports, per kind, what it judged
  against the schema, each with a shrunk example; `assert_validator_agrees` fails
  with that report.
- `specs()` draws valid DSL specs covering every node kind, annotation, literal and
  constraint the DSL has; `json_values()` draws the plain JSON values a model could send.

A string or array that must hold more than `SIZE_BUDGET` characters or items is not
built: `valid_args` raises ``Unsatisfiable`` naming the location and the budget when a
required value needs it, and the corruption that must be longer still is left out.

``spec`` may be a DSL spec, a `Tool` or a JSON Schema dict. Every strategy shrinks
towards the simplest case and is deterministic under a seed. Like
`harness_conformance.standard`, this package imports Hypothesis when it is imported
(the core and the pytest plugin do not): only callers who want strategies import it.
"""

from ._agreement import (
    Validator,
    assert_validator_agrees,
    validator_agreement,
)
from ._agreement_report import (
    CHECKS,
    AgreementCheck,
    AgreementReport,
    ValidatorRun,
)
from ._corrupt import (
    KINDS,
    Corruption,
    corruption_examples,
    corruptions,
)
from ._profiles import register_profiles
from ._specs import (
    specs,
)
from ._valid import (
    as_spec,
    valid_args,
)
from ._values import (
    SIZE_BUDGET,
    json_values,
)

# The module users import these from, where pickle finds them too.
for _cls in (AgreementCheck, AgreementReport, Corruption, ValidatorRun):
    _cls.__module__ = __name__
del _cls

__all__ = [
    "CHECKS",
    "KINDS",
    "SIZE_BUDGET",
    "AgreementCheck",
    "AgreementReport",
    "Corruption",
    "Validator",
    "ValidatorRun",
    "as_spec",
    "assert_validator_agrees",
    "clear_caches",
    "corruption_examples",
    "corruptions",
    "json_values",
    "register_profiles",
    "specs",
    "valid_args",
    "validator_agreement",
]


def clear_caches() -> None:
    """Empty the caches of this part: the node strategies built for each depth and set
    of definition names."""
    from ._specs import clear_node_strategies

    clear_node_strategies()
