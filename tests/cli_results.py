"""How the tests run the command line and read a refusal."""

from __future__ import annotations

from click.testing import CliRunner, Result

from microanon.apps.cli import main


def run_cli(*args: object) -> Result:
    """``microanon`` with ``args`` (each as text), through click's test runner."""
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(result: Result) -> str:
    """The one line a refusal prints: exit code 2, nothing on stdout, no traceback, a single
    ``Error: ...`` line on stderr."""
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]
