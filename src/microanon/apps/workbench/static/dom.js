/*
 * Building the page from data without innerHTML: every value becomes a text node or an
 * attribute, so nothing from a file or the server is ever read as markup.
 */
export const $ = (id) => document.getElementById(id);

/** An element with attributes (on* are listeners, class, dataset) and children (text or nodes). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

const SVG = "http://www.w3.org/2000/svg";

/** The same for SVG elements. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "class") el.setAttribute("class", v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k === "value" && "value" in el) el.value = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
}

/** Show or hide an element. */
export function show(el, on) {
  (typeof el === "string" ? $(el) : el).hidden = !on;
}

/** Put a message in an element (shown when there is one). */
export function say(el, text) {
  const box = typeof el === "string" ? $(el) : el;
  box.textContent = text || "";
  box.hidden = !text;
}

/** A number for people: thousands separated, shares as percents, at most 4 significant digits. */
export function fmt(x, share = false) {
  if (x === null || x === undefined) return "–";
  if (typeof x === "boolean") return x ? "yes" : "no";
  if (typeof x !== "number") return String(x);
  if (share) return `${(100 * x).toLocaleString("en", { maximumFractionDigits: 2 })}%`;
  if (Number.isInteger(x)) return x.toLocaleString("en");
  return x.toLocaleString("en", { maximumSignificantDigits: 4 });
}

/** An option list; ``current`` is selected. */
export function options(values, current) {
  return values.map(([value, label]) =>
    h("option", { value, selected: String(value) === String(current) }, label),
  );
}

/** A moment the server gave (ISO 8601) in this computer's time: 14:03:05, or 2 May, 14:03:05
 * when it is not today. */
export function when(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const time = { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" };
  if (d.toDateString() === new Date().toDateString()) return d.toLocaleTimeString("en-GB", time);
  return d.toLocaleString("en-GB", { day: "numeric", month: "short", ...time });
}
