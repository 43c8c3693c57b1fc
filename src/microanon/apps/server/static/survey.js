/*
 * The respondent page of `microanon serve`: render the survey's form, run GTR on this device
 * (gtr.js), show per answer what will be sent and why, send only that tuple once approved.
 *
 * Mirrors microanon.apps.server.client.CollectionClient: GET survey, GET collected (compressed),
 * GTR locally, POST submissions {id, version, tuple}; on 409 (the set changed in a way that can
 * matter) fetch the set again and recompute. Only GTR's tuple is sent, after the respondent
 * approved it: each answer either generalized or, where GTR keeps it, exactly as given (the page
 * says which, and why). The form's own values are kept in this page's memory only: nothing is
 * stored in the browser (no cookies, no localStorage).
 */
(function () {
  "use strict";
  const GTR = globalThis.MicroanonGTR;
  const $ = (id) => document.getElementById(id);
  const url = (path) => new URL(path, document.baseURI).toString();
  const MAX_RETRIES = 20;

  const state = {
    doc: null,
    survey: null,
    collected: null,
    version: 0,
    result: null,
    o: null,
    id: null,
    invite: "",
  };

  /**
   * The invitation token from the URL fragment (#invite=<token>): a fragment never leaves the
   * browser, so the token is not in the server's access logs; it is sent only in the
   * X-Invitation header of the submission.
   */
  function inviteFromFragment() {
    const hash = window.location.hash.replace(/^#/, "");
    if (!hash) return "";
    return (new URLSearchParams(hash).get("invite") || "").trim();
  }

  function show(id, on) {
    $(id).hidden = !on;
  }
  function status(text) {
    $("status").textContent = text;
  }
  function error(text) {
    const box = $("error");
    box.textContent = text || "";
    box.hidden = !text;
    if (text && box.scrollIntoView) box.scrollIntoView({ block: "nearest" });
  }
  /** The name people see for an attribute. */
  function nameOf(attribute) {
    const labels = state.doc.labels || {};
    return labels[attribute] || attribute;
  }
  /** "a", "a and b", "a, b and c". */
  function listed(words) {
    if (words.length < 2) return words.join("");
    return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
  }
  /** 1 - τ as a percentage, rounded up to a tenth (so "not above" it stays true). */
  function ceilingPercent(tau) {
    const tenths = ((tau.d - tau.n) * 1000n + tau.d - 1n) / tau.d;
    return tenths % 10n === 0n ? `${tenths / 10n}` : `${tenths / 10n}.${tenths % 10n}`;
  }
  /** A value as it is sent (its label), the root of a taxonomy said to mean "not disclosed". */
  function shown(tx, code) {
    const label = String(tx.label[code]);
    return code === 0 && !tx.isLeaf[0] ? `${label} (not disclosed)` : label;
  }
  function newId() {
    if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
    const b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }
  async function serverMessage(response) {
    try {
      const doc = await response.json();
      return doc.error || response.statusText;
    } catch (_) {
      return response.statusText || `HTTP ${response.status}`;
    }
  }

  // ------------------------------------------------------------------ the form
  function isNumeric(tx) {
    return tx.leaves().every((v) => typeof v === "number" && Number.isInteger(v));
  }
  function renderForm() {
    const { survey, doc } = state;
    const help = doc.help || {};
    const fields = $("fields");
    fields.textContent = "";
    survey.taxonomies.forEach((tx) => {
      const name = tx.name;
      const div = document.createElement("div");
      div.className = "field";
      const label = document.createElement("label");
      label.htmlFor = `field-${name}`;
      label.textContent = nameOf(name);
      div.appendChild(label);
      const described = [];
      if (help[name]) {
        const p = document.createElement("p");
        p.className = "help";
        p.id = `help-${name}`;
        p.textContent = help[name];
        div.appendChild(p);
        described.push(p.id);
      }
      let input;
      const leaves = tx.leaves();
      if (isNumeric(tx)) {
        input = document.createElement("input");
        input.type = "number";
        input.inputMode = "numeric";
        input.step = "1";
        input.min = String(Math.min(...leaves));
        input.max = String(Math.max(...leaves));
      } else {
        input = document.createElement("select");
        const none = document.createElement("option");
        none.value = "";
        none.textContent = "Choose…";
        input.appendChild(none);
        leaves.forEach((v, i) => {
          const opt = document.createElement("option");
          opt.value = String(i);
          opt.textContent = String(v);
          input.appendChild(opt);
        });
      }
      input.id = `field-${name}`; // no name attribute: a native form submission sends nothing
      input.required = true;
      input.autocomplete = "off";
      const invalid = document.createElement("p");
      invalid.className = "invalid";
      invalid.id = `invalid-${name}`;
      invalid.hidden = true;
      described.push(invalid.id);
      input.setAttribute("aria-describedby", described.join(" "));
      div.appendChild(input);
      div.appendChild(invalid);
      fields.appendChild(div);
    });
  }

  /** The respondent's tuple from the form (labels), or null after marking the invalid fields. */
  function readForm() {
    const out = [];
    let first = null;
    state.survey.taxonomies.forEach((tx) => {
      const input = $(`field-${tx.name}`);
      const invalid = $(`invalid-${tx.name}`);
      const leaves = tx.leaves();
      let value;
      let problem = "";
      if (input.tagName === "SELECT") {
        if (input.value === "") problem = "Please choose an answer.";
        else value = leaves[Number(input.value)];
      } else {
        const raw = input.value.trim();
        if (raw === "") problem = "Please enter a number.";
        else if (!/^-?[0-9]+$/.test(raw)) problem = "Please enter a whole number.";
        else if (!leaves.includes(Number(raw))) problem = `Please enter a number from ${input.min} to ${input.max}.`;
        else value = leaves[leaves.indexOf(Number(raw))];
      }
      invalid.textContent = problem;
      invalid.hidden = !problem;
      input.setAttribute("aria-invalid", problem ? "true" : "false");
      if (problem && first === null) first = input;
      out.push(value);
    });
    if (first !== null) {
      first.focus();
      return null;
    }
    return out;
  }

  // ------------------------------------------------------------------ network
  async function fetchCollected() {
    const response = await fetch(url("collected?since=0"), { cache: "no-store" });
    if (!response.ok) throw new Error(`could not load the collected answers: ${await serverMessage(response)}`);
    const set = GTR.decodeCollected(state.survey, await response.arrayBuffer());
    state.collected = set;
    state.version = set.version;
  }

  function compute() {
    state.result = GTR.gtr(state.survey, state.collected, state.o, state.doc.tau, {
      loss: state.doc.loss,
      mode: state.doc.mode || "exact",
    });
    return state.result;
  }

  /** Why one answer is sent as it is (gtr.js's exactWouldProtect, against the set used). */
  function reason(j) {
    const { result, o, doc } = state;
    const protectedText = `your ${nameOf(doc.sensitive)} protected`;
    if (result.exactWouldProtect[j] === null) {
      return (
        "sent as you answered it: together with your other answers as shown, it keeps " +
        `${protectedText}.`
      );
    }
    const yours = String(o[j]);
    if (!result.exactWouldProtect[j]) {
      return (
        `less precise than your answer (${yours}): sending ${yours}, with your other answers ` +
        `as shown, would not keep ${protectedText}.`
      );
    }
    return (
      `less precise than your answer (${yours}), by the survey's fast search, which does not ` +
      `always find the most precise version: sending ${yours}, with your other answers as ` +
      `shown, would also keep ${protectedText}.`
    );
  }

  function renderPreview() {
    const { survey, result, doc } = state;
    const list = $("preview-list");
    list.textContent = "";
    result.codes.forEach((code, j) => {
      const tx = survey.taxonomies[j];
      const li = document.createElement("li");
      li.dataset.attribute = tx.name;
      li.dataset.sent = result.exactWouldProtect[j] === null ? "as-answered" : "less-precise";
      const sent = document.createElement("strong");
      sent.className = "sent";
      sent.textContent = shown(tx, code);
      const why = document.createElement("span");
      why.className = "why";
      why.textContent = ` — ${reason(j)}`;
      li.append(`${nameOf(tx.name)}: `, sent, why);
      list.appendChild(li);
    });
    const n = result.exactWouldProtect.filter((x) => x !== null).length;
    const total = result.codes.length;
    const summary =
      n === 0
        ? "All your answers are sent exactly as you gave them."
        : n === total
          ? "All your answers are sent less precisely than you gave them."
          : `${n} of your ${total} answers ${n === 1 ? "is" : "are"} sent less precisely than ` +
            `you gave ${n === 1 ? "it" : "them"}, the others exactly as you gave them.`;
    const qi = listed(survey.quasi.map(nameOf));
    const sensitive = nameOf(doc.sensitive);
    const along = [
      "the version of the collected answers it was worked out against",
      "a random identifier that keeps a repeated sending from being counted twice",
      ...(state.invite ? ["your invitation code"] : []),
    ];
    $("preview-why").textContent =
      `${summary} “Protected” means: someone who knows your ${qi} and reads all the answers ` +
      `collected so far, yours included, cannot estimate any one ${sensitive} for you with a ` +
      `probability above ${ceilingPercent(GTR.parseTau(doc.tau))}% (the survey's threshold ` +
      `τ = ${doc.tau}) by the estimate this survey guards against. This holds for the answers ` +
      "collected when yours are recorded; answers sent later can change it. Of your answers, " +
      `only what is listed above is sent, with ${listed(along)}.`;
  }

  async function onCompute(event) {
    event.preventDefault();
    error("");
    const o = readForm();
    if (o === null) {
      status("Some answers are missing or invalid.");
      return;
    }
    if (state.doc.invitations && !inviteFromFragment()) {
      state.invite = $("invite").value.trim();
      if (!state.invite) {
        error("This survey is by invitation: please type the code from your invitation.");
        $("invite").focus();
        return;
      }
    }
    state.o = o;
    state.id = state.id || newId();
    $("compute").disabled = true;
    status("Working out on this device what can be sent…");
    try {
      await fetchCollected();
      const t = compute();
      show("preview", t !== null);
      show("abstain", t === null);
      if (t === null) {
        $("abstain-text").textContent =
          `With the answers collected so far, no version of your answers, not even the least ` +
          `precise, keeps your ${nameOf(state.doc.sensitive)} protected, so nothing was sent. ` +
          "Thank you for your time.";
        status("Nothing was sent.");
        $("abstain").focus();
      } else {
        renderPreview();
        status("Please review what will be sent.");
        $("preview").focus();
      }
    } catch (err) {
      error(String(err.message || err));
      status("");
    } finally {
      $("compute").disabled = false;
    }
  }

  async function onSend() {
    error("");
    $("send").disabled = true;
    $("edit").disabled = true;
    status("Sending…");
    try {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const shownCodes = state.result.codes.join(",");
        const tuple = {};
        state.result.labels.forEach((label, j) => {
          tuple[state.survey.attributes[j]] = label;
        });
        const response = await fetch(url("submissions"), {
          method: "POST",
          headers: state.invite
            ? { "Content-Type": "application/json", "X-Invitation": state.invite }
            : { "Content-Type": "application/json" },
          body: JSON.stringify({ id: state.id, version: state.version, tuple }),
          cache: "no-store",
        });
        if (response.status === 200 || response.status === 201) {
          state.o = null; // forget the answers
          show("preview", false);
          show("survey-form", false);
          show("done", true);
          $("done-text").textContent = "Your answers were recorded as shown.";
          status("Sent.");
          $("done").focus();
          return;
        }
        if (response.status !== 409) {
          throw new Error(`The server refused the answers: ${await serverMessage(response)}`);
        }
        // The collected set changed: fetch it again and recompute (as the Python client does).
        await fetchCollected();
        const t = compute();
        if (t === null || t.codes.join(",") !== shownCodes) {
          show("preview", t !== null);
          show("abstain", t === null);
          if (t === null) {
            $("abstain-text").textContent =
              "Other answers arrived while yours were being sent, and now no version of your " +
              `answers keeps your ${nameOf(state.doc.sensitive)} protected. The server did not ` +
              "record what was sent, and nothing more will be sent.";
            $("abstain").focus();
          } else {
            renderPreview();
            status("Other answers arrived meanwhile: please review the new version.");
            $("preview").focus();
          }
          return;
        }
      }
      throw new Error("The survey is very busy right now; please try again in a minute.");
    } catch (err) {
      error(String(err.message || err));
      status("");
    } finally {
      $("send").disabled = false;
      $("edit").disabled = false;
    }
  }

  function onEdit() {
    show("preview", false);
    status("");
    $(`field-${state.survey.attributes[0]}`).focus();
  }

  async function start() {
    try {
      const response = await fetch(url("survey"), { cache: "no-store" });
      if (!response.ok) throw new Error(await serverMessage(response));
      state.doc = await response.json();
      state.survey = GTR.buildSurvey(state.doc);
      $("intro-sensitive").textContent = `your ${nameOf(state.doc.sensitive)}`;
      if (state.doc.title) {
        $("survey-title").textContent = state.doc.title;
        document.title = state.doc.title;
      }
      renderForm();
      if (state.doc.invitations) {
        state.invite = inviteFromFragment();
        show("invite-box", !state.invite);
      }
      show("survey-form", true);
      status("");
      $("survey-form").addEventListener("submit", onCompute);
      $("send").addEventListener("click", onSend);
      $("edit").addEventListener("click", onEdit);
    } catch (err) {
      error(`The survey could not be loaded: ${err.message || err}`);
      status("");
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
