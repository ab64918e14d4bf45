"""Errors a user sees as words, never as a traceback."""

from __future__ import annotations


class UserError(Exception):
    """Something the user can fix; the message says what happened and what to do next."""
