"""Setting a call up: dialing with a fresh token, the core, the recorder and the host.

Who launches a built-in brain (the commands, the UI) does it above this layer
(:mod:`sandbox.harness.builtin`) and passes its URL in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.audio.voices import voice_languages
from sandbox.call.core import DEFAULT_CAPABILITIES, DEFAULT_STALL_MS, CallCore
from sandbox.call.inputs import NotPlaced
from sandbox.call.ports import Listening, Playout
from sandbox.call.settings import Capabilities, Settings, connect_config, validate
from sandbox.errors import UserError
from sandbox.host.brain_side import BrainLink
from sandbox.host.session import CallHost
from sandbox.host.warp import WarpClock
from sandbox.line.profile import LineProfile
from sandbox.record.input_log import CoreBegun
from sandbox.record.recorder import Recorder
from sandbox.record.session_kinds import CallMode, Leg
from sandbox.record.session_words import brain_name
from sandbox.record.store import full_disk, store_for_a_call, store_path
from sandbox.record.stored_events import SessionOpened
from sandbox.record.writer import SessionWriter
from sandbox.wire.dial import DialError, dial
from sandbox.wire.relay import RELAY_PATH
from sandbox.wire.tokens import RELAY_SUBJECT, KeyPair, load_or_create_keys, mint_token

#: The brain a newcomer talks to when they name none.
BUILTIN_BRAIN = "concierge"
#: The least free space a recorded call starts with: a disk with less is full (the store
#: writes a few KB a second; the disk filling later stops the record, not the call).
MIN_FREE_BYTES = 64 * 1024


@dataclass(frozen=True)
class CallOptions:
    """Everything about a call that is not audio."""

    brain_url: str | None = None
    relay: bool = False
    init: str = "{}"
    settings: Settings = field(default_factory=Settings)
    capabilities: tuple[int, ...] = DEFAULT_CAPABILITIES
    builtin: str = BUILTIN_BRAIN
    stall_ms: int = DEFAULT_STALL_MS  # an unanswered turn is reported after this long
    #: Record the call in the session store as it runs, as what it carries ("sim", "typed"
    #: or "audio"); None records nothing (the conformance driver's calls).
    recording: CallMode | None = None
    #: The recorded session whose caller side this call plays again, if it is a re-drive.
    redrive_of: str | None = None
    #: What records the call when no person does (``sandbox.record.store.TEST_ORIGIN``).
    origin: str | None = None
    #: The phone line the caller's audio crosses (``sandbox.audio.audio_options.phone_line``);
    #: None: the laptop's own wideband path, or no audio at all.
    line: LineProfile | None = None


#: The most ``--init`` may carry: the client's 64 KiB message limit, as for RTVI data.
INIT_LIMIT = 64 * 1024


def check_init(init: str) -> str:
    """The session's init data must be a JSON object of at most :data:`INIT_LIMIT` bytes; a
    clear error otherwise."""
    size = len(init.encode("utf-8", errors="surrogatepass"))
    if size > INIT_LIMIT:
        raise UserError(
            f"the init data is {size} bytes; the limit is {INIT_LIMIT} (64 KiB). Pass what the "
            "brain needs to look the rest up (an id), not the data itself"
        )
    try:
        value = json.loads(init)
    except json.JSONDecodeError as exc:
        raise UserError(
            f"the init data is not valid JSON ({exc.msg} at column {exc.colno})"
        ) from None
    if not isinstance(value, dict):
        raise UserError('the init data must be a JSON object, e.g. \'{"customer": "ada"}\'')
    return init


def speech_tier() -> Capabilities:
    """What this machine's speech tier serves: the voices installed in the catalog, now."""
    return Capabilities(voices=voice_languages())


def check_relay_url(url: str) -> None:
    """The relay leg is dialed as given, so its URL must be the relay's own (``/agent``)."""
    if not url.rstrip("/").endswith(RELAY_PATH):
        raise UserError(
            f"--relay dials the Cortex relay leg, whose URL ends in {RELAY_PATH} "
            f"(e.g. ws://127.0.0.1:8765{RELAY_PATH}); {url} does not"
        )


