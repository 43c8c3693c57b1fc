/*
 * The data user's page of `microanon serve` (/results): ask for the export token, load
 * /summary with it (Authorization header, never the URL), show the counts, the published
 * distribution of each attribute and the reconstructed distribution of its base values, and download /export as a file. The token lives in this
 * page's memory only: no cookies, no localStorage.
 */
(function () {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const url = (path) => new URL(path, document.baseURI).toString();
  const state = { token: "", survey: null };

  function status(text) {
    $("status").textContent = text;
  }
  function error(text) {
    const box = $("error");
    box.textContent = text || "";
    box.hidden = !text;
    if (text && box.scrollIntoView) box.scrollIntoView({ block: "nearest" });
  }
  async function serverMessage(response) {
    try {
      const doc = await response.json();
      return doc.error || response.statusText;
    } catch (_) {
      return response.statusText || `HTTP ${response.status}`;
    }
  }
  async function authorized(path) {
    const response = await fetch(url(path), {
      headers: { Authorization: `Bearer ${state.token}` },
      cache: "no-store",
    });
    if (!response.ok) {
      const why = await serverMessage(response);
      if (response.status === 401 || response.status === 403) {
        throw new Error(`The server refused the token: ${why}`);
      }
      throw new Error(`The server answered ${response.status}: ${why}`);
    }
    return response;
  }
  function percent(part, whole) {
    return whole ? `${Math.round((1000 * part) / whole) / 10}%` : "–";
  }
  /** What a node covers: a range of numbers ("20 … 24 (5 values)"), two values, or a count. */
  function covers(node) {
    if (node.leaf) return "this value only";
    if (node.leaves === 2) return `${node.first}, ${node.last}`;
    if (typeof node.first === "number") return `${node.first} … ${node.last} (${node.leaves} values)`;
    return `${node.leaves} values`;
  }
  function cell(row, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    row.appendChild(td);
    return td;
  }

  function renderAttribute(attr, total) {
    const section = document.createElement("section");
    section.dataset.attribute = attr.name;
    const h = document.createElement("h3");
    h.textContent = `${attr.name}${attr.role === "sensitive" ? " (sensitive)" : ""}`;
    section.appendChild(h);
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    const table = document.createElement("table");
    const head = table.createTHead().insertRow();
    ["Value", "Covers", "Exactly this", "Share", "This or more precise"].forEach((t) => {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = t;
      head.appendChild(th);
    });
    const body = table.createTBody();
    attr.nodes.forEach((node) => {
      const row = body.insertRow();
      row.dataset.value = String(node.value);
      const name = cell(row, String(node.value), "value");
      name.style.paddingLeft = `${0.5 + 1.2 * node.depth}rem`;
      cell(row, covers(node));
      cell(row, String(node.count), "num");
      cell(row, percent(node.count, total), "num");
      cell(row, String(node.under), "num");
    });
    wrap.appendChild(table);
    section.appendChild(wrap);
    if (attr.leaves && total > 0) section.appendChild(renderBase(attr, total));
    return section;
  }

  /** A count estimate as text: whole numbers as they are, others to two decimals. */
  function amount(x) {
    return Number.isInteger(x) ? String(x) : x.toFixed(2);
  }

  /**
   * The reconstructed distribution of the base values: per leaf, the spread estimate and the
   * certain range [low, high] (answers published exactly at it, answers whose value covers it).
   */
  function renderBase(attr, total) {
    const box = document.createElement("div");
    box.className = "base-values";
    const h = document.createElement("h4");
    h.textContent = `${attr.name}: reconstructed base values`;
    box.appendChild(h);
    const note = document.createElement("p");
    note.className = "spread";
    note.textContent =
      attr.spread === "weights"
        ? "Estimate: each generalized answer spread over the values it covers in proportion to " +
          "the survey's weights for this attribute."
        : "Estimate: each generalized answer spread evenly (uniformly) over the values it covers.";
    box.appendChild(note);
    const wrap = document.createElement("div");
    wrap.className = "table-wrap";
    const table = document.createElement("table");
    table.className = "base";
    const head = table.createTHead().insertRow();
    ["Value", "Estimate", "Certain range [low, high]", "Estimated share"].forEach((t) => {
      const th = document.createElement("th");
      th.scope = "col";
      th.textContent = t;
      head.appendChild(th);
    });
    const body = table.createTBody();
    attr.leaves.forEach((leaf) => {
      const row = body.insertRow();
      row.dataset.leaf = String(leaf.value);
      cell(row, String(leaf.value), "value");
      cell(row, amount(leaf.estimate), "num estimate");
      cell(row, `[${leaf.low}, ${leaf.high}]`, "num range");
      cell(row, percent(leaf.estimate, total), "num");
    });
    wrap.appendChild(table);
    box.appendChild(wrap);
    return box;
  }

  function render(doc) {
    $("survey-name").textContent = `τ = ${doc.tau}, loss: ${doc.loss}`;
    $("count-tuples").textContent = String(doc.tuples);
    $("count-distinct").textContent = String(doc.distinct);
    if (doc.abstentions !== null && doc.abstentions !== undefined) {
      $("count-abstentions").textContent = String(doc.abstentions);
    }
    if (doc.average_loss === null) {
      $("average-loss").textContent = "– (nothing collected yet)";
    } else {
      const [n, d] = doc.average_loss.split("/").map(Number);
      const value = d ? n / d : n;
      $("average-loss").textContent = `${doc.average_loss} ≈ ${value.toFixed(4)} (0: exact answers)`;
    }
    $("version").textContent = String(doc.version);
    const box = $("distributions");
    box.textContent = "";
    doc.attributes.forEach((attr) => box.appendChild(renderAttribute(attr, doc.tuples)));
  }

  async function onShow(event) {
    event.preventDefault();
    error("");
    const token = $("token").value.trim();
    if (!token) {
      error("Please enter the export token.");
      $("token").focus();
      return;
    }
    state.token = token;
    $("show").disabled = true;
    status("Loading…");
    try {
      const doc = await (await authorized("summary")).json();
      render(doc);
      $("results").hidden = false;
      status(`Loaded: ${doc.tuples} answers.`);
      $("results").focus();
    } catch (err) {
      $("results").hidden = true;
      error(String(err.message || err));
      status("");
    } finally {
      $("show").disabled = false;
    }
  }

  async function download(format) {
    error("");
    status("Downloading…");
    try {
      const response = await authorized(`export?format=${format}`);
      const version = response.headers.get("X-Collected-Version") || "";
      const blob = await response.blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = `collected${version ? `-v${version}` : ""}.${format}`;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
      status(`Downloaded ${link.download}.`);
    } catch (err) {
      error(String(err.message || err));
      status("");
    }
  }

  function start() {
    $("token-form").addEventListener("submit", onShow);
    $("export-csv").addEventListener("click", () => download("csv"));
    $("export-json").addEventListener("click", () => download("json"));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
