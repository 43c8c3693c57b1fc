/*
 * Step 1, the data: load a file (with the CLI's reading options) or a bundled dataset; the
 * columns' profile, role and kind; the lint's findings; a hierarchy per quasi-identifier with a
 * live preview. What the user set is kept in this page until the server accepts it: a refusal
 * shows its message next to the column and leaves every choice as it was.
 */
import { $, h, say, show, fmt, options, when } from "./dom.js";
import { api, enc } from "./api.js";
import { state, emit, status, fail } from "./state.js";

const ROLES = [
  ["identifier", "identifier"],
  ["quasi", "quasi-identifier"],
  ["sensitive", "sensitive"],
  ["insensitive", "insensitive"],
  ["weight", "sampling weight (published unchanged)"],
  ["household", "household id (never published)"],
  ["strata", "stratum id (published unchanged)"],
];
const KINDS = [
  ["categorical", "categorical"],
  ["numeric", "numeric"],
];
const TYPES = [
  ["auto", "automatic (what microanon init proposes)"],
  ["bundled", "a bundled hierarchy (US states, countries, ISCO-08, ISCED 2011, age bands, Adult's)"],
  ["groups", "groups of values you name (level by level)"],
  ["intervals", "intervals of fixed width"],
  ["quantiles", "intervals of equal record counts (quantiles)"],
  ["balanced", "groups of equal size (balanced tree)"],
  ["masking", "masking characters of codes"],
  ["dates", "dates (month, year, decade)"],
  ["arx_csv", "upload an ARX CSV file"],
];
/** The parameters of each kind of hierarchy: the builders' names (core/schema.py). */
const PARAMS = {
  bundled: [
    { name: "name", label: "Name of the bundled hierarchy", parse: "text", choices: "bundled",
      help: "One of microanon's ready hierarchies: common classifications and the Adult columns'." },
  ],
  intervals: [
    { name: "widths", label: "Interval widths, finest first", parse: "numbers",
      help: "e.g. 5, 10, 20: 37 becomes 35-39, then 30-39, then 20-39, then *." },
    { name: "start", label: "Where the first interval starts (optional)", parse: "number",
      optional: true, help: "Empty: at the smallest value, rounded down." },
  ],
  quantiles: [
    { name: "bins", label: "Intervals per level, finest first", parse: "integers",
      help: "e.g. 8, 4, 2: each level cuts the values into intervals holding about as many records." },
  ],
  balanced: [
    { name: "fanout", label: "Values grouped together per level", parse: "integer",
      help: "e.g. 2: pairs of neighbouring values, then pairs of pairs…" },
  ],
  masking: [
    { name: "max_masked", label: "Most characters masked (optional)", parse: "integer",
      optional: true, help: "Codes lose one trailing character per level: 75012, 7501*, 750**…" },
    { name: "char", label: "Mask character (optional)", parse: "text", optional: true,
      help: "Empty: *." },
  ],
};

/** column name -> the picker's state: {type, values: {param: text}, upload, preview, error,
 * and for groups: groups (per level, finest first, a list of {name, members}), level (the one
 * edited, from 0), ticked (the candidates ticked), name (the group's name typed), counts}. */
const editors = new Map();
/** The bundled hierarchies: [name, what it holds] (GET /api/bundled). */
let bundledHierarchies = [];
let editorsOf = null;
let previewTimer = null;

// ------------------------------------------------------------------ loading
function readOptions(form) {
  const fields = { sep: "sep", encoding: "encoding", decimal: "decimal", quotechar: "quotechar",
    na_values: "na-values", column_na_values: "column-na-values" };
  for (const [key, id] of Object.entries(fields)) {
    const value = $(id).value;
    if (value.trim() !== "") form.append(key, key === "sep" && value === "\\t" ? "\t" : value);
  }
}

