"""The keys of ``sandbox bench --languages``, declared once as the other modes' are
(:mod:`sandbox_bench.mode_keys`). Targets from issue 54, set after a first run on the
project's 2-core machine: turn-taking within 15 % of English, and heard text exact at every
cut in every language."""

from __future__ import annotations

from sandbox_bench.bench_key import BenchKey, Stage, Target

LANGUAGES = Stage(
    "languages",
    "each language the sandbox serves (and English): sandbox run --language CODE through the "
    "virtual devices, an espeak-ng caller in that language, a brain that answers in it, timed "
    "from outside as the caller meets it",
    (
        BenchKey("language_turns", "integer", "count", "measured caller turns in each language"),
        BenchKey(
            "languages",
            "object",
            None,
            "each language by code (English's row first, for comparison): the recognizer "
            "that hears it, its load time (s) and the resident memory it adds (MB), "
            "each in a process of its own; turns measured and never answered; the recognizer's "
            "word error rate on the caller's turns (words split as the floor judge splits "
            "them, any script; a word written in another script is an error); end of speech → "
            "first audio (median, slowest) and its ratio to English's median; how the "
            "endpointer closed the turns (a count by reason: final, confident, silence); "
            "barge-in onset "
            "→ the bot silent (median) and the barge-ins that became a turn; the language's "
            "own backchannels over the bot: the share that started a turn and the share after "
            "which the bot sounded again; heard text at every cut (cuts, the exact share, the "
            "most words off, and how it was checked); the app's peak resident memory (MB); "
            "each turn's text said and heard",
        ),
        BenchKey(
            "languages_first_audio_ratio_max",
            "number",
            "x",
            "the slowest language's end of speech → first audio (median) over English's",
            target=Target("max", 1.15),
        ),
        BenchKey(
            "languages_cuts_exact_fraction_min",
            "number",
            "frac",
            "of every language, the least share of cuts whose heard text was exactly the "
            "prefix the speaker leg played",
            target=Target("min", 1.0),
        ),
        BenchKey("languages_elapsed_s", "number", "s", "the whole run"),
    ),
)
