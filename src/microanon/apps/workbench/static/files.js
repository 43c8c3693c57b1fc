/*
 * The sidebar: the datasets the workbench holds (name, rows, when loaded; the open one marked),
 * each with its runs. The open dataset's runs are ticked for step 4 or deleted; another dataset
 * is opened (its roles, runs and results come back) or removed with its runs. The list is asked
 * again every few seconds while the page is visible, so that what another tab loads or runs
 * shows here too.
 */
import { $, h, show, fmt, when } from "./dom.js";
import { api, enc } from "./api.js";
import { state, on, emit, pick, status, fail, MAX_COMPARE } from "./state.js";
import { openDataset, closeDataset } from "./data.js";

const POLL_MS = 3000;
const ACTIVE = ["queued", "running"];
/** How far a run has gone (an ended one: 2); a summary older than the page's is left aside. */
const stage = (run) => ({ queued: 0, running: 1 })[run?.status] ?? (run ? 2 : -1);
/** The dataset and run ids of the last list: what is gone from the next one was removed. */
let listedFiles = new Set();
let listedRuns = new Set();
/** The refresh under way (one at a time). */
let refreshing = null;
/** The message shown while the server does not answer (cleared when it answers again). */
let unreachable = "";
/** What the list shows, in short: it is drawn again only when that changes. */
let drawn = "";

function runText(run) {
  if (run.status === "done" && run.result) {
    const held = run.result.models.every((m) => m.holds);
    return `${held ? "models hold" : "a model fails"}, ${fmt(run.result.suppressed)} suppressed`;
  }
  return run.status;
}

/** The open dataset's runs: as listed, then those started here since (full summaries). */
function openRuns() {
  const id = state.dataset?.id;
  const listed = state.files.find((f) => f.id === id)?.runs || [];
  const ids = [...listed.map((r) => r.id)];
  for (const run of state.runs.values()) if (run.dataset === id && !ids.includes(run.id)) ids.push(run.id);
  return ids.map((x) => state.runs.get(x) || listed.find((r) => r.id === x));
}

/** A run of the open dataset: a box to compare it, a button to delete it. */
function openRun(run, full) {
  const id = `pick-${run.id}`;
  const picked = state.picked.includes(run.id);
  const name = run.label || run.id;
  return h("li", { dataset: { run: run.id, status: run.status } },
    h("input", { type: "checkbox", id, class: "compare-pick", checked: picked, dataset: { key: id },
      disabled: run.status !== "done" || (full && !picked),
      onchange: (e) => pick(run.id, e.target.checked) }),
    h("label", { for: id }, name),
    h("span", { class: "run-status" }, runText(run)),
    h("button", { type: "button", class: "delete-run secondary small",
      disabled: ACTIVE.includes(run.status), "aria-label": `Delete run ${name}`,
      dataset: { key: `delete-${run.id}` },
      onclick: () => deleteRun(run) }, "Delete"));
}

/** A run of another dataset: its name and status (open the dataset to compare it). */
function otherRun(run) {
  return h("li", { dataset: { run: run.id, status: run.status } },
    h("span", { class: "run-name" }, run.label || run.id),
    h("span", { class: "run-status" }, run.status));
}

function fileItem(f) {
  const open = f.id === state.dataset?.id;
  const runs = open ? openRuns() : f.runs;
  const what = `${f.name}, loaded ${when(f.loaded)}`;
  const full = state.picked.length >= MAX_COMPARE;
  const list = runs.length
    ? h("ul", { class: "runs", id: open ? "runs-list" : null },
      ...runs.map((r) => (open ? openRun(r, full) : otherRun(r))))
    : h("p", { class: "help runs-none" }, open ? "No run yet: step 3 makes one." : "No run.");
  return h("li", { class: `file${open ? " open" : ""}`, dataset: { dataset: f.id },
    "aria-current": open ? "true" : null },
  h("h3", { class: "file-name", tabindex: "-1", dataset: { key: `file-${f.id}` } }, f.name),
  h("p", { class: "file-meta" }, `${fmt(f.rows)} records, loaded ${when(f.loaded)}`),
  open
    ? h("p", { class: "file-open" }, "Open: the steps show this dataset.")
    : h("div", { class: "inline" },
      h("button", { type: "button", class: "open-dataset small", "aria-label": `Open ${what}`,
        dataset: { key: `open-${f.id}` }, onclick: () => choose(f) }, "Open"),
      h("button", { type: "button", class: "remove-dataset secondary small",
        disabled: f.runs.some((r) => ACTIVE.includes(r.status)),
        "aria-label": `Remove ${what}, with its runs`, dataset: { key: `remove-${f.id}` },
        onclick: () => remove(f) }, "Remove")),
  list);
}

/**
 * The list as the page knows it (the open dataset added when the list has not caught up), drawn
 * again only when what it shows changed; the keyboard's focus stays on the same control.
 */
