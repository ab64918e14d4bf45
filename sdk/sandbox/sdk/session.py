"""The session as a brain sees it: what SessionStart said, and the floor-free things it can do."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from sandbox.sdk.actions import Action, ui_command
from sandbox.sdk.config import Config
from sandbox.sdk.control import Control
from sandbox.sdk.errors import CapabilityMissing, RequestRejected, SessionClosed
from sandbox.sdk.events import Finalize
from sandbox.sdk.outbox import Outbox
from sandbox.sdk.steps import TurnStep
from sandbox.sdk.turns import Turns
from sandbox.sdk.units import Units
from sandbox.wire import catalog, pb


class Session:
    """One call, from the brain's side. Every method is callable from any callback.

    Fire-and-forget methods (``send_rtvi``, ``dispatch``, ``report_step``, ``end``)
    log and drop once the session is over; awaited ones (``configure``,
    ``cancel_speech``) raise SessionClosed, since nothing can answer them.
    """

    def __init__(
        self,
        *,
        session_id: str,
        init: dict[str, Any],
        wire_version: int,
        capabilities: frozenset[int],
        turns: Turns,
        units: Units,
        outbox: Outbox,
        control: Control,
        hang_up: Callable[[], None],
        log: logging.LoggerAdapter[logging.Logger],
    ) -> None:
        self.session_id = session_id
        #: The opaque init data the session was minted with, JSON-decoded ({} when empty).
        self.init = init
        self.wire_version = wire_version
        #: Capability values this Voqalize listed; unknown values are kept but mean nothing.
        self.capabilities = capabilities
        self._turns = turns
        self._units = units
        self._outbox = outbox
        self._control = control
        self._hang_up = hang_up
        self._log = log

    @property
    def can_cancel_speech(self) -> bool:
        """Voqalize honours SpeechCancel (CAPABILITY_SPEECH_CANCEL)."""
        return pb.CAPABILITY_SPEECH_CANCEL in self.capabilities

    @property
    def can_report_steps(self) -> bool:
        """Voqalize records TurnStep (CAPABILITY_TURN_STEPS)."""
        return pb.CAPABILITY_TURN_STEPS in self.capabilities

    @property
    def closed(self) -> bool:
        """The session is over; nothing more will be sent."""
        return self._outbox.closed

    def send_rtvi(self, type: str | int, data: Any, id: str | None = None) -> None:
        """Send one RTVI message to the app: ``type`` in RTVI spelling (``"server-message"``).

        Only the brain's half of the whitelist may be sent (server-message,
        server-response, error-response, ui-command, ui-job-group); ValueError otherwise,
        or when ``data`` is not JSON or exceeds the RTVI client's 64 KiB limit.
        """
        rtvi_type = catalog.RTVI_TYPE_BY_NAME.get(type) if isinstance(type, str) else type
        if rtvi_type not in catalog.BRAIN_RTVI_TYPES:
            allowed = ", ".join(
                sorted(catalog.RTVI_NAME_BY_TYPE[t] for t in catalog.BRAIN_RTVI_TYPES)
            )
            raise ValueError(f"a brain cannot send RTVI type {type!r}; it may send: {allowed}")
        try:
            encoded = json.dumps(data, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"RTVI data must be JSON-serializable: {exc}") from None
        if len(encoded.encode()) > catalog.RTVI_DATA_LIMIT:
            raise ValueError(
                f"RTVI data is {len(encoded.encode())} bytes; the app accepts at most "
                f"{catalog.RTVI_DATA_LIMIT}"
            )
        frame = pb.RTVIFrame(type=rtvi_type, data=encoded, turn_id=self._turns.current())  # type: ignore[arg-type]
        if id is not None:
            frame.id = id
        self._put(frame, f"RTVI {catalog.RTVI_NAME_BY_TYPE[rtvi_type]}")

    def dispatch(self, action: Action) -> None:
        """Send an action as RTVI ``ui-command`` ``{"command": ..., "payload": {...}}``.

        An action is a dataclass instance or a ``(command, payload)`` pair; see
        :mod:`sandbox.sdk.actions`. Nothing comes back, and a barge-in does not undo it.
        """
        self.send_rtvi("ui-command", ui_command(action))

    async def configure(self, config: Config) -> None:
        """Change tts, stt and idle in one Request, and wait for Voqalize's answer.

        Raises RequestRejected (with Voqalize's ``detail``) when it refuses; nothing of
        the Config was applied then. A half-stated language or a patience off the
        scale never gets here: building the Config raised ConfigError.
        """
        if not isinstance(config, Config):
            raise TypeError(f"configure takes a sandbox.sdk.Config, not {type(config).__name__}")
        if self.closed:
            raise SessionClosed("cannot configure: the session is over")
        request, answer = self._control.ask(config.to_pb())
        self._outbox.put(request)
        response = await answer
        if response.status == pb.STATUS_ACCEPTED:
            return
        if response.status == pb.STATUS_REJECTED:
            raise RequestRejected(response.detail)
        raise RequestRejected(f"Voqalize answered request {request.request_id} with no status")

    async def cancel_speech(self, speech_id: int) -> Finalize:
        """Take one unit back: send SpeechCancel and return that unit's Finalize.

        Its ``heard`` says how far playout got before the cut. The turn stays open, so
        the callback may go on and open a new unit. Raises CapabilityMissing unless
        ``can_cancel_speech``, ValueError for an id this session never opened.
        """
        if not self.can_cancel_speech:
            raise CapabilityMissing(
                "this Voqalize does not honour SpeechCancel (no CAPABILITY_SPEECH_CANCEL): "
                "check session.can_cancel_speech first"
            )
        unit = self._units.get(speech_id)
        if unit is None:
            raise ValueError(
                f"speech_id {speech_id!r} was never opened in this session "
                "(pass the speech_id the SDK wrote onto your SpeechStart)"
            )
        if not unit.done.done() and not unit.cancel_requested:
            if self.closed:
                raise SessionClosed("cannot cancel speech: the session is over")
            unit.cancel_requested = True
            if unit.queued:
                self._units.close(unit)
                self._outbox.put(pb.SpeechCancel(speech_id=speech_id), unit)
            else:  # still waiting for the mouth: it never opens
                self._units.drop(unit)
        return await unit.done

    def report_step(self, step: TurnStep) -> None:
        """Record one piece of work for a turn (never answered).

        ``step.turn_id`` defaults to the turn being answered. Raises CapabilityMissing
        unless ``can_report_steps``, ValueError for a field out of range.
        """
        if not self.can_report_steps:
            raise CapabilityMissing(
                "this Voqalize does not record TurnStep (no CAPABILITY_TURN_STEPS): "
                "check session.can_report_steps first"
            )
        turn_id = step.turn_id if step.turn_id is not None else self._turns.current()
        self._put(step.to_pb(turn_id), f"TurnStep {step.kind} {step.name}")

    def end(self) -> None:
        """Hang up: send End; nothing more is sent, and the speaking callbacks stop.

        End is a graceful close: what the brain already relayed still plays out, and its
        Finalizes still reach ``on_finalize`` until Voqalize closes the session at the
        call's end (at most ``END_WAIT_S`` later). A second call does nothing.
        """
        self._hang_up()

    def _put(self, body: pb.RTVIFrame | pb.TurnStep, what: str) -> None:
        if not self._outbox.put(body):
            self._log.warning("%s not sent: the session is over", what)


def decode_init(raw: str) -> tuple[dict[str, Any], str | None]:
    """SessionStart.init as a dict, and a complaint when it was not a JSON object."""
    if not raw:
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return {}, f"SessionStart.init is not JSON ({exc}); session.init is empty"
    if not isinstance(value, Mapping):
        return {}, f"SessionStart.init is JSON {type(value).__name__}, not an object; ignored"
    return dict(value), None
