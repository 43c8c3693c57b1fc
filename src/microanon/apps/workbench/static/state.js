/*
 * What the page knows, shared by the steps: the loaded dataset (as the server last accepted
 * it), the methods and models on offer, the runs, the runs picked for comparison. Steps tell
 * each other of changes through ``emit``/``on``.
 */
import { $, say } from "./dom.js";

export const MAX_COMPARE = 4;

export const state = {
  dataset: null,
  risk: null,
  methods: [],
  models: [],
  runs: new Map(),
  picked: [],
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

/** Pick (or drop) a run for the comparison: at most MAX_COMPARE, oldest dropped first. */
export function pick(id, on_) {
  state.picked = state.picked.filter((x) => x !== id);
  if (on_) state.picked.push(id);
  if (state.picked.length > MAX_COMPARE) state.picked = state.picked.slice(-MAX_COMPARE);
  emit("picked");
}
