/*
 * The site's two ways in from a pasted message: the paste page (explain.html#q=...) and the
 * search page (search.html?q=...). Both run the matcher of autograd-matcher.js on the catalog
 * the build exported. Pasted text is only ever shown as text (textContent), never as markup.
 */
(function () {
  "use strict";

  // Every sentence these pages show, in the site's language: written by the build from
  // autograd_errors/rendering/strings.py (the "paste." strings) into _static/autograd-strings.js.
  // text(name, values) fills in the {placeholders}.
  const STRINGS = window.AutogradStrings || {};

  function text(name, values) {
    return (name in STRINGS ? STRINGS[name] : name).replace(/\{(\w+)\}/g, (whole, key) =>
      values && key in values ? String(values[key]) : whole);
  }

  const contentRoot = () => document.documentElement.dataset.content_root || "";
  let catalogPromise = null;

  // Over http(s) the catalog is fetched as JSON. A page opened as a file (file://, the site
  // straight from _build/html) may not fetch at all: there the same catalog comes as a script,
  // autograd-catalog.js, which sets window.AutogradCatalogData.
  function catalogData() {
    if (window.location.protocol !== "file:") {
      return fetch(contentRoot() + "_static/autograd-catalog.json").then((response) => {
        if (!response.ok) throw new Error(`catalog: HTTP ${response.status}`);
        return response.json();
      });
    }
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = contentRoot() + "_static/autograd-catalog.js";
      script.onload = () => (window.AutogradCatalogData ? resolve(window.AutogradCatalogData)
        : reject(new Error("catalog: autograd-catalog.js set no catalog")));
      script.onerror = () => reject(new Error("catalog: _static/autograd-catalog.js is missing"));
      document.head.appendChild(script);
    });
  }

  function loadCatalog() {
    if (!catalogPromise) {
      catalogPromise = catalogData().then((data) => new AutogradErrors.Catalog(data));
    }
    return catalogPromise;
  }

  function element(tag, className, content) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (content !== undefined) node.textContent = content;
    return node;
  }

  // The catalog's prose marks code with `backticks`: show those parts as <code>, as text.
  function appendProse(node, content) {
    content.split("`").forEach((part, i) => {
      node.appendChild(i % 2 ? element("code", null, part) : document.createTextNode(part));
    });
    return node;
  }

  function prose(tag, content) {
    return appendProse(element(tag), content);
  }

  function entryLink(entry, content) {
    const link = element("a", "autograd-entry-link", content);
    link.href = contentRoot() + entry.path;
    return link;
  }

  // A label and its text, a space between (none after Chinese punctuation, as after() in
  // rendering/terminal.py).
  function labelled(label, content, className) {
    const paragraph = prose("p", content);
    paragraph.className = className;
    const spaced = /[\uff1a\u3002\uff0c]$/.test(label) || label.endsWith(" ") ? "" : " ";
    paragraph.insertBefore(document.createTextNode(spaced), paragraph.firstChild);
    paragraph.insertBefore(element("strong", null, label), paragraph.firstChild);
    return paragraph;
  }

  // ---- the answer: what rendering/text.py's short answer says, with rendering/evidence.py's
  // words for where it points and why it leads with a cause (the strings "answer.*") ---------

  // A frame's location as the user sees it: file:line, or a notebook's cell.
  function frameLocation(frame) {
    if (frame.cell === null) return `${frame.file}:${frame.line}`;
    if (frame.cell) return text("answer.cell", {number: frame.cell, line: frame.line});
    return text("answer.cell_unnumbered", {line: frame.line});
  }

  function sameFrame(a, b) {
    return Boolean(a && b) && a.file === b.file && a.line === b.line && a.code === b.code &&
      a.cell === b.cell;
  }

  // The first words of a wording of the entry, as evidence.form_words.
  function formWords(entry, variant, catalog) {
    const wording = entry.wordings.find((w) => w.variant === variant);
    const words = wording.template.render({}).split(/\s+/).filter(Boolean);
    const kept = catalog.settings.answer.form_words;
    return words.slice(0, kept).join(" ") + (words.length > kept ? " ..." : "");
  }

  function signSentence(found, entry, shown, catalog) {
    if (found.kind === "code") {
      const near = found.near ? "_near" : "";
      if (found.frame && sameFrame(found.frame, shown)) {
        return text(`answer.sign.code${near}_here`, {sign: found.sign});
      }
      return text(`answer.sign.code${near}`,
        {sign: found.sign, location: found.frame ? frameLocation(found.frame) : ""});
    }
    if (found.kind === "file") {
      const path = found.frame ? found.frame.file : found.sign;
      const start = path.toLowerCase().indexOf(found.sign.toLowerCase());
      const shownPath = start !== -1 ? path.slice(start).replace(/^[\/\\]+/, "") : path;
      return text("answer.sign.file", {file: shownPath});
    }
    if (found.kind === "field") {
      return text("answer.sign.field", {value: found.sign.slice(found.sign.indexOf("=") + 1)});
    }
    if (found.kind === "form") {
      return text("answer.sign.form", {wording: formWords(entry, found.sign, catalog)});
    }
    return text("answer.sign.diagnosis",
      {location: found.frame ? frameLocation(found.frame) : ""});
  }

  // Whether the match's details hold a hint for the paste's values (rendering/text.py's hinted).
  function hinted(match) {
    return match.entry.hints.some((hint) => match.details.includes(hint.text));
  }

  // The evidence for the chosen cause, in one sentence ("" without evidence).
  function seenSentence(cause, entry, shown, catalog) {
    if (!cause.evidence.length) return "";
    const parts = cause.evidence.map((found) => signSentence(found, entry, shown, catalog));
    return text("answer.signs", {signs: parts.join(text("answer.sign_separator"))});
  }

  // The answer first, as the command line gives it: the user's line, what the paste says, the
  // cause the paste supports (or the most common one) and what supports it, its fix; then why,
  // the entry, how it was matched and the values read from it.
  function renderMatch(match, first, catalog) {
    const box = element("div", "autograd-result");
    box.setAttribute("data-search-result", match.entry.id);
    box.setAttribute("data-match", match.kind);
    const heading = element("h2");
    heading.appendChild(entryLink(match.entry, match.entry.title));
    heading.appendChild(document.createTextNode(" "));
    heading.appendChild(element("span", "autograd-id", match.entry.id));
    box.appendChild(heading);
    if (match.kind !== "exact") box.appendChild(element("p", "autograd-partial", partialNote(match)));
    const frame = first ? match.located.frame : null;
    if (frame) box.appendChild(yourLine(frame, "answer.your_line"));
    if (match.kind !== "symptom") {
      // A pitfall raises no message: the note above names the symptom it was found by.
      const message = element("pre", "autograd-message",
        `${match.wording.exception}: ${match.message}`);
      message.tabIndex = 0; // a long message scrolls in its box: keyboard users can scroll it
      box.appendChild(message);
    }
    // What happened (the first sentence), then the most specific advice (a hint for this
    // paste's values comes last), as the command line's short answer (rendering/text.py);
    // the entry's page has the rest.
    const details = match.details.slice(0, 1).concat(match.details.slice(1).slice(-1));
    for (const line of details) box.appendChild(prose("p", line));
    const choice = match.cause;
    if (choice) {
      const cause = match.entry.causes.find((c) => c.id === choice.id);
      box.setAttribute("data-cause", choice.id);
      box.setAttribute("data-basis", choice.evidence.length ? "evidence" : "most-common");
      const lead = choice.evidence.length ? "answer.most_likely" : "answer.most_common";
      box.appendChild(labelled(text(lead), cause.text, "autograd-cause"));
      const seen = seenSentence(choice, match.entry, frame, catalog);
      if (seen) box.appendChild(labelled(text("answer.seen"), seen, "autograd-seen"));
      box.appendChild(labelled(text("answer.fix"), cause.fix, "autograd-fix"));
    } else if (!hinted(match)) {
      // (No cause fits, and a hint for this paste's values is shown: the hint is the advice,
      // as rendering/text.py's hinted.)
      box.appendChild(labelled(text("answer.fix"), match.entry.fix, "autograd-fix"));
    }
    box.appendChild(labelled(text("why"), match.entry.cause, "autograd-why"));
    const more = element("p");
    more.appendChild(entryLink(match.entry, text("readEntry")));
    box.appendChild(more);
    if (match.entry.diagnosable) box.appendChild(diagnoseLine());
    if (match.kind !== "symptom") {
      box.appendChild(element("p", "autograd-wording",
        text("answer.wording", {variant: match.wording.variant, releases: match.wording.releases})));
    }
    const names = Object.keys(match.fields);
    if (names.length) {
      const fields = element("dl", "autograd-fields");
      for (const name of names) {
        fields.appendChild(element("dt", null, name));
        fields.appendChild(element("dd", null, match.fields[name]));
      }
      box.appendChild(fields);
    }
    return box;
  }

  // For an entry a diagnosis traces (the export's "diagnosable"): `run --diagnose` would name
  // the line of the user's code where it started, and the page that says how.
  function diagnoseLine() {
    const line = prose("p", text("diagnose"));
    line.className = "autograd-diagnose";
    const link = element("a", "autograd-diagnose-link", text("diagnoseLink"));
    const options = typeof DOCUMENTATION_OPTIONS !== "undefined" ? DOCUMENTATION_OPTIONS : {};
    link.href = contentRoot() + "diagnose" + (options.LINK_SUFFIX || ".html");
    line.appendChild(document.createTextNode(" "));
    line.appendChild(link);
    return line;
  }

  // What both pages say about a partial match, and above several that share a fragment:
  // the same words as the command line (rendering/text.py).
  function partialNote(match) {
    if (match.kind === "symptom") return text("answer.symptom", {symptom: match.message});
    return text("answer.partial", {percent: Math.round(match.score * 100)});
  }

  function isShared(found) {
    return found.matches.length > 1 && found.matches.every((m) => m.kind === "partial");
  }

  function sharedSummary(found) {
    return text("shared", {count: found.matches.length});
  }

  // A non-autograd error, or the near misses: what both pages show when no entry matches.
  function noMatchNotice(found) {
    const notice = element("div", "autograd-notice");
    const elsewhere = found.notAutograd;
    if (elsewhere) {
      const line = element("p", "autograd-not-autograd");
      line.setAttribute("data-not-autograd", elsewhere.kind);
      line.appendChild(element("strong", null, text("notAutograd")));
      appendProse(line, text("notAutogradHint", {kind: elsewhere.kind, hint: elsewhere.hint}));
      const link = element("a", "autograd-elsewhere-link", elsewhere.url);
      link.href = elsewhere.url;
      line.appendChild(link);
      notice.appendChild(line);
      return notice;
    }
    if (!found.nearMisses.length) return null;
    const raiser = found.raisedBy;
    if (raiser) {
      const line = element("p", "autograd-raised-elsewhere");
      appendProse(line, text("answer.raised_elsewhere", {where: `${raiser.file}:${raiser.line}`}));
      notice.appendChild(line);
    }
    if (found.contextOnly) {
      notice.appendChild(
        appendProse(element("p", "autograd-context-only"), text("answer.context_only")));
      if (found.frame) notice.appendChild(yourLine(found.frame, "answer.context_frame"));
    }
    if (found.described) {
      notice.appendChild(
        appendProse(element("p", "autograd-described"), text("answer.described")));
    }
    const intro = raiser ? "answer.raised_near"
      : found.contextOnly ? "answer.context_near"
        : found.described ? "answer.described_near" : "nearMisses";
    notice.appendChild(element("p", null, text(intro)));
    const list = element("ul", "autograd-near-misses");
    for (const miss of found.nearMisses) {
      const item = element("li");
      item.setAttribute("data-near-miss", miss.entry.id);
      item.appendChild(entryLink(miss.entry, miss.entry.title));
      item.appendChild(document.createTextNode(" "));
      item.appendChild(element("span", "autograd-id", miss.entry.id));
      list.appendChild(item);
    }
    notice.appendChild(list);
    return notice;
  }

  // The user's line the paste points at, after its label.
  function yourLine(frame, label) {
    const line = element("p", "autograd-your-line");
    line.appendChild(element("strong", null, text(label)));
    line.appendChild(document.createTextNode(" " + frameLocation(frame)));
    if (frame.code) {
      // On the same line as its place: the answer's advice stays in the first screen.
      line.appendChild(document.createTextNode(" "));
      line.appendChild(element("code", "autograd-code", frame.code));
    }
    return line;
  }

  function renderExplanation(container, query, found, catalog) {
    container.replaceChildren();
    if (found.matches.length) {
      if (isShared(found)) {
        container.appendChild(element("p", "autograd-summary", sharedSummary(found)));
      } else if (found.matches.length > 1) {
        container.appendChild(element("p", "autograd-summary",
          text("several", {count: found.matches.length})));
      }
      found.matches.forEach((match, index) =>
        container.appendChild(renderMatch(match, index === 0, catalog)));
    } else {
      const notice = noMatchNotice(found);
      if (found.notAutograd) {
        container.appendChild(notice);
      } else {
        container.appendChild(element("p", "autograd-no-match", text("noMatch")));
        if (notice) container.appendChild(notice);
        const search = element("p");
        search.appendChild(document.createTextNode(text("tryThe")));
        const link = element("a", "autograd-search-link", text("siteSearch"));
        link.href = `${contentRoot()}search.html?q=${encodeURIComponent(query)}`;
        search.appendChild(link);
        search.appendChild(document.createTextNode(text("forTheWords")));
        container.appendChild(search);
      }
    }
    const feedback = feedbackLine(query, found);
    if (feedback) container.appendChild(feedback);
  }

  // ---- feedback: a new issue on the project's repository, filled in ----------------------
  // The repository is conf.py's autograd_errors_repository, which every page carries in a
  // <meta>. GitHub shows the filled-in form; nothing is sent until the reader submits it.

  const FEEDBACK_PASTE_CHARS = 2000;

  function repository() {
    const meta = document.querySelector('meta[name="autograd-errors-repository"]');
    return meta ? meta.content.replace(/\/+$/, "") : "";
  }

  // A fence longer than any run of backticks in the paste, so that the paste stays code.
  function fenced(paste) {
    const longest = Math.max(2, ...(paste.match(/`+/g) || []).map((run) => run.length));
    const fence = "`".repeat(longest + 1);
    return `${fence}\n${paste}\n${fence}`;
  }

  // A string cut at a UTF-16 index may end or begin with half of a surrogate pair (an emoji),
  // which encodeURIComponent refuses: the cuts move to whole characters, and any lone half
  // left in the paste itself becomes U+FFFD.
  const isHigh = (code) => code >= 0xd800 && code <= 0xdbff;
  const isLow = (code) => code >= 0xdc00 && code <= 0xdfff;

  function head(string, count) {
    if (string.length <= count) return string;
    return string.slice(0, isHigh(string.charCodeAt(count - 1)) ? count - 1 : count);
  }

  function tail(string, count) {
    if (string.length <= count) return string;
    const start = string.length - count;
    return string.slice(isLow(string.charCodeAt(start)) ? start + 1 : start);
  }

  function wellFormed(string) {
    return string.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
      "\ufffd");
  }

  function feedbackUrl(query, found) {
    const paste = wellFormed(query.trim());
    // The tail of a traceback holds the message; GitHub refuses very long addresses.
    const kept = tail(paste, FEEDBACK_PASTE_CHARS);
    const first = found.matches[0];
    const title = first ? text("feedbackTitleMatch", {id: first.entry.id})
      : text("feedbackTitleMissing", {line: head(kept.split("\n").pop(), 100)});
    const body = text("feedbackBody", {
      cut: kept === paste ? "" : text("feedbackCut", {count: FEEDBACK_PASTE_CHARS}),
      paste: fenced(kept),
      shown: found.matches.map((match) => match.entry.id).join(", ") || text("feedbackNothing"),
    });
    return `${repository()}/issues/new?title=${encodeURIComponent(title)}` +
      `&body=${encodeURIComponent(body)}`;
  }

  function feedbackLine(query, found) {
    if (!repository()) return null;
    let href;
    try {
      href = feedbackUrl(query, found);
    } catch (error) { // the answer is shown all the same, only without the link
      console.warn("autograd-errors: no feedback link:", error);
      return null;
    }
    const line = element("p", "autograd-feedback", text("feedbackQuestion"));
    const link = element("a", null, text("feedbackLink"));
    link.href = href;
    line.appendChild(link);
    line.appendChild(document.createTextNode(text("feedbackAfter")));
    return line;
  }

  // ---- the paste page -------------------------------------------------------------------
  // The paste lives in the address's fragment (#q=...): a fragment never reaches a server or
  // its logs, and has no length limit of theirs. An older ?q= address is read, then moved.

  function fragmentFor(query) {
    return `#q=${encodeURIComponent(wellFormed(query))}`;
  }

  function pastedQuery() {
    const inFragment = new URLSearchParams(window.location.hash.slice(1)).get("q");
    if (inFragment !== null) return inFragment;
    const url = new URL(window.location.href);
    const inQuery = url.searchParams.get("q");
    if (inQuery === null) return null;
    url.searchParams.delete("q");
    url.hash = fragmentFor(inQuery);
    window.history.replaceState(null, "", url);
    return inQuery;
  }

  function explainPage() {
    const form = document.getElementById("autograd-paste-form");
    const results = document.getElementById("autograd-results");
    if (!form || !results) return;
    const box = form.querySelector("textarea");
    let shown = null;
    const run = (query) => {
      shown = query;
      if (!query.trim()) { results.replaceChildren(); return; }
      results.replaceChildren(element("p", "autograd-working", text("matching")));
      loadCatalog()
        .then((catalog) => {
          renderExplanation(results, query, AutogradErrors.explain(query, catalog), catalog);
          // The answer first: the box shrinks to a few lines and the page moves to it, so
          // that the answer is right under the box, both in view.
          box.classList.add("autograd-compact");
          form.scrollIntoView({block: "start"});
        })
        .catch((error) => results.replaceChildren(
          element("p", "autograd-error", text("catalogFailed", {reason: error.message}))));
    };
    box.addEventListener("focus", () => box.classList.remove("autograd-compact"));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      window.history.replaceState(null, "", fragmentFor(box.value));
      box.blur();
      run(box.value);
    });
    window.addEventListener("hashchange", () => {
      const query = pastedQuery();
      if (query !== null && query !== shown) { box.value = query; run(query); }
    });
    const query = pastedQuery();
    if (query) { box.value = query; run(query); }
  }

  // The other paste boxes (the home page's) send the paste to the paste page in the fragment;
  // without script, they send it as ?q=, which the paste page moves to the fragment.
  // Ctrl+Enter (Cmd+Enter on a Mac) in any paste box explains, as the button does.
  function pasteBoxes() {
    for (const form of document.querySelectorAll("form.autograd-paste")) {
      form.querySelector("textarea").addEventListener("keydown", (event) => {
        if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey)) return;
        event.preventDefault();
        form.requestSubmit();
      });
      if (form.id === "autograd-paste-form") continue;
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const target = new URL(form.getAttribute("action"), window.location.href);
        target.hash = fragmentFor(form.querySelector("textarea").value);
        window.location.assign(target);
      });
    }
  }

  // ---- the search page ------------------------------------------------------------------
  // Sphinx's search wants every word of the query on one page, which a paste never satisfies.
  // A query the matcher recognises lists its entries first; a long query it does not is
  // ranked word by word; a short one is left to Sphinx.

  const LONG_QUERY_WORDS = 8;

  function queryWords(query) {
    const stop = typeof stopwords === "undefined" ? new Set() : new Set(stopwords);
    return [...new Set(query.toLowerCase().split(/[^a-z0-9_]+/))]
      .filter((word) => word.length > 1 && !stop.has(word));
  }

  function rankPages(query) {
    const index = Search._index;
    const stemmer = new Stemmer();
    const scores = new Map();
    const documents = index.docnames.length;
    for (const word of queryWords(query)) {
      const stem = stemmer.stemWord(word);
      for (const [table, weight] of [[index.terms, 1], [index.titleterms, 5]]) {
        // An own property only: "constructor" or "__proto__" must not find Object's.
        const hits = Object.prototype.hasOwnProperty.call(table, stem) ? [].concat(table[stem]) : [];
        if (!hits.length) continue;
        const idf = Math.log(1 + documents / hits.length);
        for (const doc of hits) scores.set(doc, (scores.get(doc) || 0) + weight * idf);
      }
    }
    return [...scores.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10).map(([doc]) => doc);
  }

  function pageItem(doc) {
    const index = Search._index;
    const item = element("li", "autograd-page-result");
    const link = element("a", null, index.titles[doc]);
    link.href = contentRoot() + index.docnames[doc] + DOCUMENTATION_OPTIONS.LINK_SUFFIX;
    item.appendChild(link);
    return item;
  }

  function finish(count, what) {
    Search.stopPulse();
    Search.title.innerText = text("searchTitle");
    Search.status.innerText = count ? what : text("searchNothing");
  }

  // Sphinx lists pages of equal score alphabetically by title: a word search would list the
  // entries that mention it in the alphabet of their titles. A page whose title or id names a
  // word of the query goes first (Sphinx's documented Scorer.score hook), and so does the
  // page of an entry whose message, as today's torch prints it, says it, by the word's
  // rarity among the messages: "retain_graph", which one message says ("Specify
  // retain_graph=True if you need to backward through the graph a second time"), comes from
  // that error; "detach", which five say, names the page titled with it first.
  const TITLE_WORD_BONUS = 10;
  const MESSAGE_WORD_BONUS = 30; // shared by the messages that say the word
  let titleWords = new Set();
  let messageWords = new Map(); // docname: the words of its entry's current wording
  let saidBy = new Map(); // word: how many entries' current wordings say it

  function wordsOf(textValue) {
    return textValue.toLowerCase().split(/[^a-z0-9_]+/).filter(Boolean);
  }

  function rankNamedPagesFirst(query, catalog) {
    titleWords = new Set(queryWords(query));
    messageWords = new Map(catalog.entries.map((entry) => {
      const current = entry.wordings.find((wording) => wording.variant === entry.current);
      const literal = current.tokens.filter((token) => typeof token === "string").join(" ");
      return [entry.path.replace(/\.html$/, ""), new Set(wordsOf(literal))];
    }));
    saidBy = new Map();
    for (const said of messageWords.values()) {
      for (const word of said) saidBy.set(word, (saidBy.get(word) || 0) + 1);
    }
    if (typeof Scorer === "undefined" || Scorer.score) return;
    Scorer.score = (result) => {
      const [docname, title, , , score] = result;
      const named = wordsOf(`${title} ${docname.split("/").pop()}`);
      const said = messageWords.get(docname) || new Set();
      const rarest = Math.max(0, ...[...titleWords].filter((word) => said.has(word))
        .map((word) => MESSAGE_WORD_BONUS / saidBy.get(word)));
      return score + (named.some((word) => titleWords.has(word)) ? TITLE_WORD_BONUS : 0)
        + rarest;
    };
  }

  function searchPage() {
    if (typeof Search === "undefined" || !document.getElementById("search-results")) return;
    // Opened as a file, Sphinx's search would fetch each result's page for a summary, which
    // the browser refuses on file://: there the results are listed without summaries.
    if (window.location.protocol === "file:" && typeof DOCUMENTATION_OPTIONS !== "undefined") {
      DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
    }
    const stockQuery = Search.query;
    Search.query = (query) => {
      loadCatalog().then((catalog) => {
        const found = AutogradErrors.explain(query, catalog);
        const long = queryWords(query).length > LONG_QUERY_WORDS;
        const previous = document.getElementById("autograd-search-notice");
        if (previous) previous.remove();
        const notice = found.matches.length ? null : noMatchNotice(found);
        if (notice) {
          notice.id = "autograd-search-notice";
          Search.output.parentNode.insertBefore(notice, Search.output);
        }
        if (!found.matches.length && !long) {
          rankNamedPagesFirst(query, catalog);
          stockQuery(query);
          return;
        }
        const shown = new Set();
        for (const match of found.matches) {
          const item = element("li", "autograd-entry-result");
          item.setAttribute("data-search-result", match.entry.id);
          item.appendChild(entryLink(match.entry, match.entry.title));
          item.setAttribute("data-match", match.kind);
          item.appendChild(element("span", null, match.kind === "symptom"
            ? ` (${match.entry.id}): ${partialNote(match)}`
            : ` (${match.entry.id}): ${match.wording.exception}: ${match.message}` +
              (match.kind === "exact" ? "" : ` ${partialNote(match)}`)));
          Search.output.appendChild(item);
          shown.add(match.entry.path.replace(/\.html$/, ""));
        }
        for (const doc of rankPages(query)) {
          if (shown.has(Search._index.docnames[doc])) continue;
          Search.output.appendChild(pageItem(doc));
        }
        const entries = found.matches.length;
        let summary = text("searchUnrecognised");
        if (isShared(found)) summary = text("searchShared", {summary: sharedSummary(found)});
        else if (entries) {
          summary = entries === 1 ? text("searchOne") : text("searchMany", {count: entries});
        }
        finish(Search.output.children.length, summary);
      }).catch(() => stockQuery(query));
    };
  }

  // The theme loads Sphinx's searchtools.js on every page, and its start-up searches for a
  // ?q= parameter, which the paste page has too: it would then throw for want of the search
  // page's result list. Only the search page may run Sphinx's search. Sphinx looks up
  // Search.performSearch when the document is ready, so replacing it, before or after
  // searchtools.js loads, is enough.
  let guarded = false;
  function guardSphinxSearch() {
    if (guarded || typeof Search === "undefined") return;
    guarded = true;
    const performSearch = Search.performSearch;
    Search.performSearch = (query) => {
      if (document.getElementById("search-results")) performSearch(query);
    };
  }

  // ---- names for the theme's unnamed controls ----------------------------------------
  // The side navigation's toggles are bare <summary> elements: each is named after its
  // section. The search button's label ("Search") hides its visible text ("Search Ctrl+K"),
  // which speech input users say: its name becomes that text.
  function nameControls() {
    for (const summary of document.querySelectorAll("summary")) {
      if (summary.textContent.trim() || summary.hasAttribute("aria-label")) continue;
      const item = summary.parentElement && summary.parentElement.parentElement;
      const link = item && item.querySelector(":scope > a");
      if (link) {
        summary.setAttribute("aria-label",
          text("toggleSection", {section: link.textContent.trim()}));
      }
    }
    for (const button of document.querySelectorAll("button.search-button-field[aria-label]")) {
      const shown = button.textContent.replace(/\s+/g, " ").trim();
      if (shown) button.setAttribute("aria-label", shown);
    }
  }

  guardSphinxSearch();
  document.addEventListener("DOMContentLoaded", () => {
    guardSphinxSearch();
    nameControls();
    searchPage();
    pasteBoxes();
    explainPage();
  });
})();
