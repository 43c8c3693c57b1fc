// Run the GTR test vectors through the browser page's own gtr.js (node, CommonJS require).
// Usage: node run_vectors.js <path/to/gtr.js> <path/to/gtr_vectors.json>
// Prints one JSON line: {"total": n, "agree": k, "disagreements": [...first few...]}.
"use strict";
const fs = require("fs");
const GTR = require(process.argv[2]);
const doc = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));

const surveys = {};
for (const [name, def] of Object.entries(doc.surveys)) surveys[name] = GTR.buildSurvey(def);
const decoded = new Map();
let agree = 0;
const disagreements = [];
doc.vectors.forEach((v, i) => {
  const survey = surveys[v.survey];
  const key = `${v.survey}:${v.collected}`;
  if (!decoded.has(key)) {
    decoded.set(key, GTR.decodeCollected(survey, Buffer.from(v.collected, "base64")));
  }
  let got;
  try {
    const t = GTR.gtr(survey, decoded.get(key), v.o, v.tau, { loss: v.loss, mode: v.mode || "exact" });
    got = t === null ? null : { codes: t.codes, labels: t.labels, loss: t.loss };
  } catch (err) {
    got = { error: String(err && err.message) };
  }
  if (JSON.stringify(got) === JSON.stringify(v.expected)) {
    agree += 1;
  } else if (disagreements.length < 10) {
    disagreements.push({ index: i, survey: v.survey, expected: v.expected, got });
  }
});
process.stdout.write(JSON.stringify({ total: doc.vectors.length, agree, disagreements }) + "\n");
