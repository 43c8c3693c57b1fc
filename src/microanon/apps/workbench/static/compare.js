/*
 * Step 4, compare and download: up to four runs side by side (utility, risk, suppressed
 * records, the models held, the better value marked), each quasi-identifier's chart before and
 * after, and each run's three downloads (public part, internal part, configuration).
 */
import { $, h, say, show, fmt } from "./dom.js";
import { api, enc } from "./api.js";
import { state, status } from "./state.js";
import { columnChart } from "./charts.js";

const name = (r) => r.label || r.id;

/** The index of the better value of a row (none when the values tie or are missing). */
function better(values, direction) {
  const nums = values.map((v) => (typeof v === "number" && Number.isFinite(v) ? v : null));
  const known = nums.filter((v) => v !== null);
  if (known.length < 2 || !direction) return -1;
  const best = direction === "lower" ? Math.min(...known) : Math.max(...known);
  if (known.every((v) => v === best)) return -1;
  return nums.indexOf(best);
}

function row(measure, values, direction, share = false) {
  const best = better(values, direction);
  const hint = direction ? ` (${direction} is better)` : "";
  return h("tr", { dataset: { measure } },
    h("th", { scope: "row" }, measure.replaceAll("_", " "), h("span", { class: "help" }, hint)),
    ...values.map((v, i) => h("td", { class: i === best ? "num better" : "num" },
      typeof v === "string" ? v : fmt(v, share && typeof v === "number"),
      i === best ? h("span", { class: "mark", "aria-label": "better" }, " ★") : null)));
}

function models(run) {
  return (run.result?.models || [])
    .map((m) => `${m.model}: ${m.holds ? "holds" : "does not hold"}${m.achieved !== undefined && m.achieved !== null ? ` (${fmt(m.achieved)})` : ""}`)
    .join("; ");
}

function table(doc) {
  const runs = doc.runs;
  const head = h("tr", {}, h("th", { scope: "col" }, "Measure"), ...runs.map((r) => h("th", { scope: "col", dataset: { run: r.id } }, name(r))));
  const seen = new Set(doc.rows.map((r) => r.measure));
  const extra = [];
  if (!seen.has("suppressed")) extra.push(row("suppressed", runs.map((r) => r.result?.suppressed), "lower"));
  if (!seen.has("suppressed_share")) extra.push(row("suppressed_share", runs.map((r) => r.result?.suppressed_share), "lower", true));
  extra.push(row("models", runs.map(models), null));
  // The verdict in the command's words (a "yes" names the columns that can restore a key).
  const verified = (v) => (v === true ? "yes" : v === false ? "no" : "nothing claimed");
  extra.push(row("verified", runs.map((r) => r.result?.verified_words ?? verified(r.result?.verified)), null));
  if (runs.some((r) => r.result?.search)) extra.push(row("search", runs.map((r) => r.result?.search?.summary ?? "–"), null));
  // A run of several methods names its steps in their order.
  const method = runs.map((r) => (r.config?.steps
    ? `steps: ${r.config.steps.map((s) => s.method).join(" → ")}`
    : `${r.config?.method ?? ""}`));
  return [
    h("caption", {}, "The runs side by side; ★ marks the better value of a row."),
    h("thead", {}, head),
    h("tbody", {}, row("method", method, null),
      row("rows in the file", runs.map((r) => r.result?.rows?.in_file), null),
      row("rows left out (missing values)", runs.map((r) => r.result?.rows?.left_out_total), "lower"),
      row("rows entering the method", runs.map((r) => r.result?.rows?.entering), null),
      row("records published", runs.map((r) => r.result?.records), null),
      ...doc.rows.map((r) => row(r.measure, r.values, r.better, /share/.test(r.measure))), ...extra),
  ];
}

function downloads(runs) {
  return runs.map((r) => {
    const base = `/api/runs/${enc(r.id)}`;
    return h("li", { dataset: { run: r.id } },
      h("strong", {}, name(r)), ": ",
      h("a", { class: "download-public button", href: `${base}/public.zip`, download: "" },
        `Public part of ${name(r)} (zip, to publish)`), " ",
      h("a", { class: "download-internal button secondary", href: `${base}/internal.zip`, download: "" },
        `Internal part of ${name(r)} (zip, not for publication)`), " ",
      h("a", { class: "download-config button secondary", href: `${base}/config.zip`, download: "" },
        `Configuration of ${name(r)} (zip: YAML and hierarchies)`));
  });
}

function charts(runs) {
  const columns = Object.keys(runs[0].result?.columns || {});
  return columns.map((col) => {
    const before = runs[0].result.columns[col].before;
    return h("section", { class: "column-charts", dataset: { column: col } },
      h("h4", {}, col),
      h("div", { class: "chart-row" },
        columnChart(before, `${col}: original`, "before"),
        ...runs.map((r) => {
          const c = r.result?.columns?.[col];
          return c ? columnChart(c.after, `${col}: ${name(r)}`, r.id) : null;
        })));
  });
}

let shown = "";

/** Fetch the comparison of the picked runs and draw it. */
export async function showCompare() {
  const ids = state.picked.filter((id) => state.runs.get(id)?.status === "done");
  show("compare-hint", ids.length === 0);
  if (!ids.length) {
    $("compare-table").replaceChildren();
    $("downloads").replaceChildren();
    $("charts").replaceChildren();
    shown = "";
    return;
  }
  const key = ids.join(",");
  if (key === shown) return;
  say("error", "");
  status("Comparing…");
  let doc;
  try {
    doc = await api("GET", `/api/datasets/${enc(state.dataset.id)}/compare?runs=${ids.map(enc).join(",")}`);
  } catch (e) {
    say("error", `The runs could not be compared: ${e.message}`);
    return;
  }
  shown = key;
  $("compare-table").replaceChildren(...table(doc));
  $("downloads").replaceChildren(...downloads(doc.runs));
  $("charts").replaceChildren(...charts(doc.runs));
  status(`${doc.runs.length} run${doc.runs.length > 1 ? "s" : ""} compared.`);
}
