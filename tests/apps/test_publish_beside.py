"""The reports made by a second thread while the release is written and verified
(:func:`microanon.apps.publish.publish`): the same reports as when they are made after the
verification, nothing written before it, and nothing left when the verification fails."""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest
from real_surveys import survey

from microanon.apps import publish as publishing
from microanon.apps import release_figures
from microanon.apps import report as report_module
from microanon.apps.drawing import png
from microanon.apps.publish import make_reports, publish, write_reports
from microanon.apps.report import figures_drawn_once
from microanon.core.errors import VerificationError
from microanon.core.lint import lint_schema
from microanon.core.schema import Schema
from microanon.methods.generalize import full_domain
from microanon.models import verify_written

#: The NHIS extract (18,790 people, person weights) with its keys generalized by full_domain.
SCHEMA = {
    "fml": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
    "nwhite": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
    "empl": {"role": "quasi", "hierarchy": {"builder": "balanced", "fanout": 2}},
    "famsize": {"role": "quasi", "kind": "numeric",
                "hierarchy": {"builder": "intervals", "widths": [2, 4]}},
    "age": {"role": "quasi", "kind": "numeric",
            "hierarchy": {"builder": "intervals", "widths": [5, 10, 20]}},
    "hlth": {"role": "sensitive"},
    "hi": {"role": "insensitive"},
    "inc": {"role": "insensitive", "kind": "numeric"},
    "yedu": {"role": "insensitive", "kind": "numeric"},
    "perweight": {"role": "weight", "kind": "numeric"},
}  # fmt: skip

#: What a run measures at random (the ID3 folds), left out of the comparisons.
_RANDOM = "relative ID3 accuracy"


@pytest.fixture(scope="module")
def nhis():
    data = survey("mm_nhis")
    models = [{"k_anonymity": {"k": 5}}, {"l_diversity": {"l": 2}}]
    return data, full_domain(data, SCHEMA, models=models, suppression=0.02, suppressed_rows="star")


def _steady(numbers: dict) -> dict:
    """The numbers of a run without those drawn at random."""
    out = {k: v for k, v in numbers.items() if k != "columns"}
    for side in ("utility",):
        out[side] = {k: v for k, v in out[side].items() if k != _RANDOM}
    return out


