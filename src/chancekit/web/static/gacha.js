// Gacha page (/api/gacha): pulls until 1..K copies from a pity state, the chance within the
// pulls or a budget; the chart of P(k copies by pull n), k = 1..K, all exact
"use strict";
(() => {
  const { el, $, pct, num, download, errorBox } = CK;
  const PRESETS = ["gacha:0.006,74,0.06,90", "gacha:0.007,63,0.07,80,0.75,fate=1,chosen=0.5",
                   "gacha:0.051,9,0.5,10", "pity:0.02,50,0.02,100", "prd:0.25"];
  const FIELDS = ["system", "copies", "value", "pity", "misses", "pulls", "price", "refund", "budget",
                  "refund_per"];
  const NUMS = ["copies", "pity", "misses", "pulls", "price", "refund", "budget"];
  let result = null;

  $("#chips").replaceChildren(...PRESETS.map((p) => el("button", { type: "button", class: "chip",
    onclick: () => { $("#system").value = p; run(); } }, p)));

  function body() {
    const out = { system: $("#system").value, guaranteed: $("#guaranteed").checked };
    if ($("#value").value.trim()) out.value = $("#value").value.trim();
    for (const f of NUMS) {
      const v = $(`#${f}`).value.trim();
      if (v !== "") out[f] = Number(v);
    }
    if (out.pity === 0) delete out.pity;
    const per = $("#refund_per").value.trim();
    if (per) {  // value=amount,... -> {value: amount}; anything else is sent as it is (a 400)
      const pairs = per.split(",").map((p) => p.split("=").map((x) => x.trim()));
      const ok = pairs.every((p) => p.length === 2 && p[0] && p[1] !== "" && Number.isFinite(Number(p[1])));
      out.refund_per = ok ? Object.fromEntries(pairs.map(([v, a]) => [v, Number(a)])) : per;
    }
    return out;
  }
  const view = () => ({ ...Object.fromEntries(FIELDS.map((f) => [f, $(`#${f}`).value])),
                        guaranteed: $("#guaranteed").checked });
  function apply(state) {
    for (const f of FIELDS) if (typeof state[f] === "string") $(`#${f}`).value = state[f];
    $("#guaranteed").checked = !!state.guaranteed;
  }

  const runs = CK.runner({ hasResult: () => !!result, onError: (r) => {
    $("#error").replaceChildren(errorBox(r.data.error || { message: "error" }));
    return false;
  }, onDone: (r) => {
    result = r.data;
    $("#status").textContent = CK.timing(r);
    render();
  } });
  const run = () => { $("#error").replaceChildren(); return runs.go("/api/gacha", body()); };

  function render() {
    if (!result) return;
    const d = result, c = d.curve;
    CKChart.draw($("#chart"), { series: c.chance.map((ys, i) => ({ name: `${i + 1} cop${i ? "ies" : "y"}`,
      points: c.pulls.map((n, j) => ({ x: n, label: String(n), y: ys[j],
        tip: `${i + 1} cop${i ? "ies" : "y"} by pull ${n}: ${pct(ys[j])}` })).filter((p) => p.y !== null) })),
      percent: true, legend: true, integerX: true, xLabel: "pulls", yLabel: "P(k copies by pull n)",
      title: `${d.spec}: P(k copies of ${d.value} by pull n)` });
    const where = d.state ? `from state (${d.state.join(", ")})` : "from a fresh banner";
    $("#figures").replaceChildren(el("b", {}, d.spec), ` · ${d.value} · ${where}` +
      (d.affordable !== null ? ` · the budget buys ${d.affordable} pulls` : ""));
    const head = ["copies", "mean pulls", "median", "90 %", "99 %", "most"];
    if (d.pulls !== null) head.push(`P(≤ ${d.pulls} pulls)`);
    if (d.budget !== null) head.push("P(budget)");
    if (d.price !== null) head.push("mean cost");
    $("#plan").replaceChildren(el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))),
      el("tbody", {}, d.rows.map((r) => el("tr", { "data-copies": r.copies }, [
        el("td", {}, r.copies), el("td", { title: r.mean_exact || "" }, num(r.mean, 6)),
        el("td", {}, r.median), el("td", {}, r.p90), el("td", {}, r.p99), el("td", {}, r.most ?? "∞"),
        ...(d.pulls !== null ? [el("td", { class: "within" }, pct(r.within_pulls))] : []),
        ...(d.budget !== null ? [el("td", { class: "budget" },
          r.within_budget === null ? "–" : pct(r.within_budget))] : []),
        ...(d.price !== null ? [el("td", {}, r.mean_cost === null ? "–" : num(r.mean_cost, 6))] : [])]))));
  }

  $("#run").addEventListener("click", run);
  for (const f of FIELDS) $(`#${f}`).addEventListener("keydown", (e) => { if (e.key === "Enter") run(); });
  $("#guaranteed").addEventListener("change", run);
  $("#json").addEventListener("click", () => result && download("chancekit-gacha.json",
    JSON.stringify({ request: body(), ...result }, null, 2), "application/json"));
  $("#share").addEventListener("click", () => CK.share(view()));
  $("#png").addEventListener("click", () => result && CKChart.exportPNG($("#chart"), "chancekit-gacha"));
  $("#svg").addEventListener("click", () => result && CKChart.exportSVG($("#chart"), "chancekit-gacha"));
  (async () => {
    if (location.hash.length > 1) {
      try {
        const got = await CK.decodeState(location.hash);
        if (got) apply(got.state);
      } catch (e) {
        $("#error").replaceChildren(errorBox({ message: "this share link is damaged: the page shows its usual example" }));
      }
    }
    run();
  })();
})();
