"""Values spoken aloud: phone numbers, email addresses, reference codes, dates and times.

:func:`values` finds them in one line, written or spoken ("oh seven seven double four…",
"john dot smith at example dot com", "the twenty-third at half past two"), each with a
normalised value; :func:`mentions` says whether a line carries a value, said either way,
so a bot that reads "2:30" as "half past two" has read it back. Both sides go through the
same :func:`~sandbox.judges.spoken.normalise`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.judges.spoken import normalise, ordinal


class ValueKind(enum.StrEnum):
    """What kind of value a line carries; the word names it in the record."""

    PHONE = "phone"
    EMAIL = "email"
    CODE = "code"
    DATE = "date"
    TIME = "time"


PHONE, EMAIL, CODE, DATE, TIME = ValueKind

_NATO = {
    "alpha": "a", "alfa": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e",
    "foxtrot": "f", "golf": "g", "hotel": "h", "india": "i", "juliet": "j", "juliett": "j",
    "kilo": "k", "lima": "l", "mike": "m", "november": "n", "oscar": "o", "papa": "p",
    "quebec": "q", "romeo": "r", "sierra": "s", "tango": "t", "uniform": "u", "victor": "v",
    "whiskey": "w", "whisky": "w", "x-ray": "x", "xray": "x", "yankee": "y", "zulu": "z",
}  # fmt: skip
#: A code follows one of these ("my booking reference is A B C one two three").
_CODE_CUES = {
    "reference", "ref", "booking", "confirmation", "code", "order", "ticket", "case",
    "reservation", "account", "policy", "postcode", "zip",
}  # fmt: skip
_CODE_FILLER = {"number", "code", "reference", "id", "no", "is", "it's", "its", "was", ":", "'s"}
_MONTHS = (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
)  # fmt: skip
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_AM = {"am", "a.m", "morning"}
_PM = {"pm", "p.m", "afternoon", "evening", "tonight"}
#: Words before a bare hour that make it a time ("at three"), not a count.
_TIME_CUES = {"at", "by", "around", "about", "until", "till", "before", "after", "from"}
_MINUTES = {"quarter": 15, "half": 30}
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")
_CLOCK = re.compile(r"^(\d{1,2})(?:[:.](\d{2}))?(am|pm)?$")
_WRITTEN_EMAIL = re.compile(r"^[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}$")
_PHONE_PART = re.compile(r"^\(?\+?\d+(?:[-.]\d+)*\)?$")
#: What may sit between a number's groups: "(555) 123-4567", "oh seven seven, double four".
_PHONE_BREAKS = {"-", ",", ")"}
_WRITTEN_CODE = re.compile(r"^(?=[a-z0-9-]*\d)(?=[a-z0-9-]*[a-z])[a-z0-9]+(?:-[a-z0-9]+)*$")
_SLASH_DATE = re.compile(r"^\d{1,2}/\d{1,2}(?:/\d{2,4})?$")


@dataclass(frozen=True)
class Value:
    """One value found in a line: its kind, normalised value, and the words it came from
    (normalised)."""

    kind: ValueKind
    value: str
    said: str


def values(text: str) -> list[Value]:
    """Every value in ``text``, in the order said."""
    return _Finder(normalise(text).split()).run()


def mentions(found: Value, text: str) -> bool:
    """``text`` carries ``found``'s value, however it is said there."""
    words = normalise(text).split()
    if any(same(found, other) for other in _Finder(words).run()):
        return True
    if found.kind == CODE:  # a read-back need not name it a code: "that's A B C 1 2 3"
        return found.value in _code_stream(words).upper()
    if found.kind == PHONE:  # nor group it as the caller did
        digits = _code_stream(words)
        return any(v in digits for v in _phone_variants(found.value))
    return False


