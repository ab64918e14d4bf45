"""``sandbox bench``'s options and run: latency, heard-text accuracy, echo and memory figures
on this machine. The app's ``sandbox/commands/bench.py`` (its one-line help, the door that
says how to install the bench where it is missing) hands both here."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

from sandbox.errors import UserError
from sandbox.option_values import checked, number, shown, whole
from sandbox.record.plain_text import json_text
from sandbox.wire.patience import PATIENCE_MAX, PATIENCE_MIN
from sandbox_bench.device_report import device_lines, device_result, device_targets
from sandbox_bench.figures import target_lines, targets_json
from sandbox_bench.hostile import hostile_table, measure_hostile
from sandbox_bench.language_set import chosen, language_codes
from sandbox_bench.languages import DEFAULT_LANGUAGES, languages_table, measure_languages
from sandbox_bench.lines import lines_table, measure_lines
from sandbox_bench.mode_keys import (
    HOSTILE_MODE,
    LANGUAGES_MODE,
    LINES_MODE,
    REDRIVE_MODE,
    SESSIONS_MODE,
    SOAK_MODE,
)
from sandbox_bench.outside import measure_devices
from sandbox_bench.pauses import measure_pauses, pauses_table
from sandbox_bench.peer_process import peer_dir
from sandbox_bench.redrive import measure_redrive_bench, redrive_table
from sandbox_bench.report import table
from sandbox_bench.run_keys import PAUSES
from sandbox_bench.runner import (
    DEVICE_PATIENCES,
    DEVICE_TURNS,
    FULL,
    QUICK,
    QUICK_DEVICE,
    BenchConfig,
    run_bench,
)
from sandbox_bench.sessions import measure_sessions, sessions_table
from sandbox_bench.soak import measure_soak, soak_table

#: Repeats of a measurement (--runs, --cuts, --replies, --turns): past these a bench runs
#: for days.
REPEATS = whole(1, 10_000)
#: A call's length in minutes (--soak, --minutes): up to a day.
MINUTES = number(0.01, 24 * 60, "minutes")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """--json, --quick, --runs, --cuts, --replies."""
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object on stdout instead of a table"
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"fewer repeats (runs {QUICK[0]}, cuts {QUICK[1]}, replies {QUICK[2]}), "
        "under 2 minutes on 2 cores",
    )
    parser.add_argument(
        "--runs", type=REPEATS, help=f"repeats of each latency measurement (default {FULL[0]})"
    )
    parser.add_argument(
        "--cuts", type=REPEATS, help=f"random cuts to check heard text on (default {FULL[1]})"
    )
    parser.add_argument(
        "--replies",
        type=REPEATS,
        help=f"bot replies through the simulated echo path (default {FULL[2]})",
    )
    parser.add_argument(
        "--devices",
        action="store_true",
        help="only time end of speech → first audio from outside the app, through PulseAudio "
        "virtual devices, then the silence around backchannels and how soon barge-ins silence "
        "the bot (a full run does this last)",
    )
    parser.add_argument(
        "--peer",
        action="store_true",
        help="also time Pipecat run fully locally (its peer_live.py, in the folder "
        "$SANDBOX_PEER_DIR names) the same way, in the same run, in both its configurations "
        "(its 0.6 s speech timeout and its default, Smart Turn v3; set up in its own venv the "
        "first time)",
    )
    parser.add_argument(
        "--patience",
        type=checked(_patiences),
        help="the app's patiences to time at the devices, comma-separated "
        f"(default {','.join(map(str, DEVICE_PATIENCES))}; --quick: {QUICK_DEVICE[0][0]})",
    )
    parser.add_argument(
        "--turns",
        type=REPEATS,
        help=f"measured turns per system at the devices, drawn from the set of callers, at the "
        f"default patience and each of the peer's configurations (default {DEVICE_TURNS}; "
        f"--quick: {QUICK_DEVICE[1]}); the other patiences take a quarter as many",
    )
    parser.add_argument(
        "--sessions",
        action="store_true",
        help="measure the session store instead: replay opening, recording cost, disk a minute",
    )
    parser.add_argument(
        "--redrive",
        action="store_true",
        help="measure re-drive instead: a simulated call's length over its re-drive time, then "
        "false alarms: sessions of every mode re-driven 3 times against their own brain "
        "(--quick: fewer, no real audio)",
    )
    parser.add_argument(
        "--hostile",
        action="store_true",
        help="measure hostile input instead: text→speech and the printers fuzzed with hostile "
        "text; against each misbehaving brain for a minute, one call's peak memory, its "
        "report's size and how soon a hang-up ends it (--quick: fewer, smaller, 10 s)",
    )
    parser.add_argument(
        "--pauses",
        action="store_true",
        help="measure the end of turn instead: a held-apart set of utterances with mid-sentence "
        "pauses and of complete ones, through the VAD, endpointer, turn model and Whisper "
        "(--quick: 3 of each)",
    )
    parser.add_argument(
        "--lines",
        action="store_true",
        help="measure the phone lines instead: the varied caller turns, backchannels and "
        "barge-ins through the virtual devices with the app on each line (wideband, pstn, "
        "mobile, voip-lossy), timed from outside; the recognizer's word errors on each, and "
        "the paused callers cut off through each line's uplink (--turns N a line, default "
        "12; --quick: 3, and 3 paused callers of each kind)",
    )
    parser.add_argument(
        "--languages",
        nargs="?",
        action="append",
        const=None,  # the flag alone: the default set (a string const would be type-checked)
        type=checked(language_codes),
        metavar="CODES",
        help="measure each language the sandbox serves instead, beside English: sandbox run "
        "--language CODE through the virtual devices, an espeak-ng caller of that language "
        "(12 turns, two voices), a brain answering in it: word error rate, end of speech → "
        "first audio, barge-in onset → silent, its own backchannels, heard text at every cut, "
        "the recognizer's load time and memory. CODES: comma-separated or repeated, `all` "
        f"for every served language (default {','.join(DEFAULT_LANGUAGES)}: ~2.5 minutes a "
        "language; --quick: 3 turns, one backchannel and one barge-in)",
    )
    parser.add_argument(
        "--soak",
        type=MINUTES,
        metavar="MINUTES",
        help="a call of MINUTES watched for leaks: memory, frames in flight, latency drift",
    )
    parser.add_argument(
        "--audio",
        choices=("sim", "real"),
        default="sim",
        help="--soak: sim (the simulated clock, at wall speed; default) or real (PulseAudio's "
        "virtual microphone and speaker)",
    )
    parser.add_argument(
        "--minutes",
        type=MINUTES,
        help="--sessions / --redrive: the call's length (default 30 / 5)",
    )


def run(args: argparse.Namespace) -> int:
    """Run the bench; progress on stderr, the figures on stdout. Figures never fail it."""
    if args.peer:
        peer_dir()  # a missing peer is refused before the stages run, not half an hour in
    config = BenchConfig.from_flags(
        quick=args.quick,
        runs=args.runs,
        cuts=args.cuts,
        replies=args.replies,
        patiences=args.patience,
        turns=args.turns,
        peer=args.peer,
    )

    def progress(words: str) -> None:
        print(words, file=sys.stderr, flush=True)

    if args.languages is not None:
        codes = chosen(args.languages, DEFAULT_LANGUAGES)  # refused before any call starts
        with _stdout_to_stderr():
            spoken = asyncio.run(measure_languages(codes, progress, quick=args.quick))
        return _print_family(args, spoken, LANGUAGES_MODE.bounds(), languages_table)
    if args.soak is not None:
        with _stdout_to_stderr():
            soaked = asyncio.run(measure_soak(args.soak, args.audio, progress))
        return _print_family(args, soaked.as_json(), SOAK_MODE.bounds(), soak_table)
    if args.hostile:
        with _stdout_to_stderr():  # Piper's native code prints too
            figures = measure_hostile(progress, quick=args.quick)
        return _print_family(args, figures, HOSTILE_MODE.bounds(), hostile_table)
    if args.lines:
        with _stdout_to_stderr():
            lined = asyncio.run(measure_lines(progress, quick=args.quick, turns=args.turns))
        return _print_family(args, lined, LINES_MODE.bounds(), lines_table)
    if args.pauses:
        from sandbox.audio.stt import Transcriber

        with _stdout_to_stderr():
            figures = measure_pauses(Transcriber.load(), progress, quick=args.quick)
        return _print_family(args, figures, PAUSES.bounds(), pauses_table)
    if args.sessions:
        figures = asdict(measure_sessions(args.minutes or 30.0, progress))
        return _print_family(args, figures, SESSIONS_MODE.bounds(), sessions_table)
    if args.redrive:
        with _stdout_to_stderr():  # the real-audio calls' native libraries print too
            redriven = measure_redrive_bench(args.minutes or 5.0, progress, quick=args.quick)
            figures = asyncio.run(redriven)
        return _print_family(args, figures, REDRIVE_MODE.bounds(), redrive_table)
    if args.devices:
        with _stdout_to_stderr():
            devices = asyncio.run(
                measure_devices(
                    config.device_patiences,
                    config.device_turns,
                    args.peer,
                    progress,
                    config.device_floor,
                    config.seed,
                )
            )
        figures = device_result(devices)
        bounds = device_targets(figures)
        if args.json:
            return _print_family(args, figures, bounds, lambda _f: "")
        print("\n".join(device_lines(figures) + target_lines(figures, bounds)))
        return 0
    if args.json:
        with _stdout_to_stderr():  # native libraries print too: keep stdout for the JSON
            result = asyncio.run(run_bench(config, progress))
        print(json_text(result))
    else:
        result = asyncio.run(run_bench(config, progress))
        print(table(result))
    return 0


def _patiences(given: str) -> tuple[int, ...]:
    """``--patience 7,6``: each 0..10."""
    try:
        values = tuple(int(p) for p in given.split(","))
    except ValueError:
        raise UserError(
            f"takes numbers {PATIENCE_MIN}..{PATIENCE_MAX} separated by commas, not {shown(given)}"
        ) from None
    if any(not PATIENCE_MIN <= p <= PATIENCE_MAX for p in values):
        raise UserError(f"values must be {PATIENCE_MIN}..{PATIENCE_MAX}, not {shown(given)}")
    return values


@contextlib.contextmanager
def _stdout_to_stderr() -> Iterator[None]:
    """Send everything written to stdout (file descriptor 1 included) to stderr meanwhile."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        os.dup2(2, 1)
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)


def _print_family(
    args: argparse.Namespace,
    figures: dict[str, Any],
    targets: dict[str, tuple[str, float]],
    as_table: Callable[[dict[str, Any]], str],
) -> int:
    """One family's figures with their targets: JSON, or a table."""
    figures["targets"] = targets_json(targets)
    print(json_text(figures) if args.json else as_table(figures))
    return 0
