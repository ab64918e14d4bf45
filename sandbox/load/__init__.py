"""Load-testing a brain: many simulated calls at once, on one machine (``sandbox load``) or
many (the Locust user class in :mod:`sandbox.load.locust`)."""
