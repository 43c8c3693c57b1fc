/*
 * The workbench page of `microanon app`: the four steps as tabs and the sidebar of datasets and
 * runs. Each step lives in its own module (data.js, risk.js, run.js, compare.js), the sidebar in
 * files.js.
 */
import { $, show } from "./dom.js";
import { on } from "./state.js";
import { initData } from "./data.js";
import { initFiles } from "./files.js";
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

function init() {
  initTabs();
  initData();
  initSteps();
  initRun();
  initFiles();
  on("dataset", () => {
    $("tab-risk").disabled = false;
    $("tab-run").disabled = false;
    if (current() === "risk") showRisk();
    if (current() === "compare") showCompare();  // the picks of the dataset open now
  });
  on("picked", () => {
    if (current() === "compare") showCompare();
  });
  on("open", open);
}

init();