def _titles(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [part.split("</h2>")[0] for part in text.split("<h2>")[1:]]


def test_the_reports_made_beside_the_verification_are_those_made_after_it(tmp_path, nhis):
    """publish (reports in a second thread, the verification a future) and the reports made
    after the verification: the same numbers and the same sections, in the same order."""
    data, release = nhis
    schema = Schema.from_dict(SCHEMA)
    _, numbers = publish(release, tmp_path / "beside", data, schema)
    assert numbers["verified"] is True
    assert numbers["utility"][_RANDOM] is not None  # measured (its value is random)

    lint = lint_schema(data, schema)
    (tmp_path / "after").mkdir()
    release.write_parts(tmp_path / "after", "csv")
    verification = verify_written(tmp_path / "after", data, written=release)
    after, *pages = make_reports(release, data, schema, lint, verification, None, None)
    write_reports(tmp_path / "after", *pages)

    def without(numbers: dict) -> dict:
        kept = {k: numbers[k] for k in ("before", "after", "utility", "verified", "warnings")}
        return _steady(kept)

    assert without(numbers) == without(after)
    for part in ("internal", "public"):
        beside = _titles(tmp_path / "beside" / part / "report.html")
        assert beside == _titles(tmp_path / "after" / part / "report.html")
    internal = _titles(tmp_path / "beside" / "internal" / "report.html")
    assert internal[-1] == "Disclosure risk of the original"  # measured first, shown last


def test_a_figure_the_reports_draw_twice_is_drawn_once(tmp_path, nhis, monkeypatch):
    """NHIS with three yes/no keys, which k = 5 publishes unchanged (the ages and family sizes
    published as insensitive): the public report's risk figure, measured on the files read
    back, is the original's, drawn once (two figures where three were), and the public report
    is the same, byte for byte, as when it is drawn again."""
    data, _ = nhis
    numbers = {"role": "insensitive", "kind": "numeric"}
    schema = {**SCHEMA, "famsize": numbers, "age": numbers}
    release = full_domain(data, schema, models=[{"k_anonymity": {"k": 5}}], suppression=0.02)
    assert set(release.metadata["levels"].values()) == {0}
    drawn = []

    def counted(drawing):
        drawn.append(drawing.function.__name__)
        return png(drawing)

    monkeypatch.setattr(report_module, "png", counted)
    publish(release, tmp_path / "once", data, schema)
    assert sorted(drawn) == ["_class_sizes", "_record_risks"]
    drawn.clear()
    monkeypatch.setattr(publishing, "figures_drawn_once", contextlib.nullcontext)
    publish(release, tmp_path / "again", data, schema)
    assert sorted(drawn) == ["_class_sizes", "_record_risks", "_record_risks"]
    page = Path("public", "report.html")
    assert (tmp_path / "once" / page).read_bytes() == (tmp_path / "again" / page).read_bytes()


def test_a_drawing_handed_again_within_the_block_is_drawn_once(monkeypatch):
    """Within figures_drawn_once, a drawing of the same function and data as one handed
    before is that one; another drawing, or the same outside the block, is drawn apart."""
    monkeypatch.setattr(report_module, "png", lambda drawing: b"figure")
    first = release_figures.class_sizes(np.array([5, 6]), np.array([3, 1]))
    same = release_figures.class_sizes(np.array([5, 6]), np.array([3, 1]))
    other = release_figures.class_sizes(np.array([5, 7]), np.array([3, 1]))
    with figures_drawn_once():
        assert report_module.drawn(first) is report_module.drawn(same)
        assert report_module.drawn(other) is not report_module.drawn(first)
    assert report_module.drawn(first) is not report_module.drawn(same)


def test_the_reports_write_nothing_before_the_verification(tmp_path, nhis):
    """make_reports given a future: it measures and waits for the verification; the reports
    are written after it; the verdicts shown are the future's."""
    data, release = nhis
    schema = Schema.from_dict(SCHEMA)
    lint = lint_schema(data, schema)
    (tmp_path / "out").mkdir()
    release.write_parts(tmp_path / "out", "csv")
    verification = verify_written(tmp_path / "out", data, written=release)
    pending: Future = Future()
    waiting = threading.Event()

    class Watched(Future):
        def result(self, timeout=None):
            waiting.set()
            return pending.result(timeout)

    answer: dict = {}

    def reports():
        answer["numbers"], *pages = make_reports(release, data, schema, lint, Watched(), None, None)
        write_reports(tmp_path / "out", *pages)

    thread = threading.Thread(target=reports)
    thread.start()
    assert waiting.wait()  # it measured and now waits for the verdicts
    reports_written = list((tmp_path / "out").rglob("report.html"))
    assert reports_written == []
    pending.set_result(verification)
    thread.join(60)
    assert not thread.is_alive()
    assert answer["numbers"]["verified"] is True
    assert len(list((tmp_path / "out").rglob("report.html"))) == 2


def test_a_failed_verification_stops_the_reports_and_leaves_nothing(tmp_path, nhis, monkeypatch):
    """A verification that fails: VerificationError, no directory, and the reports' thread has
    stopped (it was waiting for the verdicts)."""
    data, release = nhis

    def failing(*args, **kwargs):
        verification = verify_written(*args, **kwargs)
        verification.problems.append("a problem the test made")
        return verification

    monkeypatch.setattr(publishing, "verify_written", failing)
    threads = {t.name for t in threading.enumerate()}
    with pytest.raises(VerificationError, match="a problem the test made"):
        publish(release, tmp_path / "out", data, SCHEMA)
    assert not (tmp_path / "out").exists()
    assert list(tmp_path.iterdir()) == []
    assert {t.name for t in threading.enumerate()} <= threads


def test_an_error_in_the_reports_leaves_nothing(tmp_path, nhis, monkeypatch):
    """The reports' thread fails: its error is raised by publish, and nothing is left."""
    data, release = nhis

    def broken(*args, **kwargs):
        raise RuntimeError("a report the test broke")

    monkeypatch.setattr(publishing, "add_release_sections", broken)
    with pytest.raises(RuntimeError, match="a report the test broke"):
        publish(release, tmp_path / "out", data, SCHEMA)
    assert list(tmp_path.iterdir()) == []


def test_the_verdicts_are_waited_for_when_read():
    """_Verdicts reads the future's verdicts: length, items, truth and iteration."""
    from microanon.models import Verification

    pending: Future = Future()
    verdicts = publishing._Verdicts(pending)
    assert not pending.done()
    done = Verification(verdicts=["a", "b"])  # (any items: they are handed on as they are)
    pending.set_result(done)
    assert len(verdicts) == 2 and bool(verdicts)
    assert list(verdicts) == ["a", "b"] and verdicts[1] == "b" and list(verdicts[:1]) == ["a"]