async def open_call(
    options: CallOptions,
    brain_url: str,
    playout: Playout,
    caps: Capabilities | None = None,
    clock: Callable[[], float] = time.monotonic,
    warp: WarpClock | None = None,
    listening: Listening | None = None,
    keys: KeyPair | None = None,
) -> CallHost:
    """Dial the brain for a new session and wire the core, the recorder, the playout and,
    with real audio, the recognizer's ``listening`` port (``warp``: a simulated call's clock
    that skips dead time, replacing ``clock``; ``keys``: the signing key pair, read once by
    a caller that dials many calls, else read from disk for this one)."""
    session_id = str(uuid.uuid4())
    subject = RELAY_SUBJECT if options.relay else session_id
    # On a worker thread: the key's files read and its RSA signature (a third of a ms, the
    # GIL let go) keep a load run's loop free while it dials a hundred calls a second.
    token = await asyncio.to_thread(_signed_token, subject, keys)
    url = brain_url
    if options.relay:
        check_relay_url(url)
    core, recorder = _session(options, session_id, brain_url, caps)
    _start_recording(options, core, recorder)
    try:
        conn = await dial(url, session_id, token, relay=options.relay)
    except DialError as exc:
        not_placed = NotPlaced(str(exc))
        recorder.fed(0, not_placed)  # no host yet: stored as the host stores what it feeds
        core.handle(not_placed, 0)
        # Recorded here, whoever dialed (a call, a re-drive, the app): a failed dial is a
        # session of its own, not_reached with its reason, never left "unfinished".
        recorder.finish(core, 0)
        raise CallNotPlaced(str(exc), core, recorder) from None
    return CallHost(
        core, conn, playout, recorder, relay=options.relay, clock=clock, warp=warp,
        listening=listening,
    )  # fmt: skip


class CallNotPlaced(UserError):
    """The brain could not be reached. The call is still a call: ``core`` has ended with
    outcome ``not_reached`` and the reason, its session is recorded so, and ``recorder``
    can write its report."""

    def __init__(self, reason: str, core: CallCore, recorder: Recorder) -> None:
        super().__init__(reason)
        self.core = core
        self.recorder = recorder


def _signed_token(subject: str, keys: KeyPair | None) -> str:
    """A brain-connection token for ``subject``, signed with ``keys`` (default: the
    sandbox's key pair, read from disk)."""
    return mint_token(keys or load_or_create_keys(), subject)


def host_for(
    options: CallOptions,
    conn: BrainLink,
    session_id: str,
    brain_url: str,
    playout: Playout,
    caps: Capabilities | None = None,
    clock: Callable[[], float] = time.monotonic,
    warp: WarpClock | None = None,
) -> CallHost:
    """The core, the recorder and the host of one session around an open brain link."""
    core, recorder = _session(options, session_id, brain_url, caps)
    _start_recording(options, core, recorder)
    return CallHost(core, conn, playout, recorder, relay=options.relay, clock=clock, warp=warp)


def _start_recording(options: CallOptions, core: CallCore, recorder: Recorder) -> None:
    if options.recording is not None:
        _room_to_record()
        with store_for_a_call():  # a locked or damaged store is said before the dial
            recorder.writer = SessionWriter(
                recorder.session_id,
                brain_url=recorder.brain_url,
                leg=Leg.RELAY if options.relay else Leg.DIRECT,
                mode=options.recording,
                started_at=recorder.started_at,
                redrive_of=options.redrive_of,
                origin=options.origin,
            )
        opened = SessionOpened(
            recorder.brain_name,
            options.settings,
            None if options.line is None else options.line.summary(),
            unit_records=True,
            inputs=True,
            line_profile=options.line,
        )
        recorder.event(0, opened)
        recorder.event(0, CoreBegun.of(core))  # what its stored inputs are fed again through


def _room_to_record() -> None:
    """A call is refused when the disk under the store is already full: SQLite might still
    find room for the session's first rows in pages it has, and the call would then lose
    its record a moment in. A disk that fills later stops the record, never the call."""
    folder = store_path().parent
    with contextlib.suppress(OSError):  # not there yet: the store creates it, or says why
        if shutil.disk_usage(folder).free < MIN_FREE_BYTES:
            raise full_disk(folder)


def _session(
    options: CallOptions, session_id: str, brain_url: str, caps: Capabilities | None
) -> tuple[CallCore, Recorder]:
    caps = caps or speech_tier()
    problem = validate(connect_config(options.settings), Settings(), caps)
    if problem:  # sessions.connect's invalid_config: the call never starts
        raise UserError(f"the call's starting settings are refused: {problem}")
    core = CallCore(
        session_id,
        caps=caps,
        init=check_init(options.init),
        settings=options.settings,
        capabilities=options.capabilities,
        stall_ms=options.stall_ms,
        line_ms=0 if options.line is None else options.line.path_delay_ms,
    )
    name = brain_name(options.brain_url, options.builtin)
    return core, Recorder(session_id, brain_url, brain_name=name, line=options.line)
