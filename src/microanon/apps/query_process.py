"""``microanon query`` in a child process, under a time limit and an address-space limit.

DuckDB's memory limit bounds what its buffer manager hands out, not the strings and lists that a
function builds while it evaluates a batch of rows: ``repeat(sex, 1000000)`` in a ``WHERE``
condition reached 9.3 GB of memory under the default limit of 4 GiB, and 9.5 GB under
``--memory-limit 512MB``. And DuckDB notices an interruption only between batches of rows: queries
interrupted after 3 s went on for 17 to 99 s. So the command does not run the query itself:

- the child loads the release (and the original table), applies the limits, and then caps its own
  address space (``RLIMIT_AS``) at what it maps at that moment plus the memory limit plus
  :data:`HEADROOM` plus :data:`ARENA` per thread. The cap is relative because Python, pandas and
  DuckDB alone map about 2 GB (mostly never touched) and the loaded tables vary; the headroom is
  for what is not DuckDB's buffer memory (the selected rows as pandas objects, numpy's counts,
  the text of the answer), the arenas for the 64 MiB of address space that glibc reserves for
  each thread that allocates. An allocation beyond the cap fails, and DuckDB, numpy and Python
  turn that into an out-of-memory error. The command's own process keeps no limit, and a Python
  program calling :func:`microanon.query.query` is never capped;
- the child interrupts DuckDB after ``--timeout`` seconds (``query(timeout=)``) and the parent
  kills the child :data:`GRACE` seconds later, so the limit holds even inside one function call.

The child starts with ``python -c`` without the current directory on its import path (a
``microanon`` folder there is never imported), reads its request as JSON on stdin, tells the
parent on a pipe when the query starts (the time limit counts from then, not from loading the
files) and writes its answer as JSON on the last line of stdout. Nothing is printed until the
child has answered: a query that is stopped leaves no partial output.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from typing import Any, NamedTuple

from ..core.errors import InputError, MicroanonError

__all__ = ["Outcome", "run_query", "serve", "HEADROOM", "ARENA", "GRACE"]

#: Address space the query may map beyond DuckDB's memory limit, whatever the thread count.
HEADROOM = 256 * 2**20
#: Address space per DuckDB thread: glibc reserves a 64 MiB malloc arena for each.
ARENA = 64 * 2**20
#: Seconds the parent waits past ``--timeout`` for DuckDB to notice its interruption.
GRACE = 1.0

_CHILD = "import sys; del sys.path[0]; from microanon.apps.query_process import serve; serve()"
_UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
_RENDERED = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(bytes|[KMGTP]iB)\s*")


class Outcome(NamedTuple):
    """What the command prints and its exit status: ``out`` on stdout, ``err`` on stderr."""

    status: int
    out: str
    err: str


# ------------------------------------------------------------------------------------ parent
def run_query(request: dict[str, Any]) -> Outcome:
    """Answer a ``microanon query`` request in a child process (see the module documentation).

    Parameters
    ----------
    request : dict
        ``release_dir``, ``sql``, ``original`` (a path or ``None``), ``memory_limit``,
        ``threads``, ``timeout`` (the option's text or ``None``), ``as_json`` and ``read`` (the
        CSV options), as the command received them.

    Returns
    -------
    Outcome
        Status 0 (answered), 1 (a true answer outside its bounds) or 2 (bad input, or a query
        stopped by a limit), with one line on ``err`` unless the status is 0.
    """
    status_read, status_write = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            child = subprocess.Popen(
                [sys.executable, "-c", _CHILD, str(status_write)],
                stdin=subprocess.PIPE,
                stdout=out,
                stderr=err,
                pass_fds=(status_write,),
            )
        finally:
            os.close(status_write)
        with os.fdopen(status_read, encoding="utf-8") as report:
            _send(child, request)
            started = report.readline()  # empty when the child ends before the query starts
        limits = json.loads(started) if started else {}
        stopped = _wait(child, limits.get("timeout"))
        out.seek(0)
        err.seek(0)
        return stopped or _outcome(child.returncode, out.read(), err.read(), limits)


def _send(child: subprocess.Popen[bytes], request: dict[str, Any]) -> None:
    """Write the request to the child's stdin (a child that died at once reads nothing)."""
    assert child.stdin is not None
    try:
        child.stdin.write(json.dumps(request).encode())
        child.stdin.close()
    except BrokenPipeError:
        pass


