"""Recording scenarios: what the ``record`` command sends to a live model (prompts, tools
and their scripted outputs, read from a scenario file or given on the command line), and
the recording that results.
"""

from ._scenario import (
    Recording,
    Scenario,
    ScenarioError,
    ScenarioTool,
    load_scenario,
    record_scenario,
    scenario_from_prompts,
)

__all__ = [
    "Recording",
    "Scenario",
    "ScenarioError",
    "ScenarioTool",
    "load_scenario",
    "record_scenario",
    "scenario_from_prompts",
]
