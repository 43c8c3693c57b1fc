// One GTR call through the page's gtr.js, as the page makes it: reads {"survey": <GET /survey>,
// "collected": <base64 of GET /collected>, "o": {...}} on stdin, prints the result (or null).
// Usage: node gtr_once.js <path/to/gtr.js>
"use strict";
const GTR = require(process.argv[2]);
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const doc = JSON.parse(input);
  const survey = GTR.buildSurvey(doc.survey);
  const set = GTR.decodeCollected(survey, Buffer.from(doc.collected, "base64"));
  const t = GTR.gtr(survey, set, doc.o, doc.survey.tau, { loss: doc.survey.loss, mode: doc.survey.mode });
  const out = t === null ? null : { ...t, version: set.version };
  process.stdout.write(JSON.stringify(out) + "\n");
});
