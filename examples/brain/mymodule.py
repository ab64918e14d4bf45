from sandbox.sdk import Brain, SpeechChunk, SpeechEnd, SpeechStart

class Greeter(Brain):
    def __init__(self):
        self.history = []  # what the caller said, and what they heard of the replies

    async def greet(self, session):
        return "Hi! How can I help?"

    async def on_user_message(self, session, msg):
        self.history.append({"role": "user", "text": msg.text})
        yield SpeechStart()
        yield SpeechChunk(f"You said: {msg.text}")
        yield SpeechEnd()

    async def on_finalize(self, session, fin):
        if fin.heard:  # fin.heard is what belongs in history; fin.interrupted == (heard != generated)
            self.history.append({"role": "assistant", "text": fin.heard})
