"""Running a brain against the real call core: the conformance driver, in-process calls and
the built-in brains served on loopback. This layer sits above both the brain SDK and the
host, so neither needs the other."""

from sandbox.harness.driver import DriverError, HeardUnit, VoqalizeDriver

__all__ = ["DriverError", "HeardUnit", "VoqalizeDriver"]
