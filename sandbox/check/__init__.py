"""``sandbox check``: the conformance suite a running brain is held to, over a real socket."""

from sandbox.check.results import Finding, ScenarioResult, Status
from sandbox.check.rules import Rule
from sandbox.check.scenarios import SCENARIOS, Scenario
from sandbox.check.suite import check_brain, run_scenario
from sandbox.check.wirelog import WireLog

__all__ = [
    "SCENARIOS",
    "Finding",
    "Rule",
    "Scenario",
    "ScenarioResult",
    "Status",
    "WireLog",
    "check_brain",
    "run_scenario",
]