def same(a: Value, b: Value) -> bool:
    """Two values of one kind that name the same thing (a phone with or without its
    country code; a time with or without am/pm; a day with or without its month)."""
    if a.kind != b.kind:
        return False
    if a.kind == PHONE:
        return bool(set(_phone_variants(a.value)) & set(_phone_variants(b.value)))
    if a.kind == TIME:
        (ta, pa), (tb, pb) = _split_time(a.value), _split_time(b.value)
        return ta == tb and (pa == pb or not pa or not pb)
    if a.kind == DATE:
        return _date_matches(a.value, b.value)
    return a.value == b.value


def _phone_variants(number: str) -> list[str]:
    """The forms a number may be read back in: as given; without its trunk 0; and for an
    international number, its national forms (+44 7700… is 07700… and 7700…)."""
    out = [number.lstrip("+")]
    if number.startswith("0") and len(number) > 7:
        out.append(number[1:])
    if number.startswith("+"):
        bare = number[1:]
        out += [bare[n:] for n in (1, 2, 3) if len(bare) - n >= 7]
    return out


def _split_time(value: str) -> tuple[str, str]:
    clock, _, half = value.partition(" ")
    return clock, half


def _date_matches(a: str, b: str) -> bool:
    da, db = _date_parts(a), _date_parts(b)
    if da[0] is None or db[0] is None:
        return a == b  # a weekday or a written date: the same words
    return da[0] == db[0] and (da[1] == db[1] or not da[1] or not db[1])


def _date_parts(value: str) -> tuple[int | None, str]:
    """(day, month) of "23 march" or "the 23rd"; (None, "") for anything else."""
    day = re.match(r"^(?:the )?(\d{1,2})(?:st|nd|rd|th)?(?: (\w+))?$", value)
    if day is None:
        return None, ""
    return int(day.group(1)), day.group(2) or ""


def _code_stream(words: list[str]) -> str:
    """Letters and digits said one by one (or as a run), joined; other words break it."""
    out = []
    for word in words:
        letter = _NATO.get(word, word)
        out.append(letter if re.fullmatch(r"[a-z0-9+]+", letter) and len(letter) <= 12 else "|")
        if len(letter) > 1 and not re.fullmatch(r"[\d+]+|[a-z]*\d[a-z0-9]*", letter):
            out[-1] = "|"  # a plain word, not a run of letters and digits
    return "".join(out).replace("+", "")


