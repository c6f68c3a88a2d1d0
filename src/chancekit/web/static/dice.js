// Dice page: several expressions on one chart, exact table, share link, inline errors
"use strict";
(() => {
  const { el, $, request: api, pct, num, download, errorBox } = CK;
  const MODES = { normal: ["p", "p_exact", "probability"], atleast: ["ge", "ge_exact", "at least"],
                  atmost: ["le", "le_exact", "at most"] };
  let result = null;       // the last successful API answer
  let lines = [];          // source line number of each expression sent
  let note = "";           // e.g. a share link made with another chancekit version

  // "label: expr" lines; blank lines and # comments skipped
  function parse(text) {
    const out = []; lines = [];
    text.split("\n").forEach((raw, i) => {
      const line = raw.trim();
      if (!line || line.startsWith("#")) return;
      const m = /^([^:]{1,100}?)\s*:\s*(.+)$/.exec(line);
      out.push(m ? { label: m[1].trim(), text: m[2].trim() } : { label: "", text: line });
      lines.push(i + 1);
    });
    return out;
  }
  // "str=3, prof=2, dmg=1d8+2": the values of @name placeholders and ?{Query} answers. A
  // comma starts a new pair only where "name=" follows, so a formula keeps its commas
  // (dmg=max(1d6, 2)); a piece without "=" is an error naming it
  function parseVars(text) {
    const out = {};
    for (const raw of text.split(/[,;\n](?=[^,;=()]+=)/)) {
      const piece = raw.trim();
      if (!piece) continue;
      const m = /^@?\{?([^={}]+?)\}?\s*=\s*(.+)$/.exec(piece);   // a query's name may have spaces
      if (!m) throw new Error(`variables: '${piece}' is not name=value (e.g. prof=2)`);
      out[m[1].trim()] = m[2].trim();
    }
    return out;
  }
  // the request's variables, or an error shown in place of the answer
  function withVars(body) {
    const vars = parseVars($("#vars").value);
    return Object.keys(vars).length ? { ...body, variables: vars } : body;
  }
  const mode = () => document.querySelector("input[name=mode]:checked").value;
  const view = () => ({ exprs: $("#exprs").value, dialect: $("#dialect").value, vars: $("#vars").value, mode: mode(),
                        transpose: $("#transpose").checked, log: $("#log").checked, bars: $("#bars").checked });

  const runs = CK.runner({ hasResult: () => !!result, onError: (r) => {
    const expressions = sent;
    const err = r.data.error || { message: "error" };
    const partial = Array.isArray(err.partial) ? err.partial : [];
    if (err.index === undefined && err.limit === "time_limit") err.index = partial.length;
    const where = err.index !== undefined && lines[err.index] ? `line ${lines[err.index]}: ` : "";
    const box = errorBox(err, { where });
    if (partial.length) box.append(el("div", { class: "muted" },
      `The ${partial.length === 1 ? "line" : `${partial.length} lines`} before it finished and ${partial.length === 1 ? "is" : "are"} shown below.`));
    if (err.type === "LimitError" && err.approx && expressions.length)   // huge weights
      box.append(el("div", {}, el("button", { id: "approx", class: "primary", type: "button",
        onclick: () => runs.go("/api/dist", withVars({ expressions, dialect: $("#dialect").value, approx: true })) },
        "Certified approximation"),
        " an answer with proven error bounds instead (every probability within 1e-12; not exact)"));
    if (err.type === "LimitError" && expressions[err.index])
      box.append(el("div", {}, el("button", { id: "estimate", class: "primary", type: "button",
        onclick: () => estimate([expressions[err.index]]) }, "Estimate"),
        " an estimate instead: random rolls with error bars (not exact)"));
    $("#error").replaceChildren(box);
    $("#notes").replaceChildren(...CK.noteList((err.notes || []).map((t) => where + t)));
    if (!partial.length) return false;
    result = { series: partial.map((p) => p.series), comparisons: [], partial: true };   // keep what finished before the time limit
    CK.stale(false); render();
    return true;
  }, onDone: (r) => {
    result = r.data;
    $("#notes").replaceChildren(...CK.noteList(r.data.series.flatMap((s, i) =>
      (s.notes || []).map((t) => (r.data.series.length > 1 ? `line ${lines[i]}: ` : "") + t))));
    $("#status").textContent = note + CK.timing(r);
    render();
  } });
  let sent = [];           // the expressions of the running request

  function run() {
    const expressions = parse($("#exprs").value);
    const linkError = $("#link-error");     // kept until the user changes something
    $("#error").replaceChildren(...(linkError && !touched ? [linkError] : [])); $("#notes").replaceChildren(); $("#estimate-card").hidden = true;
    if (!expressions.length) { $("#status").textContent = "type an expression, e.g. 4d6kh3"; return; }
    let body;
    try {
      body = withVars({ expressions, dialect: $("#dialect").value });
    } catch (e) {
      $("#error").replaceChildren(errorBox({ message: e.message, field: "variables" }));
      document.body.dataset.state = "error";
      return;
    }
    sent = expressions;
    return runs.go("/api/dist", body);
  }

  function render() {
    if (!result) return;
    const [key, exactKey, modeName] = MODES[mode()];
    const series = result.series;
    const allNumeric = series.every((s) => s.rows.every((r) => r.x !== null));
    $("#mode-name").textContent = `(${modeName})`;
    const tipOf = (s, r) => `${s.label}\n${r.label}: ${pct(r[key])}` + (r[exactKey] ? `\nexactly ${r[exactKey]}` : "");
    let chartSeries, categories;
    if (!$("#transpose").checked) {
      if (!allNumeric) {       // outcomes that are labels: one category each, in first-seen order
        categories = [...new Set(series.flatMap((s) => s.rows.map((r) => r.label)))];
      }
      chartSeries = series.map((s) => ({ name: s.label, points: s.rows.map((r) => ({
        x: categories ? categories.indexOf(r.label) : r.x, label: r.label, y: r[key],
        exact: r[exactKey], tip: tipOf(s, r) })) }));
      if (categories) chartSeries.forEach((s) => s.points.forEach((p) => { p.x = categories.indexOf(p.label); }));
    } else {                   // series <-> outcomes: x is the expression, one line per outcome
      categories = series.map((s) => s.label);
      const outcomes = [...new Set(series.flatMap((s) => s.rows.map((r) => r.label)))];
      chartSeries = outcomes.map((o) => ({ name: o, points: series.flatMap((s, i) => {
        const r = s.rows.find((row) => row.label === o);
        return r ? [{ x: i, label: s.label, y: r[key], exact: r[exactKey], tip: tipOf(s, r) }] : [];
      }) }));
    }
    CKChart.draw($("#chart"), { series: chartSeries, categories, log: $("#log").checked, percent: true,
                                bars: $("#bars").checked,
                                legend: chartSeries.length <= 24, integerX: false,
                                xLabel: $("#transpose").checked ? "expression" : "outcome",
                                yLabel: modeName,   // the title of an exported chart: its expressions
                                title: series.map((s) => (s.label && s.label !== s.text ? `${s.label}: ${s.text}` : s.text))
                                  .join(", ") + ` (${modeName})` });
    renderTables(key, exactKey);
  }

  function renderTables(key, exactKey) {
    const series = result.series;
    const qs = ["0.05", "0.25", "0.5", "0.75", "0.95"];
    const head = el("tr", {}, el("th", { class: "l" }, "series"), el("th", { class: "l" }, "expression"),
      el("th", {}, "mean"), el("th", {}, "exact mean"), el("th", {}, "sd"),
      el("th", { title: "skewness: mu3 / sd^3, from the exact moments" }, "skew"),
      el("th", { title: "excess kurtosis: mu4 / sd^4 - 3 (0 for a normal law)" }, "ex. kurtosis"),
      el("th", {}, "min"),
      ...qs.map((q) => el("th", {}, q === "0.5" ? "median" : `${100 * q}%`)), el("th", {}, "max"),
      el("th", {}, "outcomes"), el("th", {}, "ms"));
    $("#summary").replaceChildren(el("thead", {}, head), el("tbody", {}, series.map((s) =>
      el("tr", { "data-series": s.label }, el("td", { class: "l" }, s.label), el("td", { class: "l" }, el("code", {}, s.text)),
        el("td", { class: "mean" }, num(s.mean_float)), el("td", { class: "mean-exact" }, s.mean ?? "–"),
        el("td", { class: "sd" }, num(s.sd)), el("td", { class: "skew" }, num(s.skewness)),
        el("td", { class: "kurt", "data-exact": s.kurtosis_exact ?? "", title: s.kurtosis_exact ? `exactly ${s.kurtosis_exact}` : "" }, num(s.kurtosis)),
        el("td", {}, s.min ?? "–"),
        ...qs.map((q) => el("td", { class: `q q${q}` }, s.quantiles[q] ?? "–")), el("td", {}, s.max ?? "–"),
        el("td", {}, s.outcomes), el("td", {}, num(s.elapsed_ms, 1))))));
    // distances from the first series: Kolmogorov-Smirnov and total variation, exact when short
    CK.compareTable(series, result.comparisons || [], "series");
    // outcomes table: one row per outcome, one column per series (the chosen mode)
    const order = [], seen = new Map();
    for (const s of series) for (const r of s.rows) if (!seen.has(r.label)) { seen.set(r.label, r.x); order.push(r.label); }
    if (series.every((s) => s.rows.every((r) => r.x !== null))) order.sort((a, b) => seen.get(a) - seen.get(b));
    const idx = series.map((s) => new Map(s.rows.map((r) => [r.label, r])));
    $("#outcomes").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", {}, "outcome"), series.map((s) => el("th", {}, s.label)))),
      el("tbody", {}, order.slice(0, 3000).map((o) => el("tr", { "data-outcome": o }, el("td", {}, o),
        idx.map((m, i) => {
          const r = m.get(o);
          if (!r) {              // not an outcome of this series: 0% or 100% in the cumulative views
            const c = CK.missingCell(series[i], seen.get(o), key, exactKey);
            return el("td", { "data-series": series[i].label, "data-exact": c.exact, title: c.title || null,
                              class: "missing" }, c.text);
          }
          return el("td", { "data-series": series[i].label, "data-exact": r[exactKey] || "" },
                    pct(r[key]), r[exactKey] ? el("span", { class: "exact" }, r[exactKey]) : null);
        })))));
    const hidden = series.filter((s) => s.hidden).map((s) => `${s.label}: ${s.hidden} outcomes below 1e-6 not shown`);
    $("#hidden-note").textContent = hidden.join("; ");
  }

  // a Monte Carlo estimate of expressions the exact engine refused (or that ran too long)
  async function estimate(exprs) {
    $("#estimate-card").hidden = false;
    $("#estimate-method").textContent = "rolling…";
    document.body.dataset.estimate = "busy";
    let body;
    try {
      body = withVars({ expressions: exprs, dialect: $("#dialect").value, samples: 10000 });
    } catch (e) {
      $("#estimate-method").replaceChildren(errorBox({ message: e.message }));
      document.body.dataset.estimate = "error"; return;
    }
    const r = await api("/api/estimate", body);
    if (!r.ok) {
      $("#estimate-method").replaceChildren(errorBox(r.data.error || {}));
      document.body.dataset.estimate = "error"; return;
    }
    const d = r.data;
    $("#estimate-method").textContent = `${d.method}. Computed in ${num(d.elapsed_ms / 1000, 2)} s.`;
    // many whole-number totals (2000d6kh1000 spans hundreds): about 40 bins of equal width,
    // each with its own Wilson interval, instead of hundreds of bars seen once or twice
    const wide = d.series.length === 1 && d.series[0].rows.length > 60 &&
      d.series[0].rows.every((r) => Number.isInteger(r.x));
    let step = 1;
    const wilson = (k, n) => {
      const z = 1.959963984540054, p = k / n, c = (p + z * z / (2 * n)) / (1 + z * z / n);
      const h = z / (1 + z * z / n) * Math.sqrt(p * (1 - p) / n + z * z / (4 * n * n));
      return [Math.max(0, c - h), Math.min(1, c + h)];
    };
    const binned = (s) => {
      const lo = Math.min(...s.rows.map((r) => r.x)), hi = Math.max(...s.rows.map((r) => r.x));
      const width = Math.max(1, Math.ceil((hi - lo + 1) / 40)), bins = new Map();
      step = width;
      for (const r of s.rows) {
        const b = lo + Math.floor((r.x - lo) / width) * width;
        bins.set(b, (bins.get(b) || 0) + r.count);
      }
      return [...bins].map(([b, k]) => {
        const [l, h] = wilson(k, s.samples), label = width === 1 ? `${b}` : `${b}–${b + width - 1}`;
        return { x: b + (width - 1) / 2, label, y: k / s.samples, lo: l, hi: h,
                 tip: `${s.label}\n${label}: ${pct(k / s.samples, 3)} (95 %: ${pct(l, 3)} to ${pct(h, 3)}), ${k} of ${s.samples} rolls` };
      });
    };
    const series = d.series.map((s) => ({ name: s.label, points: wide ? binned(s) : s.rows.map((row) => ({
      x: row.x, label: row.label, y: row.p, lo: row.lo, hi: row.hi,
      tip: `${s.label}\n${row.label}: ${pct(row.p, 3)} (95 %: ${pct(row.lo, 3)} to ${pct(row.hi, 3)}), ${row.count} of ${s.samples} rolls` })) }));
    CKChart.draw($("#est-chart"), { series, percent: true, bars: true, legend: true, step,
      xLabel: wide ? "outcome (in bins of equal width)" : "outcome",
      yLabel: wide ? "estimated probability of the bin" : "estimated probability", title: "Monte Carlo estimate" });
    $("#est-summary").replaceChildren(
      el("thead", {}, el("tr", {}, ["series", "rolls", "mean", "95 % interval of the mean", "sd", "min", "median", "max", "seed"]
        .map((h) => el("th", {}, h)))),
      el("tbody", {}, d.series.map((s) => el("tr", { "data-series": s.label }, el("td", { class: "l" }, s.label),
        el("td", { class: "samples" }, s.samples + (s.complete ? "" : ` of ${s.requested} (time budget)`)),
        el("td", { class: "mean" }, num(s.mean)), el("td", {}, `${num(s.mean_lo)} to ${num(s.mean_hi)}`),
        el("td", {}, num(s.sd)), el("td", {}, s.min), el("td", {}, s.quantiles["0.5"] ?? "–"), el("td", {}, s.max),
        el("td", { class: "seed" }, `${s.seed} (stream ${s.stream})`)))));
    document.body.dataset.estimate = "done";
  }

  function exportCSV() {
    if (!result) return;
    const out = ["series,expression,outcome,probability,probability_exact,at_least,at_least_exact,at_most,at_most_exact"];
    for (const s of result.series) for (const r of s.rows)
      out.push([s.label, s.text, r.label, r.p, r.p_exact, r.ge, r.ge_exact, r.le, r.le_exact]
        .map((v, i) => CK.csvCell(v, i < 2)).join(","));   // the label and expression are text
    download("chancekit-dice.csv", out.join("\n") + "\n", "text/csv");
  }
  function exportJSON() {
    if (result) download("chancekit-dice.json", JSON.stringify(result, null, 2), "application/json");
  }
  const share = () => CK.share(view());
  function apply(state) {
    if (typeof state.exprs === "string") $("#exprs").value = state.exprs;
    $("#vars").value = typeof state.vars === "string" ? state.vars : "";
    if (MODES[state.mode]) document.querySelector(`input[name=mode][value=${state.mode}]`).checked = true;
    $("#transpose").checked = !!state.transpose; $("#log").checked = !!state.log; $("#bars").checked = !!state.bars;
    if ([...$("#dialect").options].some((o) => o.value === state.dialect)) $("#dialect").value = state.dialect;
  }

  // highlighting and bracket matching (editor.js); Tab keeps moving the focus here
  CKEditor.attach($("#exprs"), { language: "dice" });
  let timer = null, touched = false;
  if (window.innerWidth < 600) document.querySelector("details.help").open = false;  // a phone: the input first
  $("#exprs").addEventListener("input", () => { touched = true; });
  $("#exprs").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); } });
  $("#exprs").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 700); });
  $("#run").addEventListener("click", () => { clearTimeout(timer); run(); });
  $("#dialect").addEventListener("change", () => { clearTimeout(timer); run(); });
  $("#vars").addEventListener("input", () => { touched = true; clearTimeout(timer); timer = setTimeout(run, 700); });
  $("#vars").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); clearTimeout(timer); run(); } });
  document.querySelectorAll("#examples button.ex").forEach((b) => b.addEventListener("click", () => {
    $("#exprs").value = b.dataset.text; $("#dialect").value = b.dataset.dialect;
    clearTimeout(timer); run();
  }));
  document.querySelectorAll("input[name=mode], #transpose, #log, #bars").forEach((i) => i.addEventListener("change", render));
  $("#csv").addEventListener("click", exportCSV);
  $("#json").addEventListener("click", exportJSON);
  $("#png").addEventListener("click", () => result && CKChart.exportPNG($("#chart"), "chancekit-dice"));
  $("#svg").addEventListener("click", () => result && CKChart.exportSVG($("#chart"), "chancekit-dice"));
  $("#share").addEventListener("click", share);
  (async () => {
    if (location.hash.length > 1) {
      // a link that cannot be read says so (and which part), instead of quietly
      // showing the page's usual example as if it were the shared view
      let got = null, why = "";
      try {
        got = await CK.decodeState(location.hash);
        if (!got) why = "it holds no saved view (no z= or j= part)";
        else if (!got.state || typeof got.state !== "object" || typeof got.state.exprs !== "string") {
          why = "its saved view has no expressions"; got = null;
        }
      } catch (e) {
        why = "its saved view is damaged (cut short when copied?)"; got = null;
      }
      if (got) {
        apply(got.state);
        if (got.version && got.version !== CK.version())
          note = `link made with chancekit ${got.version}; this is ${CK.version()} · `;
      } else {
        const box = errorBox({ message: `This share link could not be read: ${why}. ` +
          "The page shows its usual example instead, not the shared view." });
        box.id = "link-error";
        $("#error").replaceChildren(box);
      }
    }
    run();
  })();
})();
