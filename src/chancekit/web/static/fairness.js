// Fairness page: metrics over the match for chosen systems, and tune() with progress
"use strict";
(() => {
  const { el, $, request: api, num, errorBox } = CK;
  const PRESETS = ["dice", "deck", "generalized-deck:1,6", "dynamic-dice:0.355", "prd:0.25",
                   "history-reroll:4,4", "error-accumulator:0.25", "pity:0.1,5,0.1,10", "deck+no-repeat"];
  let job = null, polling = null, shown = false;
  $("#chips").replaceChildren(...PRESETS.map((p) => el("button", { type: "button", onclick: () => {
    const t = $("#systems"); t.value = (t.value.trim() ? t.value.trim() + "\n" : "") + p;
  } }, p)));
  const specs = () => $("#systems").value.split("\n").map((s) => s.trim()).filter((s) => s && !s.startsWith("#"));
  const method = () => document.querySelector("input[name=method]:checked").value;

  async function evaluate() {
    $("#error").replaceChildren(); $("#status").textContent = "computing…";
    document.body.dataset.state = "busy";
    const systems = specs();
    const r = await api("/api/fairness", { systems, values: Number($("#values").value),
      samples: Number($("#samples").value), method: method(), trials: Number($("#trials").value),
      seed: Number($("#seed").value) });
    if (!r.ok) {
      const err = r.data.error || {};
      const where = err.spec ? `${err.spec}: ` : "";
      $("#error").replaceChildren(errorBox(err, { where })); $("#status").textContent = "";
      if (shown) CK.stale(true, "The last evaluation failed (see above).");
      document.body.dataset.state = "error"; return;
    }
    $("#status").textContent = `computed in ${num(r.data.elapsed_ms, 1)} ms`;
    render(r.data); shown = true;
    CK.stale(false);
    document.body.dataset.state = "done";
  }
  function render(d) {
    const line = (key) => d.systems.map((s) => ({ name: s.spec, points: (s.series[key] || []).map((y, t) => ({
      x: t + 1, label: `draw ${t + 1}`, y, tip: `${s.spec}\ndraw ${t + 1}: ${num(y, 4)}` })) }));
    CKChart.draw($("#chart-entropy"), { series: line("entropy"), legend: true, xLabel: "draw",
      yLabel: "unpredictability", title: "unpredictability per draw", height: 300 });
    CKChart.draw($("#chart-variance"), { series: line("outcome_variance"), legend: true, xLabel: "draw",
      yLabel: "outcome variance", title: "outcome variance over the match", height: 300 });
    const keys = ["unpredictability", "guessability", "outcome_variance", "variance_ratio", "discrepancy"];
    const mc = d.method === "montecarlo";
    $("#metrics").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { class: "l" }, "system"), keys.map((k) => el("th", {}, k.replace("_", " "))))),
      el("tbody", {}, d.systems.map((s) => el("tr", { "data-spec": s.spec }, el("td", { class: "l" }, s.spec),
        keys.map((k) => el("td", { "data-metric": k }, num(s.summary[k]) + (mc && s.se[k] ? ` ± ${num(s.se[k], 4)}` : "")))))));
  }

  function stopPolling() { if (polling) clearTimeout(polling); polling = null; }
  async function tune() {
    $("#tune-error").replaceChildren(); $("#winners").replaceChildren();
    const systems = [...document.querySelectorAll(".family:checked")].map((c) => c.value);
    const r = await api("/api/tune", { values: Number($("#values").value), samples: Number($("#samples").value),
      min_entropy: Number($("#min-entropy").value), systems, floor: $("#floor").value });
    if (!r.ok) { $("#tune-error").replaceChildren(errorBox(r.data.error || {})); return; }
    job = r.data.job;
    $("#tune").disabled = true; $("#tune-stop").disabled = false;
    $("#tune-progress").hidden = false; $("#tune-progress").value = 0;
    $("#tune-status").textContent = "tuning…"; document.body.dataset.tune = "busy";
    poll();
  }
  async function poll() {
    const mine = job;
    const r = await api(`/api/jobs/${mine}`);
    if (mine !== job) return;
    const d = r.data;
    if (d.total) $("#tune-progress").value = d.done / d.total;
    if (r.ok && (d.state === "running" || d.state === "queued")) {
      $("#tune-status").textContent = `tuning… ${d.done}/${d.total || "?"} candidates, ${num(d.running_s, 1)} s`;
      polling = setTimeout(poll, 200); return;
    }
    finish();
    if (!r.ok || d.state === "error") {
      $("#tune-error").replaceChildren(errorBox(d.error || {})); $("#tune-status").textContent = "";
      document.body.dataset.tune = "error";
    } else if (d.state === "cancelled") {
      $("#tune-status").textContent = "stopped"; document.body.dataset.tune = "stopped";
    } else {
      $("#tune-status").textContent = `tuned in ${num(d.elapsed_ms / 1000, 2)} s`;
      showWinners(d.result); document.body.dataset.tune = "done";
    }
  }
  function finish() {
    stopPolling(); job = null;
    $("#tune").disabled = false; $("#tune-stop").disabled = true; $("#tune-progress").hidden = true;
  }
  async function stop() {
    const mine = job; if (!mine) return;
    stopPolling(); job = null;
    await api(`/api/jobs/${mine}`, undefined, { method: "DELETE" });
    finish(); $("#tune-status").textContent = "stopped"; document.body.dataset.tune = "stopped";
  }
  function showWinners(res) {
    const winners = Object.values(res.winners).flat();
    const rows = Object.entries(res.tables).flatMap(([fam, cands]) => cands.slice(0, 5).map((c) =>
      el("tr", { class: c.rank === 1 && c.feasible ? "winner" : "" }, el("td", { class: "l" }, fam), el("td", { class: "l" }, c.spec),
        el("td", {}, c.rank), el("td", {}, c.feasible ? "yes" : "no"), el("td", {}, num(c.unpredictability)),
        el("td", {}, num(c.outcome_variance)), el("td", {}, num(c.variance_ratio)))));
    $("#winners").replaceChildren(
      el("p", { id: "winner-line" }, "Winners: ", winners.map((w) => el("code", { class: "winner-spec" }, w.spec + " ")),
         el("button", { id: "compare", class: "primary", onclick: () => compare(winners) }, "Compare winners")),
      ...(res.warnings || []).map((w) => el("p", { class: "error" }, `warning: ${w}`)),
      el("table", { class: "data", id: "tune-table" }, el("thead", {}, el("tr", {}, ["family", "spec", "rank", "feasible",
        "unpredictability", "outcome variance", "vs. independent"].map((h) => el("th", {}, h)))), el("tbody", {}, rows)));
  }
  function compare(winners) {
    $("#systems").value = [...new Set([...winners.map((w) => w.spec), "dice", "deck"])].join("\n");
    document.querySelector("input[name=method][value=exact]").checked = true;
    evaluate(); window.scrollTo({ top: 0, behavior: "smooth" });
  }
  $("#evaluate").addEventListener("click", evaluate);
  $("#png").addEventListener("click", () => { CKChart.exportPNG($("#chart-entropy"), "unpredictability");
    CKChart.exportPNG($("#chart-variance"), "outcome-variance"); });
  $("#svg").addEventListener("click", () => { CKChart.exportSVG($("#chart-entropy"), "unpredictability");
    CKChart.exportSVG($("#chart-variance"), "outcome-variance"); });
  $("#tune").addEventListener("click", tune);
  $("#tune-stop").addEventListener("click", stop);
  // leaving the page stops the job (the server also stops jobs nobody polls for 30 s)
  window.addEventListener("pagehide", () => { if (job && !CK.onSite()) fetch(`/api/jobs/${job}`, { method: "DELETE", keepalive: true }); });
  evaluate();
})();
