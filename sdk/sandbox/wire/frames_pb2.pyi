from google.protobuf import descriptor_pb2 as _descriptor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Sender(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SENDER_UNSPECIFIED: _ClassVar[Sender]
    SENDER_VOQALIZE: _ClassVar[Sender]
    SENDER_BRAIN: _ClassVar[Sender]
    SENDER_BOTH: _ClassVar[Sender]

class Capability(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CAPABILITY_UNSPECIFIED: _ClassVar[Capability]
    CAPABILITY_SPEECH_CANCEL: _ClassVar[Capability]
    CAPABILITY_TURN_STEPS: _ClassVar[Capability]

class Status(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STATUS_UNSPECIFIED: _ClassVar[Status]
    STATUS_ACCEPTED: _ClassVar[Status]
    STATUS_REJECTED: _ClassVar[Status]

class RTVIType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RTVI_TYPE_UNSPECIFIED: _ClassVar[RTVIType]
    RTVI_TYPE_SERVER_MESSAGE: _ClassVar[RTVIType]
    RTVI_TYPE_SERVER_RESPONSE: _ClassVar[RTVIType]
    RTVI_TYPE_ERROR_RESPONSE: _ClassVar[RTVIType]
    RTVI_TYPE_UI_COMMAND: _ClassVar[RTVIType]
    RTVI_TYPE_UI_JOB_GROUP: _ClassVar[RTVIType]
    RTVI_TYPE_UI_EVENT: _ClassVar[RTVIType]
    RTVI_TYPE_CLIENT_MESSAGE: _ClassVar[RTVIType]
    RTVI_TYPE_UI_SNAPSHOT: _ClassVar[RTVIType]
    RTVI_TYPE_UI_CANCEL_JOB_GROUP: _ClassVar[RTVIType]
    RTVI_TYPE_SEND_TEXT: _ClassVar[RTVIType]
    RTVI_TYPE_BOT_READY: _ClassVar[RTVIType]
    RTVI_TYPE_BOT_STARTED_SPEAKING: _ClassVar[RTVIType]
    RTVI_TYPE_BOT_TRANSCRIPTION: _ClassVar[RTVIType]
    RTVI_TYPE_LLM_FUNCTION_CALL: _ClassVar[RTVIType]
    RTVI_TYPE_LLM_TEXT: _ClassVar[RTVIType]

class ErrorCode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_CODE_UNSPECIFIED: _ClassVar[ErrorCode]
    ERROR_CODE_PROTOCOL: _ClassVar[ErrorCode]
    ERROR_CODE_VERSION: _ClassVar[ErrorCode]
    ERROR_CODE_INTERNAL: _ClassVar[ErrorCode]
    ERROR_CODE_TIMEOUT: _ClassVar[ErrorCode]
    ERROR_CODE_MALFORMED: _ClassVar[ErrorCode]

class Voice(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    VOICE_UNSPECIFIED: _ClassVar[Voice]
    VOICE_JOE: _ClassVar[Voice]
    VOICE_AMY: _ClassVar[Voice]
    VOICE_LESSAC: _ClassVar[Voice]
    VOICE_ALAN: _ClassVar[Voice]
    VOICE_THORSTEN: _ClassVar[Voice]
    VOICE_SIWIS: _ClassVar[Voice]
    VOICE_PRATHAM: _ClassVar[Voice]
    VOICE_PRIYAMVADA: _ClassVar[Voice]
    VOICE_ESPEAK_MALE: _ClassVar[Voice]
    VOICE_ESPEAK_FEMALE: _ClassVar[Voice]

class Language(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    LANGUAGE_UNSPECIFIED: _ClassVar[Language]
    LANGUAGE_EN: _ClassVar[Language]
    LANGUAGE_DE: _ClassVar[Language]
    LANGUAGE_FR: _ClassVar[Language]
    LANGUAGE_ES: _ClassVar[Language]
    LANGUAGE_IT: _ClassVar[Language]
    LANGUAGE_PT: _ClassVar[Language]
    LANGUAGE_NL: _ClassVar[Language]
    LANGUAGE_PL: _ClassVar[Language]
    LANGUAGE_SV: _ClassVar[Language]
    LANGUAGE_HI: _ClassVar[Language]
    LANGUAGE_BN: _ClassVar[Language]
    LANGUAGE_TA: _ClassVar[Language]
    LANGUAGE_TE: _ClassVar[Language]
    LANGUAGE_MR: _ClassVar[Language]
    LANGUAGE_GU: _ClassVar[Language]
    LANGUAGE_OR: _ClassVar[Language]
    LANGUAGE_KN: _ClassVar[Language]
    LANGUAGE_ML: _ClassVar[Language]
    LANGUAGE_PA: _ClassVar[Language]
    LANGUAGE_AS: _ClassVar[Language]
    LANGUAGE_UR: _ClassVar[Language]
    LANGUAGE_BHO: _ClassVar[Language]
    LANGUAGE_MAI: _ClassVar[Language]
    LANGUAGE_KOK: _ClassVar[Language]
    LANGUAGE_SAT: _ClassVar[Language]
    LANGUAGE_DOI: _ClassVar[Language]
    LANGUAGE_MNI: _ClassVar[Language]
    LANGUAGE_NE: _ClassVar[Language]
SENDER_UNSPECIFIED: Sender
SENDER_VOQALIZE: Sender
SENDER_BRAIN: Sender
SENDER_BOTH: Sender
CAPABILITY_UNSPECIFIED: Capability
CAPABILITY_SPEECH_CANCEL: Capability
CAPABILITY_TURN_STEPS: Capability
STATUS_UNSPECIFIED: Status
STATUS_ACCEPTED: Status
STATUS_REJECTED: Status
RTVI_TYPE_UNSPECIFIED: RTVIType
RTVI_TYPE_SERVER_MESSAGE: RTVIType
RTVI_TYPE_SERVER_RESPONSE: RTVIType
RTVI_TYPE_ERROR_RESPONSE: RTVIType
RTVI_TYPE_UI_COMMAND: RTVIType
RTVI_TYPE_UI_JOB_GROUP: RTVIType
RTVI_TYPE_UI_EVENT: RTVIType
RTVI_TYPE_CLIENT_MESSAGE: RTVIType
RTVI_TYPE_UI_SNAPSHOT: RTVIType
RTVI_TYPE_UI_CANCEL_JOB_GROUP: RTVIType
RTVI_TYPE_SEND_TEXT: RTVIType
RTVI_TYPE_BOT_READY: RTVIType
RTVI_TYPE_BOT_STARTED_SPEAKING: RTVIType
RTVI_TYPE_BOT_TRANSCRIPTION: RTVIType
RTVI_TYPE_LLM_FUNCTION_CALL: RTVIType
RTVI_TYPE_LLM_TEXT: RTVIType
ERROR_CODE_UNSPECIFIED: ErrorCode
ERROR_CODE_PROTOCOL: ErrorCode
ERROR_CODE_VERSION: ErrorCode
ERROR_CODE_INTERNAL: ErrorCode
ERROR_CODE_TIMEOUT: ErrorCode
ERROR_CODE_MALFORMED: ErrorCode
VOICE_UNSPECIFIED: Voice
VOICE_JOE: Voice
VOICE_AMY: Voice
VOICE_LESSAC: Voice
VOICE_ALAN: Voice
VOICE_THORSTEN: Voice
VOICE_SIWIS: Voice
VOICE_PRATHAM: Voice
VOICE_PRIYAMVADA: Voice
VOICE_ESPEAK_MALE: Voice
VOICE_ESPEAK_FEMALE: Voice
LANGUAGE_UNSPECIFIED: Language
LANGUAGE_EN: Language
LANGUAGE_DE: Language
LANGUAGE_FR: Language
LANGUAGE_ES: Language
LANGUAGE_IT: Language
LANGUAGE_PT: Language
LANGUAGE_NL: Language
LANGUAGE_PL: Language
LANGUAGE_SV: Language
LANGUAGE_HI: Language
LANGUAGE_BN: Language
LANGUAGE_TA: Language
LANGUAGE_TE: Language
LANGUAGE_MR: Language
LANGUAGE_GU: Language
LANGUAGE_OR: Language
LANGUAGE_KN: Language
LANGUAGE_ML: Language
LANGUAGE_PA: Language
LANGUAGE_AS: Language
LANGUAGE_UR: Language
LANGUAGE_BHO: Language
LANGUAGE_MAI: Language
LANGUAGE_KOK: Language
LANGUAGE_SAT: Language
LANGUAGE_DOI: Language
LANGUAGE_MNI: Language
LANGUAGE_NE: Language
ISO_CODE_FIELD_NUMBER: _ClassVar[int]
iso_code: _descriptor.FieldDescriptor
RTVI_NAME_FIELD_NUMBER: _ClassVar[int]
rtvi_name: _descriptor.FieldDescriptor
SENT_BY_FIELD_NUMBER: _ClassVar[int]
sent_by: _descriptor.FieldDescriptor

class Envelope(_message.Message):
    __slots__ = ("session_start", "user_message", "user_idle", "interruption", "finalize", "response", "speech_start", "speech_chunk", "speech_end", "speech_cancel", "request", "rtvi", "end", "cancel", "error", "turn_step")
    SESSION_START_FIELD_NUMBER: _ClassVar[int]
    USER_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    USER_IDLE_FIELD_NUMBER: _ClassVar[int]
    INTERRUPTION_FIELD_NUMBER: _ClassVar[int]
    FINALIZE_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    SPEECH_START_FIELD_NUMBER: _ClassVar[int]
    SPEECH_CHUNK_FIELD_NUMBER: _ClassVar[int]
    SPEECH_END_FIELD_NUMBER: _ClassVar[int]
    SPEECH_CANCEL_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    RTVI_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    CANCEL_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TURN_STEP_FIELD_NUMBER: _ClassVar[int]
    session_start: SessionStart
    user_message: UserMessage
    user_idle: UserIdle
    interruption: Interruption
    finalize: Finalize
    response: Response
    speech_start: SpeechStart
    speech_chunk: SpeechChunk
    speech_end: SpeechEnd
    speech_cancel: SpeechCancel
    request: Request
    rtvi: RTVIFrame
    end: End
    cancel: Cancel
    error: Error
    turn_step: TurnStep
    def __init__(self, session_start: _Optional[_Union[SessionStart, _Mapping]] = ..., user_message: _Optional[_Union[UserMessage, _Mapping]] = ..., user_idle: _Optional[_Union[UserIdle, _Mapping]] = ..., interruption: _Optional[_Union[Interruption, _Mapping]] = ..., finalize: _Optional[_Union[Finalize, _Mapping]] = ..., response: _Optional[_Union[Response, _Mapping]] = ..., speech_start: _Optional[_Union[SpeechStart, _Mapping]] = ..., speech_chunk: _Optional[_Union[SpeechChunk, _Mapping]] = ..., speech_end: _Optional[_Union[SpeechEnd, _Mapping]] = ..., speech_cancel: _Optional[_Union[SpeechCancel, _Mapping]] = ..., request: _Optional[_Union[Request, _Mapping]] = ..., rtvi: _Optional[_Union[RTVIFrame, _Mapping]] = ..., end: _Optional[_Union[End, _Mapping]] = ..., cancel: _Optional[_Union[Cancel, _Mapping]] = ..., error: _Optional[_Union[Error, _Mapping]] = ..., turn_step: _Optional[_Union[TurnStep, _Mapping]] = ...) -> None: ...

class SessionStart(_message.Message):
    __slots__ = ("turn_id", "session_id", "init", "wire_version", "capabilities")
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    INIT_FIELD_NUMBER: _ClassVar[int]
    WIRE_VERSION_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    turn_id: int
    session_id: str
    init: str
    wire_version: int
    capabilities: _containers.RepeatedScalarFieldContainer[Capability]
    def __init__(self, turn_id: _Optional[int] = ..., session_id: _Optional[str] = ..., init: _Optional[str] = ..., wire_version: _Optional[int] = ..., capabilities: _Optional[_Iterable[_Union[Capability, str]]] = ...) -> None: ...

class UserMessage(_message.Message):
    __slots__ = ("turn_id", "text")
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    turn_id: int
    text: str
    def __init__(self, turn_id: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class UserIdle(_message.Message):
    __slots__ = ("turn_id", "level", "idle_ms")
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    LEVEL_FIELD_NUMBER: _ClassVar[int]
    IDLE_MS_FIELD_NUMBER: _ClassVar[int]
    turn_id: int
    level: int
    idle_ms: int
    def __init__(self, turn_id: _Optional[int] = ..., level: _Optional[int] = ..., idle_ms: _Optional[int] = ...) -> None: ...

class Interruption(_message.Message):
    __slots__ = ("through_turn",)
    THROUGH_TURN_FIELD_NUMBER: _ClassVar[int]
    through_turn: int
    def __init__(self, through_turn: _Optional[int] = ...) -> None: ...

class Finalize(_message.Message):
    __slots__ = ("speech_id", "heard_text")
    SPEECH_ID_FIELD_NUMBER: _ClassVar[int]
    HEARD_TEXT_FIELD_NUMBER: _ClassVar[int]
    speech_id: int
    heard_text: str
    def __init__(self, speech_id: _Optional[int] = ..., heard_text: _Optional[str] = ...) -> None: ...

class Response(_message.Message):
    __slots__ = ("request_id", "status", "detail")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    status: Status
    detail: str
    def __init__(self, request_id: _Optional[int] = ..., status: _Optional[_Union[Status, str]] = ..., detail: _Optional[str] = ...) -> None: ...

class SpeechStart(_message.Message):
    __slots__ = ("speech_id", "turn_id")
    SPEECH_ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    speech_id: int
    turn_id: int
    def __init__(self, speech_id: _Optional[int] = ..., turn_id: _Optional[int] = ...) -> None: ...

class SpeechChunk(_message.Message):
    __slots__ = ("speech_id", "text")
    SPEECH_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    speech_id: int
    text: str
    def __init__(self, speech_id: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class SpeechEnd(_message.Message):
    __slots__ = ("speech_id",)
    SPEECH_ID_FIELD_NUMBER: _ClassVar[int]
    speech_id: int
    def __init__(self, speech_id: _Optional[int] = ...) -> None: ...

class SpeechCancel(_message.Message):
    __slots__ = ("speech_id",)
    SPEECH_ID_FIELD_NUMBER: _ClassVar[int]
    speech_id: int
    def __init__(self, speech_id: _Optional[int] = ...) -> None: ...

class RTVIFrame(_message.Message):
    __slots__ = ("type", "data", "id", "turn_id")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    type: RTVIType
    data: str
    id: str
    turn_id: int
    def __init__(self, type: _Optional[_Union[RTVIType, str]] = ..., data: _Optional[str] = ..., id: _Optional[str] = ..., turn_id: _Optional[int] = ...) -> None: ...

class End(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Cancel(_message.Message):
    __slots__ = ("reason",)
    REASON_FIELD_NUMBER: _ClassVar[int]
    reason: str
    def __init__(self, reason: _Optional[str] = ...) -> None: ...

class Error(_message.Message):
    __slots__ = ("code", "message", "fatal")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    FATAL_FIELD_NUMBER: _ClassVar[int]
    code: ErrorCode
    message: str
    fatal: bool
    def __init__(self, code: _Optional[_Union[ErrorCode, str]] = ..., message: _Optional[str] = ..., fatal: _Optional[bool] = ...) -> None: ...

class TurnStep(_message.Message):
    __slots__ = ("turn_id", "kind", "name", "provider", "start_ms", "duration_ms", "first_output_ms", "counts")
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    TURN_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    START_MS_FIELD_NUMBER: _ClassVar[int]
    DURATION_MS_FIELD_NUMBER: _ClassVar[int]
    FIRST_OUTPUT_MS_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    turn_id: int
    kind: str
    name: str
    provider: str
    start_ms: int
    duration_ms: int
    first_output_ms: int
    counts: _containers.ScalarMap[str, int]
    def __init__(self, turn_id: _Optional[int] = ..., kind: _Optional[str] = ..., name: _Optional[str] = ..., provider: _Optional[str] = ..., start_ms: _Optional[int] = ..., duration_ms: _Optional[int] = ..., first_output_ms: _Optional[int] = ..., counts: _Optional[_Mapping[str, int]] = ...) -> None: ...

class Request(_message.Message):
    __slots__ = ("request_id", "configure")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    CONFIGURE_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    configure: Config
    def __init__(self, request_id: _Optional[int] = ..., configure: _Optional[_Union[Config, _Mapping]] = ...) -> None: ...

class Config(_message.Message):
    __slots__ = ("tts", "stt", "idle")
    TTS_FIELD_NUMBER: _ClassVar[int]
    STT_FIELD_NUMBER: _ClassVar[int]
    IDLE_FIELD_NUMBER: _ClassVar[int]
    tts: TtsConfig
    stt: SttConfig
    idle: IdleConfig
    def __init__(self, tts: _Optional[_Union[TtsConfig, _Mapping]] = ..., stt: _Optional[_Union[SttConfig, _Mapping]] = ..., idle: _Optional[_Union[IdleConfig, _Mapping]] = ...) -> None: ...

class TtsConfig(_message.Message):
    __slots__ = ("voice", "language")
    VOICE_FIELD_NUMBER: _ClassVar[int]
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    voice: Voice
    language: Language
    def __init__(self, voice: _Optional[_Union[Voice, str]] = ..., language: _Optional[_Union[Language, str]] = ...) -> None: ...

class SttConfig(_message.Message):
    __slots__ = ("language", "patience")
    LANGUAGE_FIELD_NUMBER: _ClassVar[int]
    PATIENCE_FIELD_NUMBER: _ClassVar[int]
    language: Language
    patience: int
    def __init__(self, language: _Optional[_Union[Language, str]] = ..., patience: _Optional[int] = ...) -> None: ...

class IdleConfig(_message.Message):
    __slots__ = ("timeout_ms",)
    TIMEOUT_MS_FIELD_NUMBER: _ClassVar[int]
    timeout_ms: int
    def __init__(self, timeout_ms: _Optional[int] = ...) -> None: ...
