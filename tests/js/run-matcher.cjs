// Runs the browser matcher under Node: node run-matcher.cjs CATALOG.json PASTES.json
// Prints, for each paste, what the matcher found, in the shape the Python test compares.
"use strict";
const fs = require("fs");
const path = require("path");
const matcher = require(path.join(__dirname, "..", "..", "src", "autograd_errors", "static",
  "autograd-matcher.js"));

const [catalogPath, pastesPath] = process.argv.slice(2);
const catalog = new matcher.Catalog(JSON.parse(fs.readFileSync(catalogPath, "utf8")));
const pastes = JSON.parse(fs.readFileSync(pastesPath, "utf8"));
const results = pastes.map((text) => {
  const found = matcher.explain(text, catalog);
  return {
    matches: found.matches.map((m) => ({
      id: m.entry.id, variant: m.wording.variant, fields: m.fields, score: m.score,
      message: m.message, details: m.details,
    })),
    near_misses: found.nearMisses.map((miss) => miss.entry.id),
  };
});
process.stdout.write(JSON.stringify(results));
