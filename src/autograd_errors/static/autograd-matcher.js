/*
 * The autograd-errors matcher, in the browser: the same algorithm as the Python package
 * (normalize.py, templates.py, matching.py), fed by the catalog JSON the site build exports
 * (export.py). A shared file of test vectors runs against both implementations.
 *
 * Works as a browser script (window.AutogradErrors) and as a Node module.
 */
(function (root) {
  "use strict";

  // Every constant comes from the catalog's settings (export.py), none is copied here.
  const NEWLINE_MARK = "\x01";

  // ---- normalize.py ----------------------------------------------------------------------

  // The settings' character sets as regular expressions, built once per catalog.
  function compileSettings(settings) {
    const codes = settings.control_codes
      .map((code) => "\\u" + code.toString(16).padStart(4, "0")).join("");
    return Object.assign({}, settings, {
      ansi: new RegExp(settings.ansi_pattern, "g"),
      controls: new RegExp("[" + codes + "]", "g"),
    });
  }

  function clean(text, settings) {
    if (text.length > settings.max_chars) text = text.slice(text.length - settings.max_chars);
    if (text.indexOf("\x1b") !== -1) text = text.replace(settings.ansi, "");
    text = text.replace(/\r\n/g, "\n").replace(/\r/g, "\n").replace(settings.controls, " ");
    if (settings.line_markers.some((marker) => text.indexOf(marker) !== -1)) {
      text = text.split("\n").map(stripMarker).join("\n");
    }
    return text;
  }

  function lstrip(text, chars) {
    let i = 0;
    while (i < text.length && chars.indexOf(text[i]) !== -1) i++;
    return text.slice(i);
  }

  function stripMarker(line) {
    const stripped = line.replace(/^\s+/, "");
    if (stripped.startsWith(">")) return lstrip(stripped, "> \t");
    if (stripped.startsWith("... ") || stripped.startsWith("E   ") ||
        stripped === "..." || stripped === "E") {
      return stripped.slice(3);
    }
    if (stripped.startsWith("In [") || stripped.startsWith("Out[")) {
      const close = stripped.slice(0, 16).indexOf("]:");
      if (close !== -1) return stripped.slice(close + 2);
    }
    return line;
  }

  function bisectLeft(list, value) {
    let low = 0, high = list.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (list[middle] < value) low = middle + 1; else high = middle;
    }
    return low;
  }

  function bisectRight(list, value) {
    let low = 0, high = list.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (value < list[middle]) high = middle; else low = middle + 1;
    }
    return low;
  }

  // Python's str.isalnum() or "_", for the characters that matter here.
  function isWord(char) {
    return /[\p{L}\p{N}_]/u.test(char);
  }

  class Skeleton {
    constructor(cleaned, settings) {
      this.closers = settings.closers;
      const words = cleaned.split("\n").join(` ${NEWLINE_MARK} `).split(/\s+/);
      const pieces = [];
      this.breaks = [];
      this.newline = [];
      let offset = 0;
      let afterNewline = false;
      for (const word of words) {
        if (word === "") continue;
        if (word === NEWLINE_MARK) { afterNewline = true; continue; }
        if (pieces.length) { this.breaks.push(offset); this.newline.push(afterNewline); }
        pieces.push(word);
        offset += word.length;
        afterNewline = false;
      }
      this.text = pieces.join("");
    }

    startsWord(pos) {
      if (pos === 0 || !(isWord(this.text[pos]) && isWord(this.text[pos - 1]))) return true;
      const i = bisectLeft(this.breaks, pos);
      return i < this.breaks.length && this.breaks[i] === pos;
    }

    nextBreak(pos) {
      const i = bisectLeft(this.breaks, pos);
      return i < this.breaks.length ? this.breaks[i] : this.text.length;
    }

    previousBreak(pos) {
      const i = bisectRight(this.breaks, pos);
      return i ? this.breaks[i - 1] : 0;
    }

    endsLine(pos) {
      const text = this.text;
      let end = pos;
      while (end < text.length && this.closers.indexOf(text[end]) !== -1) end++;
      if (text.startsWith("...", end)) end += 3;
      else if (text.startsWith("\u2026", end)) end += 1;
      if (end === text.length) return true;
      const i = bisectLeft(this.breaks, end);
      return i < this.breaks.length && this.breaks[i] === end && this.newline[i];
    }
  }

  // ---- templates.py ----------------------------------------------------------------------

  const CANONICAL = {
    identity: (raw) => raw,
    dotted: (raw) => raw.replace(/\.+$/, "") || raw,
    shape: (raw) => "[" + raw.slice(1, -1).split(",").filter((part) => part).join(", ") + "]",
  };

  function countLeading(text, charset) {
    let n = 0;
    while (n < text.length && charset.indexOf(text[n]) !== -1) n++;
    return n;
  }

  function countTrailing(text, charset) {
    let n = 0;
    while (n < text.length && charset.indexOf(text[text.length - 1 - n]) !== -1) n++;
    return n;
  }

  function kindMatch(kind, text, pos) {
    if (kind.delimited) {
      if (text[pos] !== "[") return pos;
      const window = text.slice(pos + 1, pos + 2 + kind.max_len);
      const inside = countLeading(window, kind.charset);
      return window[inside] === "]" ? pos + inside + 2 : pos;
    }
    return pos + countLeading(text.slice(pos, pos + kind.max_len), kind.charset);
  }

  function kindMatchBackwards(kind, text, end, floor) {
    const window = text.slice(Math.max(floor, end - kind.max_len), end);
    return end - countTrailing(window, kind.charset);
  }

  function commonPrefix(text, pos, literal) {
    let low = 0, high = Math.min(literal.length, text.length - pos);
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (text.startsWith(literal.slice(0, middle), pos)) low = middle; else high = middle - 1;
    }
    return low;
  }

  // Python's text.rfind(anchor, 0, at + len(anchor) - 1): the last occurrence starting before at.
  function lastIndexBefore(text, anchor, at) {
    return at <= 0 ? -1 : text.lastIndexOf(anchor, at - 1);
  }

  class Template {
    constructor(wording, settings) {
      this.settings = settings;
      this.tokens = wording.tokens;
      // The parts templates.py matches: whitespace-free literals and placeholders.
      this.parts = wording.parts.map((part) => (typeof part === "string" ? part
        : { name: part.name, kind: settings.kinds[part.kind], endsAtBreak: part.ends_at_break }));
      this.literalChars = this.parts
        .filter((part) => typeof part === "string")
        .reduce((sum, part) => sum + part.length, 0);
      this.anchorAt = this.parts.findIndex((part) => typeof part === "string");
      this.anchor = this.parts[this.anchorAt].slice(0, settings.anchor_chars);
    }

    render(fields) {
      return this.tokens
        .map((token) => (typeof token === "string" ? token
          : (token.name in fields ? fields[token.name] : `{${token.name}}`)))
        .join("");
    }

    score(found) {
      if (found.complete) return 1;
      return Math.round((found.matchedChars / this.literalChars) * 1000) / 1000;
    }

    find(skeleton) {
      const found = [];
      const text = skeleton.text;
      let at = text.lastIndexOf(this.anchor);
      for (let n = 0; n < this.settings.max_occurrences && at !== -1; n++) {
        const match = this.matchAt(skeleton, at);
        if (match) found.push(match);
        at = lastIndexBefore(text, this.anchor, at);
      }
      return found;
    }

    matchAt(skeleton, anchorStart) {
      const text = skeleton.text;
      if (this.anchorAt === 0 && !skeleton.startsWord(anchorStart)) return null;
      const fields = {};
      let start = anchorStart;
      if (this.anchorAt === 1) {
        const leading = this.parts[0];
        start = kindMatchBackwards(leading.kind, text, anchorStart,
          skeleton.previousBreak(anchorStart - 1));
        if (start === anchorStart) return null;
        fields[leading.name] = CANONICAL[leading.kind.canonical](text.slice(start, anchorStart));
      }
      let pos = anchorStart;
      let matched = 0;
      for (let index = this.anchorAt; index < this.parts.length; index++) {
        const part = this.parts[index];
        if (typeof part === "string") {
          if (text.startsWith(part, pos)) { pos += part.length; matched += part.length; continue; }
          const common = commonPrefix(text, pos, part);
          return this.truncated(skeleton, start, pos + common, matched + common, fields);
        }
        let end = kindMatch(part.kind, text, pos);
        if (part.endsAtBreak && !part.kind.delimited) {
          end = Math.min(end, skeleton.nextBreak(pos + 1));
        }
        if (end === pos) return this.truncated(skeleton, start, pos, matched, fields);
        fields[part.name] = CANONICAL[part.kind.canonical](text.slice(pos, end));
        pos = end;
      }
      return { start, end: pos, fields, matchedChars: matched, complete: true };
    }

    truncated(skeleton, start, stop, matched, fields) {
      if (matched < this.settings.min_truncated_chars || !skeleton.endsLine(stop)) return null;
      return { start, end: stop, fields, matchedChars: matched, complete: false };
    }
  }

  // ---- matching.py -----------------------------------------------------------------------

  class Catalog {
    constructor(data) {
      this.settings = compileSettings(data.settings);
      this.entries = data.entries;
      for (const entry of this.entries) {
        for (const wording of entry.wordings) {
          wording.template = new Template(wording, this.settings);
        }
      }
    }
  }

  function withDerivedFields(fields) {
    const values = Object.assign({}, fields);
    const node = fields.node;
    if (node && !("op" in values)) {
      const name = node.split("::").pop();
      const base = name.replace(/[0-9]+$/, "");
      values.op = base.endsWith("Backward") && base !== "Backward" ? base.slice(0, -8) : name;
    }
    return values;
  }

  function details(entry, fields) {
    const values = withDerivedFields(fields);
    const lines = [];
    for (const sentence of entry.details) {
      let missing = false;
      const line = sentence.replace(/\{([a-z_]+)\}/g, (whole, name) => {
        if (!(name in values)) missing = true;
        return values[name];
      });
      if (!missing) lines.push(line);
    }
    for (const hint of entry.hints) {
      if ((values[hint.field] || "").toLowerCase().startsWith(hint.prefix.toLowerCase())) {
        lines.push(hint.text);
      }
    }
    return lines;
  }

  // taken: non-overlapping [start, end) spans, sorted; as matching.py's _overlaps.
  function spanIndex(taken, start, end) {
    let low = 0, high = taken.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      const [s, e] = taken[middle];
      if (s < start || (s === start && e < end)) low = middle + 1; else high = middle;
    }
    return low;
  }

  function overlaps(taken, start, end) {
    const i = spanIndex(taken, start, end);
    if (i < taken.length && taken[i][0] < end) return true;
    return i > 0 && taken[i - 1][1] > start;
  }

  function isException(match) {
    return !match.wording.exception.endsWith("Warning");
  }

  function findMatches(text, catalog) {
    const skeleton = new Skeleton(clean(text, catalog.settings), catalog.settings);
    const candidates = [];
    for (const entry of catalog.entries) {
      for (const wording of entry.wordings) {
        for (const found of wording.template.find(skeleton)) {
          candidates.push({ found, entry, wording });
        }
      }
    }
    // A stable sort, as Python's: by characters matched, complete before truncated.
    candidates.sort((a, b) => (b.found.matchedChars - a.found.matchedChars) ||
      (Number(b.found.complete) - Number(a.found.complete)));
    const taken = [];
    const latest = new Map();
    for (const { found, entry, wording } of candidates) {
      if (overlaps(taken, found.start, found.end)) continue;
      taken.splice(spanIndex(taken, found.start, found.end), 0, [found.start, found.end]);
      const previous = latest.get(entry.id);
      if (!previous || found.end > previous.end) {
        latest.set(entry.id, {
          entry, wording, fields: found.fields, score: wording.template.score(found),
          start: found.start, end: found.end,
          message: wording.template.render(found.fields),
          details: details(entry, found.fields),
        });
      }
    }
    return [...latest.values()].sort((a, b) =>
      (Number(isException(b)) - Number(isException(a))) || (b.end - a.end));
  }

  function words(text, punctuation) {
    const found = new Set();
    for (const raw of text.split(/\s+/)) {
      let start = 0, end = raw.length;
      while (start < end && punctuation.indexOf(raw[start]) !== -1) start++;
      while (end > start && punctuation.indexOf(raw[end - 1]) !== -1) end--;
      const word = raw.slice(start, end).toLowerCase();
      if (word.length > 2) found.add(word);
    }
    return found;
  }

  function nearMisses(text, catalog, limit) {
    const settings = catalog.settings;
    const pasted = words(clean(text.slice(-settings.near_miss_tail), settings), settings.punctuation);
    if (!pasted.size) return [];
    const found = [];
    for (const entry of catalog.entries) {
      let best = 0;
      for (const wording of entry.wordings) {
        const own = words(wording.tokens.filter((t) => typeof t === "string").join(" "),
          settings.punctuation);
        if (!own.size) continue;
        let shared = 0;
        for (const word of own) if (pasted.has(word)) shared++;
        best = Math.max(best, shared / own.size);
      }
      if (best >= settings.near_miss_similarity) {
        found.push({ entry, similarity: Math.round(best * 100) / 100 });
      }
    }
    found.sort((a, b) => b.similarity - a.similarity);
    return found.slice(0, limit || 3);
  }

  function explain(text, catalog) {
    const matches = findMatches(text, catalog);
    return { matches, nearMisses: matches.length ? [] : nearMisses(text, catalog) };
  }

  const api = { Catalog, Skeleton, clean, explain, findMatches, nearMisses, withDerivedFields };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.AutogradErrors = api;
})(typeof window !== "undefined" ? window : this);
