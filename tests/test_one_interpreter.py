"""The call core is the one interpreter of the wire: no module outside ``sandbox/call/`` works
out a unit's fate, its heard text or whether it was interrupted, nor reads a call's timing,
caller lines, TurnSteps or errors by matching frames by their arm's name.

Readers of a call take them from the core (its units, live) or from its record (stored:
``sandbox.call.unit_fold``). Read off the source: outside ``call/`` nothing walks played words
through a unit's text (the heard cursor), compares heard text against generated text, makes
a ``Fate`` or sets one, or reads the heard text off a Finalize frame, but for the named
exceptions below, each with its reason.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from checkout import package_files

from sandbox.wire import pb

#: Modules outside call/ allowed what the rules below forbid, and why.
EXCEPTIONS = {
    # The one read path for sessions an older build stored: it hands their frames to the
    # core's rules (sandbox.call.records_from_frames), and decides nothing itself.
    ("record/unit_log.py", "records_from_frames"),
    # The brain's own side of the wire: the SDK sees its units' Finalizes, not the core.
    ("sdk/events.py", "heard against generated"),
}


def _outside_call() -> Iterator[tuple[str, ast.Module]]:
    for name, path in package_files():
        if not name.startswith("call/") and not name.endswith("_pb2.py"):
            yield name, ast.parse(path.read_text(), name)


def _names(node: ast.AST) -> set[str]:
    """Every name and attribute mentioned in an expression."""
    out: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            out.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            out.add(sub.attr)
    return out


def _is_fate_member(node: ast.AST | None) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "Fate"
    )


def _sets_fate(node: ast.AST) -> bool:
    """An assignment of a Fate member, or one given as ``fate=``."""
    if isinstance(node, ast.Assign | ast.AnnAssign):
        return _is_fate_member(node.value)
    return isinstance(node, ast.keyword) and node.arg == "fate" and _is_fate_member(node.value)


def _breaches(name: str, tree: ast.Module) -> Iterator[tuple[str, int, str]]:
    """Each (rule, line, what) the module breaks."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in (
            "sandbox.call.heard",
            "sandbox.call.records_from_frames",
        ):
            rule = node.module.rsplit(".", 1)[1]
            yield rule, node.lineno, f"imports {node.module}"
        elif isinstance(node, ast.Compare):
            sides = [_names(node.left), *(_names(c) for c in node.comparators)]
            if any("heard" in s for s in sides) and any("generated" in s for s in sides):
                yield "heard against generated", node.lineno, "compares heard with generated"
        elif isinstance(node, ast.Call) and _names(node.func) == {"Fate"}:
            yield "fate", node.lineno, "makes a Fate"
        elif _sets_fate(node):
            yield "fate", getattr(node, "lineno", 0), "sets a Fate"
        elif isinstance(node, ast.Constant) and node.value == "heard_text":
            yield "heard_text", node.lineno, "reads a Finalize's heard text"


def test_no_module_outside_the_call_core_decides_a_fate_or_heard_text() -> None:
    found = [
        f"sandbox/{name}:{line}: {what}"
        for name, tree in _outside_call()
        for rule, line, what in _breaches(name, tree)
        if (name, rule) not in EXCEPTIONS
    ]
    assert not found, "\n".join(found)


def test_the_checker_sees_each_breach() -> None:
    source = """
from sandbox.call.heard import HeardCursor
ok = unit.heard != unit.generated
unit.fate = Fate.PLAYED
Report(fate=Fate.BARGED)
Fate("played")
text = fields.get("heard_text")
"""
    rules = sorted(rule for rule, _, _ in _breaches("x.py", ast.parse(source)))
    assert rules == ["fate", "fate", "fate", "heard", "heard against generated", "heard_text"]


def test_every_exception_is_still_needed() -> None:
    trees = dict(_outside_call())
    for name, rule in EXCEPTIONS:
        assert any(r == rule for r, _, _ in _breaches(name, trees[name])), (name, rule)


# ------------------------------------------------ frames matched by their arm's name

#: Every arm of the envelope, from the schema: a new arm is held to the rule unasked.
ARMS = frozenset(f.name for f in pb.Envelope.DESCRIPTOR.oneofs_by_name["body"].fields)

#: Modules outside call/ that may match frames by their arm's name, and why. Readers of a
#: call's turns, timings, caller lines, steps and errors read the core's records instead
#: (sandbox.call.ledger, sandbox.call.unit_fold).
ARM_READERS = {
    # The wire as such: the brain's own side of it.
    "sdk/connection.py": "the brain's side of the wire dispatches each arm it receives",
    "sdk/outbox.py": "the brain's side of the wire sends each arm",
    "sdk/server.py": "the brain's side of the wire accepts a session by its SessionStart",
    "brains/hostile.py": "a misbehaving test brain reacts to the arms it receives",
    "fuzz/core_target.py": "the fuzz target builds frames to feed the core",
    # A notice's level shares a word with an arm ("error").
    "ui/lines.py": "a notice of level error",
    # A caller script's steps share two words with the arms ("end", "rtvi").
    "caller/script.py": "a script step named rtvi",
    "caller/script_runner.py": "script steps named rtvi and end",
    "harness/driver.py": "a script step named end",
    "replay/redrive.py": "a script step named end",
    "bench/app_process.py": "the bench times the app from outside, by the brain's hook",
}


def _arms_in(node: ast.AST) -> set[str]:
    return {s.value for s in ast.walk(node) if isinstance(s, ast.Constant) and s.value in ARMS}


def _arm_matches(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Each comparison with an arm's name (``kind == "user_message"``, ``in ("end", ...)``)
    and each ``case`` on one."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant | ast.Tuple | ast.Set | ast.List):
                    yield from ((node.lineno, arm) for arm in sorted(_arms_in(side)))
        elif isinstance(node, ast.MatchValue):
            yield from ((node.lineno, arm) for arm in sorted(_arms_in(node)))


def test_no_reader_outside_the_call_core_matches_frames_by_their_arm() -> None:
    found = [
        f"sandbox/{name}:{line}: matches frames by their arm {arm!r}"
        for name, tree in _outside_call()
        if name not in ARM_READERS
        for line, arm in _arm_matches(tree)
    ]
    assert not found, "\n".join(found)


def test_the_arm_checker_sees_each_match() -> None:
    source = """
if frame.type == "user_message": pass
if kind in ("speech_chunk", "other"): pass
match kind:
    case "turn_step": pass
marker = {"kind": "error"}
"""
    arms = [arm for _, arm in _arm_matches(ast.parse(source))]
    assert arms == ["user_message", "speech_chunk", "turn_step"]


def test_every_arm_reader_still_reads_arms() -> None:
    trees = dict(_outside_call())
    for name in ARM_READERS:
        assert any(True for _ in _arm_matches(trees[name])), name
