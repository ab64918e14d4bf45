"""The asyncio host: dialing the brain and running a call around the sans-I/O core.

It sits on the audio engine, the core and the record; who the caller is (a script, a WAV
file, a voice) lives a layer up, in :mod:`sandbox.caller`."""
