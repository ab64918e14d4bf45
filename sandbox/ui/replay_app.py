"""ReplayApp: a saved session played back in the live app's panes, with its sound.

The panes are the live call's (conversation with heard and unheard text, wire, app,
status), filled from the recording as the replay clock advances; a timeline strip shows
the playhead and the moments worth jumping to. While the legs play through a speaker the
clock *is* the sound's position, so the panes follow what is heard; without sound the
clock runs on its own, at the chosen speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, Header, ListView

from sandbox.call.effects import ToApp
from sandbox.call.waterfall import summary, turn_at
from sandbox.record.legs import MIC, SPEAKER
from sandbox.record.plain_text import visible
from sandbox.record.reload_notice import ReloadNotice
from sandbox.replay.leg_player import LegPlayer
from sandbox.replay.source import Recording
from sandbox.replay.timeline import Changes, RecordNote, Shown
from sandbox.ui import panes
from sandbox.ui.keys import REPLAY_KEYS
from sandbox.ui.lines import record_note, reload_text, shown_text
from sandbox.ui.plain_app import PlainApp
from sandbox.ui.screens.waterfall import WaterfallScreen
from sandbox.ui.widgets.app_pane import app_frame_of
from sandbox.ui.widgets.conversation import ConversationPane, UnitLine
from sandbox.ui.widgets.timeline import TimelineStrip

#: How often the panes follow the clock while playing.
TICK_S = 0.05
SPEEDS = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0)
SEEK_MS = 5_000
#: The markers "next/previous" stops at: caller turns and cuts.
STOPS = frozenset({"turn", "barge-in", "cancel"})


class ReplayApp(PlainApp[None]):
    """Watch (and hear) a saved call again; see the module doc."""

    TITLE = "Voqalize Sandbox · replay"
    CSS = panes.CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(k.key, k.action, k.label, priority=True) for k in REPLAY_KEYS
    ]

    def __init__(
        self,
        recording: Recording,
        *,
        player: LegPlayer | None = None,
        banner: str = "",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``player`` plays the legs (None: silent, ``banner`` says why)."""
        super().__init__()
        self.recording = recording
        self.player = player
        self.speed = 1.0
        self.playing = False
        self.t_ms = 0
        self._clock = clock
        self._anchor = (0, clock())  # (replay ms, clock s) when playback last (re)started
        self._banner_text = banner
        self.panes = panes.CallPanes()
        self.banner, self.status = self.panes.banner, self.panes.status
        self.conversation, self.wire = self.panes.conversation, self.panes.wire
        self.app_pane = self.panes.app_pane
        self.timeline = TimelineStrip(id="timeline")

    def compose(self) -> ComposeResult:
        """Banner, conversation | wire + app pane, timeline, status line, footer."""
        yield Header()
        yield self.banner
        yield from self.panes.main()
        yield self.timeline
        yield self.status
        yield Footer()

    def on_mount(self) -> None:
        """Draw the session at its start, paused."""
        row = self.recording.row
        brain = self.recording.brain
        line = f" · line {self.recording.line}" if self.recording.line else ""
        self.sub_title = visible(f"session {row.id} · {brain}{line} · {row.status}")
        self.panes.titled()
        self.banner.say(self._banner_text)
        self.go_to(0)
        self.set_interval(TICK_S, self.tick)

    # ----------------------------------------------------------------- clock

    @property
    def duration_ms(self) -> int:
        """The length of the replay."""
        return self.recording.duration_ms

    def tick(self) -> None:
        """Follow the clock (the sound's position while it plays); stop at the end."""
        if not self.playing:
            return
        if self.player is not None:
            now = self.player.position_ms
        else:
            start_ms, start_s = self._anchor
            now = start_ms + int((self._clock() - start_s) * 1000 * self.speed)
        if now >= self.duration_ms:
            now = self.duration_ms
            self._set_playing(False)
        self._show(now)

    def go_to(self, t_ms: int) -> None:
        """Jump the playhead (and the sound) to ``t_ms``."""
        t_ms = min(max(t_ms, 0), self.duration_ms)
        self._anchor = (t_ms, self._clock())
        if self.player is not None:
            self.player.seek(t_ms)
        self._show(t_ms)

    def _set_playing(self, playing: bool) -> None:
        self.playing = playing
        self._anchor = (self.t_ms, self._clock())
        if self.player is not None:
            self.player.seek(self.t_ms)
            self.player.playing = playing
        self._draw_timeline()

    # ------------------------------------------------------------------- keys

    def action_toggle_play(self) -> None:
        """Play or pause (from the start again once at the end)."""
        if not self.playing and self.t_ms >= self.duration_ms:
            self.go_to(0)
        self._set_playing(not self.playing)

    def action_seek(self, delta_ms: int) -> None:
        """Move the playhead by ``delta_ms``."""
        self.go_to(self.t_ms + delta_ms)

    def action_next_stop(self) -> None:
        """Jump to the next caller turn or cut."""
        later = [m.t_ms for m in self._stops() if m.t_ms > self.t_ms]
        if later:
            self.go_to(later[0])

    def action_previous_stop(self) -> None:
        """Jump to the previous caller turn or cut (before a moment of grace)."""
        earlier = [m.t_ms for m in self._stops() if m.t_ms < self.t_ms - 500]
        self.go_to(earlier[-1] if earlier else 0)

    def action_speed(self, step: int) -> None:
        """Step the speed through 0.5x .. 4x."""
        index = SPEEDS.index(self.speed) if self.speed in SPEEDS else SPEEDS.index(1.0)
        self.speed = SPEEDS[min(max(index + step, 0), len(SPEEDS) - 1)]
        self._anchor = (self.t_ms, self._clock())
        if self.player is not None:
            self.player.speed = self.speed
        self._draw_timeline()

    def action_toggle_leg(self, leg: str) -> None:
        """Mute or unmute one leg of the sound."""
        if self.player is None:
            self.notify(self._banner_text or "there is no sound to play", timeout=4)
            return
        on_now = self.player.toggle(leg)
        self.notify(f"{leg} leg {'on' if on_now else 'muted'}", timeout=2)
        self._draw_timeline()

    @on(ListView.Selected, "#conversation")
    def _jump_to_unit(self, event: ListView.Selected) -> None:
        """Selecting a bot unit jumps to where it opened."""
        if isinstance(event.item, UnitLine):
            speech_id = event.item.speech_id
            start = self.recording.replayer.unit_start(speech_id)
            if start is not None:
                self.go_to(start)
                # The panes were redrawn from the start: keep the unit selected.
                self.call_after_refresh(self.conversation.highlight_unit, speech_id)

    def action_waterfall(self) -> None:
        """Open the latency waterfall of the caller turn at the playhead, as far as it had
        got by then; close it if it is open."""
        if isinstance(self.screen, WaterfallScreen):
            self.pop_screen()
        else:
            self.push_screen(WaterfallScreen(*turn_at(self.recording.timelines, self.t_ms)))

    @on(ConversationPane.UnitSelected)
    def _mark_unit(self, message: ConversationPane.UnitSelected) -> None:
        self.wire.mark_unit(message.speech_id)

    # ----------------------------------------------------------------- panes

    def _show(self, t_ms: int) -> None:
        self.t_ms = t_ms
        changes = self.recording.replayer.seek(t_ms)
        view = self.recording.replayer.view
        if changes is None:  # moved back: start the panes over
            self.conversation.reset()
            self.wire.reset()
            self.app_pane.clear()
            changes = Changes(list(view.units), list(view.entries), list(view.frames))
        for record in changes.frames:
            self.wire.add(record)
            sent = app_frame_of(record)
            if sent is not None:
                self.app_pane.show("app", *sent)
        for entry in changes.entries:
            self._entry(entry)
        for speech_id in dict.fromkeys(changes.units):
            self.conversation.show_unit(view.units[speech_id])
        turn_id, timeline = turn_at(self.recording.timelines, t_ms)
        self.status.show(
            state=view.state,
            watermark=view.watermark,
            config=view.settings,
            latency=summary(turn_id, timeline) if turn_id is not None else "",
        )
        self._draw_timeline()

    def _entry(self, entry: int | Shown) -> None:
        if isinstance(entry, int):
            self.conversation.show_unit(self.recording.replayer.view.units[entry])
        elif isinstance(entry, ToApp):
            self.app_pane.show("brain", entry.type, entry.data, entry.id)
        elif isinstance(entry, RecordNote):
            self.conversation.add_line(record_note(entry.words))
        elif isinstance(entry, ReloadNotice):
            self.conversation.add_line(reload_text(entry))
        else:
            self.conversation.add_line(shown_text(entry)[0])

    def _draw_timeline(self) -> None:
        state = "▶ playing" if self.playing else "❚❚ paused"
        legs = ""
        if self.player is not None:
            on = [leg for leg in (MIC, SPEAKER) if self.player.enabled.get(leg)]
            legs = f" · sound: {', '.join(on) or 'muted'}"
        status = (
            f"{state} · {self.t_ms / 1000:6.1f} s of {self.duration_ms / 1000:.1f} s · "
            f"{self.speed:g}x{legs}"
        )
        self.timeline.show(self.t_ms, self.duration_ms, self.recording.replayer.markers, status)

    def _stops(self) -> list[Any]:
        return [m for m in self.recording.replayer.markers if m.kind in STOPS]
