"""``sandbox replay``: watch and hear a saved call again, in the terminal app's panes."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from typing import TYPE_CHECKING

from sandbox.audio.sinks import DeviceSink
from sandbox.commands.options import BRAIN_HELP
from sandbox.commands.sessions import OUTCOME_HELP, OUTCOMES, SPAN
from sandbox.commands.written import FORCE_HELP, clear_the_way, write_text
from sandbox.errors import UserError
from sandbox.harness.builtin import brain_choice, brain_spec
from sandbox.host.launch import CallNotPlaced
from sandbox.line.profile import DEFAULT_LINE, line_profile
from sandbox.option_values import checked, name, path
from sandbox.record.plain_text import json_text
from sandbox.record.store import SessionStore, short_id
from sandbox.replay.diff import side_by_side
from sandbox.replay.leg_player import LegPlayer
from sandbox.replay.source import open_recording

if TYPE_CHECKING:
    from sandbox.replay.redrive import Redrive

HELP = (
    "watch and hear a saved session again, or (--brain) play its caller side against a brain "
    "and diff the heard truth"
)
#: Samples per block pulled by the speaker: the panes follow the sound to within one.
BLOCK_FRAMES = 1024
#: How many sessions a batch re-drive plays at once.
BATCH_AT_ONCE = 3
#: A re-drive that could not be placed (the brain was not reached) compared nothing: not a
#: change (1), not a broken rule (2, which is also argparse's usage error).
NOT_PLACED = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``sandbox replay``."""
    parser.add_argument(
        "ids",
        type=name,
        nargs="*",
        metavar="ID",
        help="a session id or unique prefix (`sandbox sessions list`)",
    )
    parser.add_argument(
        "--speaker", type=name, help="play through this output device (index or name)"
    )
    parser.add_argument("--silent", action="store_true", help="replay without sound")
    parser.add_argument(
        "--brain",
        type=checked(brain_spec),
        metavar="URL|NAME",
        help="re-drive: play the session's caller side against this brain and print the diff; "
        f"exit 0 same, 1 changed, 2 a wire rule broken, {NOT_PLACED} not re-driven (the brain "
        f"could not be reached; a batch exits with its highest status). {BRAIN_HELP}",
    )
    parser.add_argument("--json", type=path, metavar="FILE", help="re-drive: the diff as JSON")
    parser.add_argument("--force", action="store_true", help=f"--json: {FORCE_HELP}")
    parser.add_argument(
        "--ignore-text", action="store_true", help="re-drive: compare units and cuts, not words"
    )
    parser.add_argument(
        "--audio",
        choices=("sim", "real"),
        default="sim",
        help="re-drive: 'real' plays the session's recorded caller audio again, in real time, "
        "through the endpointing, barge-in detection and Whisper (default: its text, 'sim')",
    )
    parser.add_argument(
        "--line",
        type=checked(line_profile),
        metavar="NAME|FILE.toml",
        help="re-drive with --audio real: the phone line the recorded caller audio crosses "
        "(pstn, mobile, voip-lossy, or a profile file; default: none)",
    )
    parser.add_argument(
        "--realtime",
        action="store_true",
        help="re-drive at wall-clock pace (default: skip the waits for playout and silences)",
    )
    parser.add_argument(
        "--all", action="store_true", help="re-drive every saved call (not the re-drives)"
    )
    parser.add_argument(
        "--since", type=SPAN, metavar="SPAN", help="--all: only the last SPAN (7d, 12h)"
    )
    parser.add_argument(
        "--outcome", choices=OUTCOMES, metavar="OUTCOME", help=f"--all: {OUTCOME_HELP}"
    )


