/*
 * The workbench page of `microanon app`: the four steps as tabs and the sidebar of runs.
 * Each step lives in its own module (data.js, risk.js, run.js, compare.js).
 */
import { $, h, show, fmt } from "./dom.js";
import { api, enc } from "./api.js";
import { state, on, emit, pick, status, fail, MAX_COMPARE } from "./state.js";
import { initData } from "./data.js";
import { showRisk } from "./risk.js";
import { initRun } from "./run.js";
import { initSteps } from "./steps.js";
import { showCompare } from "./compare.js";

const STEPS = ["data", "risk", "run", "compare"];
const ENTER = { risk: showRisk, compare: showCompare };

/** Open one step's panel (the tab pattern: arrow keys move between the tabs). */
function open(step) {
  for (const name of STEPS) {
    const tab = $(`tab-${name}`);
    tab.setAttribute("aria-selected", String(name === step));
    tab.tabIndex = name === step ? 0 : -1;
    show(`step-${name}`, name === step);
  }
  if (ENTER[step]) ENTER[step]();
}

function current() {
  return STEPS.find((name) => !$(`step-${name}`).hidden);
}

function initTabs() {
  for (const name of STEPS) {
    const tab = $(`tab-${name}`);
    tab.addEventListener("click", () => open(name));
    tab.addEventListener("keydown", (e) => {
      const dir = { ArrowRight: 1, ArrowLeft: -1 }[e.key];
      if (!dir) return;
      const enabled = STEPS.filter((n) => !$(`tab-${n}`).disabled);
      const next = enabled[(enabled.indexOf(name) + dir + enabled.length) % enabled.length];
      open(next);
      $(`tab-${next}`).focus();
    });
  }
  open("data");
}

function runText(run) {
  if (run.status === "done" && run.result) {
    const held = run.result.models.every((m) => m.holds);
    return `${held ? "models hold" : "a model fails"}, ${fmt(run.result.suppressed)} suppressed`;
  }
  if (run.status === "failed") return "failed";
  return run.status;
}

/** The sidebar: every run of the dataset, a box to compare it, a button to delete it. */
function renderRuns() {
  const list = $("runs-list");
  const runs = [...state.runs.values()].filter((r) => r.dataset === state.dataset?.id);
  show("runs-empty", runs.length === 0);
  const full = state.picked.length >= MAX_COMPARE;
  list.replaceChildren(
    ...runs.map((run) => {
      const id = `pick-${run.id}`;
      const picked = state.picked.includes(run.id);
      return h(
        "li",
        { dataset: { run: run.id, status: run.status } },
        h("input", {
          type: "checkbox",
          id,
          class: "compare-pick",
          checked: picked,
          disabled: run.status !== "done" || (full && !picked),
          onchange: (e) => pick(run.id, e.target.checked),
        }),
        h("label", { for: id }, run.label || run.id),
        h("span", { class: "run-status" }, runText(run)),
        h(
          "button",
          {
            type: "button",
            class: "delete-run secondary small",
            disabled: run.status === "queued" || run.status === "running",
            "aria-label": `Delete run ${run.label || run.id}`,
            onclick: () => deleteRun(run),
          },
          "Delete",
        ),
      );
    }),
  );
  $("tab-compare").disabled = !runs.some((r) => r.status === "done");
}

async function deleteRun(run) {
  try {
    await api("DELETE", `/api/runs/${enc(run.id)}`);
  } catch (e) {
    fail(`run ${run.label || run.id} was not deleted: ${e.message}`);
    return;
  }
  state.runs.delete(run.id);
  state.picked = state.picked.filter((x) => x !== run.id);
  status(`Run ${run.label || run.id} deleted.`);
  emit("runs");
  emit("picked");
}

function init() {
  initTabs();
  initData();
  initSteps();
  initRun();
  on("dataset", (ds) => {
    $("tab-risk").disabled = !ds;
    $("tab-run").disabled = !ds;
    for (const run of ds.runs || []) if (!state.runs.has(run.id)) state.runs.set(run.id, run);
    // Runs of another dataset are not compared with this one's.
    state.picked = state.picked.filter((id) => state.runs.get(id)?.dataset === ds.id);
    renderRuns();
    if (current() === "risk") showRisk();
  });
  on("runs", renderRuns);
  on("picked", () => {
    renderRuns();
    if (current() === "compare") showCompare();
  });
  on("open", open);
}

init();
