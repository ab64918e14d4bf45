"""Tables derived from the schema's enum options, never copied by hand."""

from __future__ import annotations

from sandbox.wire import frames_pb2 as pb


def _option_table(enum: object, option: object) -> dict[int, str]:
    table: dict[int, str] = {}
    for value in enum.DESCRIPTOR.values:  # type: ignore[attr-defined]
        opts = value.GetOptions()
        if opts.HasExtension(option):
            table[value.number] = opts.Extensions[option]
    return table


#: Language enum value -> its speech-tier code ("en", "or", "bho", ...).
ISO_BY_LANGUAGE: dict[int, str] = _option_table(pb.Language, pb.iso_code)
#: Speech-tier code -> Language enum value.
LANGUAGE_BY_ISO: dict[str, int] = {code: lang for lang, code in ISO_BY_LANGUAGE.items()}
#: RTVIType enum value -> its RTVI spelling ("server-message", ...).
RTVI_NAME_BY_TYPE: dict[int, str] = _option_table(pb.RTVIType, pb.rtvi_name)
#: RTVI spelling -> RTVIType enum value.
RTVI_TYPE_BY_NAME: dict[str, int] = {name: t for t, name in RTVI_NAME_BY_TYPE.items()}


def _arms_sent_by(*senders: int) -> frozenset[str]:
    """Envelope arms whose ``sent_by`` option names one of ``senders``."""
    return frozenset(
        field.name
        for field in pb.Envelope.DESCRIPTOR.oneofs_by_name["body"].fields
        # The generated stubs type an extension as a plain FieldDescriptor.
        if field.GetOptions().Extensions[pb.sent_by] in senders  # type: ignore[index]
    )


#: Arms only Voqalize originates: a brain sending one breaks the wire.
VOQALIZE_ARMS: frozenset[str] = _arms_sent_by(pb.SENDER_VOQALIZE)
#: Arms only a brain originates: Voqalize never sends one.
BRAIN_ARMS: frozenset[str] = _arms_sent_by(pb.SENDER_BRAIN)

#: Types a brain may originate; they cross to the app.
BRAIN_RTVI_TYPES: frozenset[int] = frozenset(
    {
        pb.RTVI_TYPE_SERVER_MESSAGE,
        pb.RTVI_TYPE_SERVER_RESPONSE,
        pb.RTVI_TYPE_ERROR_RESPONSE,
        pb.RTVI_TYPE_UI_COMMAND,
        pb.RTVI_TYPE_UI_JOB_GROUP,
    }
)
#: Types the app may originate that cross to the brain. send-text is on the
#: app's half too but never crosses: it is committed as a caller turn.
APP_RTVI_TYPES: frozenset[int] = frozenset(
    {
        pb.RTVI_TYPE_UI_EVENT,
        pb.RTVI_TYPE_CLIENT_MESSAGE,
        pb.RTVI_TYPE_UI_SNAPSHOT,
        pb.RTVI_TYPE_UI_CANCEL_JOB_GROUP,
    }
)
#: The RTVI client's message limit; data over it is refused.
RTVI_DATA_LIMIT = 64 * 1024


def rtvi_spelling(recorded: object) -> str:
    """An RTVI type as RTVI spells it ("ui-event"), from the enum name or number a frame's
    record holds; one this build does not know stays as recorded."""
    number = recorded
    if isinstance(recorded, str):
        try:
            number = pb.RTVIType.Value(recorded)
        except ValueError:
            return recorded
    known = RTVI_NAME_BY_TYPE.get(number) if isinstance(number, int) else None
    return known or str(recorded)


def language_name(lang: int) -> str:
    """A language as a developer writes it: its code, or the enum name if it has none."""
    return ISO_BY_LANGUAGE.get(lang) or pb.Language.Name(lang)


def voice_name(voice: int) -> str:
    """A voice's short lower-case name, e.g. ``joe`` for VOICE_JOE."""
    return pb.Voice.Name(voice).removeprefix("VOICE_").lower()


def voice_by_name(name: str) -> int:
    """The Voice enum value for ``joe`` / ``VOICE_JOE``; ValueError names the choices."""
    key = name.strip().upper()
    key = key if key.startswith("VOICE_") else f"VOICE_{key}"
    try:
        return pb.Voice.Value(key)
    except ValueError:
        choices = ", ".join(voice_name(v) for v in pb.Voice.values() if v)
        raise ValueError(f"unknown voice {name!r}; choose one of: {choices}") from None
