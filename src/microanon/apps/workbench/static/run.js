/*
 * Step 3, configure and run: one method, its parameters and the privacy models, each explained in
 * plain words by the server (/api/methods, /api/models), or several methods one after the other
 * (steps.js, the "Several methods (steps)" mode); a run started and followed with a
 * progress bar, a heuristic search's nodes and best value, and a Stop button (a queued run is
 * cancelled; a heuristic search stops and its best node is published). A refused configuration
 * shows the message next to the field it names, and nothing set is lost.
 */
import { $, h, say, show, fmt, options } from "./dom.js";
import { api, enc } from "./api.js";
import { state, emit, on, pick, status, fileName, MAX_COMPARE } from "./state.js";
import { leftOutSentence } from "./data.js";

const POLL_MS = 400;
/** The models chosen: [{name, values: {param: value as typed}}]. */
let chosen = [];
/** Parameter values typed per method, kept when switching methods. */
const typed = new Map();
/** The id of the run the page follows (the Stop button's). */
let following = null;

// The types the server's catalog gives: int, float, bool, str, list or any.
const isInt = (t) => t === "int";
const isFloat = (t) => t === "float";
const isBool = (t) => t === "bool";

function method() {
  return state.methods.find((m) => m.name === $("method").value);
}

/** One parameter's field; ``values`` holds what was typed, ``field`` names it in errors. */
export function paramField(p, values, id, field) {
  const given = values[p.name] ?? p.default;
  const current = given !== null && typeof given === "object" ? JSON.stringify(given) : given;
  let input;
  const common = { id, dataset: { param: p.name, field }, "aria-describedby": `${id}-help ${id}-error` };
  if (p.choices) {
    const choices = p.choices.map((c) => [c, String(c)]);
    if ((p.default === null || p.default === undefined) && !p.required) choices.unshift(["", "(default)"]);
    input = h("select", common, options(choices, current ?? ""));
  } else if (isBool(p.type)) {
    input = h("input", { ...common, type: "checkbox", checked: Boolean(current) });
  } else {
    input = h("input", { ...common, type: isInt(p.type) || isFloat(p.type) ? "number" : "text",
      step: isInt(p.type) ? "1" : "any", value: current ?? "" });
  }
  const keep = () => (values[p.name] = input.type === "checkbox" ? input.checked : input.value);
  input.addEventListener("input", keep);
  input.addEventListener("change", keep);
  return h("div", { class: `field${isBool(p.type) ? " check" : ""}` },
    h("label", { for: id }, p.label || p.name.replaceAll("_", " "), p.required ? " (required)" : ""), input,
    h("p", { class: "help", id: `${id}-help` }, p.help || ""),
    p.accepts
      ? h("details", { class: "precise" }, h("summary", {}, "Accepts"), h("p", { class: "help" }, p.accepts))
      : null,
    h("p", { class: "invalid", id: `${id}-error`, dataset: { field }, role: "alert", hidden: true }));
}

