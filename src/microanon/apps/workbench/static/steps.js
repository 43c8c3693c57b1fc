/*
 * Step 3 with several methods: steps added one at a time (a method that may be a step, with its
 * parameter form as for one method), the risk and loss after each in a table and a chart of risk
 * against loss, the last step undone, a step removed or moved, and the steps published as a run
 * (/api/datasets/{id}/steps; a run's request {"steps": [...]}).
 */
import { $, h, say, fmt, options } from "./dom.js";
import { api, enc } from "./api.js";
import { state, on } from "./state.js";
import { riskLoss } from "./charts.js";
import { paramField, value, launch } from "./run.js";

/** Parameter values typed per method for the next step. */
const typed = new Map();
/** The steps as the server last answered: {original, steps}. */
let current = null;

const stepMethods = () => state.methods.filter((m) => m.step);

function method() {
  return state.methods.find((m) => m.name === $("step-method").value);
}

const where = (m) => ({ first: " (first step only)", last: " (last step only)" })[m.step] || "";

function renderMethod() {
  const m = method();
  if (!m) return;
  if (!typed.has(m.name)) typed.set(m.name, {});
  const values = typed.get(m.name);
  $("step-method-help").textContent = `${m.help || ""}${where(m)}`;
  $("step-params").replaceChildren(
    ...(m.params.length ? m.params.map((p) => paramField(p, values, `step-param-${p.name}`, p.name))
      : [h("p", { class: "help" }, "This method has no parameter.")]),
  );
}

function params() {
  const m = method();
  const values = typed.get(m.name) || {};
  const out = {};
  for (const p of m.params) {
    const v = value(p, values[p.name] ?? p.default);
    if (v !== undefined) out[p.name] = v;
  }
  return out;
}

function clearErrors() {
  say("steps-error", "");
  for (const el of $("step-params").querySelectorAll(".invalid")) say(el, "");
}

/** A refusal: the message, and next to the parameter the server named. */
function refused(e, what) {
  say("steps-error", `${what}: ${e.message}`);
  const box = [...$("step-params").querySelectorAll(".invalid")].find((b) => b.dataset.field === e.field);
  if (box) say(box, e.message);
}

const url = (tail = "") => `/api/datasets/${enc(state.dataset.id)}/steps${tail}`;

async function change(verb, tail, body, what) {
  clearErrors();
  try {
    show(await api(verb, url(tail), body));
  } catch (e) {
    refused(e, what);
  }
}

/** A step's row (``r.risk`` absent: a step that did not run). */
function row(r, i, count) {
  const risk = r.risk || {};
  const ran = Boolean(r.risk);
  const moves = i === 0 ? [] : [
    h("button", { type: "button", class: "secondary small", disabled: i === 1, "aria-label": `Move step ${i} up`,
      onclick: () => change("POST", "/move", { from: i, to: i - 1 }, "The step was not moved") }, "↑"),
    h("button", { type: "button", class: "secondary small", disabled: i === count, "aria-label": `Move step ${i} down`,
      onclick: () => change("POST", "/move", { from: i, to: i + 1 }, "The step was not moved") }, "↓"),
    h("button", { type: "button", class: "secondary small", "aria-label": `Remove step ${i}`,
      onclick: () => change("DELETE", `/${i}`, undefined, "The step was not removed") }, "Remove"),
  ];
  const numbers = ran
    ? [
      h("td", {}, r.changed.join(", ") || "–"),
      h("td", {}, fmt(risk.sample_uniques)),
      h("td", {}, fmt(risk.below_3)),
      h("td", {}, fmt(risk.min_fk)),
      h("td", {}, risk.expected_reidentifications === undefined ? "–" : fmt(risk.expected_reidentifications)),
      h("td", {}, fmt(r.loss.cells_changed, true)),
    ]
    : [h("td", { colspan: 6 }, "not run (see the message below)")];
  return h("tr", { dataset: { step: i, ran } },
    h("td", {}, i === 0 ? "–" : String(i)),
    h("td", {}, i === 0 ? "original" : r.method.replaceAll("_", " ")),
    ...numbers,
    h("td", {}, moves));
}

function show(answer) {
  current = answer;
  const ran = [answer.original, ...answer.steps];
  const all = [...ran, ...answer.not_run];
  const head = ["Step", "Method", "Columns changed", "Sample uniques", "Records in keys of fewer than 3",
    "Smallest key", "Expected re-identifications", "Cells changed", ""];
  $("steps-table").replaceChildren(
    h("caption", {}, "Risk and loss after each step (a missing key value matches any, as sdcMicro "
      + "counts; strict suppression's * is a value of its own)"),
    h("thead", {}, h("tr", {}, ...head.map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, ...all.map((r, i) => row(r, i, all.length - 1))));
  $("steps-chart").replaceChildren(answer.steps.length
    ? riskLoss(ran.map((r, i) => ({ label: i === 0 ? "original" : `${i} ${r.method}`,
      loss: r.loss.cells_changed, risk: r.risk.sample_uniques })), "Sample uniques against cells changed")
    : "");
  if (answer.error) say("steps-error", `The steps stop at a step that does not run on the data set as it is now: ${answer.error}`);
  $("step-undo").disabled = all.length === 1;
  $("steps-publish").disabled = !answer.steps.length || Boolean(answer.error);
}

async function load() {
  if (!state.dataset) return;
  clearErrors();
  try {
    show(await api("GET", url()));
  } catch (e) {
    refused(e, "The steps cannot run on this data set");
  }
}

async function publish(e) {
  e.preventDefault();
  clearErrors();
  if (!current?.steps.length || current.error) return;
  const steps = current.steps.map((s) => ({ method: s.method, params: s.params }));
  const label = $("steps-label").value.trim();
  $("steps-publish").disabled = true;
  try {
    await launch({ steps, ...(label ? { label } : {}) }, label || "the steps",
      (err) => say("steps-error", `The run was not started: ${err.message}`));
  } finally {
    $("steps-publish").disabled = !current?.steps.length || Boolean(current.error);
  }
}

export function initSteps() {
  $("steps-form").addEventListener("submit", publish);
  $("step-method").addEventListener("change", renderMethod);
  $("step-add").addEventListener("click", () =>
    change("POST", "", { method: method().name, params: params() }, "The step was not added"));
  $("step-undo").addEventListener("click", () => change("POST", "/undo", undefined, "Nothing was undone"));
  on("methods", () => {
    $("step-method").replaceChildren(...options(stepMethods().map((m) => [m.name, m.label || m.name]), "global_recode"));
    renderMethod();
  });
  on("steps-mode", load);
  on("dataset", () => {
    current = null;
    if (!$("steps-form").hidden) load();
  });
}
