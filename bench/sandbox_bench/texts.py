"""What the bench says: typical bot replies (Piper) and caller lines (espeak-ng).

Bot replies hold no numbers: Whisper writes numbers as digits or words as it pleases, which
would make word counts differ for reasons that have nothing to do with playout.
"""

from __future__ import annotations

#: Typical replies of a receptionist brain, several sentences each.
BOT_REPLIES = (
    "Our opening hours are on your screen now. We're open early on weekdays and a little "
    "later at the weekend.",
    "There's parking behind the building, and the bus stops right outside the front door.",
    "Your first class is free, so you can try us out before you decide. Would you like to "
    "book one?",
    "Sorry, I'm not sure I can help with that. I can tell you about our prices, our opening "
    "hours, or how to find us.",
    "The busiest classes are the early evening ones, so book those a day ahead.",
    "I've put our prices on your screen. A single class is cheaper than you might think.",
)

#: Complete sentences a caller says to the echo brain (each reads as a finished thought).
CALLER_TURNS = (
    "I would like to book a table for two.",
    "Can you tell me what time you close today?",
    "My name is Sam and I am calling about my booking.",
    "Please send the confirmation to my email.",
    "I think that is everything for now.",
)

#: Typed questions that make the concierge give a long reply (to barge in on).
LONG_REPLY_QUESTIONS = (
    "What are your opening hours?",
    "How much does a class cost?",
    "Where can I find you?",
)

#: What callers say over the bot to take the floor, in several phrasings.
OBJECTIONS = (
    "Sorry, thanks, but that is all I needed today.",
    "Wait, can you tell me about parking instead?",
    "Hold on, I have a different question.",
    "Actually, I would rather book a class for tomorrow.",
    "Excuse me, how much is a single class?",
)

#: Typed caller turns for the echo replies: short answers first, so a quick run is quick.
ECHO_PROMPTS = (
    "Hello there.",
    "Thanks!",
    "Where can I find you?",
    "What are your prices?",
    "When are you open?",
    "Do you sell gift cards?",
    "Can you say that again?",
)

#: Caller utterances of about 2 s and 5 s for Whisper's real-time factor.
STT_UTTERANCES = (
    "Can I book a class?",
    "I would like to book a class for tomorrow evening if you still have some space.",
)
