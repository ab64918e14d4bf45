"""Caller scripts run as tests: ``sandbox test``'s runner, its JUnit file, the pytest plugin."""