async function loadFile(e) {
  e.preventDefault();
  say("load-error", "");
  const file = $("file").files[0];
  if (!file) {
    say("load-error", "Choose a file first (CSV, Parquet, SPSS, Stata, SAS or Excel).");
    $("file").focus();
    return;
  }
  const form = new FormData();
  form.append("file", file, file.name);
  readOptions(form);
  await load(() => api("POST", "/api/datasets", form), file.name);
}

async function loadBundled() {
  say("load-error", "");
  const name = $("bundled").value;
  await load(() => api("POST", "/api/datasets", { bundled: name }), name);
}

async function load(request, what) {
  status(`Reading ${what}…`);
  const buttons = [$("load-file"), $("load-bundled")];
  buttons.forEach((b) => (b.disabled = true));
  try {
    setDataset(await request());
    status(`${what} loaded: ${fmt(state.dataset.rows)} records.`);
  } catch (e) {
    status("");
    say("load-error", `${what} was not loaded: ${e.message}`);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

/** The dataset as the server now has it: every view of step 1 redrawn from it. An answer older
 * than the one shown (two changes sent at once, answered out of order) is left aside. */
function setDataset(ds) {
  if (state.dataset?.id === ds.id && ds.version < state.dataset.version) return;
  if (editorsOf !== ds.id) {
    editors.clear();
    editorsOf = ds.id;
  }
  state.dataset = ds;
  state.risk = null;
  render();
  emit("dataset", ds);
}

/** Open a dataset the workbench holds (the list of datasets; its roles, runs and steps). */
export async function openDataset(id) {
  setDataset(await api("GET", `/api/datasets/${enc(id)}`));
  return state.dataset;
}

/** No dataset open (the one open was removed in another tab): step 1's loaders only. */
export function closeDataset() {
  state.dataset = null;
  state.risk = null;
  show("dataset", false);
  for (const step of ["risk", "run", "compare"]) $(`tab-${step}`).disabled = true;
  emit("open", "data");
}

// ------------------------------------------------------------------ the columns
function render() {
  const ds = state.dataset;
  const focus = document.activeElement?.dataset?.key;
  show("dataset", true);
  const read = Object.entries(ds.read || {})
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
    .join(", ");
  $("dataset-summary").textContent =
    `${ds.name}: ${fmt(ds.rows)} records, ${ds.columns.length} columns, loaded ${when(ds.loaded)}` +
    (read ? ` (read with ${read})` : "");
  $("columns").tBodies[0].replaceChildren(...ds.columns.map(columnRow));
  $("left-out").textContent = leftOutSentence(ds);
  const lint = (ds.lint || []).map(finding);
  for (const warning of ds.read_warnings || []) lint.unshift(h("li", { class: "lint-warning read-warning" }, warning));
  if (ds.lint_limited) lint.push(h("li", { class: "lint-warning lint-limited" }, ds.lint_limited));
  for (const caution of ds.lint_cautions || []) lint.push(h("li", { class: "lint-warning lint-caution" }, caution));
  $("lint").replaceChildren(...(lint.length ? lint : [h("li", {}, "Nothing to report.")]));
  say("lint-error", "");
  const quasi = ds.columns.filter((c) => c.role === "quasi");
  $("hierarchies").replaceChildren(
    ...(quasi.length ? quasi.map(hierarchyBox) : [h("p", { class: "help" }, "No quasi-identifier yet: set a column's role to quasi-identifier.")]),
  );
  if (focus) document.querySelector(`[data-key="${CSS.escape(focus)}"]`)?.focus();
}

/** One lint finding; a blocking one can be accepted (and an accepted one taken back), except a
 * kind never accepted (a column that links records like a quasi-identifier, a quasi-identifier
 * that published columns give back): its remedy is shown instead. */
function finding(f) {
  const blocking = f.severity === "blocking";
  const what = f.kind ? f.kind.replaceAll("_", " ") : f.severity;
  return h("li", { class: `lint-${f.severity}`, dataset: { column: f.column ?? "", kind: f.kind ?? "" } },
    h("strong", {}, `${f.column ? `${f.column}: ` : ""}${what}`),
    blocking ? " (blocks the runs) — " : " (accepted) — ", f.message, " ",
    f.column && f.kind && f.acceptable === false
      ? h("span", { class: "help lint-remedy" }, `What to do: ${f.remedy}.`)
      : f.column && f.kind
      ? h("button", { type: "button", class: `lint-${blocking ? "accept" : "undo"} secondary small`,
          onclick: () => accept(f, blocking) },
        blocking ? `Accept this finding on ${f.column}` : `Take back the acceptance on ${f.column}`)
      : null);
}

/** Accept a finding (or take it back): the whole accepted set is sent, as the API replaces it. */
async function accept(f, on) {
  const current = state.dataset.accept || {};
  const kinds = new Set(current[f.column] || []);
  if (on) kinds.add(f.kind);
  else kinds.delete(f.kind);
  const next = { ...current, [f.column]: [...kinds] };
  if (!kinds.size) delete next[f.column];
  try {
    setDataset(await api("PUT", `/api/datasets/${enc(state.dataset.id)}/schema`, { accept: next }));
    status(on ? `Finding on ${f.column} accepted.` : `Finding on ${f.column} blocks the runs again.`);
  } catch (e) {
    say("lint-error", e.message);
  }
}

/** The missing-value policies (core/missing.py) and what each does, in words. */
const POLICIES = {
  value: "the value ? (a value of its own)",
  keep: "kept empty (unknown)",
  drop: "rows left out",
  error: "refuse the run",
};

/** The policies a column of this role and kind may have (keep is refused for a quasi-identifier,
 * the value ? is for categorical values). */
function policiesFor(col) {
  if (col.role === "quasi") return ["value", "drop", "error"];
  return col.kind === "categorical" ? ["keep", "drop", "value", "error"] : ["keep", "drop", "error"];
}

function missingCell(col, i, error) {
  const share = fmt(col.missing_share, true);
  if (!col.missing) return h("td", { class: "num" }, share);
  const id = `missing-${i}`;
  const allowed = policiesFor(col);
  const choices = (allowed.includes(col.missing) ? allowed : [col.missing, ...allowed])
    .map((p) => [p, `${p}: ${POLICIES[p] || p}`]);
  const select = h("select", { class: "missing-policy", id, dataset: { key: `missing:${col.name}` },
    "aria-label": `Missing values of ${col.name}`,
    onchange: () => setMissing(col, select.value, error) }, options(choices, col.missing));
  return h("td", { class: "num" }, share, h("div", {}, select));
}

async function setMissing(col, policy, error) {
  say(error, "");
  try {
    const ds = await api("PUT", `/api/datasets/${enc(state.dataset.id)}/schema`,
      { columns: { [col.name]: { missing: policy } } });
    setDataset(ds);
    status(`Missing values of ${col.name}: ${policy} (${POLICIES[policy]}).`);
  } catch (e) {
    say(error, e.message);
  }
}

/** What a run will leave out for a missing value, said before it starts. */
export function leftOutSentence(ds) {
  const out = ds.left_out || { columns: {}, total: 0, entering: ds.rows };
  const per = Object.entries(out.columns || {}).filter(([, n]) => n > 0);
  if (!out.total) return `No row is left out for a missing value: all ${fmt(ds.rows)} rows enter the method.`;
  const why = per.map(([c, n]) => `${c} ${fmt(n)}`).join(", ");
  const twice = per.length > 1 ? " (a row missing in two of these columns is counted under each)" : "";
  return `${fmt(out.total)} of ${fmt(ds.rows)} rows will be left out for a missing value ` +
    `(missing: drop): ${why}${twice}; ${fmt(out.entering)} rows enter the method.`;
}

function columnRow(col, i) {
  const error = h("p", { class: "row-error problem", role: "alert", hidden: true });
  const role = h("select", { class: "role", id: `role-${i}`, "aria-label": `Role of ${col.name}`,
    dataset: { key: `role:${col.name}` } }, options(ROLES, col.role));
  const kind = h("select", { class: "kind", id: `kind-${i}`, "aria-label": `Kind of ${col.name}`,
    dataset: { key: `kind:${col.name}` } }, options(KINDS, col.kind));
  const change = () => setRole(col, role.value, kind.value, error);
  role.addEventListener("change", change);
  kind.addEventListener("change", change);
  const examples = (col.examples || []).slice(0, 4).map((x) => String(x)).join(", ");
  return h("tr", { dataset: { column: col.name } },
    h("th", { scope: "row" }, col.name),
    h("td", {}, col.type),
    h("td", { class: "num" }, fmt(col.distinct)),
    h("td", { class: "num" }, fmt(col.unique_share, true)),
    missingCell(col, i, error),
    h("td", { class: "examples" }, examples),
    h("td", {}, role, h("p", { class: "reason" }, col.reason || ""), error),
    h("td", {}, kind));
}

async function setRole(col, role, kind, error) {
  say(error, "");
  const change = { role, kind };
  // A policy the new role or kind does not take goes back to the default of the new one.
  if (col.missing && !policiesFor({ role, kind }).includes(col.missing)) change.missing = null;
  try {
    const ds = await api("PUT", `/api/datasets/${enc(state.dataset.id)}/schema`,
      { columns: { [col.name]: change } });
    setDataset(ds);
    status(`${col.name} is now ${role} (${kind}).`);
  } catch (e) {
    say(error, e.message);
  }
}

// ------------------------------------------------------------------ hierarchies
function editorOf(col) {
  if (!editors.has(col.name)) {
    const spec = col.hierarchy || { type: "auto" };
    const values = {};
    for (const p of PARAMS[spec.type] || []) {
      const v = spec[p.name];
      if (v !== undefined && v !== null) values[p.name] = Array.isArray(v) ? v.join(", ") : String(v);
    }
    const upload = spec.type === "arx_csv" ? { upload: spec.upload, filename: "uploaded file" } : null;
    const groups = spec.type === "groups" && Array.isArray(spec.levels)
      ? spec.levels.map((level) => Object.entries(level).map(([name, members]) => ({ name, members })))
      : [[]];
    editors.set(col.name, { type: spec.type, values, upload, preview: null, error: "", groups,
      level: groups.length - 1, ticked: new Set(), name: "", counts: null });
  }
  return editors.get(col.name);
}

function describe(spec, levels) {
  if (!spec) return "Now: none yet (an automatic one is built when you run).";
  if (spec.type === "groups") {
    const named = (spec.levels || []).map((l, i) => `level ${i + 1}: ${Object.keys(l).join(", ")}`);
    return `Now: groups you named (${named.join("; ")}), then *.`;
  }
  const params = Object.entries(spec)
    .filter(([k]) => k !== "type")
    .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(", ") : v}`)
    .join("; ");
  const type = (TYPES.find(([t]) => t === spec.type) || [spec.type, spec.type])[1];
  return `Now: ${type}${params ? ` (${params})` : ""}${levels ? `, ${levels} level${levels === 1 ? "" : "s"}` : ""}.`;
}

function hierarchyBox(col) {
  const ed = editorOf(col);
  const box = h("fieldset", { class: "hier", dataset: { column: col.name } });
  const redraw = () => {
    const focus = box.contains(document.activeElement) ? document.activeElement.dataset?.key : null;
    const next = hierarchyBox(col);
    box.replaceWith(next);
    if (focus) next.querySelector(`[data-key="${CSS.escape(focus)}"]`)?.focus();
  };
  const typeId = `htype-${CSS.escape(col.name)}`;
  const type = h("select", { class: "h-type", id: typeId, dataset: { key: `htype:${col.name}` },
    onchange: () => { ed.type = type.value; ed.preview = null; ed.error = ""; redraw(); } },
  options(TYPES, ed.type));
  box.append(
    h("legend", {}, col.name),
    h("p", { class: "h-current" }, describe(col.hierarchy, col.levels)),
    h("div", { class: "field" }, h("label", { for: typeId }, `Hierarchy of ${col.name}`), type),
  );
  for (const p of PARAMS[ed.type] || []) {
    const id = `h-${CSS.escape(col.name)}-${p.name}`;
    const common = { id, dataset: { param: p.name, key: `h:${col.name}:${p.name}` },
      "aria-describedby": `${id}-help` };
    let input;
    if (p.choices === "bundled") {
      if (ed.values[p.name] === undefined && bundledHierarchies.length) ed.values[p.name] = bundledHierarchies[0][0];
      input = h("select", { ...common,
        onchange: () => { ed.values[p.name] = input.value; schedulePreview(col, box); } },
      options(bundledHierarchies.map(([n, what]) => [n, what ? `${n}: ${what}` : n]), ed.values[p.name]));
    } else {
      input = h("input", { ...common, type: "text", value: ed.values[p.name] ?? "",
        oninput: () => { ed.values[p.name] = input.value; schedulePreview(col, box); } });
    }
    box.append(h("div", { class: "field" }, h("label", { for: id }, p.label), input,
      h("p", { class: "help", id: `${id}-help` }, p.help)));
  }
  if (ed.type === "groups") box.append(groupsEditor(col, ed, redraw));
  if (ed.type === "arx_csv") {
    const id = `h-${CSS.escape(col.name)}-file`;
    const file = h("input", { type: "file", id, class: "h-file", accept: ".csv,.txt",
      onchange: () => upload(col, file.files[0], box) });
    box.append(h("div", { class: "field" },
      h("label", { for: id }, `ARX hierarchy file for ${col.name} (CSV, ; between levels)`), file,
      h("p", { class: "help h-upload" }, ed.upload
        ? `Uploaded: ${ed.upload.filename}${ed.upload.leaves ? `, ${fmt(ed.upload.leaves)} values, ${ed.upload.levels} levels` : ""}.`
        : "One line per value: the value, then its generalizations, most general last.")));
  }
  box.append(
    h("div", { class: "actions" },
      h("button", { type: "button", class: "h-preview secondary", onclick: () => preview(col, box) },
        `Preview the hierarchy of ${col.name}`),
      h("button", { type: "button", class: "h-apply", onclick: () => apply(col, box) },
        `Use this hierarchy for ${col.name}`)),
    h("p", { class: "h-error problem", role: "alert", hidden: !ed.error }, ed.error),
    h("div", { class: "h-preview-table" }, ed.preview ? previewView(col, ed.preview) : null),
  );
  return box;
}

// ------------------------------------------------------------------ the grouping editor
/** The column's values with their counts (GET /api/datasets/{id}/values), read once. */
function loadCounts(col, ed) {
  if (!ed.loading) {
    ed.loading = api("GET", `/api/datasets/${enc(state.dataset.id)}/values?column=${enc(col.name)}`)
      .then((c) => (ed.counts = c))
      .catch((e) => (ed.counts = { error: e.message }));
  }
  return ed.loading;
}

/** Rows under each candidate of a level: a value's count, or the sum over a group's members. */
function rowsOf(ed, level, member) {
  if (level < 0) {
    const v = ed.counts.values.find((x) => String(x.value) === String(member));
    return v ? v.count : 0;
  }
  const g = ed.groups[level].find((x) => x.name === String(member));
  return g ? g.members.reduce((n, m) => n + rowsOf(ed, level - 1, m), 0) : 0;
}

function groupsEditor(col, ed, redraw) {
  const wrap = h("div", { class: "groups" });
  if (!ed.counts) {
    wrap.append(h("p", { class: "help" }, `Reading the values of ${col.name}…`));
    loadCounts(col, ed).then(redraw);
    return wrap;
  }
  if (ed.counts.error) {
    wrap.append(h("p", { class: "problem" }, ed.counts.error));
    return wrap;
  }
  const L = ed.level;
  const level = ed.groups[L];
  const candidates = L === 0
    ? ed.counts.values.map((v) => v.value)
    : ed.groups[L - 1].map((g) => g.name);
  const placed = new Map();
  for (const g of level) for (const m of g.members) placed.set(String(m), g.name);
  const key = (x) => `${col.name}:${L}:${x}`;
  const levelId = `g-level-${CSS.escape(col.name)}`;
  const levelSelect = h("select", { class: "g-level", id: levelId, dataset: { key: `glevel:${col.name}` },
    onchange: () => { ed.level = Number(levelSelect.value); ed.ticked.clear(); redraw(); } },
  options(ed.groups.map((_, i) => [i, i === 0 ? `Level 1: groups of the values of ${col.name}`
    : `Level ${i + 1}: groups of the groups of level ${i}`]), L));
  wrap.append(
    h("p", { class: "help" }, `Tick ${L === 0 ? "values" : `groups of level ${L}`}, name the group, add it. ` +
      "Every one must end in exactly one group of each level; * is added above the last level."),
    h("div", { class: "field" }, h("label", { for: levelId }, "Level you are editing"), levelSelect));
  if (L === 0 && ed.counts.distinct > ed.counts.values.length) {
    wrap.append(h("p", { class: "problem" }, `Only the ${fmt(ed.counts.values.length)} most frequent of ` +
      `${fmt(ed.counts.distinct)} values are listed here; every value needs a group, so use another ` +
      "type of hierarchy (an ARX file, masking) for this column."));
  }
  if (L === 0 && ed.counts.missing && col.missing === "value") {
    wrap.append(h("p", { class: "help" }, `${fmt(ed.counts.missing)} cells are empty: they are the ` +
      "value ?, a leaf of its own right under *, and need no group."));
  }
  const list = h("ul", { class: "g-candidates", role: "group",
    "aria-label": L === 0 ? `Values of ${col.name}` : `Groups of level ${L}` }, ...candidates.map((c, i) => {
    const id = `g-${CSS.escape(col.name)}-${L}-${i}`;
    const where = placed.get(String(c));
    const box = h("input", { type: "checkbox", id, class: "g-pick", dataset: { value: String(c), key: key(c) },
      checked: ed.ticked.has(String(c)), disabled: Boolean(where),
      onchange: () => (box.checked ? ed.ticked.add(String(c)) : ed.ticked.delete(String(c))) });
    return h("li", {}, box, h("label", { for: id, class: "g-label" },
      `${c} (${fmt(rowsOf(ed, L - 1, c))} rows)`, where ? ` — in ${where}` : ""));
  }));
  const nameId = `g-name-${CSS.escape(col.name)}`;
  const name = h("input", { type: "text", id: nameId, class: "g-name", value: ed.name,
    dataset: { key: `gname:${col.name}` }, oninput: () => (ed.name = name.value) });
  const problem = h("p", { class: "g-error problem", role: "alert", hidden: true });
  const add = (members) => {
    const text = ed.name.trim();
    if (!text) return say(problem, "Give the group a name first.");
    if (level.some((g) => g.name === text)) return say(problem, `Level ${L + 1} already has a group ${text}.`);
    if (!members.length) return say(problem, `Tick the ${L === 0 ? "values" : "groups"} of the group ${text} first.`);
    level.push({ name: text, members });
    ed.ticked.clear();
    ed.name = "";
    ed.preview = null;
    redraw();
    status(`Group ${text} added to level ${L + 1} of ${col.name}.`);
  };
  const ticked = () => candidates.filter((c) => ed.ticked.has(String(c)) && !placed.has(String(c)));
  const rest = () => candidates.filter((c) => !placed.has(String(c)));
  const last = L === ed.groups.length - 1;
  wrap.append(
    h("div", { class: "table-wrap g-box" }, list),
    h("div", { class: "field" }, h("label", { for: nameId }, "Name of the group"), name),
    h("div", { class: "actions" },
      h("button", { type: "button", class: "g-add secondary", dataset: { key: `gadd:${col.name}` }, onclick: () => add(ticked()) },
        "Add a group of the ticked ones"),
      h("button", { type: "button", class: "g-rest secondary", dataset: { key: `grest:${col.name}` }, onclick: () => add(rest()) },
        "Add a group of all not in a group yet")),
    problem,
    h("ul", { class: "g-list" }, ...level.map((g, i) => h("li", { dataset: { group: g.name } },
      h("strong", {}, g.name), `: ${g.members.join(", ")} (${fmt(rowsOf(ed, L, g.name))} rows) `,
      h("button", { type: "button", class: "g-remove secondary small",
        onclick: () => { level.splice(i, 1); ed.preview = null; redraw(); } }, `Remove the group ${g.name}`)))),
    h("div", { class: "actions" },
      last && level.length
        ? h("button", { type: "button", class: "g-up secondary", dataset: { key: `gup:${col.name}` },
            onclick: () => { ed.groups.push([]); ed.level = ed.groups.length - 1; ed.ticked.clear(); redraw(); } },
          `Group the groups of level ${L + 1} (level ${L + 2})`)
        : null,
      last && L > 0
        ? h("button", { type: "button", class: "g-drop-level secondary", dataset: { key: `gdrop:${col.name}` },
            onclick: () => { ed.groups.pop(); ed.level = ed.groups.length - 1; ed.ticked.clear(); redraw(); } },
          `Remove level ${L + 1}`)
        : null));
  return wrap;
}

/** The picker's HierarchySpec; throws an Error naming the parameter when a value is not right. */
function specOf(col) {
  const ed = editorOf(col);
  const spec = { type: ed.type };
  if (ed.type === "groups") {
    const empty = ed.groups.findIndex((level) => !level.length);
    if (empty >= 0) throw new Error(`hierarchy of '${col.name}': level ${empty + 1} has no group yet`);
    spec.levels = ed.groups.map((level) => Object.fromEntries(level.map((g) => [g.name, g.members])));
    return spec;
  }
  if (ed.type === "arx_csv") {
    if (!ed.upload) throw new Error(`hierarchy of '${col.name}': choose the ARX CSV file first`);
    spec.upload = ed.upload.upload;
    return spec;
  }
  for (const p of PARAMS[ed.type] || []) {
    const text = (ed.values[p.name] ?? "").trim();
    if (text === "") {
      if (p.optional) continue;
      throw new Error(`hierarchy of '${col.name}': give ${p.label.toLowerCase()} ('${p.name}')`);
    }
    spec[p.name] = parse(text, p, col);
  }
  return spec;
}

function parse(text, p, col) {
  if (p.parse === "text") return text;
  const bad = (v) => new Error(`hierarchy of '${col.name}': '${p.name}' must be ${
    p.parse.startsWith("integer") ? "whole numbers" : "numbers"}, got '${v}'`);
  const one = (v) => {
    const x = Number(v.trim());
    if (v.trim() === "" || !Number.isFinite(x)) throw bad(v.trim());
    if (p.parse.startsWith("integer") && !Number.isInteger(x)) throw bad(v.trim());
    return x;
  };
  if (p.parse === "numbers" || p.parse === "integers") return text.split(/[,\s]+/).filter(Boolean).map(one);
  return one(text);
}

function schedulePreview(col, box) {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(() => preview(col, box, true), 400);
}

async function preview(col, box, quiet = false) {
  const ed = editorOf(col);
  let spec;
  try {
    spec = specOf(col);
  } catch (e) {
    if (!quiet) setError(box, ed, e.message);
    return;
  }
  try {
    ed.preview = await api("POST", `/api/datasets/${enc(state.dataset.id)}/hierarchy-preview`,
      { column: col.name, hierarchy: spec });
    setError(box, ed, "");
    box.querySelector(".h-preview-table").replaceChildren(previewView(col, ed.preview));
  } catch (e) {
    setError(box, ed, e.message);
  }
}

function setError(box, ed, text) {
  ed.error = text;
  say(box.querySelector(".h-error"), text);
}

function previewView(col, pv) {
  const width = Math.max(1, ...pv.rows.map((r) => r.length));
  const head = h("tr", {}, h("th", { scope: "col" }, "Value"),
    ...Array.from({ length: width - 1 }, (_, i) => h("th", { scope: "col" }, `Level ${i + 1}`)));
  const rows = pv.rows.map((r) => h("tr", {}, ...r.map((x, i) => (i === 0 ? h("th", { scope: "row" }, x) : h("td", {}, x)))));
  const missing = pv.missing || [];
  return h("div", {},
    h("p", { class: "h-summary" },
      `${width - 1} level${width === 2 ? "" : "s"} above the values; distinct labels from the values up: ` +
      `${(pv.count_per_level || []).map((x) => fmt(x)).join(" → ")}`),
    missing.length
      ? h("div", { class: "missing" },
          h("p", { class: "problem" }, `${fmt(missing.length)} value${missing.length > 1 ? "s" : ""} of ${col.name} not covered by this hierarchy:`),
          h("ul", { class: "h-missing" }, ...missing.slice(0, 50).map((v) => h("li", {}, String(v)))))
      : h("p", { class: "ok" }, `Every value of ${col.name} is covered.`),
    h("div", { class: "table-wrap" }, h("table", { class: "preview", "aria-label": `Preview of the hierarchy of ${col.name}` },
      h("thead", {}, head), h("tbody", {}, ...rows))));
}

async function upload(col, file, box) {
  const ed = editorOf(col);
  if (!file) return;
  const form = new FormData();
  form.append("file", file, file.name);
  try {
    const up = await api("POST", "/api/hierarchies", form);
    ed.upload = { ...up, filename: file.name };
    setError(box, ed, "");
    box.querySelector(".h-upload").textContent =
      `Uploaded: ${file.name}, ${fmt(up.leaves)} values, ${up.levels} levels.`;
    await preview(col, box);
  } catch (e) {
    setError(box, ed, `${file.name}: ${e.message}`);
  }
}

async function apply(col, box) {
  const ed = editorOf(col);
  let spec;
  try {
    spec = specOf(col);
  } catch (e) {
    setError(box, ed, e.message);
    return;
  }
  try {
    const ds = await api("PUT", `/api/datasets/${enc(state.dataset.id)}/schema`,
      { columns: { [col.name]: { role: col.role, kind: col.kind, hierarchy: spec } } });
    ed.error = "";
    setDataset(ds);
    status(`The hierarchy of ${col.name} is set.`);
  } catch (e) {
    setError(box, ed, e.message);
  }
}

/** The bundled datasets and hierarchies the server offers (GET /api/bundled). */
async function listBundled() {
  let bundled;
  try {
    bundled = await api("GET", "/api/bundled");
  } catch (e) {
    say("load-error", `The bundled datasets could not be listed: ${e.message}`);
    return;
  }
  const described = new Map(bundled.datasets.map((d) => [d.name, d.description]));
  $("bundled").replaceChildren(...options(
    bundled.datasets.map((d) => [d.name, `${d.name} (${fmt(d.rows)} records)`]), "arx_adult"));
  const help = () => ($("bundled-help").textContent = described.get($("bundled").value) || "");
  $("bundled").addEventListener("change", help);
  help();
  bundledHierarchies = bundled.hierarchies.map((n) => [n, (bundled.hierarchy_help || {})[n] || ""]);
}

/** A dataset the server already holds (``microanon app DATA`` loads one at start): the latest. */
async function resume() {
  try {
    const known = await api("GET", "/api/datasets");
    if (known.length && !state.dataset) {
      const last = known[known.length - 1];
      await openDataset(last.id);
      status(`${last.name} loaded: ${fmt(last.rows)} records.`);
    }
  } catch (e) {
    fail(`The workbench's datasets could not be listed: ${e.message}`);
  }
}

export function initData() {
  $("load-form").addEventListener("submit", loadFile);
  $("load-bundled").addEventListener("click", loadBundled);
  window.addEventListener("unhandledrejection", (e) => fail(String(e.reason?.message || e.reason)));
  listBundled();
  resume();
}
