"""SandboxApp: the terminal app of ``sandbox run``.

The call runs beside the UI (:class:`~sandbox.ui.runner.CallRunner`), on a thread and event
loop of its own, so the app is usable while the brain starts and models load and drawing the
screen never delays the call. What the call does arrives as messages and is routed to the
panes; what the user does goes to the host as caller events, on the call's thread. The app
never reads the core, which that thread changes: each message carries the call as it stood
(:class:`~sandbox.call.snapshot.CallSnapshot`), and between messages (a timer, a key) the app
reads the host's ``latest`` snapshot, an immutable value the call's loop replaces.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, assert_never

from rich.text import Text
from textual import on
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Header, Input

from sandbox.call.effects import (
    CallEnded,
    CallerIdle,
    CallerShown,
    CallState,
    DeadAir,
    DeadAirEnded,
    Notice,
    StateChanged,
    ToApp,
    UnitChanged,
)
from sandbox.call.snapshot import CallSnapshot
from sandbox.call.waterfall import summary
from sandbox.host.session import CallHost
from sandbox.record.plain_text import visible
from sandbox.record.reload_notice import notice_of
from sandbox.record.session_words import brain_name
from sandbox.record.store import short_id
from sandbox.record.transcript import dead_air_words
from sandbox.ui import panes
from sandbox.ui.keys import HELP_ROWS, KEYS
from sandbox.ui.lines import legs_banner, notice_text, record_card, reload_text, shown_text
from sandbox.ui.messages import (
    CallEffect,
    CallFinished,
    CallFrames,
    CallProgress,
    CallStarted,
    DeviceLost,
    RecordingStopped,
)
from sandbox.ui.meter import meter
from sandbox.ui.plain_app import PlainApp
from sandbox.ui.runner import CallRunner, CallSetup
from sandbox.ui.screens.help import HelpScreen
from sandbox.ui.screens.rtvi import AppFrame, RtviScreen
from sandbox.ui.screens.settings import SettingsScreen
from sandbox.ui.screens.waterfall import WaterfallScreen
from sandbox.ui.widgets.app_pane import app_frame_of
from sandbox.ui.widgets.conversation import ConversationPane
from sandbox.ui.widgets.status import capability_names
from sandbox.wire import pb

#: How long quitting waits for the call to end and its report to be written.
QUIT_WAIT_S = 5.0
#: The frames the live wire pane keeps, the latest (the session store keeps every one): a
#: table's cost grows with its rows, and a brain may send 10,000 frames a second.
WIRE_KEEPS = 200
#: The least time between two draws of the wire pane: a burst of frames is drawn at once.
FRAMES_EVERY_S = 0.1
#: How often the microphone meter is redrawn when audio is real.
METER_INTERVAL_S = 0.1
#: How often the status line counts on dead air inside an open unit.
DEAD_AIR_INTERVAL_S = 0.5
#: Signals that end the call as ctrl+q does (hang up, Finalize what played, close the
#: session): ``kill``, a closed terminal, and Ctrl-C where it arrives as a signal.
QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


class SandboxApp(PlainApp[Path | None]):
    """Talk to a brain, watch the wire and the heard truth. Returns the report's path."""

    TITLE = "Voqalize Sandbox"
    CSS = panes.CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        *(Binding(k.key, k.action, k.label, priority=k.action == "quit") for k in KEYS),
        # Ctrl-C in a terminal means stop: quit as ctrl+q does (not Textual's "press ctrl+q").
        Binding("ctrl+c", "quit", show=False, priority=True),
    ]

    def __init__(self, setup: CallSetup) -> None:
        super().__init__()
        self.setup = setup
        self.runner = CallRunner(setup, self)
        self.panes = panes.CallPanes(wire_keeps=WIRE_KEEPS)
        self.banner, self.status = self.panes.banner, self.panes.status
        self.conversation, self.wire = self.panes.conversation, self.panes.wire
        self.app_pane = self.panes.app_pane
        self.say = Input(placeholder="type what the caller says; enter sends (send-text)", id="say")
        self._leaving = False  # the panes are going away: late call messages are dropped
        self._frames_shown = 0.0  # when the wire pane last took frames (monotonic)
        self._frames_due = False  # a burst's frames wait for a timer
        self._quitting = False  # a quit signal came: it is being handled

    # ---------------------------------------------------------------- layout

    def compose(self) -> ComposeResult:
        """Banner, conversation | wire + app pane, message box, status line, footer."""
        yield Header()
        yield self.banner
        yield from self.panes.main()
        yield self.say
        yield self.status
        yield Footer()

    def on_mount(self) -> None:
        """Show the audio situation and start the call beside the UI."""
        audio = self.setup.audio
        told = "\n".join(filter(None, [audio.banner, legs_banner(self.setup.options.settings)]))
        self.banner.say(told, warn=not audio.real)
        self.panes.titled()
        self.status.show(state="starting", meter=self._meter())
        if audio.real:
            self.set_interval(METER_INTERVAL_S, self._show_meter)
        self.set_interval(DEAD_AIR_INTERVAL_S, self._show_dead_air)
        self.say.focus()
        loop = asyncio.get_running_loop()
        for number in QUIT_SIGNALS:
            with contextlib.suppress(NotImplementedError):  # no signal handlers on Windows
                loop.add_signal_handler(number, self._signalled)
        self.run_worker(self.runner.run(), name="call", exit_on_error=False)

    @property
    def host(self) -> CallHost | None:
        """The running call's host, once the brain answered."""
        return self.runner.host

    @property
    def report(self) -> Path | None:
        """Where the call's report was written, once it was."""
        return self.runner.report

    @property
    def problem(self) -> str | None:
        """What went wrong with the call, in words, if anything did."""
        return self.runner.problem

    @property
    def replay_command(self) -> str | None:
        """The command that watches the call again, once it was placed and recorded."""
        host = self.host
        if host is None or self.setup.options.recording is None:
            return None
        return f"sandbox replay {short_id(host.latest.session_id)}"

    @property
    def _showing(self) -> bool:
        """The panes are up to show what the call does (not yet torn down at exit)."""
        return not self._leaving and self.conversation.is_attached

    # ------------------------------------------------------ from the call

    def on_call_progress(self, message: CallProgress) -> None:
        """A step of getting the call up: shown in the status line until the call is up."""
        if not self._showing:
            return
        self.status.show(state=message.text)

    def on_call_started(self, message: CallStarted) -> None:
        """The brain answered."""
        if not self._showing:
            return
        started = message.snapshot
        options = self.setup.options
        brain = brain_name(options.brain_url, options.builtin)
        self.sub_title = visible(f"session {started.session_id} · {brain}")
        self.status.show(capabilities=capability_names(started.capabilities))

    def on_call_effect(self, message: CallEffect) -> None:
        """Route one effect of the core to the pane that shows it, with the call as it stood
        when the effect was carried out."""
        if self.host is None or not self._showing:
            return
        effect, shown = message.effect, message.snapshot
        if isinstance(effect, UnitChanged):
            self.runner.drawn(effect.speech_id)
            unit = message.unit
            if unit is not None:
                self.conversation.show_unit(unit)
                if unit.words_heard > 0:
                    self._show_latency(shown)
        elif isinstance(effect, CallerShown | CallerIdle | Notice | CallEnded):
            if isinstance(effect, DeadAir | DeadAirEnded):  # the status line says it too
                self.status.show(state=shown.state)
                self._show_dead_air(shown)
            line, alarm = shown_text(effect)
            self.conversation.add_line(line)
            if alarm is not None:
                self.notify(alarm, severity="error", timeout=8)
        elif isinstance(effect, StateChanged):
            self.status.show(state=effect.state)
        elif isinstance(effect, ToApp):
            self.app_pane.show("brain", effect.type, effect.data, effect.id)
            notice = notice_of(effect.type, effect.data)
            if notice is not None:  # the brain was reloaded: its next turns run the new code
                self.conversation.add_line(reload_text(notice))
        else:
            assert_never(effect)
        self.status.show(watermark=shown.watermark, config=shown.settings.describe())

    def on_call_frames(self, message: CallFrames) -> None:
        """Frames crossed: shown now, or with the rest of a burst a moment later."""
        if self._frames_due:
            return
        wait = self._frames_shown + FRAMES_EVERY_S - time.monotonic()
        if wait <= 0:
            self._show_frames()
        else:
            self._frames_due = True
            self.set_timer(wait, self._show_frames)

    def _show_frames(self) -> None:
        """The wire pane, the waterfall, and the app pane for the app's own frames."""
        self._frames_due = False
        self._frames_shown = time.monotonic()
        records = self.runner.take_frames()
        if not self._showing:
            return
        self.wire.add_many(records)
        host = self.host
        if records and host is not None:
            self._show_latency(host.latest)
        for record in records:
            sent = app_frame_of(record)
            if sent is not None:
                self.app_pane.show("app", *sent)

    def on_recording_stopped(self, message: RecordingStopped) -> None:
        """The session store failed: say so once; the call goes on."""
        self.conversation.add_line(notice_text("error", message.words))
        self.notify(message.words, title="recording stopped", severity="error", timeout=15)

    def on_device_lost(self, message: DeviceLost) -> None:
        """A device went away: the banner says how the call goes on, the conversation when."""
        if not self._showing:
            return
        self.banner.say(message.words, warn=True)
        self.conversation.add_line(notice_text("warning", message.words))
        self.notify(message.words, title="device lost", severity="warning", timeout=15)
        self._show_meter()

    def on_call_finished(self, message: CallFinished) -> None:
        """The call is over: show where the report went, or what went wrong."""
        if not self._showing:
            return
        if message.problem:
            self.conversation.add_line(notice_text("error", message.problem))
            self.notify(message.problem, title="call failed", severity="error", timeout=15)
        if message.record:
            self.conversation.add_line(record_card(message.record))
        if message.report:
            self.conversation.add_line(Text(visible(f"report: {message.report}"), style="bold"))
        replay = self.replay_command
        if replay is not None:
            self.conversation.add_line(Text(f"watch it again: {replay}", style="bold cyan"))
        self.status.show(state=CallState.ENDED)
        say = self.say
        say.placeholder = "the call has ended · ctrl+q quits"
        say.disabled = True

    @on(ConversationPane.UnitSelected)
    def _mark_unit(self, message: ConversationPane.UnitSelected) -> None:
        self.wire.mark_unit(message.speech_id)

    # ---------------------------------------------------------- from the user

    @on(Input.Submitted, "#say")
    def _send_text(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        host = self._live_host()
        if not text or host is None:
            return
        self.runner.tell(host.from_app, "send-text", json.dumps({"content": text}))
        event.input.clear()

    def action_help(self) -> None:
        """Show the keys and the panes explained."""
        if not self._in_form():
            self.push_screen(HelpScreen(HELP_ROWS))

    def action_barge_in(self) -> None:
        """Cut the bot as a caller talking over it would; the box's text is what they say."""
        host = self._live_host()
        if host is None:
            return
        say = self.say
        text = say.value.strip()
        self.runner.tell(host.barge_in)
        if text:
            self.runner.tell(partial(host.caller_turn, text, typed=True))
            say.clear()
        else:
            self.notify("barged in: the floor is yours, type what you say and press enter")
        say.focus()

    def action_mute(self) -> None:
        """Mute or unmute the microphone."""
        audio = self.setup.audio
        problem = audio.set_muted(not audio.muted)
        if problem:
            self.notify(problem, severity="warning")
        self._show_meter()

    def action_settings(self) -> None:
        """Change voice, patience or idle, applied as a brain's Config would land."""
        host = None if self._in_form() else self._live_host()
        if host is not None:
            self.push_screen(SettingsScreen(host.latest.settings), self._configure)

    def action_app_frame(self) -> None:
        """Send an RTVI message from the app to the brain."""
        if not self._in_form() and self._live_host() is not None:
            self.push_screen(RtviScreen(), self._send_app_frame)

    def action_filter_wire(self) -> None:
        """Focus the wire pane's filter box."""
        self.wire.focus_filter()

    def action_waterfall(self) -> None:
        """Open the last caller turn's latency waterfall, as the call's ledger has it."""
        host = self.host
        if self._in_form() or host is None:
            return
        turn_id, timeline = host.latest.latest_timeline or (None, {})
        self.push_screen(WaterfallScreen(turn_id, timeline))

    def action_end_call(self) -> None:
        """Hang up; the report is written and its path shown."""
        host = self._live_host()
        if host is not None:
            self.runner.tell(host.hang_up)

    async def action_quit(self) -> None:
        """End a live call, wait for its report, and leave."""
        host = self.host
        if host is not None and host.latest.ended is None:
            self.runner.tell(host.hang_up)
        if host is not None or self.runner.done.is_set():
            # On a timeout leave anyway: the call's thread still writes the report.
            await asyncio.to_thread(self.runner.done.wait, QUIT_WAIT_S)
        self._leaving = True
        self.exit(self.runner.report)

    def _signalled(self) -> None:
        """A quit signal: end the call cleanly, once, however often it comes."""
        if not self._quitting:
            self._quitting = True
            self.run_worker(self.action_quit(), name="quit", exit_on_error=False)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette: Textual's own commands and every action of the app by name."""
        yield from super().get_system_commands(screen)  # its own Quit runs action_quit
        yield SystemCommand("Send a message", "type what the caller says", self._focus_say)
        for k in KEYS:
            if k.action != "quit":
                yield SystemCommand(
                    k.title, f"{k.does} ({k.key})", getattr(self, f"action_{k.action}")
                )

    # ------------------------------------------------------------- internals

    def _live_host(self) -> CallHost | None:
        """The host if the call is up and not over; otherwise say why not."""
        host = self.host
        if host is None:
            self.notify("the call is not connected yet", severity="warning")
        elif host.latest.ended is not None:
            self.notify("the call has ended", severity="warning")
            return None
        return host

    def _in_form(self) -> bool:
        """A modal screen (help, settings, app frame) is open."""
        return isinstance(self.screen, ModalScreen)

    def _focus_say(self) -> None:
        self.say.focus()

    def _meter(self) -> str:
        audio = self.setup.audio
        return meter(audio.mic_level(), real=audio.real, muted=audio.muted)

    def _show_meter(self) -> None:
        self.status.show(meter=self._meter())

    def _show_dead_air(self, shown: CallSnapshot | None = None) -> None:
        """While an open unit is dead air, the status line says so and counts it on: as of
        ``shown``, or (the timer) the host's latest snapshot."""
        host = self.host
        if host is None or not self._showing:
            return
        gap = (shown or host.latest).dead_air_at(host.now())
        if gap is not None:
            words = dead_air_words(gap.turn_id, gap.speech_id, gap.silent_ms, lasting=True)
            self.status.show(state=words)

    def _show_latency(self, shown: CallSnapshot) -> None:
        """The latest caller turn's waterfall in one line, read off the core's timeline as
        ``f7`` draws it, so the two agree."""
        if shown.latest_timeline is not None:
            self.status.show(latency=summary(*shown.latest_timeline))

    def _configure(self, delta: pb.Config | None) -> None:
        if delta is None:
            return
        if delta.ByteSize() == 0:
            self.notify("nothing changed")
            return
        self.run_worker(self._apply_config(delta), name="configure", exit_on_error=False)

    async def _apply_config(self, delta: pb.Config) -> None:
        host = self._live_host()
        if host is None:
            return
        problem = await self.runner.ask(host.configure(delta))
        if problem:
            self.notify(f"config rejected: {problem}", severity="error", timeout=10)
        else:
            self.notify(f"config applied: {host.latest.settings.describe()}")

    def _send_app_frame(self, frame: AppFrame | None) -> None:
        host = self._live_host() if frame is not None else None
        if frame is not None and host is not None:
            self.runner.tell(host.from_app, frame.type, frame.data, frame.id)
