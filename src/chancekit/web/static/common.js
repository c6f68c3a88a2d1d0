// chancekit web app: shared helpers (no framework, no build step, no network but this server)
"use strict";
const CK = (() => {
  const el = (tag, attrs = {}, ...kids) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? "" : v);
    }
    for (const kid of kids.flat()) if (kid !== null && kid !== undefined)
      e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    return e;
  };
  const $ = (sel, root = document) => root.querySelector(sel);
  const version = () => document.documentElement.dataset.version;

  // -- one page code, two back ends (docs/site.md) ----------------------------------------
  // Under `chancekit serve` a request is a fetch; on the static site (<html data-backend=
  // "site">) the page's Web Worker runs chancekit in Pyodide and answers the same JSON, from
  // the same Python (chancekit.web.api.handle). Pages call only these.
  const onSite = () => document.documentElement.dataset.backend === "site";
  const networkError = { error: { type: "NetworkError",
    message: "cannot reach the chancekit server: is it still running?" } };

  // {ok, status, data, ms} of one request; rejects only on abort (Stop or a newer request)
  async function request(path, body, { signal, method } = {}) {
    if (onSite()) return CKSite.request(path, body, { signal, method });
    const t0 = performance.now();
    let resp;
    try {
      resp = await fetch(path.replace(/^\//, ""), {
        method: method || (body === undefined ? "GET" : "POST"), signal,
        headers: body === undefined ? {} : { "Content-Type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      if (e.name === "AbortError") throw e;
      return { ok: false, status: 0, ms: performance.now() - t0, data: networkError };
    }
    let data;
    try { data = await resp.json(); }
    catch (e) {
      if (e.name === "AbortError") throw e;
      data = { error: { type: "BadResponse", message: `unexpected answer (HTTP ${resp.status})` } };
    }
    return { ok: resp.ok, status: resp.status, data, ms: performance.now() - t0 };
  }
  // the public contract: a Promise of exactly the JSON that `chancekit serve` answers for
  // POST path (GET when body is left out), errors included ({"error": {...}})
  const api = async (path, body, opts = {}) => (await request(path, body, opts)).data;

  // one computation at a time on a page: the Run and Stop buttons (#run, #stop), the status
  // line, body[data-state] (busy, done, error, stopped) and stale results. `onError(r)` shows
  // a failed answer and returns true when it kept or replaced the results itself;
  // `onDone(r)` shows a good one; `hasResult()` says whether results are on the page.
  function runner({ onError, onDone, hasResult, busy = "computing…" }) {
    let controller = null;
    const stop = () => { if (controller) controller.abort(); };
    $("#stop").addEventListener("click", stop);
    async function go(path, body) {
      if (controller) controller.abort();
      const mine = controller = new AbortController();
      $("#stop").disabled = false; $("#run").disabled = true;
      $("#status").textContent = busy;
      document.body.dataset.state = "busy";
      try {
        const r = await request(path, body, { signal: mine.signal });
        if (mine !== controller) return;
        if (!r.ok) {
          $("#status").textContent = "";
          if (!onError(r) && hasResult()) stale(true, "The last calculation failed (see above).");
          liftable(r.data.error, path, body);
          document.body.dataset.state = "error";
          return;
        }
        stale(false);
        onDone(r);
        document.body.dataset.state = "done";
      } catch (e) {
        if (e.name !== "AbortError") throw e;
        if (mine === controller) {
          $("#status").textContent = onSite() ? "stopped (Python restarts in the background)" : "stopped";
          if (hasResult()) stale(true, "Stopped.");
          document.body.dataset.state = "stopped";
        }
      } finally {
        if (mine === controller) { $("#stop").disabled = true; $("#run").disabled = false; controller = null; }
      }
    }
    // work refused past the work limit: offer ten times the limit for this one request
    // (the request's max_work; the time limit still stops anything that runs too long)
    function liftable(err, path, body) {
      const box = $("#error .error");
      if (!err || err.type !== "LimitError" || !/^MAX_.*WORK$/.test(err.limit || "") || !box) return;
      const next = Math.min(1e15, 10 * (body.max_work || DEFAULT_WORK));
      box.append(el("div", {}, el("button", { id: "more-work", type: "button",
        onclick: () => go(path, { ...body, max_work: next }) }, "Allow more work"),
        ` run it again with a work limit of ${next.toLocaleString("en")} units (about ${Math.round(next * 2e-8)} s of work; it is still stopped at the time limit)`));
    }
    return { go, stop };
  }
  const DEFAULT_WORK = 50000000;   // chancekit.limits.MAX_WORK
  // "computed in 3.2 ms (cached) · round trip 9 ms"
  const timing = (r) => `computed in ${num(r.data.elapsed_ms, 1)} ms` +
    (r.data.cached ? " (cached)" : "") + ` · round trip ${num(r.ms, 0)} ms`;

  // a probability as a percentage with `digits` decimals; a chance that is possible but
  // rounds to 0 says "< 0.0001%" (and one short of certain "> 99.9999%"), never "0.0000%"
  const pct = (p, digits = 4) => {
    if (p === null || p === undefined) return "";
    const text = (100 * p).toFixed(digits), unit = (10 ** -digits).toFixed(digits);
    if (p > 0 && Number(text) === 0) return `< ${unit}%`;
    if (p < 1 && Number(text) === 100) return `> ${(100 - 10 ** -digits).toFixed(digits)}%`;
    return text + "%";
  };
  const num = (x, digits = 4) => x === null || x === undefined ? "–" :
    (Math.abs(x) >= 1e6 || (x !== 0 && Math.abs(x) < 1e-4) ? x.toExponential(3) :
     Number(x.toFixed(digits)).toString());

  function download(name, text, type) {
    const url = URL.createObjectURL(new Blob([text], { type }));
    const a = el("a", { href: url, download: name });
    document.body.append(a); a.click(); a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // an API error as a box; notation errors get their text with a caret under the column
  function errorBox(err, { where = "" } = {}) {
    const box = el("div", { class: "error", role: "alert" });
    if (err.problem && err.text !== null && err.text !== undefined && err.column) {
      box.append(el("div", { class: "msg" }, `${where}${err.problem} (column ${err.column})`));
      const caret = " ".repeat(Math.max(0, err.column - 1)) + "^";
      box.append(el("pre", { class: "notation" }, el("span", { class: "src" }, err.text), "\n",
                    el("span", { class: "caret" }, caret)));
    } else {
      box.append(el("div", { class: "msg" }, where + (err.message || "error")));
    }
    if (err.limit) box.append(el("div", { class: "muted" }, `limit: ${err.limit}`));
    return box;
  }

  // results left from an earlier request after a failed or stopped one: every `.results`
  // card is dimmed under a banner saying so, and `.needs-fresh` buttons (exports) are off
  function stale(on, why = "") {
    document.body.dataset.stale = on ? "1" : "";
    document.querySelectorAll(".results").forEach((card) => {
      card.querySelectorAll(":scope > .stale-note").forEach((n) => n.remove());
      if (on) card.prepend(el("div", { class: "stale-note", role: "status" },
        `${why} The results below are from the previous request, not from the input above.`));
    });
    document.querySelectorAll(".needs-fresh").forEach((b) => { b.disabled = on; });
  }

  // notes from the server (another dialect reads a line differently), one paragraph each
  const noteList = (notes) => notes.map((t) => el("p", { class: "note" }, t));

  // share links: JSON -> deflate-raw -> base64url, in the fragment (never sent to a server)
  const b64url = (bytes) => {
    let s = ""; for (const b of bytes) s += String.fromCharCode(b);
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  };
  const unb64url = (text) => {
    const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(s, (c) => c.charCodeAt(0));
  };
  async function pipe(bytes, stream) {
    const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
    return new Uint8Array(await out.arrayBuffer());
  }
  async function encodeState(state) {
    const raw = new TextEncoder().encode(JSON.stringify(state));
    if (typeof CompressionStream === "function")
      return "z=" + b64url(await pipe(raw, new CompressionStream("deflate-raw")));
    return "j=" + b64url(raw);
  }
  async function decodeState(hash) {
    const params = new URLSearchParams(hash.replace(/^#/, ""));
    let raw;
    if (params.get("z")) raw = await pipe(unb64url(params.get("z")), new DecompressionStream("deflate-raw"));
    else if (params.get("j")) raw = unb64url(params.get("j"));
    else return null;
    return { state: JSON.parse(new TextDecoder().decode(raw)), version: params.get("ck") };
  }
  async function shareLink(state) {
    const page = onSite() ? CKSite.pageURL() : location.origin + location.pathname;
    return `${page}#ck=${encodeURIComponent(version())}&${await encodeState(state)}`;
  }
  async function copyText(text) {
    try { await navigator.clipboard.writeText(text); return true; } catch (e) { return false; }
  }
  // the share link of a page's state: into the address bar, the #share-url box and the
  // clipboard, with a word in #status
  async function share(state) {
    const link = await shareLink(state);
    history.replaceState(null, "", link);
    const box = $("#share-url"); box.hidden = false; box.value = link; box.select();
    const copied = await copyText(link);
    $("#status").textContent = copied ? "share link copied" : "share link below: copy it";
  }
  // one CSV cell: quoted when it holds a comma, a quote or a line break; with `text`, a cell
  // that a spreadsheet would run as a formula (=, +, -, @ first, and not a plain number)
  // gets a leading apostrophe
  const csvCell = (v, text = false) => {
    let s = String(v ?? "");
    if (text && /^[=+\-@\t\r]/.test(s) && !/^[-+]?\d+(\.\d+)?$/.test(s)) s = `'${s}`;
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  // the distances of each series from the first (Kolmogorov-Smirnov and total variation,
  // exact when short) into #compare, hidden when there are none; `what` names a series
  function compareTable(series, comps, what) {
    $("#compare-card").hidden = !comps.length;
    $("#compare").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { class: "l" }, what), el("th", { class: "l" }, "compared with"),
        el("th", {}, "KS distance"), el("th", {}, "exact KS"), el("th", {}, "total variation"), el("th", {}, "exact TV"))),
      el("tbody", {}, comps.map((c) => el("tr", { "data-series": series[c.b].label },
        el("td", { class: "l" }, series[c.b].label), el("td", { class: "l" }, series[c.a].label),
        el("td", { class: "ks" }, c.ks === null ? "n/a" : num(c.ks)), el("td", { class: "ks-exact" }, c.ks_exact ?? "–"),
        el("td", { class: "tv" }, num(c.tv)), el("td", { class: "tv-exact" }, c.tv_exact ?? "–")))));
  }
  // the outcome table's cell for an outcome (numeric position `x`) that series `s` has no
  // row for, in the view `key` ("p", "ge", "le"): outside the series' range the cumulative
  // views are exact (at most past its top is 100%, below its bottom 0%; at least the other
  // way round); inside it (an outcome it cannot give) the neighbouring row's value; "–" in
  // the Normal view (it cannot happen), or when unknown (labels, rows left out, no outcomes)
  function missingCell(s, x, key, exactKey) {
    const dash = { text: "–", exact: key === "p" ? "0" : "", title: "this outcome cannot happen here" };
    if (key === "p") return dash;
    const unknown = { text: "–", exact: "", title: "" };
    if (x === null || x === undefined || !s.rows.length || s.rows.some((r) => r.x === null)) return unknown;
    const xs = s.rows.map((r) => r.x);
    // with rows left out (tiny ones), the true smallest and largest outcomes bound the range
    const lo = s.hidden ? Number(s.min) : Math.min(...xs), hi = s.hidden ? Number(s.max) : Math.max(...xs);
    const one = { text: pct(1), exact: "1", title: "" }, zero = { text: pct(0), exact: "0", title: "" };
    if (key === "le") { if (x > hi) return one; if (x < lo) return zero; }
    else { if (x < lo) return one; if (x > hi) return zero; }
    if (s.hidden || !(x > lo && x < hi)) return unknown;
    const near = key === "le" ? s.rows.filter((r) => r.x < x).reduce((a, r) => (!a || r.x > a.x ? r : a), null)
                              : s.rows.filter((r) => r.x > x).reduce((a, r) => (!a || r.x < a.x ? r : a), null);
    return near ? { text: pct(near[key]), exact: near[exactKey] || "", title: "this outcome cannot happen here" } : unknown;
  }
  return { el, $, api, request, runner, timing, onSite, pct, num, missingCell, download, errorBox, noteList, stale, encodeState, decodeState, shareLink,
           copyText, share, version, compareTable, csvCell };
})();
