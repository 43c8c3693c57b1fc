"""SIGTERM stops a command as Ctrl-C does: nothing is left behind, the second process ends, the
exit status is 143; waits in the main thread let the signal's handler run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

import microanon
from microanon.apps.interrupts import (
    TERMINATED_EXIT,
    Terminated,
    sigterm_as_interrupt,
    wait_for,
)

EXAMPLES = Path(microanon.__file__).resolve().parent / "examples" / "adult"


def test_wait_for_returns_the_answer_or_raises_the_error():
    done: Future[int] = Future()
    done.set_result(3)
    assert wait_for(done) == 3
    failed: Future[int] = Future()
    failed.set_exception(TimeoutError("the work's own"))
    with pytest.raises(TimeoutError, match="the work's own"):
        wait_for(failed)


def test_sigterm_ends_a_wait_in_the_main_thread():
    """A future answered only much later: SIGTERM, sent from another thread, raises Terminated
    in the main thread's wait before the answer comes."""
    late: Future[int] = Future()
    sender = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM))
    answer = threading.Timer(60, late.set_result, (1,))  # (so that a failure cannot hang)
    with sigterm_as_interrupt() as stopped:
        sender.start()
        answer.start()
        try:
            with pytest.raises(Terminated):
                wait_for(late)
        finally:
            answer.cancel()
    assert stopped == [True] and not late.done()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL  # (put back)


_SLOW_REPORTS = textwrap.dedent(
    """
    import sys
    import time

    import microanon.apps.publish as publish

    made = publish.make_reports


    def slow(*args, **kwargs):
        out = made(*args, **kwargs)
        print("REPORTS MADE", file=sys.stderr, flush=True)
        time.sleep(120)
        return out


    if __name__ == "__main__":
        publish.make_reports = slow
        from microanon.apps.cli import run

        sys.argv = ["microanon", *sys.argv[1:]]
        run()
    """
)


def _children(pid: int) -> set[int]:
    """The processes ``pid`` started (Linux's /proc)."""
    found = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text()
        found |= {int(p) for p in text.split()}
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return status.exists() and status.read_text().split(")")[-1].split()[0] != "Z"


def test_sigterm_during_the_reports_leaves_nothing(tmp_path, monkeypatch):
    """``microanon anonymize`` on the bundled Adult, stopped by SIGTERM while its reports are
    being made (they wait here): exit status 143 within seconds, no output, no hidden
    directory (whose internal part holds original values), no process of its own left."""
    script = tmp_path / "slow.py"
    script.write_text(_SLOW_REPORTS, "utf-8")
    out = tmp_path / "release"
    monkeypatch.setenv("MICROANON_ASIDE", "1")
    config = EXAMPLES / "full_domain.yaml"
    args = [sys.executable, str(script), "anonymize", "--config", str(config), "--out", str(out)]
    process = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    lines = []
    assert process.stderr is not None
    for line in process.stderr:
        lines.append(line)
        if "REPORTS MADE" in line:
            break
    assert lines and "REPORTS MADE" in lines[-1], "".join(lines)
    children = _children(process.pid)
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=30)
    finally:
        process.kill()
    assert code == TERMINATED_EXIT, "".join(lines) + process.stderr.read()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow.py"]
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in children if _alive(p)]
