// Runs the browser matcher under Node, in the shape the Python tests compare.
//   node run-matcher.cjs CATALOG.json PASTES.json   one JSON array of results for the pastes
//   node run-matcher.cjs CATALOG.json --stream      one paste per stdin line (a JSON string),
//                                                   one result per stdout line, until stdin ends
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");
const matcher = require(path.join(__dirname, "..", "..", "src", "autograd_errors", "browser", "static",
  "autograd-matcher.js"));

const [catalogPath, pastesPath] = process.argv.slice(2);
const catalog = new matcher.Catalog(JSON.parse(fs.readFileSync(catalogPath, "utf8")));

// As Frame.as_json and payloads.choice_json.
function frameJson(frame) {
  if (!frame) return null;
  const cell = frame.cell === null ? null : { number: frame.cell || null };
  return { file: frame.file, line: frame.line, code: frame.code, cell };
}

function causeJson(cause) {
  if (!cause) return null;
  return {
    id: cause.id, basis: cause.evidence.length ? "evidence" : "most-common",
    evidence: cause.evidence.map((e) => ({
      kind: e.kind, sign: e.sign, frame: frameJson(e.frame), near: e.near,
    })),
  };
}

function result(text) {
  const found = matcher.explain(text, catalog);
  return {
    matches: found.matches.map((m) => ({
      id: m.entry.id, variant: m.wording.variant, kind: m.kind, fields: m.fields,
      score: m.score, message: m.message, details: m.details, releases: m.wording.releases,
      frame: frameJson(m.located.frame), cause: causeJson(m.cause),
    })),
    near_misses: found.nearMisses.map((miss) => [miss.entry.id, miss.similarity]),
    not_autograd: found.notAutograd ? found.notAutograd.kind : null,
    raised_by: frameJson(found.raisedBy),
    context_only: Boolean(found.contextOnly),
    context_frame: found.contextOnly ? frameJson(found.frame) : null,
    described: Boolean(found.described),
  };
}

if (pastesPath === "--stream") {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  lines.on("line", (line) => process.stdout.write(JSON.stringify(result(JSON.parse(line))) + "\n"));
} else {
  const pastes = JSON.parse(fs.readFileSync(pastesPath, "utf8"));
  process.stdout.write(JSON.stringify(pastes.map(result)));
}
