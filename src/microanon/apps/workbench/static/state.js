/*
 * What the page knows, shared by the steps: the open dataset (as the server last accepted it),
 * the datasets the workbench holds (as last listed), the methods and models on offer, the runs,
 * the runs picked for comparison (per dataset: a dataset opened again has its picks back).
 * Steps tell each other of changes through ``emit``/``on``.
 */
import { $, say } from "./dom.js";

export const MAX_COMPARE = 4;

export const state = {
  dataset: null,
  /** The datasets the workbench holds, oldest first (GET /api/datasets). */
  files: [],
  risk: null,
  methods: [],
  models: [],
  runs: new Map(),
  /** dataset id -> the ids of its runs picked for comparison, oldest pick first. */
  picks: new Map(),
  /** The runs of the open dataset picked for comparison. */
  get picked() {
    return this.picks.get(this.dataset?.id) || [];
  },
};

const bus = new EventTarget();

/** Tell the other steps that ``name`` changed. */
export function emit(name, detail) {
  bus.dispatchEvent(new CustomEvent(name, { detail }));
}

/** Run ``fn`` whenever ``name`` changes. */
export function on(name, fn) {
  bus.addEventListener(name, (e) => fn(e.detail));
}

/** A short progress note in the polite live region. */
export function status(text) {
  $("status").textContent = text || "";
}

/** A failure no field explains (the server gone, a bug): the page-wide alert. */
export function fail(text) {
  say("error", text);
}

/** The name of a dataset the page knows (the open one or a listed one), else its id. */
export function fileName(id) {
  if (state.dataset?.id === id) return state.dataset.name;
  return state.files.find((f) => f.id === id)?.name ?? id;
}

/**
 * Pick (or drop) a run of ``dataset`` (default: the open one) for the comparison: at most
 * MAX_COMPARE per dataset, oldest dropped first.
 */
export function pick(id, on_, dataset = state.dataset?.id) {
  let picked = (state.picks.get(dataset) || []).filter((x) => x !== id);
  if (on_) picked.push(id);
  if (picked.length > MAX_COMPARE) picked = picked.slice(-MAX_COMPARE);
  state.picks.set(dataset, picked);
  emit("picked");
}
