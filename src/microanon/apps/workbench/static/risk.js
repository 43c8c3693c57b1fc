/*
 * Step 2, the risk of the original on the current quasi-identifiers: headline numbers, the
 * histogram of per-record re-identification risk, and every figure of `microanon risk --json`.
 */
import { $, h, say, fmt } from "./dom.js";
import { api, enc } from "./api.js";
import { state, status } from "./state.js";
import { histogram } from "./charts.js";

/** The figures worth a headline: [label, path in the numbers, is a share]. */
const HEADLINES = [
  ["Records in the file", "rows_in_file", false],
  ["Records left out for a missing value (missing: drop)", "rows_left_out", false],
  ["Records measured (a missing key is the value ?)", "rows", false],
  ["Sample uniques", "sample_uniques", false],
  ["Records at risk (prosecutor, above the threshold)", "attackers.prosecutor.records_above", false],
  ["Share of records at risk", "attackers.prosecutor.share_above", true],
  ["Highest risk of a record", "attackers.prosecutor.highest", true],
  ["Average risk of a record", "attackers.prosecutor.average", true],
  ["Expected re-identifications", "attackers.prosecutor.expected_reidentifications", false],
  ["Marketer risk (share re-identified on average)", "attackers.marketer", true],
  // with a sampling weight (role weight) and a household id (role household), as sdcMicro
  ["Individual risk: average of the records (sampling weight)", "individual_risk.global_risk", true],
  ["Expected re-identifications (sampling weight)", "individual_risk.expected_reidentifications", false],
  ["Household risk: average of the records", "individual_risk.household_global_risk", true],
  ["Expected re-identifications through households", "individual_risk.household_expected_reidentifications", false],
  ["Sample uniques expected to be population uniques (log-linear model, τ1)", "loglinear.tau1", false],
  ["Correct matches of sample uniques expected (log-linear model, τ2)", "loglinear.tau2", false],
];

function at(obj, path) {
  return path.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), obj);
}

/** Every scalar of a nested object as [dotted path, value]. */
function flatten(obj, prefix = "") {
  return Object.entries(obj || {}).flatMap(([k, v]) => {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === "object" && !Array.isArray(v)) return flatten(v, key);
    return [[key, Array.isArray(v) ? v.join(", ") : v]];
  });
}

function pairs(entries) {
  return entries.flatMap(([label, value, key]) => [
    h("dt", {}, label),
    h("dd", { dataset: { key } }, value),
  ]);
}

let asked = null;

/** The population fields as a query string ("" when none is filled in). */
function populationQuery() {
  const query = new URLSearchParams();
  for (const [id, key] of [["population-size", "population"], ["population-fraction", "fraction"],
    ["population-region", "region"]]) {
    const value = $(id).value.trim();
    if (value) query.set(key, value);
  }
  const text = query.toString();
  return text ? `?${text}` : "";
}

/** The region presets the server knows (GET /api/bundled), with their sizes. */
async function listRegions() {
  try {
    const { regions } = await api("GET", "/api/bundled");
    $("population-region").append(...Object.entries(regions || {}).map(([name, size]) =>
      h("option", { value: name }, `${name.replaceAll("_", " ")} (${fmt(size)} people)`)));
  } catch (_) {
    /* the bundled list's own error is shown by step 1 */
  }
}

/** Show the profile (fetched once per accepted schema: any change of it clears state.risk). */
export async function showRisk() {
  const ds = state.dataset;
  if (!ds) return;
  if (state.risk) return render(state.risk);
  if (asked === ds) return;
  asked = ds;
  say("risk-error", "");
  say("risk-note", "");
  $("risk-numbers").replaceChildren(h("dt", {}, "Computing the risk profile…"));
  $("risk-histogram").replaceChildren();
  status("Computing the risk of the original…");
  try {
    const risk = await api("GET", `/api/datasets/${enc(ds.id)}/risk${populationQuery()}`);
    if (state.dataset !== ds) return;
    state.risk = risk;
    render(risk);
    status("Risk profile ready.");
  } catch (e) {
    $("risk-numbers").replaceChildren();
    say("risk-error", e.message);
    status("");
  } finally {
    asked = null;
  }
}

function render(risk) {
  const n = risk.numbers || {};
  const threshold = at(n, "attackers.prosecutor.threshold") ?? n.threshold;
  const heads = HEADLINES.filter(([, path]) => at(n, path) !== undefined && at(n, path) !== null)
    .map(([label, path, share]) => [
      path.endsWith("records_above") && threshold !== undefined ? `${label.replace("the threshold", fmt(threshold, true))}` : label,
      fmt(at(n, path), share),
      path,
    ]);
  say("risk-note", risk.note ? `Note: ${risk.note}` : "");
  const pop = populationLines(n.population_uniqueness);
  $("risk-numbers").replaceChildren(...pairs([...heads, ...pop]));
  $("risk-details").replaceChildren(...pairs(flatten(n).map(([k, v]) => [k, fmt(v), k])));
  drawHistogram(risk.histogram);
}

/** The population-uniqueness estimates as headline lines (none without a population). */
function populationLines(pu) {
  if (!pu) return [];
  const key = "population_uniqueness";
  const lines = [["Population size", fmt(pu.population_size), `${key}.population_size`]];
  for (const [model, label] of [["pitman", "Pitman"], ["zayatz", "Zayatz"], ["snb", "SNB"],
    ["dankar", "Dankar et al.'s choice"]]) {
    const est = pu[model];
    if (!est) continue;
    // A model without a root has its reason under "Every figure".
    const share = `${(100 * est.share).toLocaleString("en", { maximumSignificantDigits: 2 })}%`;
    const value = est.uniques === null || est.uniques === undefined
      ? "no estimate"
      : `${fmt(Math.round(est.uniques))} (${share} of the population)`;
    const which = model === "dankar" ? ` (${est.model})` : "";
    lines.push([`Population uniques, ${label}${which}`, value, `${key}.${model}.uniques`]);
  }
  return lines;
}

function drawHistogram(hist) {
  const log = $("risk-log").checked;
  const title = `Records by re-identification risk (prosecutor)${log ? ", logarithmic scale" : ""}`;
  $("risk-histogram").replaceChildren(
    hist && hist.counts?.length
      ? histogram(hist.edges, hist.counts, title, log)
      : h("p", { class: "help" }, "No per-record risk to draw."),
  );
  $("risk-bins").replaceChildren(
    ...(hist?.counts || []).map((c, i) =>
      h("tr", {}, h("td", {}, `${fmt(hist.edges[i], true)} – ${fmt(hist.edges[i + 1], true)}`),
        h("td", { class: "num" }, fmt(c)))),
  );
}

$("risk-log").addEventListener("change", () => state.risk && drawHistogram(state.risk.histogram));

$("population-form").addEventListener("submit", (event) => {
  event.preventDefault();
  state.risk = null;
  showRisk();
});
listRegions();