def _wait(child: subprocess.Popen[bytes], timeout: float | None) -> Outcome | None:
    """Wait for the child; kill it :data:`GRACE` seconds past its time limit."""
    if timeout is None:
        child.wait()
        return None
    try:
        child.wait(timeout=timeout + GRACE)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        return Outcome(2, "", _timed_out(timeout))
    return None


def _timed_out(timeout: float) -> str:
    return (
        f"query: stopped after {timeout:g} s, the time limit (--timeout); simplify the condition "
        "or raise the limit"
    )


def _outcome(code: int, out: bytes, err: bytes, limits: dict[str, Any]) -> Outcome:
    """The child's answer (the last line of its stdout), or why there is none."""
    lines = out.decode("utf-8", "replace").strip().splitlines()
    try:
        answer = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        answer = None
    if isinstance(answer, dict):  # complete, whatever happened after it was written
        return Outcome(answer["status"], answer["out"], answer["err"])
    if code < 0:
        return Outcome(2, "", _killed(-code, limits.get("budget")))
    problem = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
    reason = f": {problem[-1].strip()}" if problem else ""
    return Outcome(2, "", f"query: the query process failed with exit status {code}{reason}")


def _killed(number: int, budget: int | None) -> str:
    try:
        name = signal.Signals(number).name
    except ValueError:
        name = f"signal {number}"
    if budget is None:
        return f"query: the query process was ended by {name}"
    return (
        f"query: the query process was ended by {name}, most likely out of the "
        f"{_mib(budget)} it may use (--memory-limit plus room for the rest); select fewer "
        "records or groups, or raise --memory-limit"
    )


def _mib(size: int) -> str:
    return f"{size / 2**20:,.0f} MiB"


# ------------------------------------------------------------------------------------- child
def serve() -> None:
    """The child: read the request on stdin, answer on the last line of stdout.

    ``sys.argv[1]`` is the descriptor of the pipe on which it reports the start of the query.
    The child ends without the interpreter's teardown: near its address-space cap, DuckDB's
    destructors can abort the process after the answer is written.
    """
    request = json.loads(sys.stdin.read())
    with os.fdopen(int(sys.argv[1]), "w", encoding="utf-8") as report:
        outcome = _answer(request, report)
    sys.stdout.write("\n" + json.dumps(outcome._asdict()) + "\n")
    sys.stdout.flush()
    os._exit(outcome.status)


class _Loaded(NamedTuple):
    """The child's checked time limit, its address-space budget and its tables."""

    timeout: float
    budget: int | None
    release: Any
    original: Any
    #: The original's records left out as the release left them out, and the columns why.
    left_out: tuple[int, list[str]] = (0, [])


def _answer(request: dict[str, Any], report: Any) -> Outcome:
    """Run the query; errors as one line with exit status 2 (the command's friendly errors).

    ``report`` is the pipe on which the child tells the parent that the query starts.
    """
    from .messages import EXIT_CODES, one_line, os_message

    budget: int | None = None
    try:
        loaded = _prepare(request)
        budget = loaded.budget
        report.write(json.dumps({"timeout": loaded.timeout, "budget": budget}) + "\n")
        report.flush()
        text, outside = _result(request, loaded)
    except MicroanonError as exc:
        return Outcome(EXIT_CODES["bad input"], "", one_line(str(exc)))
    except OSError as exc:
        return Outcome(EXIT_CODES["bad input"], "", one_line(os_message(exc)))
    except MemoryError:
        room = "" if budget is None else f"the {_mib(budget)} "
        return Outcome(
            EXIT_CODES["bad input"],
            "",
            f"query: ran out of {room}memory it may use (--memory-limit plus room for the rest); "
            "select fewer records or groups, or raise --memory-limit",
        )
    if outside:
        message = f"{outside} true answer(s) outside their bounds"
        return Outcome(EXIT_CODES["does not hold"], text, message)
    return Outcome(EXIT_CODES["ok"], text, "")


