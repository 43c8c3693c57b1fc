"""What the command line tells the user: exit statuses and one-line error messages.

Shared by :mod:`microanon.apps.cli` and the child process that runs ``microanon query``
(:mod:`microanon.apps.query_process`), which answers with the same statuses and lines.
"""

from __future__ import annotations

__all__ = ["EXIT_CODES", "one_line", "os_message"]

#: Exit status of the commands: success, a privacy requirement that does not hold, bad input.
EXIT_CODES = {"ok": 0, "does not hold": 1, "bad input": 2}


def one_line(message: str) -> str:
    """``message`` on one line (multi-line messages, e.g. DuckDB's, joined with spaces)."""
    return " ".join(part.strip() for part in str(message).splitlines() if part.strip())


def os_message(exc: OSError) -> str:
    """``path: reason`` for an operating-system error on a user's path."""
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return reason
    where = str(exc.filename)
    if exc.filename2 is not None:
        where += f" -> {exc.filename2}"
    return f"{where}: {reason}"
