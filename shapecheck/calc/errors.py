"""The calculator's error for bad input from the user, shared by the session and the evaluator."""

from __future__ import annotations


class UsageError(ValueError):
    """Bad input from the user: printed as one line, exit code 2."""