/** A parameter's value as the server takes it, from what was typed (undefined: none). */
export function value(p, raw) {
  if (raw === undefined || raw === null || raw === "") return undefined;
  if (isBool(p.type)) return Boolean(raw);
  if (typeof raw !== "string") return raw;
  if (isInt(p.type) || isFloat(p.type)) return Number(raw);
  if (p.type === "list") return raw.split(",").map((x) => x.trim()).filter(Boolean);
  if (p.type === "any" && /^[[{"]/.test(raw.trim())) {
    try {
      return JSON.parse(raw);
    } catch (_) {
      return raw;
    }
  }
  return raw;
}

function renderMethod() {
  const m = method();
  if (!m) return;
  if (!typed.has(m.name)) typed.set(m.name, {});
  const values = typed.get(m.name);
  const randomized = m.randomized
    ? " It draws fresh randomness on every run: its configuration reproduces the same kind of release, not the same bytes."
    : "";
  $("method-help").textContent = `${m.help || ""}${m.family ? ` (family: ${m.family})` : ""}${randomized}`;
  $("method-params").replaceChildren(
    ...(m.params.length ? m.params.map((p) => paramField(p, values, `param-${p.name}`, p.name))
      : [h("p", { class: "help" }, "This method has no parameter.")]),
  );
  show("models-box", m.models !== false);
}

function renderModels() {
  $("models").replaceChildren(
    ...chosen.map((c, i) => {
      const spec = state.models.find((m) => m.name === c.name) || { params: [] };
      return h("li", { class: "model", dataset: { model: c.name } },
        h("h4", {}, spec.label || c.name.replaceAll("_", " ")),
        h("p", { class: "help" }, spec.help || ""),
        ...spec.params.map((p) => paramField(p, c.values, `model-${i}-${p.name}`, `${c.name}.${p.name}`)),
        h("p", { class: "invalid", dataset: { field: c.name }, role: "alert", hidden: true }),
        h("button", { type: "button", class: "remove-model secondary small",
          onclick: () => { chosen.splice(i, 1); renderModels(); } }, `Remove ${c.name.replaceAll("_", " ")}`));
    }),
  );
  if (!chosen.length) $("models").append(h("li", { class: "help" }, "No model yet: add one below."));
}

function addModel() {
  const name = $("model-add").value;
  if (!name) return;
  chosen.push({ name, values: {} });
  renderModels();
}

function clearErrors() {
  say("run-error", "");
  for (const el of $("run-form").querySelectorAll(".invalid")) say(el, "");
  for (const el of $("run-form").querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

/** Step 4, the keyboard's focus on its tab (the button that led there is hidden). */
function openCompare() {
  emit("open", "compare");
  $("tab-compare").focus();
}

/** Step 1, the keyboard's focus on the role of ``column`` (the button that led there is hidden). */
function openColumn(column) {
  emit("open", "data");
  document.querySelector(`#columns tr[data-column="${CSS.escape(column)}"] select.role`)?.focus();
}

/** The message next to the field the server named (a parameter, a model or a model's parameter). */
function showError(e) {
  const field = e.field;
  const boxes = [...$("run-form").querySelectorAll(".invalid")];
  const box = field && (boxes.find((b) => b.dataset.field === field)
    || boxes.find((b) => b.dataset.field.endsWith(`.${field}`))
    || boxes.find((b) => b.dataset.field === String(field).split(/[.[\]]/).filter(Boolean).pop()));
  say("run-error", `The run was not started: ${e.message}`);
  if (!box && state.dataset?.columns.some((c) => c.name === field)) {
    // A column's role, hierarchy or lint finding: fixed in step 1.
    $("run-error").append(" ", h("button", { type: "button", class: "secondary small",
      onclick: () => openColumn(field) }, `Go to step 1 (column ${field})`));
  }
  if (box) {
    say(box, e.message);
    const input = box.parentElement.querySelector("input, select");
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
  }
}

function body() {
  const m = method();
  const values = typed.get(m.name) || {};
  const params = {};
  for (const p of m.params) {
    const v = value(p, values[p.name] ?? p.default);
    if (v !== undefined) params[p.name] = v;
  }
  const models = m.models === false ? [] : chosen.map((c) => {
    const spec = state.models.find((x) => x.name === c.name) || { params: [] };
    const args = {};
    for (const p of spec.params) {
      const v = value(p, c.values[p.name] ?? p.default);
      if (v !== undefined) args[p.name] = v;
    }
    return { [c.name]: args };
  });
  const label = $("run-label").value.trim();
  return { method: m.name, params, models, ...(label ? { label } : {}) };
}

async function run(e) {
  e.preventDefault();
  clearErrors();
  $("run").disabled = true;
  try {
    await launch(body(), $("run-label").value.trim() || method().label || method().name, showError);
  } finally {
    $("run").disabled = false;
  }
}

/**
 * Start a run of the data set with the request ``payload`` and follow it to its end;
 * ``refused(error)`` shows a refusal (nothing was started then).
 */
export async function launch(payload, name, refused) {
  show("run-done", false);
  const ds = state.dataset;
  let id;
  try {
    ({ id } = await api("POST", `/api/datasets/${enc(ds.id)}/runs`, payload));
  } catch (err) {
    refused(err);
    return;
  }
  following = id;
  show("progress", true);
  $("progress-label").textContent = `Running ${name} on ${ds.name}…`;
  status("Run started.");
  try {
    await follow(id);
  } finally {
    following = null;
  }
}

/**
 * The data set's runs still queued or running when the page got it (after a reload): followed
 * one after the other as if started here, with their progress and Stop button.
 */
async function adopt(ds) {
  if (following) return;
  $("run").disabled = true;
  try {
    for (const r of ds.runs || []) {
      if (r.status !== "queued" && r.status !== "running") continue;
      following = r.id;
      show("progress", true);
      $("progress-label").textContent = `Running ${r.label || r.id} on ${ds.name}…`;
      try {
        await follow(r.id);
      } finally {
        following = null;
      }
    }
  } finally {
    $("run").disabled = false;
  }
}

/** A heuristic search's progress in words (the server's record of it). */
function searchText(s) {
  const best = s.best === null || s.best === undefined
    ? "no node meeting the models yet"
    : `best ${s.metric || "value"} so far ${fmt(s.best)}`;
  const seconds = s.seconds < 10 ? s.seconds.toFixed(1) : fmt(Math.round(s.seconds));
  return `Search: ${fmt(s.nodes)} nodes checked in ${seconds} s, ${best}.`;
}

/** The Stop button as the run's state allows: what it would do, or why it cannot. */
function stopButton(r) {
  const button = $("run-stop");
  const search = r.progress?.search;
  let label = "Stop";
  let help;
  if (r.stop_requested && r.status === "running") {
    label = "Stopping…";
    help = "Stop requested: the search checks no further node. The best levels it found that meet the models are then written and verified; if it found none, the run ends without a release.";
  } else if (r.status === "queued") {
    label = "Cancel this run";
    help = "The run waits for the one before it; cancelling it now means nothing of it runs.";
  } else if (search) {
    label = "Stop the search";
    help = search.best === null || search.best === undefined
      ? "Stops the heuristic search. It had found no levels meeting the models when this was shown: stopped before it finds some, the run ends without a release."
      : "Stops the heuristic search and publishes the best levels found so far, written and verified like any release.";
  } else {
    help = "Only a heuristic search can be stopped, while it runs; this stage runs to its end.";
  }
  button.textContent = label;
  button.disabled = !r.stoppable;
  $("run-stop-help").textContent = help;
}

async function stop() {
  if (!following) return;
  $("run-stop").disabled = true;
  try {
    const { message } = await api("POST", `/api/runs/${enc(following)}/stop`);
    status(`${message}.`);
  } catch (err) {
    say("run-error", err.message);
  }
}

async function follow(id) {
  for (;;) {
    let r;
    try {
      r = await api("GET", `/api/runs/${enc(id)}`);
    } catch (err) {
      say("run-error", err.message);
      return;
    }
    state.runs.set(r.id, r);
    emit("runs");
    const p = r.progress || {};
    const bar = $("progress-bar");
    bar.max = Math.max(1, p.total || 1);
    bar.value = r.status === "done" ? bar.max : p.done || 0;
    $("progress-text").textContent = p.total ? `${p.stage || ""} (${p.done} of ${p.total})` : p.stage || r.status;
    if (p.search) $("progress-search").textContent = searchText(p.search);
    show("progress-search", Boolean(p.search));
    stopButton(r);
    if (r.status === "done") return finished(r);
    if (r.status === "cancelled") {
      show("progress", false);
      say("run-done", `“${r.label || r.id}” was cancelled before it started: nothing of it ran.`);
      status(`Run ${r.label || r.id} cancelled.`);
      return;
    }
    if (r.status === "failed") {
      show("progress", false);
      say("run-error", `The run ${r.label || r.id} failed: ${r.error}`);
      status("");
      return;
    }
    await new Promise((ok) => setTimeout(ok, POLL_MS));
  }
}

function finished(r) {
  show("progress", false);
  const res = r.result;
  const held = res.models.length === 0 ? "no privacy model is claimed"
    : res.models.every((m) => m.holds) ? "every model holds" : "a model does not hold";
  const done = $("run-done");
  const warnings = res.warnings || [];
  const search = res.search  // none for a method without a lattice search
    ? [h("span", { id: "run-search" }, `Search: ${res.search.summary}. `)] : [];
  // A run of a dataset no longer open (another one was opened meanwhile) is compared there.
  const here = r.dataset === state.dataset?.id;
  const name = here ? `“${r.label || r.id}”` : `“${r.label || r.id}” on ${fileName(r.dataset)}`;
  done.replaceChildren(
    `${name} is done: ${held}; ` +
    `${res.rows_sentence} `,
    ...search,
    ...warnings.map((w) => h("span", { class: "warning" }, `Note: ${w} `)),
    here
      ? h("button", { type: "button", class: "secondary small", onclick: openCompare },
        "Compare and download (step 4)")
      : `Open ${fileName(r.dataset)} in the list of datasets to compare and download it.`);
  done.hidden = false;
  status(`Run ${r.label || r.id} done.`);
  if ((state.picks.get(r.dataset) || []).length < MAX_COMPARE) pick(r.id, true, r.dataset);
}

/** One method or several (steps): the form of the mode chosen. */
function mode() {
  const steps = document.querySelector('input[name="run-mode"]:checked')?.value === "steps";
  show("run-form", !steps);
  show("steps-form", steps);
  if (steps) emit("steps-mode");
}

export async function initRun() {
  $("run-form").addEventListener("submit", run);
  for (const input of document.querySelectorAll('input[name="run-mode"]')) input.addEventListener("change", mode);
  $("add-model").addEventListener("click", addModel);
  $("run-stop").addEventListener("click", stop);
  $("method").addEventListener("change", renderMethod);
  try {
    [state.methods, state.models] = await Promise.all([api("GET", "/api/methods"), api("GET", "/api/models")]);
  } catch (e) {
    say("run-error", `The methods could not be listed: ${e.message}`);
    return;
  }
  $("method").replaceChildren(...options(state.methods.map((m) => [m.name, m.label || m.name]), "full_domain"));
  $("model-add").replaceChildren(...options(state.models.map((m) => [m.name, m.label || m.name.replaceAll("_", " ")]), "k_anonymity"));
  if (state.models.some((m) => m.name === "k_anonymity")) chosen = [{ name: "k_anonymity", values: {} }];
  renderMethod();
  renderModels();
  emit("methods");
}

on("dataset", (ds) => {
  show("run-done", false);
  $("run-left-out").textContent = leftOutSentence(ds);
  adopt(ds);
});
