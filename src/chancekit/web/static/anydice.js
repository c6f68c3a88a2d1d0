// AnyDice page: a program in, every output as one series on the chart (the Dice page's modes
// and exports), errors placed at their line, a share link that holds the program
"use strict";
(() => {
  const { el, $, request: api, pct, num, download, errorBox } = CK;
  const MODES = { normal: ["p", "p_exact", "probability"], atleast: ["ge", "ge_exact", "at least"],
                  atmost: ["le", "le_exact", "at most"] };
  let result = null;       // the last successful API answer
  let badLine = null;      // the line of the last error, marked in the gutter
  let note = "";           // e.g. a share link made with another chancekit version

  // the help's examples: each loads its program and runs it
  const EXAMPLES = {
    ability: 'output [highest 3 of 4d6] named "4d6, drop the lowest"\n',
    advantage: 'output [highest 1 of 2d20] named "advantage"\noutput d20 named "one d20"\n' +
               'output [lowest 1 of 2d20] named "disadvantage"\n',
    attack: 'function: attack ROLL:n vs AC:n {\n  if ROLL = 20 { result: 2 }\n  if ROLL + 5 >= AC { result: 1 }\n' +
            '  result: 0\n}\nloop AC over {12, 15, 18} {\n  output [attack d20 vs AC] named "hits vs AC [AC]"\n}\n',
    explode: 'set "explode depth" to 3\noutput [explode d6] named "exploding d6"\n',
    count: 'output [count {5,6} in 6d6] named "successes on 6d6 (5+)"\n',
    positions: 'function: top two of ROLL:s {\n  result: 1@ROLL + 2@ROLL\n}\n' +
               'output [top two of 3d6] named "the two highest of 3d6"\n',
    loop: 'loop N over {1..5} {\n  output [highest 1 of Nd6] named "best of [N]d6"\n}\n',
  };
  const mode = () => document.querySelector("input[name=mode]:checked").value;
  const view = () => ({ program: $("#program").value, mode: mode(), transpose: $("#transpose").checked,
                        log: $("#log").checked, bars: $("#bars").checked });

  // the editor (editor.js): highlighting, bracket matching, Tab indents (Esc then Tab
  // leaves), line numbers beside it with the line of an error marked
  const editor = CKEditor.attach($("#program"), { language: "anydice", gutter: $("#gutter"),
                                                  badLine: () => badLine, tabIndents: true });
  const gutter = () => editor.refresh();

  function showError(err) {
    badLine = Number.isInteger(err.line) ? err.line : null;
    const box = errorBox(badLine && err.source !== null && err.source !== undefined && err.column
      ? { message: err.message, problem: err.problem || err.message, text: err.source, column: err.column }
      : { message: err.problem || err.message, limit: err.limit }, { where: badLine ? `line ${badLine}: ` : "" });
    box.dataset.line = badLine ?? "";
    if (badLine) {          // a click on the message puts the cursor on the line
      box.style.cursor = "pointer";
      box.addEventListener("click", () => select(badLine, err.column || 1));
    }
    $("#error").replaceChildren(box);
    gutter();
  }
  function select(line, column) {
    const ta = $("#program"), lines = ta.value.split("\n");
    let at = 0;
    for (let i = 0; i < line - 1 && i < lines.length; i++) at += lines[i].length + 1;
    at += Math.max(0, column - 1);
    ta.focus(); ta.setSelectionRange(at, at);
  }

  const runs = CK.runner({ hasResult: () => !!result, onError: (r) => {
    const err = r.data.error || { message: "error" };
    showError(err);
    if (err.type === "LimitError" && err.approx)   // refused for huge weights
      $("#error").firstChild.append(el("div", {}, el("button", { id: "approx", class: "primary",
        type: "button", onclick: (ev) => { ev.stopPropagation(); runs.go("/api/anydice", { program: $("#program").value, approx: true }); } },
        "Certified approximation"),
        " an answer with proven error bounds instead (every probability within 1e-12; not exact)"));
    return false;
  }, onDone: (r) => {
    result = r.data;
    $("#warnings").replaceChildren(...(result.warnings || []).map((w) => el("p", { class: "note" }, w)));
    $("#status").textContent = note + `${result.series.length} output${result.series.length === 1 ? "" : "s"} ` + CK.timing(r);
    render();
  } });

  function run() {
    const program = $("#program").value;
    $("#error").replaceChildren(); $("#warnings").replaceChildren();
    badLine = null; gutter();
    if (!program.trim()) { $("#status").textContent = "write a program, e.g. output 3d6"; return; }
    return runs.go("/api/anydice", { program });
  }

  function render() {
    if (!result) return;
    const [key, exactKey, modeName] = MODES[mode()];
    const series = result.series;
    $("#mode-name").textContent = `(${modeName})`;
    const allNumeric = series.every((s) => s.rows.every((r) => r.x !== null));
    const tipOf = (s, r) => `${s.label}\n${r.label}: ${pct(r[key])}` + (r[exactKey] ? `\nexactly ${r[exactKey]}` : "");
    let chartSeries, categories;
    if (!$("#transpose").checked) {
      if (!allNumeric) categories = [...new Set(series.flatMap((s) => s.rows.map((r) => r.label)))];
      chartSeries = series.map((s) => ({ name: s.label, points: s.rows.map((r) => ({
        x: categories ? categories.indexOf(r.label) : r.x, label: r.label, y: r[key],
        exact: r[exactKey], tip: tipOf(s, r) })) }));
    } else {                 // series <-> outcomes: x is the output, one line per outcome
      categories = series.map((s) => s.label);
      const outcomes = [...new Set(series.flatMap((s) => s.rows.map((r) => r.label)))];
      chartSeries = outcomes.slice(0, 200).map((o) => ({ name: o, points: series.flatMap((s, i) => {
        const r = s.rows.find((row) => row.label === o);
        return r ? [{ x: i, label: s.label, y: r[key], exact: r[exactKey], tip: tipOf(s, r) }] : [];
      }) }));
    }
    CKChart.draw($("#chart"), { series: chartSeries, categories, log: $("#log").checked, percent: true,
                                bars: $("#bars").checked,
                                legend: chartSeries.length <= 24, integerX: false,
                                xLabel: $("#transpose").checked ? "output" : "outcome",
                                yLabel: modeName,   // the title of an exported chart: the program's outputs
                                title: series.map((s) => s.label).join(", ") + ` (${modeName})` });
    const qs = ["0.05", "0.25", "0.5", "0.75", "0.95"];
    $("#summary").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { class: "l" }, "output"), el("th", {}, "mean"),
        el("th", {}, "exact mean"), el("th", {}, "sd"), el("th", {}, "skew"), el("th", {}, "ex. kurtosis"),
        el("th", {}, "min"), ...qs.map((q) => el("th", {}, q === "0.5" ? "median" : `${100 * q}%`)),
        el("th", {}, "max"), el("th", {}, "outcomes"))),
      el("tbody", {}, series.map((s) => el("tr", { "data-series": s.label },
        el("td", { class: "l" }, s.label), el("td", { class: "mean" }, num(s.mean_float)),
        el("td", { class: "mean-exact" }, s.mean ?? "–"), el("td", { class: "sd" }, num(s.sd)),
        el("td", {}, num(s.skewness)), el("td", {}, num(s.kurtosis)), el("td", {}, s.min ?? "–"),
        ...qs.map((q) => el("td", { class: `q q${q}` }, s.quantiles[q] ?? "–")), el("td", {}, s.max ?? "–"),
        el("td", {}, s.outcomes)))));
    // distances from the first output: Kolmogorov-Smirnov and total variation, exact when short
    CK.compareTable(series, result.comparisons || [], "output");
    const order = [], seen = new Map();
    for (const s of series) for (const r of s.rows) if (!seen.has(r.label)) { seen.set(r.label, r.x); order.push(r.label); }
    if (allNumeric) order.sort((a, b) => seen.get(a) - seen.get(b));
    const idx = series.map((s) => new Map(s.rows.map((r) => [r.label, r])));
    $("#outcomes").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", {}, "outcome"), series.slice(0, 100).map((s) => el("th", {}, s.label)))),
      el("tbody", {}, order.slice(0, 3000).map((o) => el("tr", { "data-outcome": o }, el("td", {}, o),
        idx.slice(0, 100).map((m, i) => {
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

  function exportCSV() {
    if (!result) return;
    const out = ["output,outcome,probability,probability_exact,at_least,at_least_exact,at_most,at_most_exact"];
    for (const s of result.series) for (const r of s.rows)   // an output's name is the program's text
      out.push([s.label, r.label, r.p, r.p_exact, r.ge, r.ge_exact, r.le, r.le_exact]
        .map((v, i) => CK.csvCell(v, i === 0)).join(","));
    download("chancekit-anydice.csv", out.join("\n") + "\n", "text/csv");
  }
  function exportJSON() {
    if (result) download("chancekit-anydice.json", JSON.stringify({ program: $("#program").value, ...result }, null, 2),
                         "application/json");
  }
  const share = () => CK.share(view());
  function apply(state) {
    if (typeof state.program === "string") $("#program").value = state.program;
    if (MODES[state.mode]) document.querySelector(`input[name=mode][value=${state.mode}]`).checked = true;
    $("#transpose").checked = !!state.transpose; $("#log").checked = !!state.log;
    $("#bars").checked = !!state.bars;
    gutter();
  }

  const ta = $("#program");
  ta.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); }
  });
  ta.addEventListener("input", () => { if (badLine) { badLine = null; gutter(); } });
  $("#run").addEventListener("click", run);
  // programs as files: Open… (a file picker) or a file dropped on the editor; Save downloads it
  const MAX_FILE = 60000;   // the API's program limit, in characters
  async function openFile(file) {
    if (!file) return;
    if (file.size > 4 * MAX_FILE) { $("#status").textContent = `${file.name} is too large for a program (${file.size} bytes)`; return; }
    const text = (await file.text()).replace(/\r\n?/g, "\n");
    if (text.length > MAX_FILE) { $("#status").textContent = `${file.name} has ${text.length} characters; a program has at most ${MAX_FILE}`; return; }
    ta.value = text; gutter();
    $("#status").textContent = `opened ${file.name}`;
    ta.focus();
  }
  $("#open").addEventListener("click", () => $("#open-file").click());
  $("#open-file").addEventListener("change", (e) => { openFile(e.target.files[0]); e.target.value = ""; });
  $("#save").addEventListener("click", () => download("program.dice", ta.value.endsWith("\n") ? ta.value : ta.value + "\n", "text/plain"));
  ta.addEventListener("dragover", (e) => { if ([...e.dataTransfer.types].includes("Files")) { e.preventDefault(); ta.classList.add("drop"); } });
  ta.addEventListener("dragleave", () => ta.classList.remove("drop"));
  ta.addEventListener("drop", (e) => {
    if (!e.dataTransfer.files.length) return;
    e.preventDefault(); ta.classList.remove("drop");
    openFile(e.dataTransfer.files[0]);
  });
  document.querySelectorAll("#examples button.ex").forEach((b) => b.addEventListener("click", () => {
    $("#program").value = EXAMPLES[b.dataset.example]; gutter(); run();
  }));
  document.querySelectorAll("input[name=mode], #transpose, #log, #bars").forEach((i) => i.addEventListener("change", render));
  $("#csv").addEventListener("click", exportCSV);
  $("#json").addEventListener("click", exportJSON);
  $("#share").addEventListener("click", share);
  if (typeof CKChart.exportPNG === "function") {   // the chart as an image, as on the Dice page
    $("#png").addEventListener("click", () => result && CKChart.exportPNG($("#chart"), "chancekit-anydice"));
    $("#svg").addEventListener("click", () => result && CKChart.exportSVG($("#chart"), "chancekit-anydice"));
  } else { $("#png").hidden = true; $("#svg").hidden = true; }
  gutter();
  (async () => {
    if (location.hash.length > 1) {
      try {
        const got = await CK.decodeState(location.hash);
        if (got) {
          apply(got.state);
          if (got.version && got.version !== CK.version())
            note = `link made with chancekit ${got.version}; this is ${CK.version()} · `;
        }
      } catch (e) {
        $("#error").replaceChildren(errorBox({ message: "this share link is damaged: it could not be read" }));
      }
    }
    run();
  })();
})();
