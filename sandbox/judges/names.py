"""Names on a call, guarded: a form of address is never a name, and a name the bot uses
that the caller never said is flagged.

Speech makes names fragile: a transcript turns "love" or "mate" into a proper noun, and a
bot that says "Thanks, Sarah" to a caller who never said Sarah has invented a person.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

#: Words people are addressed by that are not their names.
FORMS_OF_ADDRESS = frozenset(
    {
        "sir", "madam", "ma'am", "mam", "maam", "miss", "mister", "mr", "mrs", "ms", "love",
        "luv", "mate", "boss", "buddy", "bud", "pal", "dear", "darling", "honey", "hon",
        "hun", "sweetheart", "sweetie", "babe", "friend", "chief", "guv", "man", "dude",
        "bro", "fella", "lad", "lass", "son", "sport", "champ", "folks", "petal", "duck",
        "pet", "my", "gentlemen", "ladies", "everyone", "there", "all", "guys", "caller",
        "customer", "lady", "gent", "squire", "cock", "chap", "doll", "sugar", "kid",
        # kin, as a family addresses them and a caller names themself: "Hi, it's Mum here"
        "mum", "mom", "mummy", "mommy", "mama", "mamma", "momma", "ma", "mother", "dad",
        "daddy", "da", "pa", "papa", "pop", "pops", "father", "nan", "nana", "nanna",
        "nanny", "gran", "granny", "grandma", "grandmother", "grandpa", "grandad",
        "granddad", "grandfather", "gramps", "grampa", "nonna", "nonno", "oma", "opa",
        "auntie", "aunty", "aunt", "uncle", "sis", "sister", "brother", "daughter", "cousin",
        "niece", "nephew", "wife", "husband", "hubby", "partner", "grandson",
        "granddaughter", "stepmum", "stepmom", "stepdad",
        # roles people are addressed by: "Thanks, Doctor" ("Doctor Patel" keeps its name)
        "doctor", "doc", "nurse", "officer", "captain", "coach", "sarge", "teacher",
    }
)  # fmt: skip
#: Capitalised words after "Thanks," that are never a name.
_NOT_NAMES = frozenset(
    {
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
        "january", "february", "march", "april", "may", "june", "july", "august",
        "september", "october", "november", "december", "i", "we", "you", "it", "that",
        "this", "so", "and", "but", "the", "a", "an", "please", "again", "today", "now",
        "then", "too", "anyway", "everybody", "goodbye", "bye", "ok", "okay",
    }
)  # fmt: skip
_GREETING = (
    r"(?:hi|hello|hey|thanks|thank you|cheers|bye|goodbye|of course|sure|okay|ok|right|"
    r"great|sorry|welcome|morning|good morning|good afternoon|good evening|no problem|"
    r"absolutely|certainly|perfect|lovely|yes|brilliant|nice to meet you|take care)"
)
#: "Thanks, Sarah." / "Hello John!" / "... for you, Sarah?": a word said to the caller.
_VOCATIVE = re.compile(
    rf"(?i:\b{_GREETING})[,!]?\s+([A-Z][\w'-]*)(?=\s*(?:[,.!?]|$))"
    r"|,\s*([A-Z][\w'-]*)\s*[.!?]"
)
#: Words that follow an opener ("call me", "I'm", "my name is") without being a name: time
#: and place words, pronouns, negations, fillers, the states people say they are in, what
#: they say they are doing, who they are to a business, and proper words that are not
#: people (days, months, holidays, nationalities, faiths, places). Rather no name than a
#: wrong one: a real name on this list is lost, and the caller is asked again next time.
_NEVER_GIVEN = _NOT_NAMES | frozenset(
    {
        # when and where: "call me back tomorrow", "call me later", "call me at home"
        "back", "tomorrow", "tonight", "later", "soon", "anytime", "any", "whenever",
        "sometime", "asap", "first", "after", "before", "once", "when", "if", "while",
        "morning", "afternoon", "evening", "night", "weekend", "week", "directly", "instead",
        "up", "on", "at", "in", "from", "with", "about", "for", "by", "of", "to", "into",
        "over", "here", "there", "home", "work", "out", "off", "down", "around",
        # who: "it's me", "this is him", "call me someone"
        "me", "him", "her", "them", "us", "they", "he", "she", "someone", "somebody",
        "anyone", "anybody", "nobody", "everyone", "all", "my", "your", "his", "their",
        "our", "one", "who", "what", "which", "how", "why", "where", "whatever",
        # not, and fillers: "my name is not important", "I am, um"
        "not", "no", "never", "nothing", "none", "neither", "um", "uh", "er", "erm", "ah",
        "oh", "well", "like", "yes", "yeah", "yep", "hello", "hi", "hey", "thanks", "thank",
        "sorry", "sure", "just", "only", "also", "still", "really", "very", "quite",
        "actually", "probably", "maybe", "definitely", "going", "gonna",
        # what they are doing: "I'm calling about", "this is regarding"
        "calling", "ringing", "phoning", "looking", "trying", "wondering", "hoping",
        "waiting", "interested", "speaking", "talking", "asking", "writing", "regarding",
        "returning", "following", "checking", "having", "getting", "doing",
        # how they are, and what they say of the name: "I'm fine", "my name is unusual"
        "fine", "good", "great", "alright", "afraid", "glad", "happy",
        "confused", "lost", "new", "old", "busy", "free", "available", "ready", "done",
        "finished", "tired", "worried", "concerned", "unsure", "certain", "important",
        "irrelevant", "private", "confidential", "different", "long", "short", "hard",
        "easy", "difficult", "unusual", "complicated", "spelled", "spelt", "same", "right",
        "wrong", "correct", "sick", "ill", "late", "early", "away",
        "crazy", "mad", "stupid", "silly", "old-fashioned", "anything",
        "everything", "something", "cold", "hot", "true", "real", "hungry", "thirsty",
        "retired", "upset", "angry", "annoyed", "frustrated", "disappointed", "furious",
        "unhappy", "sad", "scared", "nervous", "anxious", "stressed", "excited", "pleased",
        "delighted", "grateful", "pregnant", "unemployed", "disabled", "deaf", "blind",
        "married", "divorced", "single", "widowed", "elderly", "stuck", "desperate",
        "embarrassed", "unwell", "poorly", "better", "worse", "outside", "abroad", "local",
        "nearby", "self-employed", "freelance", "struggling", "annoying", "starving",
        # who they are to a business, not a name: "Hi, it's Reception", "This is Security"
        "reception", "receptionist", "security", "neighbour", "neighbor", "landlord",
        "landlady", "tenant", "manager", "management", "accounts", "billing", "admin",
        "maintenance", "housekeeping", "dispatch",
        # proper words that are not people
        "christmas", "easter", "halloween", "xmas", "british", "english", "irish",
        "scottish", "welsh", "american", "canadian", "australian", "indian", "pakistani",
        "chinese", "japanese", "german", "french", "spanish", "italian", "polish",
        "dutch", "swedish", "african", "european", "asian", "muslim", "christian",
        "catholic", "jewish", "hindu", "sikh", "buddhist", "vegan", "vegetarian",
        # places that are not also given names ("This is London calling"); Paris, Sydney,
        # Florence, Chelsea, Austin and the like are, and are left to the caller
        "london", "manchester", "birmingham", "leeds", "liverpool", "glasgow", "edinburgh",
        "cardiff", "belfast", "dublin", "bristol", "newcastle", "sheffield", "nottingham",
        "leicester", "coventry", "oxford", "cambridge", "brighton", "york", "england",
        "scotland", "wales", "britain", "ireland", "europe", "america", "canada",
        "australia", "germany", "france", "spain", "italy", "poland", "berlin", "tokyo",
        "madrid", "amsterdam", "toronto", "chicago", "seattle", "moscow", "mumbai", "delhi",
        "lagos", "nairobi", "singapore", "dubai",
        # before "speaking" without being who speaks: "Generally speaking", "Am I speaking"
        "am", "is", "are", "was", "were", "be", "been", "do", "does", "did", "can",
        "could", "will", "would", "should", "shall", "might", "must", "has", "had",
        "generally", "frankly", "honestly", "strictly", "technically", "roughly",
        "broadly", "legally", "personally", "relatively", "practically", "loosely",
        "realistically", "medically", "financially", "public",
    }
)  # fmt: skip
#: Titles that may stand before a name: "this is Dr Patel" gives "Dr Patel".
_TITLES = {"mr": "Mr", "mrs": "Mrs", "ms": "Ms", "miss": "Miss", "mister": "Mister",
           "dr": "Dr", "doctor": "Doctor"}  # fmt: skip
#: Words that make a capitalised run a business, not a person ("this is Acme Plumbing").
_BUSINESS = frozenset(
    {
        "ltd", "limited", "inc", "corp", "company", "co", "group", "services", "service",
        "support", "plumbing", "bank", "insurance", "solutions", "dental", "clinic",
        "surgery", "hotel", "restaurant", "team", "office", "department", "customer",
        "sales", "store", "shop", "motors", "garage", "agency", "council", "hospital",
        "pharmacy", "school", "university", "airways", "airlines", "energy", "telecom",
    }
)  # fmt: skip
#: How each opener offers a name: strict ("my name is", which may be lowercase in a typed
#: line), call (a strict "call me", but only capitalised: "call me crazy"), plain ("this
#: is", "I'm": a capitalised word only), its ("it's": only when something confirms it).
_OPENER = re.compile(
    r"\b(?:(?P<strict>my name is|my name's|the name is|the name's)"
    r"|(?P<call>call me)|(?P<plain>this is|i'm|i am)|(?P<its>it's|it is))(?:\s*,\s*|\s+)",
    re.IGNORECASE,
)
#: Told not to: "don't call me Sam", "I'm not", "never call me".
_NEGATED = re.compile(r"(?:n't|\bnot|\bnever|\bdont)\s+(?:\w+\s+)?$", re.IGNORECASE)
#: A greeting just before the opener: "Hi, it's Sam" (an "it's" needs this, or a "here").
_GREETED = re.compile(r"\b(?:hi|hello|hey|hiya|yes|yeah|oh)\W*$", re.IGNORECASE)
#: What may follow a name "it's" gave: "it's Sam here", "it's Sam calling".
_ITS_CONFIRMED = frozenset({"here", "speaking", "calling", "again", "from"})
#: What may follow a lowercase name in a typed line: "my name is jo and I need".
_AFTER_LOWER = frozenset({"and", "from", "here", "speaking", "calling", "but", "so", "i"})
#: Lowercase endings of words that describe rather than name ("my name is complicated").
_DESCRIBING = ("ed", "ing", "ly", "ous", "ent", "ant", "ive", "ble", "ful", "less",
               "ial", "ical", "ary", "ory", "ate")  # fmt: skip
#: "Sam speaking" / "Hello, Tom Baker speaking": a capitalised name at a clause's start.
_SPEAKING = re.compile(r"\bspeaking\b")
#: Where a clause starts: the line's start, a stop or comma, or a greeting.
_CLAUSE_START = re.compile(r"(?:^|[,.;!?]|\b(?i:hi|hello|hey|yes|yeah))\W*$")
_CLAUSE_END = re.compile(r"[.,;:!?]")
_FILLERS = re.compile(r"^(?:(?:um+|uh+|erm?|ah+|well|actually|just|like)\b[\s,]*)+", re.I)
#: A word of letters in any script ("Zoë", "José"), an apostrophe or hyphen inside it.
_WORD = re.compile(r"[^\W\d_]+(?:['-][^\W\d_]+)*")
_THE_CALLER = re.compile(r"\bthe caller\b", re.IGNORECASE)


def is_form_of_address(word: str) -> bool:
    """``word`` is a way of addressing someone ("sir", "mate"), never their name."""
    return word.strip(" ,.!?").lower() in FORMS_OF_ADDRESS


def addressed_as(bot_line: str) -> list[str]:
    """The words the bot addressed the caller by in ``bot_line`` (names and forms of
    address alike), in order."""
    out = []
    for match in _VOCATIVE.finditer(bot_line):
        word = match.group(1) or match.group(2)
        if word.lower() not in _NOT_NAMES:
            out.append(word)
    return out


def introduced(caller_line: str) -> str | None:
    """The name the caller gave in ``caller_line``, or None: rather no name than a wrong
    one. An opener ("my name is", "call me", "this is", "I'm", "it's", "… speaking") must
    be followed by a word that can be a name: capitalised (a lowercase one only after "my
    name is", ending its clause), not a word on the never-given list ("call me back
    tomorrow", "my name is not important", "I'm calling about"), not negated ("don't call
    me Sam"), not asked ("this is Sam?"), not possessive ("this is Sam's phone"), not a
    business ("this is Acme Plumbing"). A form of address is refused (see :func:`refused`).
    A name may run to three capitalised words ("this is Tom Baker") after a title
    ("Dr Patel")."""
    return next((name for name, ok in _offered(caller_line) if ok), None)


def refused(caller_line: str) -> str | None:
    """A form of address the caller offered where a name goes ("call me boss"), if any."""
    return next((word for word, ok in _offered(caller_line) if not ok), None)


def _offered(caller_line: str) -> Iterator[tuple[str, bool]]:
    """Each name the caller offered, in order, and whether it may be kept as one (False: a
    form of address offered as a name)."""
    line = re.sub(r"\b(Mr|Mrs|Ms|Dr)\.", r"\1", caller_line.replace("\u2019", "'"))
    found: list[tuple[int, str, bool]] = []
    for match in _OPENER.finditer(line):
        kind = match.lastgroup or ""
        if _NEGATED.search(line[: match.start()]):
            continue
        offer = _after_opener(kind, line[: match.start()], line[match.end() :])
        if offer is not None:
            found.append((match.start(), *offer))
    for match in _SPEAKING.finditer(line):
        spoken = _speaking(line[: match.start()])
        if spoken is not None:
            found.append((match.start(), spoken, True))
    for _, word, ok in sorted(found):
        yield word, ok


def _after_opener(kind: str, before: str, after: str) -> tuple[str, bool] | None:
    """What an opener of ``kind`` offers in the text ``after`` it, if anything."""
    if kind == "strict":
        after = _FILLERS.sub("", after)
    cut = _CLAUSE_END.search(after)
    clause, end = (after[: cut.start()], cut.group()) if cut else (after, "")
    words = clause.split()
    if not words or end == "?":
        return None
    first = words[0]
    titled = first.lower() in _TITLES and len(words) > 1 and words[1][:1].isupper()
    if is_form_of_address(first) and not titled and first.lower() not in _NEVER_GIVEN:
        return (first, False) if kind in ("strict", "call") else None
    if not first[:1].isupper():
        return _lowercase(words) if kind == "strict" else None
    name = _capitalised_run(words)
    if name is None or (kind == "its" and not _its_confirmed(before, words, name)):
        return None
    return name, True


def _speaking(before: str) -> str | None:
    """The name right before a "speaking" (``before`` is the line up to it), one to three
    capitalised words starting a clause, or None."""
    words = before.split()
    for count in (3, 2, 1):
        if len(words) < count:
            continue
        head = before.rstrip()
        for word in words[-count:][::-1]:
            head = head[: -len(word)].rstrip()
        name = _capitalised_run(words[-count:])
        if name is not None and len(name.split()) == count and _CLAUSE_START.search(head):
            return name
    return None


def _capitalised_run(words: list[str]) -> str | None:
    """The name a run of capitalised words at the start of ``words`` spells (a title may
    lead it), or None when any of it shows it is not one."""
    title = _TITLES.get(words[0].lower()) if len(words) > 1 else None
    run = [title] if title else []
    for word in words[1:] if title else words:
        if not word[:1].isupper():
            break
        if word.endswith(("'s", "'")) or word.lower() in _BUSINESS:
            return None  # someone's phone, or a firm: not the caller's own name
        lower = word.lower()
        if lower in _NEVER_GIVEN or lower in FORMS_OF_ADDRESS or not _name_like(word):
            break
        if len(run) == 3 + bool(title):
            return None  # four words and more: more likely a title or a firm than a name
        run.append(word)
    rest = words[len(run) :]
    if not run or run == [title] or (rest and rest[0].lower() in _BUSINESS):
        return None
    return " ".join(run)


def _name_like(word: str) -> bool:
    """Letters (an apostrophe or hyphen inside), not an acronym ("NHS", "BT")."""
    return bool(_WORD.fullmatch(word)) and not (len(word) > 1 and word.isupper())


def _lowercase(words: list[str]) -> tuple[str, bool] | None:
    """A lowercase name after "my name is" (a typed line): one word that is not a word
    describing something, ending its clause or followed by "and", "from", …"""
    word = words[0]
    if (
        not _name_like(word)
        or word in _NEVER_GIVEN
        or (len(word) >= 6 and word.endswith(_DESCRIBING))
        or (len(words) > 1 and words[1].lower() not in _AFTER_LOWER)
    ):
        return None
    return word.capitalize(), True


def _its_confirmed(before: str, words: list[str], name: str) -> bool:
    """An "it's" introduction: a greeting before it, or "here", "speaking", … after it."""
    following = words[len(name.split()) : len(name.split()) + 1]
    return bool(_GREETED.search(before)) or bool(
        following and following[0].lower() in _ITS_CONFIRMED
    )


def said_by_caller(name: str, caller_lines: Sequence[str]) -> bool:
    """The caller said ``name`` (as a word, any case) in one of their lines."""
    pattern = re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE)
    return any(pattern.search(line) for line in caller_lines)


def calls_them_the_caller(bot_line: str) -> bool:
    """The bot spoke of the person on the line as "the caller"."""
    return bool(_THE_CALLER.search(bot_line))
