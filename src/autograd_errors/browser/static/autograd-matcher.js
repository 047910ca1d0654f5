/*
 * The autograd-errors matcher, in the browser: the same algorithm as the Python package
 * (normalize.py, templates.py, matching.py, fuzzy.py, not_autograd.py), fed by the catalog JSON
 * the site build exports (export.py). A shared file of test vectors runs against both implementations.
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
    const [anonymous, joined] = settings.anonymous_namespace; // as normalize.py
    if (text.indexOf(anonymous) !== -1) text = text.split(anonymous).join(joined);
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

  // As normalize.is_word_char: a letter, digit or "_" of a script that spaces its words (the
  // ranges are normalize.UNSPACED_SCRIPTS).
  function isWord(char) {
    return /[\p{L}\p{N}_]/u.test(char) &&
      !/[\u0e00-\u0e7f\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]/.test(char);
  }

  // Python's str.isupper() for one character (the letters a sentence starts with).
  function isUpper(char) {
    return /\p{Lu}/u.test(char);
  }

  class Skeleton {
    constructor(cleaned, settings) {
      this.closers = settings.closers;
      this.finalStops = settings.final_stops;
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
      else if (end < text.length && this.finalStops.indexOf(text[end]) !== -1) {
        end++;
        while (end < text.length && this.closers.indexOf(text[end]) !== -1) end++;
      }
      if (end === text.length) return true;
      const i = bisectLeft(this.breaks, end);
      return i < this.breaks.length && this.breaks[i] === end && this.newline[i];
    }

    // As normalize.py's ends_sentence and last_sentence_end.
    endsSentence(pos) {
      const text = this.text;
      if (pos > 0 && pos < text.length && this.finalStops.indexOf(text[pos]) !== -1) pos++;
      else if (!(pos > 0 && pos < text.length) ||
        this.finalStops.indexOf(text[pos - 1]) === -1) return false;
      const i = bisectLeft(this.breaks, pos);
      return i < this.breaks.length && this.breaks[i] === pos && pos < text.length &&
        isUpper(text[pos]);
    }

    lastSentenceEnd(low, high) {
      for (let pos = high; pos > low; pos--) {
        if (this.finalStops.indexOf(this.text[pos - 1]) !== -1 && this.endsSentence(pos)) {
          return pos;
        }
      }
      return high;
    }
  }

  // ---- templates.py ----------------------------------------------------------------------

  let ANONYMOUS = ["(anonymous namespace)", "(anonymous_namespace)"]; // set by the catalog
  const CANONICAL = {
    identity: (raw) => raw,
    node: (raw) => raw.split(ANONYMOUS[1]).join(ANONYMOUS[0]),
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

  // templates.py's _only_final_stop: what a paste left out is only the closing punctuation.
  function onlyFinalStop(rest, stops) {
    if (!rest) return false;
    for (const char of rest) if (stops.indexOf(char) === -1) return false;
    return true;
  }

  // Python's text.rfind(anchor, 0, at + len(anchor) - 1): the last occurrence starting before at.
  function lastIndexBefore(text, anchor, at) {
    return at <= 0 ? -1 : text.lastIndexOf(anchor, at - 1);
  }

  // As templates.py's folded: a message's capitalised first word with its capital lowered.
  function folded(literal) {
    if (literal.length > 1 && literal[0] >= "A" && literal[0] <= "Z" &&
        literal[1] >= "a" && literal[1] <= "z") {
      return literal[0].toLowerCase() + literal.slice(1);
    }
    return null;
  }

  // templates.py's _parts: the template's whitespace-free literals and its placeholders, each
  // of which ends at the paste's word break where it could run into what follows it.
  function partsOf(tokens, kinds) {
    const parts = [];
    tokens.forEach((token, n) => {
      if (typeof token !== "string") {
        const following = tokens[n + 1];
        const spaced = following === undefined ||
          (typeof following === "string" && /^\s/.test(following));
        parts.push({ name: token.name, kind: kinds[token.kind], spaced, endsAtBreak: false });
        return;
      }
      const literal = token.split(/\s+/).join("");
      if (!literal) return;
      if (parts.length && typeof parts[parts.length - 1] === "string") {
        parts[parts.length - 1] += literal;
      } else {
        parts.push(literal);
      }
    });
    parts.forEach((part, n) => {
      if (typeof part === "string" || part.kind.delimited) return;
      const following = parts[n + 1];
      const runsInto = typeof following === "string" && part.kind.charset.indexOf(following[0]) !== -1;
      part.endsAtBreak = following === undefined || (part.spaced && runsInto);
    });
    return parts;
  }

  class Template {
    constructor(wording, settings) {
      this.settings = settings;
      this.tokens = wording.tokens;
      this.parts = partsOf(wording.tokens, settings.kinds);
      this.literalChars = this.parts
        .filter((part) => typeof part === "string")
        .reduce((sum, part) => sum + part.length, 0);
      this.anchorAt = this.parts.findIndex((part) => typeof part === "string");
      this.anchor = this.parts[this.anchorAt].slice(0, settings.anchor_chars);
      this.folded = this.anchorAt === 0 ? folded(this.parts[0]) : null;
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
      let starts = this.starts(text, this.anchor);
      if (this.folded !== null) {
        starts = starts.concat(this.starts(text, this.folded.slice(0, this.settings.anchor_chars)))
          .sort((a, b) => b - a);
      }
      for (const at of starts.slice(0, this.settings.max_occurrences)) {
        const match = this.matchAt(skeleton, at);
        if (match) found.push(match);
      }
      return found;
    }

    starts(text, anchor) {
      const starts = [];
      let at = text.lastIndexOf(anchor);
      while (at !== -1 && starts.length < this.settings.max_occurrences) {
        starts.push(at);
        at = lastIndexBefore(text, anchor, at);
      }
      return starts;
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
        let part = this.parts[index];
        if (index === 0 && this.folded !== null && text.startsWith(this.folded[0], pos)) {
          // As templates.py: the lowered capital is no character matched.
          part = this.folded;
          matched = -1;
        }
        if (typeof part === "string") {
          if (text.startsWith(part, pos)) { pos += part.length; matched += part.length; continue; }
          const common = commonPrefix(text, pos, part);
          if (index === this.parts.length - 1 && onlyFinalStop(part.slice(common),
            this.settings.final_stops)) {
            // As templates.py: the message without its full stop is whole.
            return { start, end: pos + common, fields, matchedChars: matched + common,
              complete: true, unstopped: true };
          }
          let stop = pos + common;
          // As templates.py: a full stop of the paste's inside a word of the message's ends
          // no cut; the message's first sentences whole, then the user's, do.
          if (stop < text.length && this.settings.final_stops.indexOf(text[stop]) !== -1 &&
              isWord(part[common])) {
            stop = skeleton.lastSentenceEnd(pos, Math.max(pos, stop - 1));
          } else if (!skeleton.endsLine(stop)) {
            stop = skeleton.lastSentenceEnd(pos, stop);
          }
          return this.truncated(skeleton, start, stop, matched + stop - pos, fields);
        }
        let end = kindMatch(part.kind, text, pos);
        if (part.endsAtBreak && !part.kind.delimited) {
          end = Math.min(end, skeleton.nextBreak(pos + 1));
        }
        if (end === pos) return this.truncated(skeleton, start, pos, matched, fields);
        fields[part.name] = CANONICAL[part.kind.canonical](text.slice(pos, end));
        pos = end;
      }
      return { start, end: pos, fields, matchedChars: matched, complete: true, unstopped: false };
    }

    truncated(skeleton, start, stop, matched, fields) {
      if (matched < this.settings.min_truncated_chars ||
          !(skeleton.endsLine(stop) || skeleton.endsSentence(stop))) return null;
      return { start, end: stop, fields, matchedChars: matched, complete: false,
        unstopped: false };
    }
  }

  // ---- matching.py -----------------------------------------------------------------------

  class Catalog {
    constructor(data) {
      this.settings = compileSettings(data.settings);
      ANONYMOUS = this.settings.anonymous_namespace; // the node kind's canonical form reads it
      this.entries = data.entries;
      const byVariant = new Map();
      for (const entry of this.entries) {
        for (const wording of entry.wordings) {
          wording.template = new Template(wording, this.settings);
          byVariant.set(entry.id + "\n" + wording.variant, { entry, wording });
        }
      }
      this.context = new Set(this.settings.context_wordings.map(([id, v]) => id + "\n" + v));
      this.index = new WordIndex(data.words, this.entries, this.settings.fuzzy);
      this.symptoms = data.symptoms || [];
      this.stopwords = new Set(this.settings.symptoms.stopwords);
    }
  }

  // ---- fuzzy.py: partial matches by rare words (the index comes built from export.py) --------

  function words(text, maxRawWords) {
    const found = [];
    const all = text.replace(/[^A-Za-z0-9_]+/g, " ").toLowerCase().split(" ").filter(Boolean);
    for (const raw of all.slice(Math.max(0, all.length - maxRawWords))) {
      let start = 0, end = raw.length;
      while (start < end && raw[start] === "_") start++;
      while (end > start && raw[end - 1] === "_") end--;
      if (end > start) found.push(raw.slice(start, end));
    }
    return found;
  }

  function messageLines(cleaned, s, f) {
    const kept = [];
    let afterFrame = false;
    let inIpythonFrame = false; // IPython's frames: a header, then numbered lines of code
    const lines = cleaned.split("\n");
    for (const line of lines.slice(Math.max(0, lines.length - s.max_lines))) {
      const stripped = line.replace(/^\s+/, "");
      if (stripped.startsWith('File "')) { afterFrame = true; continue; }
      if (afterFrame && stripped && (line[0] === " " || line[0] === "\t")) {
        afterFrame = false;
        continue;
      }
      afterFrame = false;
      if (inIpythonFrame && (!stripped || arrowLine(stripped, f) !== null ||
          contextLine(stripped, f) !== null)) continue;
      const found = frameHeader(stripped, f);
      inIpythonFrame = found !== null && (found[2] === "ipython" || found[2] === "arrow");
      if (inIpythonFrame || s.traceback_lines.includes(stripped.replace(/\s+$/, ""))) continue;
      kept.push(messagePart(line, s));
    }
    return kept.join("\n");
  }

  // fuzzy.py's _message_part: the line from its first exception class on, without torch's
  // "(Triggered internally at ...)".
  function messagePart(line, s) {
    const triggered = line.indexOf(s.triggered);
    if (triggered !== -1) line = line.slice(0, triggered);
    for (const [colon, name] of namesBeforeColons(line)) {
      if (isExceptionClass(name, s.exception_endings)) return line.slice(colon + 1);
    }
    return line;
  }

  // As fuzzy.py's _names_before_colons: each colon and the name just before it.
  function* namesBeforeColons(text) {
    for (let colon = text.indexOf(":"); colon !== -1; colon = text.indexOf(":", colon + 1)) {
      let start = colon;
      while (start > 0 && (isWord(text[start - 1]) || text[start - 1] === ".")) start--;
      yield [colon, text.slice(start, colon).split(".").pop()];
    }
  }

  function isExceptionClass(name, endings) {
    return /^[A-Z]/.test(name) && endings.some((e) => name.endsWith(e)) &&
      /^[\x00-\x7f]*$/.test(name);
  }

  // As fuzzy.py's foreign_exception: the bare "Error" class named before a colon, and no
  // Python class (RuntimeError:, UserWarning:) anywhere in the paste.
  function foreignException(cleaned, name, endings) {
    let bare = false;
    for (const [, last] of namesBeforeColons(cleaned)) {
      if (last === name.slice(0, -1)) bare = true;
      else if (isExceptionClass(last, endings)) return false;
    }
    return bare;
  }

  // fuzzy.py's line_words: the words, and the span each is in (a line, or the part of it
  // between two quotes or backticks).
  function lineWords(text, maxRawWords, quotes) {
    const found = [], lines = [];
    let spans = text;
    for (const quote of quotes) spans = spans.split(quote).join("\n");
    spans.split("\n").forEach((line, number) => {
      for (const word of words(line, maxRawWords)) { found.push(word); lines.push(number); }
    });
    const from = Math.max(0, found.length - maxRawWords);
    return [found.slice(from), lines.slice(from)];
  }

  function deletions(word) {
    const found = [];
    for (let i = 0; i < word.length; i++) found.push(word.slice(0, i) + word.slice(i + 1));
    return found;
  }

  function pushTo(map, key, value) {
    const list = map.get(key);
    if (list) list.push(value); else map.set(key, [value]);
  }

  class WordIndex {
    constructor(data, entries, settings) {
      this.settings = settings;
      this.weights = new Map(data.weights);
      this.common = new Set(data.common);
      this.boilerplate = data.boilerplate;
      // As fuzzy.py's Index: each wording's words in order, a placeholder as null, without
      // the boilerplate's runs, words that weigh nothing left out.
      this.wordings = [];
      this.sequences = [];
      for (const entry of entries) {
        for (const wording of entry.wordings) {
          const raw = [];
          for (const token of wording.tokens) {
            if (typeof token === "string") raw.push(...words(token, Infinity));
            else raw.push(null);
          }
          this.wordings.push({ entry, wording });
          this.sequences.push(withoutBoilerplate(raw, this.boilerplate)
            .filter((word) => word === null || this.weights.has(word)));
        }
      }
      this.unknownWeight = data.unknown_weight;
      this.classEndings = settings.exception_endings.map((e) => e.toLowerCase());
      this.wordingWords = this.sequences.map((sequence) =>
        new Set(sequence.filter((word) => word !== null)));
      // Prefix sums, as fuzzy.py's: weight and placeholders before each position.
      this.weightBefore = this.sequences.map((sequence) => {
        const sums = [0];
        for (const word of sequence) {
          sums.push(sums[sums.length - 1] + (word === null ? 0 : this.weights.get(word)));
        }
        return sums;
      });
      this.holesBefore = this.sequences.map((sequence) => {
        const sums = [0];
        for (const word of sequence) sums.push(sums[sums.length - 1] + (word === null ? 1 : 0));
        return sums;
      });
      this.occurrences = new Map();
      this.sequences.forEach((sequence, k) => sequence.forEach((word, position) => {
        if (word !== null) pushTo(this.occurrences, word, [k, position]);
      }));
      this.byDeletion = new Map();
      for (const word of this.weights.keys()) {
        if (word.length >= settings.typo_min_length - 1) {
          for (const deleted of deletions(word)) pushTo(this.byDeletion, deleted, word);
        }
      }
    }

    similar(word) {
      if (word.length < this.settings.typo_min_length ||
          word.length > this.settings.typo_max_length) return [];
      const candidates = [...(this.byDeletion.get(word) || [])];
      const dropped = deletions(word);
      for (const d of dropped) if (this.weights.has(d)) candidates.push(d);
      for (const d of dropped) for (const c of (this.byDeletion.get(d) || [])) candidates.push(c);
      const found = [];
      for (const c of candidates) if (c !== word && !found.includes(c)) found.push(c);
      return found;
    }
  }

  // As fuzzy.py's _without_boilerplate: torch's generic check text is no evidence.
  function withoutBoilerplate(sequence, runs) {
    const kept = [];
    let i = 0;
    while (i < sequence.length) {
      const run = runs.find((r) => r.every((word, n) => sequence[i + n] === word));
      if (run) i += run.length; else kept.push(sequence[i++]);
    }
    return kept;
  }

  // fuzzy.py's _kept_positions: the positions outside the boilerplate runs.
  function keptPositions(sequence, runs) {
    const kept = [];
    let i = 0;
    while (i < sequence.length) {
      const run = runs.find((r) => r.every((word, n) => sequence[i + n] === word));
      if (run) i += run.length; else kept.push(i++);
    }
    return kept;
  }

  function fragments(pastedWords, pastedLines, index) {
    const s = index.settings;
    const all = keptPositions(pastedWords, index.boilerplate)
      .filter((i) => !index.common.has(pastedWords[i]));
    const kept = all.slice(Math.max(0, all.length - s.max_words));
    const tail = kept.map((i) => pastedWords[i]);
    const lines = kept.map((i) => pastedLines[i]);
    const memo = new Map();
    const chain = [];  // [paste position, wording position, score, matched, count, parent]
    const recent = new Map();
    const best = new Map();
    tail.forEach((word, i) => {
      let hits = memo.get(word);
      if (!hits && /^[0-9]*$/.test(word)) {
        hits = []; // as fuzzy.py: a number anchors nothing
        memo.set(word, hits);
      }
      if (!hits) {
        hits = (index.occurrences.get(word) || []).map(([k, j]) => [k, j, index.weights.get(word)]);
        for (const similar of index.similar(word)) {
          const weight = Math.floor(index.weights.get(similar) * s.typo_quarters / 4);
          for (const [k, j] of index.occurrences.get(similar) || []) hits.push([k, j, weight]);
        }
        memo.set(word, hits);
      }
      for (const [k, j, weight] of hits) {
        const weightBefore = index.weightBefore[k], holesBefore = index.holesBefore[k];
        let states = recent.get(k);
        if (!states) { states = []; recent.set(k, states); }
        while (states.length && chain[states[0]][0] < i - s.max_paste_gap) states.shift();
        let score = weight, matched = weight, count = 1, parent = -1;
        for (const state of states) {
          const [pi, pj, pscore, pmatched, pcount] = chain[state];
          if (pi >= i || !(pj < j && j <= pj + s.max_wording_gap)) continue;
          let cost = Math.floor((weightBefore[j] - weightBefore[pj + 1]) / 2);
          const holes = holesBefore[j] - holesBefore[pj + 1];
          const extra = i - pi - 1 - holes * s.placeholder_words;
          if (extra > 0) cost += extra * s.insert_cost;
          if (pscore + weight - cost > score) {
            score = pscore + weight - cost; matched = pmatched + weight; count = pcount + 1;
            parent = state;
          }
        }
        states.push(chain.length);
        chain.push([i, j, score, matched, count, parent]);
        const previous = best.get(k);
        if (previous === undefined || score >= chain[previous][2]) best.set(k, chain.length - 1);
      }
    });
    const found = [];
    const costs = new Map();
    for (const [k, last] of best) {
      const [, , score, matched, count] = chain[last];
      if (score < s.min_score || count < s.min_anchors) continue;
      const steps = [];
      for (let state = last; state !== -1; state = chain[state][5]) {
        steps.push([chain[state][0], chain[state][1]]);
      }
      steps.reverse();
      // As fuzzy.py: a short chain of plain words is a phrase any prose may hold.
      if (count < s.plain_chain_anchors && !steps.some(([i]) => /[_0-9]/.test(tail[i]))) continue;
      const share = evidence(index, k, tail, lines, steps, matched, costs);
      const total = index.weightBefore[k][index.weightBefore[k].length - 1];
      // As fuzzy.py: a sliver of a long wording convinces only as all the evidence on its lines.
      const needed = matched * 100 < s.sliver_percent * total ? 100
        : score >= s.strong_score ? s.strong_evidence_percent : s.evidence_percent;
      if (share < needed) continue;
      const { entry, wording } = index.wordings[k];
      const coverage = total ? Math.min(Math.floor(matched * 1000 / total), 999) / 1000 : 0;
      const positions = steps.map(([i]) => i);
      found.push({ entry, wording, score, coverage, positions, anchors: positions.length,
        end: positions[positions.length - 1], evidence: share });
    }
    found.sort((a, b) => (b.score - a.score) || (b.coverage - a.coverage) || (b.end - a.end));
    return found;
  }

  // As fuzzy.py's evidence: the share of its lines' evidence a chain holds.
  function evidence(index, k, pasted, lines, steps, matched, costs) {
    const first = lines[steps[0][0]], last = lines[steps[steps.length - 1][0]];
    const own = index.wordingWords[k];
    const holesBefore = index.holesBefore[k];
    const chained = new Set(steps.map(([i]) => i));
    const free = new Set();
    for (let n = 1; n < steps.length; n++) {
      const [pi, pj] = steps[n - 1], [i, j] = steps[n];
      if (holesBefore[j] - holesBefore[pj + 1] > 0) {
        for (let p = pi + 1; p < i; p++) free.add(p);
      }
    }
    let start = steps[0][0];
    while (start > 0 && lines[start - 1] >= first) start--;
    let end = steps[steps.length - 1][0];
    // As fuzzy.py: a chain from the wording's first word is read up to its end.
    if (index.weightBefore[k][steps[0][1]] || steps.length < index.settings.prefix_anchors) {
      while (end + 1 < lines.length && lines[end + 1] <= last) end++;
    }
    let against = 0;
    for (let position = start; position <= end; position++) {
      if (chained.has(position) || free.has(position)) continue;
      const word = pasted[position];
      let cost = costs.get(word);
      if (cost === undefined) { cost = againstWeight(index, word); costs.set(word, cost); }
      if (!cost) continue;
      if (own.has(word)) cost = Math.floor(cost / 2);
      else if (!index.weights.has(word) && index.similar(word).some((o) => own.has(o))) cost = 0;
      against += cost;
    }
    return Math.floor(matched * 100 / (matched + against));
  }

  function againstWeight(index, word) {
    if (/[0-9]/.test(word) || index.classEndings.some((e) => word.endsWith(e))) return 0;
    if (index.weights.has(word)) return index.weights.get(word);
    const similar = index.similar(word);
    if (!similar.length) return index.unknownWeight;
    return Math.floor(Math.max(...similar.map((o) => index.weights.get(o))) *
      index.settings.typo_quarters / 4);
  }

  function fuzzyNearMisses(pasted, index) {
    const s = index.settings;
    pasted = withoutBoilerplate(pasted, index.boilerplate);
    const present = new Set();
    for (const word of new Set(pasted.slice(Math.max(0, pasted.length - s.max_words)))) {
      if (index.weights.has(word)) present.add(word);
      for (const similar of index.similar(word)) present.add(similar);
    }
    const shares = new Map();
    index.sequences.forEach((sequence, k) => {
      const { entry } = index.wordings[k];
      let total = 0, held = 0;
      for (const word of sequence) {
        if (word === null) continue;
        total += index.weights.get(word);
        if (present.has(word)) held += index.weights.get(word);
      }
      if (!total) return;
      const share = Math.floor(held * 100 / total);
      const previous = shares.get(entry.id);
      if (held * 100 < s.near_miss_rare_percent * index.unknownWeight ||
          share < s.near_miss_percent) return;
      if (share > (previous ? previous.share : -1)) {
        shares.set(entry.id, { entry, share });
      }
    });
    return [...shares.values()].sort((a, b) => b.share - a.share)
      .map(({ entry, share }) => ({ entry, similarity: share / 100 }));
  }

  function recogniseNotAutograd(pasted, kinds) {
    const text = " " + pasted.join(" ") + " ";
    let found = null, last = -1;
    for (const kind of kinds) {
      for (const phrase of kind.phrases) {
        const at = text.lastIndexOf(" " + phrase + " ");
        if (at > last) { found = kind; last = at; }
      }
    }
    return found;
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
    // A stable sort, as Python's: by characters matched, complete before truncated, a wording
    // matched to its end before one whose full stop the paste left out.
    candidates.sort((a, b) => (b.found.matchedChars - a.found.matchedChars) ||
      (Number(b.found.complete) - Number(a.found.complete)) ||
      (Number(a.found.unstopped) - Number(b.found.unstopped)));
    const taken = [];
    const cutSpans = new Set(); // as matching.py: a cut-off start several entries share
    const latest = new Map();
    for (const { found, entry, wording } of candidates) {
      const span = `${found.start}:${found.end}:${found.matchedChars}`;
      if (found.complete || !cutSpans.has(span)) {
        if (overlaps(taken, found.start, found.end)) continue;
        taken.splice(spanIndex(taken, found.start, found.end), 0, [found.start, found.end]);
        if (!found.complete) cutSpans.add(span);
      }
      const previous = latest.get(entry.id);
      // As matching.py: the latest occurrence, but a whole message before one cut off.
      const previousWhole = previous ? previous.kind === "exact" : false;
      if (!previous || (found.complete && !previousWhole) ||
          (found.complete === previousWhole && found.end > previous.end)) {
        latest.set(entry.id, makeMatch(entry, wording, found.fields,
          wording.template.score(found), found.start, found.end));
      }
    }
    const matches = [...latest.values()].sort((a, b) =>
      (Number(isException(b)) - Number(isException(a))) || (b.end - a.end));
    if (matches.some((m) => !isContext(m, catalog))) {
      return matches.filter((m) => !isContext(m, catalog));
    }
    return matches;
  }

  function makeMatch(entry, wording, fields, score, start, end) {
    return {
      entry, wording, fields, score, kind: score >= 1 ? "exact" : "partial", start, end,
      message: wording.template.render(fields), details: details(entry, fields),
    };
  }

  function isContext(match, catalog) {
    return catalog.context.has(match.entry.id + "\n" + match.wording.variant);
  }

  function partialMatches(pasted, lines, catalog) {
    let found = fragments(pasted, lines, catalog.index);
    // As matching.py: a context line gives way to a main fragment scoring half as much at least.
    const main = found.filter((f) => !isContext(f, catalog));
    if (main.length && main[0].score * 2 >= found[0].score) found = main;
    const best = new Map();
    for (const fragment of found) {
      if (!best.has(fragment.entry.id)) best.set(fragment.entry.id, fragment);
    }
    const ranked = [...best.values()];
    if (!ranked.length) return [];
    const top = ranked[0].score;
    return ranked.filter((f) => f.score * 100 >= top * catalog.index.settings.shared_percent)
      .slice(0, catalog.index.settings.max_partial)
      .map((f) => makeMatch(f.entry, f.wording, {}, f.coverage, -1, -1));
  }

  // ---- symptoms.py: a silent pitfall found by Python's error at a line reading its culprit,
  // or by the words users describe it with; never a message of torch's ---------------------

  function normalWord(word) {
    return word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
  }

  function contentWords(text, catalog) {
    return words(text, catalog.settings.fuzzy.max_raw_words)
      .filter((word) => !catalog.stopwords.has(word)).map(normalWord);
  }

  function symptomMatch(entry, text) {
    const wording = { variant: "symptom", exception: "", releases: entry.releases,
      template: { render: () => text } };
    return { entry, wording, fields: {}, score: 0, kind: "symptom", start: -1, end: -1,
      message: text, details: details(entry, {}) };
  }

  function symptomsByWords(cleaned, catalog) {
    const s = catalog.settings.symptoms;
    const pasted = contentWords(cleaned, catalog);
    if (!pasted.length || pasted.length > s.max_words) return [];
    // An error message no entry matched is no description of a pitfall.
    if (namesAnException(cleaned)) return [];
    const present = new Set(pasted);
    const negations = new Set(s.negations);
    const negated = [...present].filter((w) => negations.has(w)); // "the grad is not None"
    const found = [];
    for (const entry of catalog.symptoms) {
      if (entry.phrases.length < 2) continue; // the title alone: no symptoms of its own
      const vocabulary = new Set(entry.phrases.flatMap((p) => contentWords(p, catalog)));
      const focus = Math.floor(pasted.filter((w) => vocabulary.has(w)).length * 100 / pasted.length);
      if (focus < s.focus_percent) continue;
      let best = null;
      for (const phrase of entry.phrases) {
        const wanted = new Set(contentWords(phrase, catalog));
        if (wanted.size && [...wanted].every((w) => present.has(w)) &&
            negated.every((w) => wanted.has(w)) &&
            (best === null || wanted.size > best[0])) best = [wanted.size, phrase];
      }
      if (best !== null) found.push({ focus, entry, text: best[1], matched: best[0] });
    }
    if (!found.length) return [];
    // As Python's stable sort with reverse=True: equal ones keep their order.
    found.sort((a, b) => (b.matched - a.matched) || (b.focus - a.focus));
    const top = found[0];
    return found.filter((f) => f.matched === top.matched && f.focus === top.focus)
      .map((f) => symptomMatch(f.entry, f.text));
  }

  // As symptoms.py's described: a report quoting no message, by its sentences; the pages
  // about what they describe, not matches.
  function describedPages(cleaned, catalog) {
    const s = catalog.settings.symptoms;
    if (namesAnException(cleaned)) return [];
    const phrases = [];
    const vocabularies = new Map();
    for (const entry of catalog.symptoms) {
      if (entry.phrases.length < 2) continue; // the title alone: no symptoms of its own
      const said = entry.phrases.map((phrase) => contentWords(phrase, catalog));
      vocabularies.set(entry.id, new Set(said.flat()));
      entry.phrases.forEach((phrase, n) => {
        if (said[n].length >= 2) phrases.push([entry, phrase, said[n]]);
      });
    }
    const found = new Map();
    for (const sentence of sentences(cleaned, s.sentence_ends)) {
      const raw = words(sentence, catalog.settings.fuzzy.max_raw_words).map(normalWord);
      const content = contentWords(sentence, catalog);
      for (const [entry, phrase, ordered] of phrases) {
        if (!describedIn(ordered, raw, catalog, s)) continue;
        // A tie: the pitfall more of the sentence's words are about (symptoms.py).
        const vocabulary = vocabularies.get(entry.id);
        const focus = content.filter((word) => vocabulary.has(word)).length;
        const kept = found.get(entry.id);
        if (!kept || ordered.length > kept.matched ||
            (ordered.length === kept.matched && focus > kept.focus)) {
          found.set(entry.id, { entry, text: phrase, matched: ordered.length, focus });
        }
      }
    }
    // As Python's stable sort with reverse=True: equal ones keep their order.
    return [...found.values()].sort((a, b) => b.matched - a.matched || b.focus - a.focus);
  }

  function sentences(text, ends) {
    const out = [];
    for (const line of text.split("\n")) {
      let start = 0;
      for (let at = 0; at < line.length; at++) {
        if (ends.includes(line[at]) && (at + 1 === line.length || /\s/.test(line[at + 1]))) {
          out.push(line.slice(start, at));
          start = at + 1;
        }
      }
      out.push(line.slice(start));
    }
    return out.filter((sentence) => sentence.trim());
  }

  function describedIn(phrase, raw, catalog, s) {
    const negations = new Set(s.negations);
    for (let start = 0; start < raw.length; start++) {
      if (raw[start] !== phrase[0] ||
          raw.slice(Math.max(0, start - s.negation_reach), start).some((w) => negations.has(w))) {
        continue;
      }
      let at = 1, others = 0, position = start + 1;
      while (at < phrase.length && position < raw.length && others <= s.phrase_slack) {
        const current = raw[position];
        if (current === phrase[at]) at++;
        else if (negations.has(current)) break;
        else if (!catalog.stopwords.has(current)) others++;
        position++;
      }
      if (at === phrase.length && others <= s.phrase_slack) return true;
    }
    return false;
  }

  function namesAnException(text) {
    return text.split("\n").some((line) => {
      const trimmed = line.trim();
      const colon = trimmed.indexOf(":");
      return colon !== -1 && isExceptionName(trimmed.slice(0, colon));
    });
  }

  const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
  const ALNUM = /^[\p{L}\p{N}]$/u;

  function isExceptionName(name) {
    const last = name.split(".").pop();
    return IDENTIFIER.test(last) && /^[A-Z]/.test(last) &&
      ["Error", "Exception", "Warning"].some((ending) => last.endsWith(ending));
  }

  function raisingLine(lines, error, s) {
    const first = Math.max(0, error - s.raising_lines);
    for (let n = error - 1; n >= first; n--) {
      if (lines[n].replace(/^\s+/, "").startsWith(s.arrow)) return lines[n];
    }
    for (let n = error - 1; n >= first; n--) {
      const line = lines[n];
      if (line.trim() && ![...line].every((c) => "^~ \t".includes(c))) return line;
    }
    return null;
  }

  // Whether a code line reads the attribute (".grad") of something: not ".grad_fn".
  function readsAttribute(line, attribute) {
    let at = line.indexOf(attribute);
    while (at !== -1) {
      const after = line.charAt(at + attribute.length);
      const before = at > 0 ? line.charAt(at - 1) : "";
      if ((!after || !(ALNUM.test(after) || after === "_")) &&
          (before === "" || ALNUM.test(before) || "_)]".includes(before))) return true;
      at = line.indexOf(attribute, at + 1);
    }
    return false;
  }

  // As symptoms.py's _error_on: the line is the error, or a sentence quotes it.
  function errorOn(line, quotes) {
    const starts = [0];
    for (const quote of quotes) {
      for (let at = line.indexOf(quote); at !== -1; at = line.indexOf(quote, at + 1)) {
        starts.push(at + 1);
      }
    }
    for (const start of starts) {
      const rest = line.slice(start).trim();
      const colon = rest.indexOf(":");
      if (colon !== -1 && isExceptionName(rest.slice(0, colon))) {
        return [rest.slice(0, colon), rest.slice(colon + 1), line.slice(0, start)];
      }
    }
    return null;
  }

  function symptomByError(cleaned, catalog) {
    const s = catalog.settings.symptoms;
    const errors = catalog.symptoms.flatMap((entry) => entry.errors.map((e) => [entry, e]));
    if (!errors.length) return null;
    const all = cleaned.split("\n");
    const lines = all.slice(Math.max(0, all.length - catalog.settings.fuzzy.max_lines));
    for (let n = lines.length - 1; n >= 0; n--) {
      const found = errorOn(lines[n], catalog.settings.fuzzy.quotes);
      if (found === null) continue;
      const [name, message, before] = found;
      const exception = name.split(".").pop();
      for (const [entry, error] of errors) {
        if (exception === error.exception && error.contains.every((p) => message.includes(p))) {
          const raising = readsAttribute(before, error.code) ? before : raisingLine(lines, n, s);
          if (raising !== null && readsAttribute(raising, error.code)) {
            return symptomMatch(entry, `${error.exception}: ${error.contains.join(" ... ")}`);
          }
        }
      }
      return null; // the paste's last error is another
    }
    return null;
  }

  // As symptoms.py's by_told_error: the symptom error told without its class, its code
  // reading the attribute on its line or the line above; only in a paste naming no class.
  function symptomByToldError(cleaned, catalog) {
    if (namesAnException(cleaned)) return null;
    const s = catalog.settings.symptoms;
    const fold = (text) => [...text.toLowerCase()].filter((c) => !s.told_quotes.includes(c))
      .join("");
    const errors = catalog.symptoms.flatMap((entry) =>
      entry.errors.map((e) => [entry, e, e.contains.map(fold)]));
    if (!errors.length) return null;
    const all = cleaned.split("\n");
    const lines = all.slice(Math.max(0, all.length - catalog.settings.fuzzy.max_lines));
    for (let n = lines.length - 1; n >= 0; n--) {
      const told = fold(lines[n]);
      for (const [entry, error, phrases] of errors) {
        if (phrases.every((p) => told.includes(p)) &&
            (readsAttribute(lines[n], error.code) ||
             readsAttribute(lineAbove(lines, n, s), error.code))) {
          return symptomMatch(entry, `${error.exception}: ${error.contains.join(" ... ")}`);
        }
      }
    }
    return null;
  }

  // As symptoms.py's by_message: another program's words for the symptom, on one line as
  // printed, or a line matching a pattern (any case) in a paste that names no exception class.
  // Several: the one the paste shows first.
  function symptomByMessage(cleaned, catalog) {
    const all = cleaned.split("\n");
    const lines = all.slice(Math.max(0, all.length - catalog.settings.fuzzy.max_lines));
    const text = lines.join("\n");
    const logsCount = !namesAnException(text);
    let first = null;
    for (const entry of catalog.symptoms) {
      for (const message of entry.messages) {
        let at = -1;
        if (message.contains.length) {
          let start = 0;
          for (const line of lines) {
            if (message.contains.every((part) => line.includes(part))) { at = start; break; }
            start += line.length + 1;
          }
        } else if (logsCount) {
          const found = symptomPattern(message.pattern).exec(text);
          if (found) at = found.index;
        }
        if (at >= 0 && (first === null || at < first[0])) first = [at, entry, message];
      }
    }
    return first === null ? null : symptomMatch(first[1], first[2].message);
  }

  const PATTERNS = new Map();
  function symptomPattern(pattern) {
    if (!PATTERNS.has(pattern)) PATTERNS.set(pattern, new RegExp(pattern, "i"));
    return PATTERNS.get(pattern);
  }

  function lineAbove(lines, n, s) {
    for (let k = n - 1; k >= Math.max(0, n - s.raising_lines); k--) {
      if (lines[k].trim()) return lines[k];
    }
    return "";
  }

  // As matching.py's explain: exact matches first; else a non-autograd error; else a symptom
  // error; else partial matches; else a symptom error told without its class, or another
  // program's words for a symptom; else a pitfall's symptom words; else near misses.
  function explain(text, catalog) {
    const found = matchText(text, catalog);
    found.raisedBy = null;
    locateAll(text, found.matches, catalog);
    // Another library's raise of PyTorch's words: not PyTorch's error (matching.py).
    const copied = found.matches.filter((m) => m.located.raiser);
    if (copied.length) {
      const kept = found.matches.filter((m) => !m.located.raiser);
      if (!kept.length) {
        found.nearMisses = copied.slice(0, catalog.settings.near_miss_limit)
          .map((m) => ({ entry: m.entry, similarity: m.score }));
        found.raisedBy = copied[0].located.raiser;
      }
      found.matches = kept;
    }
    found.frame = found.matches.length ? found.matches[0].located.frame : null;
    if (found.contextOnly && found.placed) {
      found.frame = locateAll(text, [found.placed], catalog);
    }
    delete found.placed;
    return found;
  }

  function matchText(text, catalog) {
    const exact = findMatches(text, catalog);
    const none = { matches: [], nearMisses: [], notAutograd: null, contextOnly: false,
      described: false };
    if (exact.some((m) => m.kind === "exact" && !isContext(m, catalog))) {
      // Exact matches rank above cut-off ones (a stable sort keeps each group's order).
      const ranked = exact.slice().sort((a, b) =>
        Number(a.kind !== "exact") - Number(b.kind !== "exact"));
      return Object.assign(none, { matches: ranked });
    }
    const settings = catalog.settings;
    const [pasted, lines] = lineWords(
      messageLines(clean(text, settings), settings.fuzzy, settings.frames),
      settings.fuzzy.max_raw_words, settings.fuzzy.quotes);
    const tail = pasted.slice(Math.max(0, pasted.length - settings.fuzzy.max_words));
    const elsewhere = recogniseNotAutograd(tail, settings.not_autograd);
    if (elsewhere) return Object.assign(none, { notAutograd: elsewhere });
    const cleaned = clean(text, settings);
    const met = symptomByError(cleaned, catalog);
    if (met) return Object.assign(none, { matches: [met] });
    const cut = new Map();
    for (const m of exact) if (!isContext(m, catalog)) cut.set(m.entry.id, m);
    const ranked = partialMatches(pasted, lines, catalog).map((m) => {
      const kept = cut.get(m.entry.id);
      cut.delete(m.entry.id);
      return kept || m;
    });
    let main = ranked.filter((m) => !isContext(m, catalog));
    // A message cut off at a line end stands above what only a fragment points to; a start
    // several entries share ranks those the fragments found, or them all (matching.py).
    if (main.some((m) => m.start >= 0)) main = main.filter((m) => m.start >= 0);
    else main = main.concat([...cut.values()]);
    if (main.length && !exact.length
        && foreignException(cleaned, settings.fuzzy.foreign_exception,
          settings.fuzzy.exception_endings)) {
      // PyTorch's words, reworded, after a bare "Error:" (matching.py): the closest entries.
      return Object.assign(none, {
        nearMisses: main.slice(0, settings.near_miss_limit)
          .map((m) => ({ entry: m.entry, similarity: m.score })),
      });
    }
    if (main.length) return Object.assign(none, { matches: main });
    // Anomaly mode's lines alone: printed beside any error of the backward pass, they do not
    // say which; their entry is a near miss (matching.py).
    if (exact.length || ranked.length) {
      const near = new Map();
      for (const m of exact.length ? exact : ranked) {
        if (!near.has(m.entry.id)) near.set(m.entry.id, { entry: m.entry, similarity: m.score });
      }
      // Their forward traceback still names the user's line whose backward failed: the
      // last of their lines reports it (matching.py).
      const placed = (exact.length ? exact : ranked).filter((m) => m.start >= 0)
        .reduce((last, m) => (last === null || m.start > last.start ? m : last), null);
      return Object.assign(none, {
        nearMisses: [...near.values()].slice(0, settings.near_miss_limit), contextOnly: true,
        placed: placed || null,
      });
    }
    const told = symptomByToldError(cleaned, catalog) || symptomByMessage(cleaned, catalog);
    if (told) return Object.assign(none, { matches: [told] });
    const metWords = symptomsByWords(cleaned, catalog);
    if (metWords.length) return Object.assign(none, { matches: metWords });
    // A longer report in prose: the pages about what its sentences describe, not an answer.
    const pages = describedPages(cleaned, catalog).slice(0, settings.near_miss_limit);
    if (pages.length) {
      return Object.assign(none, {
        nearMisses: pages.map((p) => ({ entry: p.entry, similarity: 1 })), described: true,
      });
    }
    return Object.assign(none, {
      nearMisses: fuzzyNearMisses(pasted, catalog.index).slice(0, settings.near_miss_limit),
    });
  }


  // ---- frames.py and tracebacks.py: the user's own line, in the exception a match is in -----
  // The same reading as the Python package's, with its constants (the settings' "frames").

  function partition(text, separator) {
    const at = text.indexOf(separator);
    return at === -1 ? [text, "", ""] : [text.slice(0, at), separator, text.slice(at + separator.length)];
  }

  function rpartition(text, separator) {
    const at = text.lastIndexOf(separator);
    return at === -1 ? ["", "", text] : [text.slice(0, at), separator, text.slice(at + separator.length)];
  }

  function isNumber(text, f) {
    return text.length > 0 && text.length <= f.max_digits && /^[0-9]+$/.test(text);
  }

  // As frames.py's is_word: ASCII letters, digits and "_" only.
  function isAsciiWord(text) {
    return /^[A-Za-z0-9_]*$/.test(text);
  }

  function isLibrary(file, code, f) {
    if (file.startsWith("<")) return !f.typed_names.some((name) => file.startsWith(name));
    const path = file.replace(/\\/g, "/");
    const lowered = path.toLowerCase();
    if (f.library_parts.some((part) => lowered.indexOf(part) !== -1) ||
        file.indexOf(f.windows_stdlib) !== -1) return true;
    const folder = rpartition(rpartition(path, "/")[0], "/")[2];
    return f.launcher_folders.indexOf(folder) !== -1 && code.startsWith(f.launcher_code);
  }

  function cellOf(file, f) {
    if (file.startsWith("Cell In[") && file.endsWith("]")) {
      const number = file.slice("Cell In[".length, -1);
      return isNumber(number, f) ? parseInt(number, 10) : 0;
    }
    if (file.startsWith("<ipython-input-")) {
      const number = partition(file.slice("<ipython-input-".length), "-")[0];
      return isNumber(number, f) ? parseInt(number, 10) : 0;
    }
    return f.cell_file_parts.some((part) => file.indexOf(part) !== -1) ? 0 : null;
  }

  function frameHeader(stripped, f) {
    if (stripped.startsWith('File "')) {
      const [file, quote, rest] = partition(stripped.slice(6), '"');
      if (quote && rest.startsWith(", line ")) {
        const number = partition(rest.slice(7), ",")[0].trim();
        if (isNumber(number, f)) return [file, parseInt(number, 10), "python"];
      }
      return null;
    }
    if (stripped.startsWith("File ")) {
      const location = partition(stripped.slice(5), ", in ")[0].trim();
      const [file, colon, number] = rpartition(location, ":");
      if (colon && file && isNumber(number, f)) return [file, parseInt(number, 10), "ipython"];
      return null;
    }
    if (stripped.startsWith("Cell In[")) {
      const [cell, , rest] = partition(stripped, ", line ");
      const number = partition(rest, ",")[0].trim();
      if (isNumber(number, f) && cell.endsWith("]") && isNumber(cell.slice(8, -1), f)) {
        return [cell, parseInt(number, 10), "ipython"];
      }
      return null;
    }
    return warningHeader(stripped, f) || arrowHeader(stripped);
  }

  function warningHeader(stripped, f) {
    const marker = stripped.indexOf(f.warning_marker);
    if (marker === -1) return null;
    const [location, colon, category] = rpartition(stripped.slice(0, marker), ": ");
    if (!colon || !isAsciiWord(category.replace(/\./g, ""))) return null;
    const [file, colon2, number] = rpartition(location, ":");
    return colon2 && file && isNumber(number, f) ? [file, parseInt(number, 10), "warning"] : null;
  }

  function arrowHeader(stripped) {
    let [file, found, fn] = partition(stripped, " in ");
    if (!found || !(fn.endsWith(")") || fn === "<module>")) return null;
    if (file.startsWith("[") && file.indexOf("](") !== -1 && file.endsWith(")")) {
      file = file.slice(1, file.indexOf("]("));
    }
    if (file.startsWith("<ipython-input-") && file.endsWith(">")) return [file, 0, "arrow"];
    if ((file.endsWith(".py") || file.endsWith(".pyc") || file.endsWith(".pyx")) &&
        (file.indexOf("/") !== -1 || file.indexOf("\\") !== -1)) return [file, 0, "arrow"];
    return null;
  }

  function arrowLine(stripped, f) {
    if (!stripped.startsWith("-")) return null;
    const rest = stripped.replace(/^-+/, "");
    if (!rest.startsWith(">")) return null;
    const [number, , code] = partition(rest.slice(1).trim(), " ");
    return isNumber(number, f) ? [parseInt(number, 10), code.trim()] : null;
  }

  function contextLine(stripped, f) {
    if (stripped.startsWith("(...)")) {
      stripped = stripped.slice(5).trim();
      if (!stripped) return "";
    }
    const [number, , code] = partition(stripped, " ");
    return isNumber(number, f) ? code.trim() : null;
  }

  function isCaretLine(stripped) {
    return /^[\^~ ]+$/.test(stripped);
  }

  function isExceptionLine(stripped) {
    const [name, colon] = partition(stripped, ":");
    return Boolean(colon) && isAsciiWord(name.replace(/\./g, "")) && /^[A-Z]/.test(name);
  }

  function indentation(line) {
    return line.length - line.replace(/^\s+/, "").length;
  }

  function makeFrame(file, line, code, context, f) {
    return { file, line, code, context, cell: cellOf(file, f), inLibrary: isLibrary(file, code, f) };
  }

  function prefixOf(line, f) {
    let content = line.replace(/^\s+/, "");
    let prefix = "";
    while (content.startsWith("[")) {
      const close = content.indexOf("]:", 1);
      if (close === -1 || close === 1 || close + 2 > f.max_prefix ||
          !isAsciiWord(content.slice(1, close))) break;
      prefix += content.slice(0, close + 2);
      content = content.slice(close + 2);
    }
    if (content.replace(/^\s+/, "").startsWith("|")) content = content.replace(/^\s+/, "").slice(1);
    return [prefix, content];
  }

  function isMarker(stripped, f) {
    return stripped.indexOf(f.traceback_marker) !== -1 ||
      stripped.indexOf(f.forward_marker) !== -1 ||
      [f.compile_marker, ...f.chain_markers, ...f.group_markers].some((m) => stripped.startsWith(m));
  }

  function readFrame(contents, index, read, f) {
    const [file] = read;
    let [, number, style] = read;
    let code = "";
    const context = [];
    let after = index + 1;
    if (style === "python" || style === "warning") {
      const own = indentation(contents[index]);
      while (after < contents.length) {
        const line = contents[after];
        const stripped = line.trim();
        if (!stripped || frameHeader(stripped, f) !== null) break;
        const deeper = indentation(line) > own;
        if (!deeper && (code || own || isExceptionLine(stripped) || isMarker(stripped, f))) break;
        if (!isCaretLine(stripped)) {
          if (code) context.push(stripped); else code = stripped;
        }
        after++;
        if (!deeper) break;
      }
      return [makeFrame(file, number, code, context, f), after];
    }
    while (after < contents.length) {
      const stripped = contents[after].trim();
      const arrow = arrowLine(stripped, f);
      if (arrow !== null) {
        if (style === "arrow" && !number) number = arrow[0];
        if (arrow[0] === number && !code) code = arrow[1]; else context.push(arrow[1]);
      } else {
        const shown = stripped ? contextLine(stripped, f) : null;
        if (shown === null) break;
        if (shown) context.push(shown);
      }
      after++;
    }
    return [makeFrame(file, number, code, context, f), after];
  }

  function readSegments(lines, numbers, f) {
    const contents = numbers.map((n) => prefixOf(lines[n], f)[1]);
    let chain = 0;
    const found = [{ start: numbers.length ? numbers[0] : 0, chain, blocks: [] }];
    const hasTraceback = (segment) => segment.blocks.some((b) => b.kind === "traceback");
    let block = null;
    let index = 0;
    while (index < contents.length) {
      const stripped = contents[index].trim();
      const number = numbers[index];
      let segment = found[found.length - 1];
      if (f.group_markers.some((m) => stripped.startsWith(m))) {
        chain++;
        found.push({ start: number, chain, blocks: [] });
        block = null;
      } else if (f.chain_markers.some((m) => stripped.startsWith(m))) {
        found.push({ start: number, chain, blocks: [] });
        block = null;
      } else if (stripped.indexOf(f.traceback_marker) !== -1) {
        if (hasTraceback(segment)) {
          chain++;
          segment = { start: number, chain, blocks: [] };
          found.push(segment);
        }
        block = { kind: "traceback", start: number, frames: [] };
        segment.blocks.push(block);
      } else if (stripped.indexOf(f.forward_marker) !== -1) {
        block = { kind: "forward", start: number, frames: [] };
        segment.blocks.push(block);
      } else if (stripped.startsWith(f.compile_marker)) {
        block = { kind: "compile", start: number, frames: [] };
        segment.blocks.push(block);
      } else {
        const read = frameHeader(stripped, f);
        if (read !== null && read[2] === "warning") {
          const warned = { kind: "warning", start: number, frames: [] };
          segment.blocks.push(warned);
          const [frame, next] = readFrame(contents, index, read, f);
          warned.frames.push(frame);
          block = null;
          index = next;
          continue;
        }
        if (read !== null) {
          if (block === null) {
            block = { kind: "traceback", start: number, frames: [] };
            segment.blocks.push(block);
          }
          const [frame, next] = readFrame(contents, index, read, f);
          block.frames.push(frame);
          index = next;
          continue;
        }
        if (stripped && block !== null && block.frames.length) block = null;
      }
      index++;
    }
    return found;
  }

  class Paste {
    constructor(cleaned, settings) {
      this.f = settings.frames;
      this.lines = cleaned.split("\n");
      this.ends = null;
      this.streams = null;
      this.segmentsByPrefix = new Map();
    }

    lineOf(offset) {
      if (this.ends === null) {
        this.ends = [];
        let total = 0;
        for (const line of this.lines) {
          total += line.split(/\s+/).join("").length;
          this.ends.push(total);
        }
      }
      return Math.min(bisectRight(this.ends, offset), this.lines.length - 1);
    }

    segments(prefix) {
      if (this.streams === null) {
        this.streams = new Map();
        this.lines.forEach((line, number) => {
          const key = prefixOf(line, this.f)[0];
          if (!this.streams.has(key)) this.streams.set(key, []);
          this.streams.get(key).push(number);
        });
      }
      if (!this.segmentsByPrefix.has(prefix)) {
        this.segmentsByPrefix.set(prefix,
          readSegments(this.lines, this.streams.get(prefix) || [], this.f));
      }
      return this.segmentsByPrefix.get(prefix);
    }

    locate(offsets) {
      const lines = this.lines;
      const at = offsets.filter((offset) => offset >= 0).map((offset) => this.lineOf(offset));
      const target = at.length ? at[at.length - 1] : lastLine(lines);
      const prefix = prefixOf(lines[target], this.f)[0];
      const found = this.segments(prefix);
      let segment = segmentAt(found, target);
      let line = target;
      for (const earlier of at) {
        if (prefixOf(lines[earlier], this.f)[0] !== prefix) continue;
        const first = segmentAt(found, earlier);
        if (first.chain === segment.chain) { segment = first; line = earlier; break; }
      }
      return located(segment, line, prefixOf(lines[line], this.f)[1], this.f);
    }
  }

  function lastLine(lines) {
    for (let n = lines.length - 1; n >= 0; n--) if (lines[n].trim()) return n;
    return 0;
  }

  function segmentAt(found, line) {
    const starts = found.map((segment) => segment.start);
    return found[Math.max(bisectRight(starts, line) - 1, 0)];
  }

  function sameFrame(a, b) {
    return a.file === b.file && a.line === b.line && a.code === b.code && a.cell === b.cell;
  }

  // As frames.py's raised_literal: the start of the string a raise line raises, or "".
  function raisedLiteral(code, f) {
    if (!code.startsWith("raise ")) return "";
    const quotes = [code.indexOf('"'), code.indexOf("'")].filter((at) => at !== -1);
    if (!quotes.length) return "";
    const start = Math.min(...quotes);
    const end = code.indexOf(code[start], start + 1);
    const literal = code.slice(start + 1, end !== -1 ? end : code.length).split("{")[0].trim();
    return literal.length >= f.min_raised_literal ? literal : "";
  }

  // As frames.py's raises_outside_torch.
  function raisesOutsideTorch(frame, message, f) {
    const path = "/" + frame.file.split("\\").join("/").toLowerCase(); // torch/... too
    if (f.torch_parts.some((part) => path.indexOf(part) !== -1)) return false;
    const literal = raisedLiteral(frame.code.trim(), f);
    return Boolean(literal) && message.indexOf(literal) !== -1;
  }

  function located(segment, line, message, f) {
    const evidence = [];
    const every = [];
    let shown = null;
    for (const block of segment.blocks) {
      if (block.kind === "warning" && block.start === line) {
        shown = block.frames.find((frame) => !frame.inLibrary) || null;
      }
    }
    for (const kind of ["forward", "compile", "traceback", "warning"]) {
      const blocks = segment.blocks.filter((block) => block.kind === kind);
      const own = blocks.map((block) => block.frames.filter((frame) => !frame.inLibrary));
      for (const block of blocks) every.push(...block.frames);
      for (const frames of own) evidence.push(...frames);
      if (shown === null && kind !== "warning") {
        for (let i = own.length - 1; i >= 0; i--) {
          if (own[i].length) { shown = own[i][own[i].length - 1]; break; }
        }
      }
    }
    if (shown !== null) {
      const at = evidence.findIndex((frame) => sameFrame(frame, shown));
      evidence.splice(at, 1);
      evidence.push(shown);
    }
    const raised = [];
    for (const block of segment.blocks) if (block.kind === "traceback") raised.push(...block.frames);
    const last = raised.length ? raised[raised.length - 1] : null;
    const raiser = last && raisesOutsideTorch(last, message, f) ? last : null;
    return { frame: shown, frames: evidence, allFrames: every, raiser };
  }

  // ---- causes.py: the common cause the answer leads with, and what supports it ------------

  function normalizedCode(code) {
    return code.split(/\s+/).join("").replace(/'/g, '"');
  }

  function inOrder(line, parts) {
    let at = 0;
    for (const part of parts) {
      const found = line.indexOf(part, at);
      if (found === -1) return false;
      at = found + part.length;
    }
    return true;
  }

  // As causes.py's _code_seen: the frame whose line shows the sign, else whose context does.
  function codeSeen(frames, sign, c) {
    const parts = sign.split(c.part_separator).map(normalizedCode);
    const onLine = frames.find((frame) => inOrder(normalizedCode(frame.code), parts));
    if (onLine) return [onLine, false];
    const near = frames.find((frame) =>
      frame.context.some((line) => inOrder(normalizedCode(line), parts)));
    return near ? [near, true] : null;
  }

  function gives(prefixes, value) {
    const lowered = value.toLowerCase();
    return prefixes.some((prefix) => lowered.startsWith(prefix.toLowerCase()));
  }

  // A cause's signs as exported: the keys it has (export.py leaves out the empty ones).
  function signsOf(cause) {
    const signs = cause.signs || {};
    return {
      code: signs.code || [], files: signs.files || [], fields: signs.fields || {},
      forms: signs.forms || [], required: Boolean(signs.required),
    };
  }

  function evidenceFor(signs, wording, fields, frames, allFrames, c) {
    const found = [];
    for (const name of Object.keys(signs.fields)) {
      if (name in fields && gives(signs.fields[name], fields[name])) {
        found.push({ kind: "field", sign: `${name}=${fields[name]}`, frame: null, near: false });
      }
    }
    if (signs.forms.length && wording && signs.forms.indexOf(wording.form) !== -1) {
      found.push({ kind: "form", sign: wording.variant, frame: null, near: false });
    }
    const latestFirst = frames.slice().reverse();
    for (const sign of signs.code) {
      const seen = codeSeen(latestFirst, sign, c);
      if (seen) found.push({ kind: "code", sign, frame: seen[0], near: seen[1] });
    }
    const every = allFrames.slice().reverse();
    for (const part of signs.files) {
      const frame = every.find((f) => f.file.toLowerCase().indexOf(part.toLowerCase()) !== -1);
      if (frame) found.push({ kind: "file", sign: part, frame, near: false });
    }
    return found;
  }

  function chooseCause(entry, wording, fields, frames, allFrames, c) {
    let best = null, bestWeight = 0, fallback = null;
    for (const cause of entry.causes) {
      const signs = signsOf(cause);
      const evidence = evidenceFor(signs, wording, fields, frames, allFrames, c);
      const weight = evidence.reduce((sum, found) => sum + c.weights[found.kind], 0);
      if (weight > bestWeight) { best = { id: cause.id, evidence }; bestWeight = weight; }
      if (fallback === null && !signs.required) fallback = { id: cause.id, evidence: [] };
    }
    return best || fallback;
  }

  // Each match: the frames of the exception it is in, and the cause the answer leads with.
  function locateAll(text, matches, catalog) {
    if (!matches.length) return null;
    const settings = catalog.settings;
    const cleaned = clean(text, settings);
    const skeleton = new Skeleton(cleaned, settings);
    const paste = new Paste(cleaned, settings);
    for (const match of matches) {
      let starts = [];
      if (match.start >= 0) {
        const found = new Set(match.wording.template.find(skeleton)
          .map((m) => m.start).filter((start) => start <= match.start));
        found.add(match.start);
        starts = [...found].sort((a, b) => a - b);
      }
      match.located = paste.locate(starts);
      match.cause = chooseCause(match.entry, match.wording, withDerivedFields(match.fields),
        match.located.frames, match.located.allFrames, settings.causes);
    }
    return matches[0].located.frame;
  }

  const api = { Catalog, Skeleton, clean, explain, findMatches, words, withDerivedFields, Paste };
  if (typeof module !== "undefined" && module.exports) module.exports = api;
  else root.AutogradErrors = api;
})(typeof window !== "undefined" ? window : this);