function render() {
  const files = [...state.files];
  const ds = state.dataset;
  if (ds && !files.some((f) => f.id === ds.id)) {
    files.push({ id: ds.id, name: ds.name, rows: ds.rows, loaded: ds.loaded, runs: [] });
  }
  const shown = JSON.stringify([files, ds?.id, state.picked,
    openRuns().map((r) => [r.id, r.label, r.status, runText(r)])]);
  if (shown !== drawn) {
    drawn = shown;
    const focus = $("files").contains(document.activeElement) ? document.activeElement.dataset.key : null;
    show("files-empty", files.length === 0);
    $("files").replaceChildren(...files.map(fileItem));
    if (focus) $("files").querySelector(`[data-key="${CSS.escape(focus)}"]`)?.focus();
  }
  const none = !openRuns().some((r) => r.status === "done");
  $("tab-compare").disabled = none;
  if (none && !$("step-compare").hidden) emit("open", state.dataset ? "run" : "data");
}

async function choose(f) {
  try {
    const ds = await openDataset(f.id);
    const runs = ds.runs.length === 1 ? "1 run" : `${fmt(ds.runs.length)} runs`;
    status(`${ds.name} (loaded ${when(ds.loaded)}) is open: ${fmt(ds.rows)} records, ${runs}.`);
    document.querySelector(`#files li[data-dataset="${CSS.escape(f.id)}"] h3`)?.focus();
  } catch (e) {
    fail(`${f.name} could not be opened: ${e.message}`);
    refresh();
  }
}

async function remove(f) {
  const count = f.runs.length;
  const runs = count === 0 ? "" : count === 1 ? " and its run" : ` and its ${fmt(count)} runs`;
  const what = `${f.name} (loaded ${when(f.loaded)})${runs}`;
  const question = `Remove ${what} from the workbench?` +
    (count ? " The runs' downloads go with them." : "");
  if (!window.confirm(question)) return;
  try {
    await api("DELETE", `/api/datasets/${enc(f.id)}`);
  } catch (e) {
    fail(`${f.name} was not removed: ${e.message}`);
    return;
  }
  status(`${what} removed.`);
  await refresh();
  $("files-title").focus();
}

async function deleteRun(run) {
  try {
    await api("DELETE", `/api/runs/${enc(run.id)}`);
  } catch (e) {
    fail(`run ${run.label || run.id} was not deleted: ${e.message}`);
    return;
  }
  state.runs.delete(run.id);
  status(`Run ${run.label || run.id} deleted.`);
  pick(run.id, false, run.dataset);
  emit("runs");
}

/** The open dataset is gone (removed in another tab): the latest one left is opened. */
async function lost(list) {
  const name = state.dataset.name;
  const latest = list[list.length - 1];
  if (!latest) {
    closeDataset();
    fail(`${name} was removed from the workbench outside this tab: load a dataset in step 1.`);
    return;
  }
  await openDataset(latest.id);
  fail(`${name} was removed from the workbench outside this tab: ${latest.name}, loaded ` +
    `${when(latest.loaded)}, is open now.`);
}

async function update() {
  let list;
  try {
    list = await api("GET", "/api/datasets");
  } catch (e) {
    if (!unreachable) fail((unreachable = `The list of datasets could not be updated: ${e.message}`));
    return;
  }
  if (unreachable && $("error").textContent === unreachable) fail("");
  unreachable = "";
  const runs = new Set(list.flatMap((f) => f.runs.map((r) => r.id)));
  for (const id of listedRuns) {
    if (runs.has(id)) continue;
    const run = state.runs.get(id);  // deleted in another tab
    state.runs.delete(id);
    if (run) pick(id, false, run.dataset);
  }
  const gone = state.dataset && listedFiles.has(state.dataset.id)
    && !list.some((f) => f.id === state.dataset.id);
  listedRuns = runs;
  listedFiles = new Set(list.map((f) => f.id));
  state.files = list;
  if (gone) await lost(list);
  const open = list.find((f) => f.id === state.dataset?.id);
  if (open && open.version > state.dataset.version) await openDataset(open.id);  // changed elsewhere
  // The open dataset's runs started or changed in another tab: their full summaries (a run
  // deleted meanwhile is dropped by the next list).
  const stale = (open?.runs || []).filter((r) => state.runs.get(r.id)?.status !== r.status);
  for (const r of stale) {
    const run = await api("GET", `/api/runs/${enc(r.id)}`).catch(() => null);
    if (run) state.runs.set(run.id, run);
  }
  render();
}

/** Ask the workbench for its datasets and runs again, and redraw the list. */
export function refresh() {
  refreshing ??= update().catch((e) => fail(e.message)).finally(() => (refreshing = null));
  return refreshing;
}

export function initFiles() {
  on("dataset", (ds) => {
    for (const run of ds.runs || []) if (stage(run) > stage(state.runs.get(run.id))) state.runs.set(run.id, run);
    render();
    if (!state.files.some((f) => f.id === ds.id)) refresh();
  });
  on("runs", render);
  on("picked", render);
  setInterval(() => {
    if (document.visibilityState === "visible") refresh();
  }, POLL_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
  refresh();
}
