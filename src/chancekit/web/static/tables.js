// Tables page: a two-dice tabletop table, its accuracy, a printable sheet, downloads
"use strict";
(() => {
  const { el, $, request: api, pct, num, download, errorBox } = CK;
  let result = null;
  const source = () => document.querySelector("input[name=source]:checked").value;
  function syncSource() {
    const loot = source() === "loot";
    $("#loot").hidden = !loot; $("#notation").disabled = loot; $("#dialect").disabled = loot;
  }
  async function build() {
    $("#error").replaceChildren(); $("#notes").replaceChildren();
    $("#status").textContent = "building…";
    document.body.dataset.state = "busy";
    const body = { source: source(), notation: $("#notation").value, loot: $("#loot").value,
                   title: $("#title").value || null,
                   row_die: Number($("#row-die").value), check_die: Number($("#check-die").value),
                   dialect: $("#dialect").value, two_stage: $("#two-stage").checked };
    const r = await api("/api/table", body);
    if (!r.ok) {
      $("#error").replaceChildren(errorBox(r.data.error || { message: "error" }));
      $("#status").textContent = ""; if (result) CK.stale(true, "Building the table failed (see above).");
      document.body.dataset.state = "error";
      return;
    }
    result = r.data;
    CK.stale(false);
    $("#notes").replaceChildren(...CK.noteList(r.data.notes || []));
    $("#status").textContent = `built in ${num(r.data.elapsed_ms, 1)} ms`;
    render();
    document.body.dataset.state = "done";
  }
  // one table of the sheet: a row per face of the row die. Every sheet has its outcome
  // column (a table from dice notation: the row number); a row kept on any check roll says
  // "always" (not "≤ 20"), a row with no outcome of its own "never" (it gives its "else")
  function sheetTable(t, s, attrs) {
    const headers = [`d${t.row_die}`, "outcome", `keep if d${t.check_die} ≤`, "else"];
    const dash = (v) => (v === null || v === undefined ? "–" : v);
    const keep = (r) => r.threshold === 0 ? el("span", { class: "never", title: "no outcome of its own: it gives its else" }, "never")
      : r.threshold >= t.check_die ? el("span", { class: "always", title: "no check roll needed" }, "always") : r.threshold;
    const rows = s.rows.map((r) => el("tr", { "data-face": r.face }, el("td", {}, r.face),
      el("td", { class: "outcome" }, dash(r.outcome)), el("td", { class: "keep" }, keep(r)),
      el("td", { class: "else" }, r.threshold >= t.check_die ? "–" : dash(r.alias))));
    return el("table", attrs, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
              el("tbody", {}, rows));
  }
  // how to read the special rows, said only when the sheet has them
  function reading(sheets, t) {
    const rows = sheets.flatMap((s) => s.rows);
    const out = [];
    if (rows.some((r) => r.threshold >= t.check_die))
      out.push("A row marked “always” gives its outcome whatever the check die shows: no check roll is needed.");
    if (rows.some((r) => r.threshold === 0))
      out.push("A row marked “never” has no outcome of its own: it always gives its “else”.");
    if (sheets.some((s) => s.numbered))
      out.push(`The outcome of a row is its number (the d${t.row_die} roll).`);
    return out.join(" ");
  }
  function render() {
    const t = result;
    const tables = !t.two_stage ? [sheetTable(t, t, { id: "sheet-table" })] :
      t.stages.flatMap((s, i) => [
        el("h3", {}, i === 0 ? "First table: which second table to roll on" :
          `Second table ${i}: ${s.group[0]} to ${s.group[s.group.length - 1]}`),
        sheetTable(t, s, { class: "stage", "data-stage": i })]);
    $("#sheet").replaceChildren(
      el("h2", {}, t.title || "table"),
      ...tables,
      el("p", { id: "rule" }, t.rule),
      el("p", { id: "reading" }, reading(t.two_stage ? t.stages : [t], t)),
      el("p", { id: "accuracy" }, `Accuracy: ${t.report.line}`));
    const cats = t.outcomes.map((o) => o.label);
    const pts = (key, ex) => t.outcomes.map((o, i) => ({ x: i, label: o.label, y: o[key], exact: o[ex],
      tip: `${o.label}: ${key} ${pct(o[key], 3)}` + (o[ex] ? ` (${o[ex]})` : "") }));
    CKChart.draw($("#chart"), { bars: true, categories: cats, percent: true, legend: true,
      series: [{ name: "target", points: pts("target", "target_exact") },
               { name: "realised", points: pts("realized", "realized_exact") }],
      xLabel: "outcome", yLabel: "probability", title: `${t.title || "table"}: target vs realised` });
    $("#compare").replaceChildren(
      el("thead", {}, el("tr", {}, ["outcome", "target", "exact", "realised", "exact", "error (points)"]
        .map((h) => el("th", {}, h)))),
      el("tbody", {}, t.outcomes.map((o) => el("tr", {}, el("td", { class: "nowrap" }, o.label), el("td", {}, pct(o.target, 3)),
        el("td", {}, o.target_exact || ""), el("td", {}, pct(o.realized, 3)), el("td", {}, o.realized_exact || ""),
        el("td", {}, (100 * (o.realized - o.target)).toFixed(3))))));
  }
  const name = () => (result.title || "table").replace(/[^A-Za-z0-9._-]+/g, "_");
  $("#dl-md").addEventListener("click", () => result && download(`${name()}.md`, result.formats.md, "text/markdown"));
  $("#dl-csv").addEventListener("click", () => result && download(`${name()}.csv`, result.formats.csv, "text/csv"));
  $("#dl-html").addEventListener("click", () => result && download(`${name()}.html`, result.formats.html, "text/html"));
  $("#print").addEventListener("click", () => {
    document.body.classList.add("printing-sheet"); window.print();
  });
  window.addEventListener("beforeprint", () => document.body.classList.add("printing-sheet"));
  window.addEventListener("afterprint", () => document.body.classList.remove("printing-sheet"));
  document.querySelectorAll("input[name=source]").forEach((i) => i.addEventListener("change", syncSource));
  $("#build").addEventListener("click", build);
  $("#png").addEventListener("click", () => result && CKChart.exportPNG($("#chart"), name()));
  $("#svg").addEventListener("click", () => result && CKChart.exportSVG($("#chart"), name()));
  $("#notation").addEventListener("keydown", (e) => { if (e.key === "Enter") build(); });
  syncSource();
  build();
})();