class _Finder:
    """One pass over a line's normalised words; each word goes to one value at most."""

    def __init__(self, words: list[str]) -> None:
        self.words = words
        self.used = [False] * len(words)
        self.found: list[tuple[int, Value]] = []

    def run(self) -> list[Value]:
        passes: list[Callable[[int], int]] = [
            self._email,
            self._code,
            self._phone,
            self._time,
            self._date,
        ]
        for find in passes:
            i = 0
            while i < len(self.words):
                took = 0 if self.used[i] else find(i)
                i += max(took, 1)
        return [value for _, value in sorted(self.found, key=lambda f: f[0])]

    def _at(self, i: int) -> str:
        return self.words[i] if 0 <= i < len(self.words) and not self.used[i] else ""

    def _take(self, i: int, n: int, kind: ValueKind, value: str) -> int:
        self.found.append((i, Value(kind, value, " ".join(self.words[i : i + n]))))
        for j in range(i, i + n):
            self.used[j] = True
        return n

    # ---------------------------------------------------------------- emails

    def _email(self, i: int) -> int:
        word = self._at(i)
        if _WRITTEN_EMAIL.match(word):
            return self._take(i, 1, EMAIL, word)
        # Spoken: local ("john dot smith") at domain ("example dot com").
        local, j = self._dotted(i, {"dot": ".", "underscore": "_", "dash": "-", "hyphen": "-"})
        if not local or self._at(j) != "at":
            return 0
        domain, k = self._dotted(j + 1, {"dot": "."})
        if "." not in domain or not re.search(r"\.[a-z]{2,}$", domain):
            return 0
        return self._take(i, k - i, EMAIL, f"{local}@{domain}")

    def _dotted(self, i: int, joins: dict[str, str]) -> tuple[str, int]:
        """Labels joined by spoken separators from ``i``: the text and where it stopped."""
        part = self._at(i)
        if not re.fullmatch(r"[a-z0-9]+", part):
            return "", i
        text, j = part, i + 1
        while self._at(j) in joins and re.fullmatch(r"[a-z0-9]+", self._at(j + 1)):
            text += joins[self._at(j)] + self._at(j + 1)
            j += 2
        return text, j

    # ----------------------------------------------------------------- codes

    def _code(self, i: int) -> int:
        word = self._at(i)
        if word in _CODE_CUES:
            j = i + 1
            while self._at(j) in _CODE_FILLER:
                j += 1
            start, code = j, ""
            while self._at(j) and self._is_code_part(self._at(j)):
                code += _NATO.get(self._at(j), self._at(j)).replace("-", "")
                j += 1
            if len(code) >= 5 or (len(code) >= 3 and any(c.isdigit() for c in code)):
                return self._take(start, j - start, CODE, code.upper()) + (start - i)
            return 0
        written = _WRITTEN_CODE.match(word) and not (_CLOCK.match(word) or _ORDINAL.match(word))
        if written and len(word) >= 5:
            return self._take(i, 1, CODE, word.replace("-", "").upper())
        return 0

    @staticmethod
    def _is_code_part(word: str) -> bool:
        if word in _NATO or word.isdigit():
            return True
        return (len(word) == 1 and word.isalpha()) or bool(_WRITTEN_CODE.match(word))

    # ---------------------------------------------------------------- phones

    def _phone(self, i: int) -> int:
        j, digits, plus = i, "", False
        if self._at(j) == "plus":
            plus, j = True, j + 1
        if self._at(j) == "(":
            j += 1
        while True:
            part = self._at(j)
            if _PHONE_PART.match(part):
                plus = plus or (not digits and part.lstrip("(").startswith("+"))
                digits += re.sub(r"\D", "", part)
                j += 1
            elif part in _PHONE_BREAKS and digits and _PHONE_PART.match(self._at(j + 1)):
                j += 1  # a group read out with a pause: "oh seven seven, double four"
            else:
                break
        if not 7 <= len(digits) <= 15:
            return 0
        return self._take(i, j - i, PHONE, ("+" if plus else "") + digits)

    # ----------------------------------------------------------------- times

    def _time(self, i: int) -> int:
        word = self._at(i)
        if word in ("noon", "midday"):
            return self._take(i, 1, TIME, "12:00 pm")
        if word == "midnight":
            return self._take(i, 1, TIME, "12:00 am")
        # "half past 2", "quarter to 3", "20 past 3", and British "half 2".
        minutes = _MINUTES.get(word) or (int(word) if word.isdigit() and int(word) < 60 else 0)
        if minutes and self._at(i + 1) in ("past", "to") and self._hour(i + 2) is not None:
            hour = self._hour(i + 2) or 0
            if self._at(i + 1) == "to":
                hour, minutes = (hour - 2) % 12 + 1, 60 - minutes
            return self._clock(i, 3, hour, minutes)
        if word == "half" and self._hour(i + 1) is not None and self._at(i - 1) in _TIME_CUES:
            return self._clock(i, 2, self._hour(i + 1) or 0, 30)
        written = _CLOCK.match(word)
        if written is not None and (written.group(2) or written.group(3)):
            # "2:30", "14:30", "3pm", "3.30pm"
            hour, minutes = int(written.group(1)), int(written.group(2) or 0)
            if hour > 23 or minutes > 59:
                return 0
            return self._clock(i, 1, hour, minutes, written.group(3) or "")
        return self._spoken_clock(i)

    def _spoken_clock(self, i: int) -> int:
        """ "3 o'clock", "2 30", "at 3", "3 pm": an hour said as a number."""
        hour = self._hour(i)
        if hour is None:
            return 0
        nxt = self._at(i + 1)
        if nxt == "o'clock":
            return self._clock(i, 2, hour, 0)
        mins = self._minutes(i + 1)
        cue = self._at(i - 1) in _TIME_CUES
        if mins is not None:
            said, n = mins
            if cue or said in (15, 30, 45) or self._half_of_day(i + 1 + n):
                return self._clock(i, 1 + n, hour, said)
        if nxt in _AM | _PM or (cue and not nxt.isdigit()):
            return self._clock(i, 1, hour, 0)
        return 0

    def _hour(self, i: int) -> int | None:
        word = self._at(i)
        return int(word) if word.isdigit() and 1 <= int(word) <= 12 else None

    def _minutes(self, i: int) -> tuple[int, int] | None:
        """Minutes said after an hour: "30", "0 5" ("oh five"), with the words taken."""
        word = self._at(i)
        if word == "0" and self._at(i + 1).isdigit() and len(self._at(i + 1)) == 1:
            return int(self._at(i + 1)), 2
        if word.isdigit() and len(word) == 2 and 10 <= int(word) <= 59:
            return int(word), 1
        return None

    def _half_of_day(self, i: int) -> str:
        word = self._at(i)
        if word in ("am", "a.m"):
            return "am"
        if word in ("pm", "p.m"):
            return "pm"
        if word == "in" and self._at(i + 1) == "the" and self._at(i + 2) in _AM | _PM:
            return "am" if self._at(i + 2) in _AM else "pm"
        return "pm" if word == "tonight" else ""

    def _clock(self, i: int, n: int, hour: int, minutes: int, half: str = "") -> int:
        if not half:  # said after the clock: "2 30 pm", "3 in the afternoon"
            half = self._half_of_day(i + n)
            if half:
                n += 1 if self._at(i + n) in ("am", "a.m", "pm", "p.m", "tonight") else 3
        if hour > 12:
            hour, half = hour - 12, "pm"
        elif hour == 0:
            hour, half = 12, "am"
        value = f"{hour}:{minutes:02d}" + (f" {half}" if half else "")
        return self._take(i, n, TIME, value)

    # ----------------------------------------------------------------- dates

    def _date(self, i: int) -> int:
        word = self._at(i)
        if _SLASH_DATE.match(word):
            return self._take(i, 1, DATE, word)
        if word in _MONTHS:  # "march 23", "march the 23rd"
            j = i + 2 if self._at(i + 1) == "the" else i + 1
            day = self._day(self._at(j))
            return self._take(i, j + 1 - i, DATE, f"{day} {word}") if day else 0
        if word in _WEEKDAYS:
            j = i + 2 if self._at(i + 1) == "the" else i + 1
            if _ORDINAL.match(self._at(j)):
                return self._dated(j, ordinal_only=False) + (j - i) if self._day(self._at(j)) else 0
            return self._take(i, 1, DATE, word)
        if self._day(word) is None:
            return 0
        if self._month_after(i) is not None:  # "23rd of march", "23 march"
            return self._dated(i, ordinal_only=False)
        if _ORDINAL.match(word) and self._at(i - 1) == "the":  # "the 23rd", not "a 2nd"
            return self._dated(i, ordinal_only=True)
        return 0

    def _dated(self, i: int, *, ordinal_only: bool) -> int:
        """A day at ``i``, with its month if one follows ("23rd of march", "23 march")."""
        day = self._day(self._at(i)) or 0
        month = self._month_after(i)
        if month is not None:
            name, n = month
            return self._take(i, 1 + n, DATE, f"{day} {name}")
        if ordinal_only and not _ORDINAL.match(self._at(i)):
            return 0
        if ordinal_only and self._at(i + 1) not in ("", "at", ",", ".", "?", "!", "then"):
            return 0  # "first name", "second thought": an ordinal, not a day
        return self._take(i, 1, DATE, f"the {ordinal(day)}")

    def _month_after(self, i: int) -> tuple[str, int] | None:
        if self._at(i + 1) in _MONTHS:
            return self._at(i + 1), 1
        if self._at(i + 1) == "of" and self._at(i + 2) in _MONTHS:
            return self._at(i + 2), 2
        return None

    @staticmethod
    def _day(word: str) -> int | None:
        match = _ORDINAL.match(word) or re.fullmatch(r"(\d{1,2})", word)
        if match is None:
            return None
        day = int(match.group(1))
        return day if 1 <= day <= 31 else None
