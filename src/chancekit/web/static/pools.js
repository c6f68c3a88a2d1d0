// Pools page: largest set, straights, Neon City Overdrive, RISK, Genesys symbols and the
// pool algebra (cancel, face to face, sets, all straights, poker, expressions) (/api/pool)
"use strict";
(() => {
  const { el, $, request: api, pct, num, errorBox } = CK;
  let result = null;
  const kind = () => $("#kind").value;
  function sync() {
    document.querySelectorAll("label[data-for]").forEach((l) => { l.hidden = !l.dataset.for.split(" ").includes(kind()); });
    const risk = kind() === "risk";
    $("#action-name").textContent = risk ? "Attackers" : "Action dice";
    $("#danger-name").textContent = risk ? "Defenders" : "Danger dice";
  }
  function namedPools(text) { // "a=3d6 b=2d6" -> {a: "3d6", b: "2d6"} (the server checks them)
    const out = {};
    for (const part of text.trim().split(/\s+/)) {
      if (!part) continue;
      const i = part.indexOf("=");
      out[i < 0 ? part : part.slice(0, i)] = i < 0 ? "" : part.slice(i + 1);
    }
    return out;
  }
  function body() {
    const k = kind();
    if (k === "largest-set" || k === "straight" || k === "straights" || k === "poker") return { kind: k, dice: $("#dice").value };
    if (k === "sets") return { kind: k, dice: $("#dice").value, wild: $("#wild").value };
    if (k === "cancel") return { kind: k, dice: $("#dice").value, against: $("#against").value,
      success: Number($("#threshold").value), match: $("#match").value };
    if (k === "face-to-face") return { kind: k, dice: $("#dice").value, against: $("#against").value };
    if (k === "expr") return { kind: k, expression: $("#expression").value, pools: namedPools($("#pools").value) };
    if (k === "genesys") return { kind: k, pool: $("#pool").value };
    const b = { kind: k, action: Number($("#action").value), danger: Number($("#danger").value) };
    if (k === "risk") b.ties = $("#ties").value;
    return b;
  }
  async function run() {
    $("#error").replaceChildren(); $("#status").textContent = "computing…";
    document.body.dataset.state = "busy";
    const r = await api("/api/pool", body());
    if (!r.ok) {
      $("#error").replaceChildren(errorBox(r.data.error || { message: "error" }));
      $("#status").textContent = "";
      if (result) CK.stale(true, "The last calculation failed (see above).");
      document.body.dataset.state = "error"; return;
    }
    result = r.data; CK.stale(false);
    $("#status").textContent = `computed in ${num(r.data.elapsed_ms, 1)} ms` + (r.data.cached ? " (cached)" : "");
    render();
    document.body.dataset.state = "done";
  }
  function render() {
    const s = result.series[0];
    const numeric = s.rows.every((r) => r.x !== null);
    // labels (symbols, RISK pairs): the most likely first; numbers: in order
    const rows = numeric ? s.rows : [...s.rows].sort((a, b) => b.p - a.p);
    const shown = numeric ? rows : rows.slice(0, 40);
    const categories = numeric ? undefined : shown.map((r) => r.label);
    CKChart.draw($("#chart"), { bars: true, percent: true, categories, legend: false, xLabel: numeric ? "outcome" : "result",
      yLabel: "probability", title: s.label, series: [{ name: s.label, points: shown.map((r, i) => ({
        x: numeric ? r.x : i, label: r.label, y: r.p, exact: r.p_exact,
        tip: `${r.label}: ${pct(r.p)}` + (r.p_exact ? `\nexactly ${r.p_exact}` : "") })) }] });
    const figs = [el("b", {}, s.label), ". "];
    if (s.mean !== null) figs.push(`mean ${num(s.mean_float)} (exactly ${s.mean}), sd ${num(s.sd)}. `);
    if (result.success !== undefined && result.success !== null) {
      figs.push(el("span", { id: "success", "data-exact": result.success_exact || "" },
        `Success (net successes ≥ 1): ${pct(result.success)}` + (result.success_exact ? ` (exactly ${result.success_exact})` : "")), ". ");
      for (const [k, p] of Object.entries(result.at_least_one || {}))
        if (k !== "success") figs.push(`At least one ${k}: ${pct(p, 2)}. `);
    }
    $("#figures").replaceChildren(...figs);
    $("#outcomes").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { class: "l" }, numeric ? "outcome" : "result"), el("th", {}, "probability"),
        el("th", {}, "exact"), numeric ? el("th", {}, "at least") : null, numeric ? el("th", {}, "at most") : null)),
      el("tbody", {}, rows.slice(0, 3000).map((r) => el("tr", { "data-outcome": r.label }, el("td", { class: "l" }, r.label),
        el("td", {}, pct(r.p)), el("td", { class: "exact-cell" }, r.p_exact || "–"),
        numeric ? el("td", {}, pct(r.ge)) : null, numeric ? el("td", {}, pct(r.le)) : null))));
    $("#hidden-note").textContent = s.hidden ? `${s.hidden} outcomes below 1e-6 not shown` : "";
  }
  $("#kind").addEventListener("change", () => { sync(); run(); });
  $("#run").addEventListener("click", run);
  for (const id of ["#dice", "#pool", "#action", "#danger", "#against", "#threshold", "#wild", "#expression", "#pools"])
    $(id).addEventListener("keydown", (e) => { if (e.key === "Enter") run(); });
  $("#png").addEventListener("click", () => result && CKChart.exportPNG($("#chart"), `chancekit-${kind()}`));
  $("#svg").addEventListener("click", () => result && CKChart.exportSVG($("#chart"), `chancekit-${kind()}`));
  sync(); run();
})();
