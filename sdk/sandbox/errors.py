"""Errors a user sees as words, never as a traceback."""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix; the message says what happened and what to do next."""

    #: The command's exit status when this ends it.
    exit_status = 1


class UsageError(UserError):
    """The command line names something that is not there (a path, a script): exit 2, as
    a usage error argparse finds does, so a CI tells it from a test that failed (1)."""

    exit_status = 2