def _prepare(request: dict[str, Any]) -> _Loaded:
    """Check and apply the limits, load the tables, then cap the address space."""
    from ..core.reading import ReadOptions
    from ..core.release import Release
    from ..query.sql import limits, set_limits
    from .io import read_table

    timeout = _seconds(request["timeout"])
    applied = set_limits(memory_limit=request["memory_limit"], threads=request["threads"])
    release = Release.load(request["release_dir"])
    original, left_out = None, (0, [])
    if request["original"] is not None:
        original = read_table(
            request["original"], options=ReadOptions.from_mapping(request["read"], "--")
        )
        original.columns = [str(c) for c in original.columns]
        original, left_out = _records_that_entered(original, release.metadata)
    budget = _bytes(limits()["memory_limit"]) + HEADROOM + ARENA * applied["threads"]
    return _Loaded(timeout, _cap_address_space(budget), release, original, left_out)


def _records_that_entered(
    original: Any, metadata: dict[str, Any]
) -> tuple[Any, tuple[int, list[str]]]:
    """The original table's records that entered the release's method: those a ``missing:
    drop`` column left out (counted in the internal part's ``row_counts``) are not in the
    release, so the true answers leave them out too. Also how many were left out, and the
    columns whose missing values left them out.

    Raises
    ------
    InputError
        The release's internal part is absent while the original holds more records than the
        release was built from (the true answers would count records the release never held).
    """
    counts = metadata.get("row_counts")
    if counts is None:
        built = metadata.get("rows_out")
        if isinstance(built, int) and len(original) > built:
            raise InputError(
                f"original: {len(original):,} records, where the release holds {built:,}; "
                "give the release's directory with its internal part (which names the columns "
                "whose missing values left records out), not its public part alone"
            )
        return original, (0, [])
    columns = [c for c in counts.get("left_out") or {} if c in original.columns]
    if not columns:
        return original, (0, [])
    entered = original[columns].notna().all(axis=1).to_numpy()
    return original.loc[entered], (int((~entered).sum()), columns)


def _seconds(text: str | None) -> float:
    """``--timeout`` in seconds (:data:`~microanon.query.sql.DEFAULT_TIMEOUT` when not given)."""
    from ..query.sql import DEFAULT_TIMEOUT, check_timeout

    if text is None:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(text)
        check_timeout(seconds)
    except (ValueError, InputError):
        raise InputError(f"--timeout: give a positive number of seconds, got {text!r}") from None
    return seconds


def _bytes(rendered: str) -> int:
    """A size as DuckDB shows it (``"4.0 GiB"``, ``"286.1 MiB"``, ``"1000 bytes"``) in bytes."""
    match = _RENDERED.fullmatch(rendered)
    if match is None:
        raise InputError(f"memory limit: DuckDB reports {rendered!r}, which is not a size")
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def _cap_address_space(budget: int) -> int | None:
    """Let the process map at most ``budget`` more bytes than now (never loosening a cap), and
    write no core file if it aborts.

    Returns ``budget``, or ``None`` where the mapped size is unknown (no ``/proc``).
    """
    import resource

    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            mapped = int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # pragma: no cover - not Linux
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = min(c for c in (mapped + budget, soft, hard) if c != resource.RLIM_INFINITY)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    return budget


def _result(request: dict[str, Any], loaded: _Loaded) -> tuple[str, int | None]:
    """The printed answer and the number of true answers outside their bounds."""
    from ..query.sql import format_result, query
    from .io import json_text

    original = loaded.original
    result = query(loaded.release, request["sql"], original=original, timeout=loaded.timeout)
    outside = None if original is None else int((~result["within"].astype(bool)).sum())
    left, columns = loaded.left_out
    if not request["as_json"]:
        said = (
            f"\noriginal: {left:,} record(s) left out, as the release left them out (a missing "
            f"value in {', '.join(columns)})"
            if left
            else ""
        )
        return format_result(result) + said, outside
    document = {
        "sql": request["sql"],
        "columns": [str(c) for c in result.columns],
        "rows": result.astype(object).to_dict("records"),
        "outside_bounds": outside,
        "original_left_out": None if original is None else {"records": left, "columns": columns},
    }
    return json_text(document), outside
