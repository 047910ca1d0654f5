/*
 * The site's two ways in from a pasted message: the paste page (explain.html?q=...) and the
 * search page (search.html?q=...). Both run the matcher of autograd-matcher.js on the catalog
 * the build exported. Pasted text is only ever shown as text (textContent), never as markup.
 */
(function () {
  "use strict";

  const contentRoot = () => document.documentElement.dataset.content_root || "";
  let catalogPromise = null;

  function loadCatalog() {
    if (!catalogPromise) {
      catalogPromise = fetch(contentRoot() + "_static/autograd-catalog.json")
        .then((response) => {
          if (!response.ok) throw new Error(`catalog: HTTP ${response.status}`);
          return response.json();
        })
        .then((data) => new AutogradErrors.Catalog(data));
    }
    return catalogPromise;
  }

  function element(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The catalog's prose marks code with `backticks`: show those parts as <code>, as text.
  function prose(tag, text) {
    const node = element(tag);
    text.split("`").forEach((part, i) => {
      node.appendChild(i % 2 ? element("code", null, part) : document.createTextNode(part));
    });
    return node;
  }

  function entryLink(entry, text) {
    const link = element("a", "autograd-entry-link", text);
    link.href = contentRoot() + entry.path;
    return link;
  }

  function labelled(label, text) {
    const paragraph = prose("p", text);
    paragraph.insertBefore(element("strong", null, label), paragraph.firstChild);
    return paragraph;
  }

  function renderMatch(match) {
    const box = element("div", "autograd-result");
    box.setAttribute("data-search-result", match.entry.id);
    const heading = element("h3");
    heading.appendChild(entryLink(match.entry, match.entry.title));
    heading.appendChild(element("span", "autograd-id", ` (${match.entry.id})`));
    box.appendChild(heading);
    box.appendChild(element("pre", "autograd-message",
      `${match.wording.exception}: ${match.message}`));
    box.setAttribute("data-match", match.kind);
    const cut = match.kind === "exact"
      ? "" : ` ${partialNote(match)}`;
    box.appendChild(element("p", "autograd-wording",
      `Wording '${match.wording.variant}', printed by ${match.wording.releases}.${cut}`));
    const names = Object.keys(match.fields);
    if (names.length) {
      const fields = element("dl", "autograd-fields");
      for (const name of names) {
        fields.appendChild(element("dt", null, name));
        fields.appendChild(element("dd", null, match.fields[name]));
      }
      box.appendChild(fields);
    }
    for (const line of match.details) box.appendChild(prose("p", line));
    box.appendChild(labelled("Why. ", match.entry.cause));
    box.appendChild(labelled("Fix. ", match.entry.fix));
    const more = element("p");
    more.appendChild(entryLink(match.entry, "Read the whole entry, with the repro and the fixes"));
    box.appendChild(more);
    return box;
  }

  // What both pages say about a partial match, and above several that share a fragment:
  // the same words as the command line (report.py).
  function partialNote(match) {
    return `Matched part of the wording (${Math.round(match.score * 100)}% of it).`;
  }

  function isShared(found) {
    return found.matches.length > 1 && found.matches.every((m) => m.kind === "partial");
  }

  function sharedSummary(found) {
    return `${found.matches.length} entries share this part of a message; none stands out.`;
  }

  // A non-autograd error, or the near misses: what both pages show when no entry matches.
  function noMatchNotice(found) {
    const notice = element("div", "autograd-notice");
    const elsewhere = found.notAutograd;
    if (elsewhere) {
      const line = element("p", "autograd-not-autograd");
      line.setAttribute("data-not-autograd", elsewhere.kind);
      line.appendChild(element("strong", null, "Not an autograd error"));
      line.appendChild(document.createTextNode(` (${elsewhere.kind}): ${elsewhere.hint} See `));
      const link = element("a", "autograd-elsewhere-link", elsewhere.url);
      link.href = elsewhere.url;
      line.appendChild(link);
      notice.appendChild(line);
      return notice;
    }
    if (!found.nearMisses.length) return null;
    notice.appendChild(element("p", null,
      "Not matches, but the closest entries (their wording differs):"));
    const list = element("ul", "autograd-near-misses");
    for (const miss of found.nearMisses) {
      const item = element("li");
      item.setAttribute("data-near-miss", miss.entry.id);
      item.appendChild(entryLink(miss.entry, miss.entry.id));
      item.appendChild(document.createTextNode(` ${miss.entry.title}`));
      list.appendChild(item);
    }
    notice.appendChild(list);
    return notice;
  }

  function renderExplanation(container, query, found) {
    container.replaceChildren();
    if (found.matches.length) {
      if (isShared(found)) {
        container.appendChild(element("p", "autograd-summary", sharedSummary(found)));
      } else if (found.matches.length > 1) {
        container.appendChild(element("p", "autograd-summary",
          `${found.matches.length} entries in this paste, the final exception first.`));
      }
      found.matches.forEach((match) => container.appendChild(renderMatch(match)));
      return;
    }
    const notice = noMatchNotice(found);
    if (found.notAutograd) { container.appendChild(notice); return; }
    container.appendChild(element("p", "autograd-no-match", "No entry matches this text."));
    if (notice) container.appendChild(notice);
    const search = element("p");
    search.appendChild(document.createTextNode("Try the "));
    const link = element("a", "autograd-search-link", "site search");
    link.href = `${contentRoot()}search.html?q=${encodeURIComponent(query)}`;
    search.appendChild(link);
    search.appendChild(document.createTextNode(" for the words of the message."));
    container.appendChild(search);
  }

  // ---- the paste page -------------------------------------------------------------------

  function explainPage() {
    const form = document.getElementById("autograd-paste-form");
    const results = document.getElementById("autograd-results");
    if (!form || !results) return;
    const box = form.querySelector("textarea");
    const run = (query) => {
      if (!query.trim()) { results.replaceChildren(); return; }
      results.replaceChildren(element("p", "autograd-working", "Matching..."));
      loadCatalog()
        .then((catalog) => renderExplanation(results, query, AutogradErrors.explain(query, catalog)))
        .catch((error) => results.replaceChildren(
          element("p", "autograd-error", `The catalog could not be loaded (${error.message}).`)));
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const url = new URL(window.location.href);
      url.searchParams.set("q", box.value);
      window.history.replaceState(null, "", url);
      run(box.value);
    });
    const query = new URLSearchParams(window.location.search).get("q");
    if (query) { box.value = query; run(query); }
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
    Search.title.innerText = "Search Results";
    Search.status.innerText = count ? what : "Nothing on this site matches this text.";
  }

  function searchPage() {
    if (typeof Search === "undefined" || !document.getElementById("search-results")) return;
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
        if (!found.matches.length && !long) { stockQuery(query); return; }
        const shown = new Set();
        for (const match of found.matches) {
          const item = element("li", "autograd-entry-result");
          item.setAttribute("data-search-result", match.entry.id);
          item.appendChild(entryLink(match.entry, match.entry.title));
          item.setAttribute("data-match", match.kind);
          item.appendChild(element("span", null,
            ` (${match.entry.id}): ${match.wording.exception}: ${match.message}` +
            (match.kind === "exact" ? "" : ` ${partialNote(match)}`)));
          Search.output.appendChild(item);
          shown.add(match.entry.path.replace(/\.html$/, ""));
        }
        for (const doc of rankPages(query)) {
          if (shown.has(Search._index.docnames[doc])) continue;
          Search.output.appendChild(pageItem(doc));
        }
        const entries = found.matches.length;
        let summary = "No entry recognises this text; pages sharing its words follow.";
        if (isShared(found)) summary = `${sharedSummary(found)} Related pages follow.`;
        else if (entries) {
          summary = `This text is explained by ${entries} entr${entries === 1 ? "y" : "ies"}; ` +
            "related pages follow.";
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

  guardSphinxSearch();
  document.addEventListener("DOMContentLoaded", () => {
    guardSphinxSearch();
    searchPage();
    explainPage();
  });
})();
