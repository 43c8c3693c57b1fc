"""Rules of the test suite itself, enforced on the source of tests/.

1. No test skips by itself. ``pytest.importorskip``, ``pytest.skip``, ``pytest.mark.skip`` /
   ``skipif`` / ``xfail`` and ``unittest``'s skips appear only in ``tests/oracles.py``, where a
   missing oracle or service is a failure under CI (``CI=true``) and a skip elsewhere. A platform
   limit is met by fault injection (``tests/faults.py``), not by a skip.
2. No test asserts the machine's speed. An ``assert`` may not order a run time (from
   ``time.perf_counter`` / ``process_time`` / ``thread_time`` / ``monotonic`` / ``time``, or a
   value under a key or name saying ``seconds``, ``runtime``, ``elapsed``, ``duration`` or
   ``speed``) against anything but 0; only a hang guard against a ``deadline`` may compare a
   clock. Paper claims about speed are timings of the reproductions (measured, not checked) and
   ``benchmarks/``. Hypothesis runs without its per-example deadline (tests/conftest.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import oracles
import pytest
from hypothesis import settings

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
#: The one module that may skip (and only as oracles.unavailable decides).
SKIP_HELPER = TESTS / "oracles.py"

SKIP_CALLS = {"importorskip", "skip", "skipif", "xfail", "skipTest", "skipIf", "skipUnless"}
CLOCKS = {
    "perf_counter", "perf_counter_ns", "process_time", "process_time_ns", "thread_time",
    "thread_time_ns", "monotonic", "monotonic_ns", "time", "time_ns", "timeit",
}  # fmt: skip
TIME_WORDS = re.compile(r"seconds|runtime|elapsed|duration|speed", re.IGNORECASE)
ORDER = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
SKIP_OWNERS = {"pytest", "pytest.mark", "mark", "unittest"}


def _sources() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if ".venv" not in p.parts)


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _skips(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) of every skip in a module: a call of a skipping function, or a skip mark."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            head, _, last = name.rpartition(".")
            if last in SKIP_CALLS and (head in SKIP_OWNERS or last == "skipTest"):
                found.append((node.lineno, name))
        elif isinstance(node, ast.Attribute) and _dotted(node) in (
            "pytest.mark.skip",
            "pytest.mark.skipif",
            "pytest.mark.xfail",
        ):
            found.append((node.lineno, _dotted(node)))
    return sorted(set(found))


def test_no_test_skips_outside_the_oracle_helper():
    offenders = [
        f"{path.relative_to(REPO)}:{line}: {what}"
        for path in _sources()
        if path != SKIP_HELPER
        for line, what in _skips(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not offenders, (
        "a test may not skip by itself: ask tests/oracles.py for an oracle or service (a "
        "failure under CI, a skip elsewhere), or inject the fault (tests/faults.py):\n"
        + "\n".join(offenders)
    )


def _is_clock(node: ast.AST) -> bool:
    if not isinstance(node, ast.Call):
        return False
    name = _dotted(node.func)
    head, _, last = name.rpartition(".")
    return last in CLOCKS and (head in ("time", "timeit") or (not head and last != "time"))


def _timed(node: ast.AST, names: set[str]) -> bool:
    """Whether an expression holds a run time: a clock, a timed name, a time-named key or
    attribute."""
    for sub in ast.walk(node):
        if _is_clock(sub):
            return True
        if isinstance(sub, ast.Name) and (sub.id in names or TIME_WORDS.search(sub.id)):
            return True
        if isinstance(sub, ast.Attribute) and TIME_WORDS.search(sub.attr):
            return True
        if (
            isinstance(sub, ast.Subscript)
            and isinstance(sub.slice, ast.Constant)
            and isinstance(sub.slice.value, str)
            and TIME_WORDS.search(sub.slice.value)
        ):
            return True
    return False


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value == 0


def _mentions_deadline(node: ast.AST) -> bool:
    return any(isinstance(sub, ast.Name) and "deadline" in sub.id.lower() for sub in ast.walk(node))


def _speed_asserts(tree: ast.AST) -> list[int]:
    """Lines of the asserts that order a run time against anything but 0 (or a deadline)."""
    lines = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            continue
        body = list(ast.walk(func))
        timed: set[str] = set()
        grew = True
        while grew:  # names assigned from run times, and from those
            grew = False
            for node in body:
                if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and node.value:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    if _timed(node.value, timed):
                        for target in targets:
                            for name in ast.walk(target):
                                if isinstance(name, ast.Name) and name.id not in timed:
                                    timed.add(name.id)
                                    grew = True
        for node in body:
            if not isinstance(node, ast.Assert):
                continue
            for cmp in ast.walk(node.test):
                if not isinstance(cmp, ast.Compare):
                    continue
                sides = [cmp.left, *cmp.comparators]
                for op, a, b in zip(cmp.ops, sides[:-1], sides[1:], strict=True):
                    if not isinstance(op, ORDER) or not (_timed(a, timed) or _timed(b, timed)):
                        continue
                    if _is_zero(a) or _is_zero(b) or _mentions_deadline(a) or _mentions_deadline(b):
                        continue
                    lines.append(node.lineno)
    return sorted(set(lines))


def test_no_assert_on_the_machines_speed():
    offenders = [
        f"{path.relative_to(REPO)}:{line}"
        for path in _sources()
        if path != Path(__file__).resolve()
        for line in _speed_asserts(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert not offenders, (
        "a test may not assert a run time (a loaded machine fails it): report speed in the "
        "reproductions' timings or benchmarks/ instead:\n" + "\n".join(offenders)
    )


@pytest.mark.parametrize(
    ("source", "skips", "speed"),
    [
        ("import pytest\npytest.importorskip('x')\n", [2], []),
        ("def t():\n    pytest.skip('why')\n", [2], []),
        ("@pytest.mark.skipif(True, reason='r')\ndef t():\n    pass\n", [1], []),
        ("@pytest.mark.xfail\ndef t():\n    pass\n", [1], []),
        ("def t(self):\n    self.skipTest('r')\n", [2], []),
        ("import time\ndef t():\n    s = time.perf_counter()\n    f()\n"
         "    e = time.perf_counter() - s\n    assert e < 5\n", [], [6]),
        ("def t(r):\n    s = r['E4.12']['seconds']\n    assert s[-1] > s[0]\n", [], [3]),
        ("def t(r):\n    assert r['bubble_seconds'] > 1.5 * r['heuristic_seconds']\n", [], [2]),
        ("def t(meta):\n    assert meta['runtime_seconds'] > 0\n", [], []),
        ("import time\ndef t():\n    deadline = time.monotonic() + 30\n"
         "    assert time.monotonic() < deadline\n", [], []),
        ("def t(x):\n    assert x.size > 2 and pytest.approx(1) == 1\n", [], []),
    ],
)  # fmt: skip
def test_the_rules_see_what_they_forbid(source, skips, speed):
    tree = ast.parse(source)
    assert [line for line, _ in _skips(tree)] == skips
    assert _speed_asserts(tree) == speed


def test_hypothesis_has_no_deadline():
    assert settings.default.deadline is None


@pytest.mark.parametrize("value", ["true", "1", "TRUE", " True "])
def test_under_ci_a_missing_oracle_fails(monkeypatch, value):
    monkeypatch.setenv("CI", value)
    assert oracles.in_ci()
    with pytest.raises(pytest.fail.Exception, match="a made-up oracle.*CI="):
        oracles.require_module("microanon_no_such_module", "a made-up oracle")
    with pytest.raises(pytest.fail.Exception, match="Debian package 'nothing'"):
        oracles.require_program("microanon-no-such-program", package="nothing", why="made up")


@pytest.mark.parametrize("value", [None, "", "false", "0"])
def test_elsewhere_a_missing_oracle_skips(monkeypatch, value):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert not oracles.in_ci()
    with pytest.raises(pytest.skip.Exception, match="a made-up oracle"):
        oracles.require_module("microanon_no_such_module", "a made-up oracle")
    assert oracles.require_module("json", "always there").dumps([]) == "[]"


def test_ci_runs_with_ci_set_and_installs_what_the_tests_need():
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "export CI=true" in script and script.index("export CI=true") < script.index("make test")
    assert "will skip" not in script and "|| echo" not in script
    for package in ("postgresql", "nodejs", "chromium"):
        assert package in script