def run(args: argparse.Namespace) -> int:
    """Open the session, start the speaker if there is sound to play, run the app; or with
    --brain, re-drive it and print the diff."""
    many = args.all or len(args.ids) > 1
    if args.brain:  # a brain that is neither a name nor a URL is refused before anything runs
        args.dialed = brain_choice(args.brain)
    if args.line is not None and (not args.brain or args.audio != "real"):
        raise UserError("--line shapes a re-drive's sound: give --brain URL and --audio real")
    if args.json is not None:
        if not args.brain or many:
            raise UserError("--json writes one re-drive's diff: name one session and --brain URL")
        clear_the_way([args.json], force=args.force)  # refused now, not after the re-drive
    if many:
        if not args.brain:
            raise UserError("re-driving several sessions needs --brain URL (or --brain builtin)")
        return asyncio.run(_redrive_many(args))
    if len(args.ids) != 1:
        raise UserError("name the session to replay: `sandbox sessions list` shows them")
    if args.brain:
        return _redrive(args)
    from sandbox.ui.replay_app import ReplayApp

    recording = open_recording(args.ids[0])
    player: LegPlayer | None = None
    sink: DeviceSink | None = None
    banner = ""
    if args.silent:
        banner = "Replaying without sound (--silent)."
    elif recording.no_audio:
        banner = f"Replaying without sound: {recording.no_audio}."
    else:
        rate = recording.legs["speaker"][1]
        player = LegPlayer(recording.legs, rate)
        try:
            sink = DeviceSink(_device(args.speaker), rate)
            sink.start(player.pull, BLOCK_FRAMES)
        except UserError as exc:
            player, sink = None, None
            banner = f"Replaying without sound: {exc}"
    try:
        ReplayApp(recording, player=player, banner=banner).run()
    finally:
        if sink is not None:
            sink.close()
    return 0


def _redrive(args: argparse.Namespace) -> int:
    try:
        done = asyncio.run(_redrive_one(args, args.ids[0]))
    except CallNotPlaced as failed:
        print(
            f"sandbox replay: session {args.ids[0]} {_not_placed(failed)}; then run the replay "
            "again",
            file=sys.stderr,
        )
        return NOT_PLACED
    print(f"re-drove session {short_id(done.original)} as {short_id(done.session_id)}")
    print(side_by_side(done.diff))
    if args.json is not None:
        write_text(args.json, json_text(done.diff.as_json(), indent=2))
    return done.diff.exit_status


async def _redrive_many(args: argparse.Namespace) -> int:
    """Re-drive several sessions, a few at once; one summary line each; the worst status."""
    with SessionStore() as store:
        if args.all:
            since = time.time() - args.since if args.since is not None else None
            rows = [
                row
                for row in store.sessions(outcome=args.outcome, since=since)
                if row.redrive_of is None
            ]
        else:
            rows = [store.find(prefix) for prefix in args.ids]
    if not rows:
        raise UserError("no saved sessions to re-drive: `sandbox sessions list` shows them")
    gate = asyncio.Semaphore(1 if args.audio == "real" else BATCH_AT_ONCE)  # one microphone

    async def one(session_id: str) -> tuple[int, str]:
        async with gate:
            try:
                done = await _redrive_one(args, session_id)
            except CallNotPlaced as failed:
                return NOT_PLACED, _not_placed(failed)
            except UserError as exc:
                return 2, f"could not re-drive: {exc}"
        diff = done.diff
        changed = sum(t.changed(args.ignore_text) for t in diff.turns)
        words = ["same" if diff.exit_status == 0 else f"{changed} turn(s) changed"]
        words += [f"{len(diff.findings)} rule(s) broken"] if diff.findings else []
        return diff.exit_status, f"{', '.join(words)} → {short_id(done.session_id)}"

    results = await asyncio.gather(*(one(row.id) for row in rows))
    print(f"{'session':<12}  {'status':>6}  result")
    for row, (status, words) in zip(rows, results, strict=True):
        print(f"{short_id(row.id):<12}  {status:>6}  {words}")
    return max(status for status, _ in results)


async def _redrive_one(args: argparse.Namespace, session_id: str) -> Redrive:
    from sandbox.replay.redrive import redrive, redrive_audio

    brain, builtin = args.dialed
    if args.audio == "real":

        def progress(words: str) -> None:
            print(words, file=sys.stderr, flush=True)

        return await redrive_audio(
            session_id,
            brain,
            builtin=builtin,
            ignore_text=args.ignore_text,
            progress=progress,
            line=args.line or line_profile(DEFAULT_LINE),
        )
    return await redrive(
        session_id,
        brain,
        builtin=builtin,
        ignore_text=args.ignore_text,
        realtime=args.realtime,
    )


def _not_placed(failed: CallNotPlaced) -> str:
    """Why a re-drive compared nothing, in words, ending on the dial's reason: it says what
    to fix."""
    return (
        f"was not re-driven, so nothing was compared (the attempt is recorded as session "
        f"{short_id(failed.core.session_id)}, not_reached): {str(failed).rstrip('.')}"
    )


def _device(spec: str | None) -> int | None:
    from sandbox.audio.devices import resolve_output

    if spec is None:
        return None
    return resolve_output(int(spec) if spec.isdigit() else spec).index
