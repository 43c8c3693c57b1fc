/*
 * The charts of the workbench, drawn as inline SVG (no chart library): a histogram of the
 * per-record risk, a small bar chart of one column's values, and the risk against the loss after
 * each of several steps. Every bar and point has a <title> with its label and numbers, so the
 * numbers are readable without the picture.
 */
import { s, fmt } from "./dom.js";

/** Bars of ``counts`` labelled by ``labels`` in a ``width`` × ``height`` box. */
function bars(labels, counts, { width, height, title, run, log = false }) {
  const pad = { left: 44, right: 6, top: 18, bottom: 34 };
  const w = width - pad.left - pad.right;
  const hgt = height - pad.top - pad.bottom;
  const max = Math.max(1, ...counts);
  // On a logarithmic scale a single record still shows: log(1 + count) / log(1 + max).
  const scale = log ? (c) => Math.log1p(c) / Math.log1p(max) : (c) => c / max;
  const bw = counts.length ? w / counts.length : w;
  const svg = s("svg", {
    class: "chart",
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    role: "img",
    "aria-label": title,
    "data-run": run,
  });
  svg.append(s("title", {}, title));
  svg.append(s("text", { x: pad.left, y: 12, class: "chart-title" }, title));
  svg.append(
    s("line", { x1: pad.left, y1: pad.top + hgt, x2: pad.left + w, y2: pad.top + hgt, class: "axis" }),
  );
  svg.append(s("text", { x: pad.left - 4, y: pad.top + 8, class: "tick", "text-anchor": "end" }, fmt(max)));
  svg.append(s("text", { x: pad.left - 4, y: pad.top + hgt, class: "tick", "text-anchor": "end" }, "0"));
  counts.forEach((c, i) => {
    const bh = c > 0 ? Math.max(1, scale(c) * hgt) : 0;
    const x = pad.left + i * bw;
    const rect = s("rect", {
      x: x + 1,
      y: pad.top + hgt - bh,
      width: Math.max(1, bw - 2),
      height: bh,
      class: "bar",
    });
    rect.append(s("title", {}, `${labels[i]}: ${fmt(c)}`));
    svg.append(rect);
  });
  // A few labels under the axis (first, middle, last) so they never overlap.
  const marks = [...new Set([0, Math.floor((labels.length - 1) / 2), labels.length - 1])];
  for (const i of marks.filter((j) => j >= 0 && labels.length)) {
    const text = String(labels[i]);
    svg.append(
      s(
        "text",
        {
          x: pad.left + (i === 0 ? 0 : i === labels.length - 1 ? labels.length * bw : (i + 0.5) * bw),
          y: height - 16,
          class: "tick",
          "text-anchor": i === 0 ? "start" : i === labels.length - 1 ? "end" : "middle",
        },
        text.length > 14 ? `${text.slice(0, 13)}…` : text,
      ),
    );
  }
  return svg;
}

/**
 * The histogram of per-record risk (``edges`` has one more entry than ``counts``), on a
 * logarithmic scale when ``log``: the few records at high risk are what matters.
 */
export function histogram(edges, counts, title, log) {
  const labels = counts.map((_, i) => `${fmt(edges[i], true)}–${fmt(edges[i + 1], true)}`);
  return bars(labels, counts, { width: 560, height: 220, title, run: null, log });
}

/** One column's values before or after (``run``: "before" or the run's id). */
export function columnChart(chart, title, run) {
  return bars(chart.labels, chart.counts, { width: 260, height: 150, title, run });
}

/**
 * The risk against the loss after each step (``points``: {label, loss as a share, risk}), the
 * steps joined in their order from the original.
 */
export function riskLoss(points, title) {
  const width = 420;
  const height = 220;
  const pad = { left: 52, right: 12, top: 18, bottom: 34 };
  const w = width - pad.left - pad.right;
  const hgt = height - pad.top - pad.bottom;
  const maxLoss = Math.max(1e-9, ...points.map((p) => p.loss));
  const maxRisk = Math.max(1, ...points.map((p) => p.risk));
  const x = (p) => pad.left + (p.loss / maxLoss) * w;
  const y = (p) => pad.top + hgt - (p.risk / maxRisk) * hgt;
  const svg = s("svg", { class: "chart", viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": title });
  svg.append(s("title", {}, title));
  svg.append(s("text", { x: pad.left, y: 12, class: "chart-title" }, title));
  svg.append(s("line", { x1: pad.left, y1: pad.top + hgt, x2: pad.left + w, y2: pad.top + hgt, class: "axis" }));
  svg.append(s("line", { x1: pad.left, y1: pad.top, x2: pad.left, y2: pad.top + hgt, class: "axis" }));
  svg.append(s("text", { x: pad.left - 4, y: pad.top + 8, class: "tick", "text-anchor": "end" }, fmt(maxRisk)));
  svg.append(s("text", { x: pad.left - 4, y: pad.top + hgt, class: "tick", "text-anchor": "end" }, "0"));
  svg.append(s("text", { x: pad.left + w, y: height - 16, class: "tick", "text-anchor": "end" }, fmt(maxLoss, true)));
  svg.append(s("polyline", { points: points.map((p) => `${x(p)},${y(p)}`).join(" "), class: "path",
    fill: "none", stroke: "currentColor" }));
  for (const p of points) {
    const dot = s("circle", { cx: x(p), cy: y(p), r: 4, class: "bar" });
    dot.append(s("title", {}, `${p.label}: ${fmt(p.risk)} sample uniques, ${fmt(p.loss, true)} of the cells changed`));
    svg.append(dot);
  }
  return svg;
}
