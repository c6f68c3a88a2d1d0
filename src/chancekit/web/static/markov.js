// Markov page: usage dice, HP races, a fairness system's first success (/api/markov):
// the count's exact distribution on the chart (the Dice page's modes and exports), exact
// mean and variance, the probability beyond the listed counts, a share link with the inputs
"use strict";
(() => {
  const { el, $, request: api, pct, num, download, errorBox } = CK;
  const MODES = { normal: ["p", "p_exact", "probability"], atleast: ["ge", "ge_exact", "at least"],
                  atmost: ["le", "le_exact", "at most"] };
  const PRESETS = ["prd:0.25", "pity:0.25", "pity:0.1,5,0.1,10", "pity:0.006,74,0.06,90", "gacha:0.006,74,0.06,90",
                   "error-accumulator:0.25"];
  // the request's fields as the page labels them (a 400 names the field)
  const LABELS = { kind: "Process", ladder: "Ladder", down: "Steps down on", hp: "HP", damage: "Damage",
                   hp2: "Second side's HP", damage2: "Second side's damage", order: "Order", system: "System",
                   value: "Waiting for", upto: "Show up to", die: "Die", sequence: "Sequence" };
  const FIELDS = ["kind", "ladder", "down", "hp", "damage", "hp2", "damage2", "order", "system", "value", "die",
                  "sequence", "upto"];
  let result = null;       // the last successful answer
  let note = "";           // e.g. a share link made with another chancekit version
  let linkError = null;    // a share link that could not be read: said once, above the result

  const kind = () => $("#kind").value;
  const two = () => document.querySelector("input[name=sides]:checked").value === "2";
  const mode = () => document.querySelector("input[name=mode]:checked").value;

  function sync() {
    document.querySelectorAll("[data-for]").forEach((r) => {
      r.hidden = r.dataset.for !== kind() || (r.hasAttribute("data-two") && !two());
    });
    $("#first-name").textContent = two() ? "First side" : "Hit points";
    $("#damage-name").textContent = two() ? "deals a round" : "takes a round";
  }
  $("#chips").replaceChildren(...PRESETS.map((p) => el("button", { type: "button", class: "chip",
    onclick: () => { $("#system").value = p; $("#value").value = ""; run(); } }, p)));

  function body() {
    const k = kind();
    const upto = $("#upto").value.trim();
    const out = { kind: k };
    if (upto !== "") out.upto = Number(upto);
    if (k === "usage-die") Object.assign(out, { ladder: $("#ladder").value, down: $("#down").value });
    else if (k === "race") {
      Object.assign(out, { hp: Number($("#hp").value), damage: $("#damage").value });
      if (two()) Object.assign(out, { hp2: Number($("#hp2").value), damage2: $("#damage2").value,
                                      order: $("#order").value });
    } else if (k === "first-success") Object.assign(out, { system: $("#system").value, value: $("#value").value });
    else Object.assign(out, { die: $("#die").value, sequence: $("#sequence").value });
    return out;
  }
  const view = () => ({ ...Object.fromEntries(FIELDS.map((f) => [f, $(`#${f}`).value])), sides: two() ? 2 : 1,
                        mode: mode(), log: $("#log").checked, bars: $("#bars").checked });
  function apply(state) {
    for (const f of FIELDS) if (typeof state[f] === "string" && $(`#${f}`)) $(`#${f}`).value = state[f];
    if (![...$("#kind").options].some((o) => o.value === $("#kind").value)) $("#kind").value = "usage-die";
    document.querySelector(`input[name=sides][value="${state.sides === 2 ? 2 : 1}"]`).checked = true;
    if (MODES[state.mode]) document.querySelector(`input[name=mode][value=${state.mode}]`).checked = true;
    $("#log").checked = !!state.log; $("#bars").checked = !!state.bars;
    sync();
  }

  const runs = CK.runner({ hasResult: () => !!result, onError: (r) => {
    const err = { ...(r.data.error || { message: "error" }) };
    if (!err.where && LABELS[err.field] && err.message)
      err.message = err.message.replace(`'${err.field}'`, LABELS[err.field]);
    $("#error").replaceChildren(errorBox(err, { where: err.where ? `${err.where}: ` : "" }));
    return false;
  }, onDone: (r) => {
    result = r.data;
    $("#status").textContent = note + CK.timing(r);
    render();
  } });

  function run() {
    $("#error").replaceChildren(...(linkError ? [linkError] : []));
    linkError = null;
    return runs.go("/api/markov", body());
  }

  // the sentence shows decimals; an exact value that is short is said inline ("exactly
  // 20"), a long fraction (40 digits) only on demand, behind an "exact" button
  const SHORT = 12;
  const exactly = (text, what) => {
    if (!text) return [];
    if (text.length <= SHORT) return [` (exactly ${text})`];
    const shown = el("code", { class: "exact-text", hidden: true }, text);
    const btn = el("button", { type: "button", class: "exact-toggle", "aria-expanded": "false",
                               title: `the exact ${what} as a fraction (${text.length} characters)` }, "exact");
    btn.addEventListener("click", () => {
      shown.hidden = !shown.hidden;
      btn.setAttribute("aria-expanded", String(!shown.hidden));
      btn.textContent = shown.hidden ? "exact" : "hide";
    });
    return [" ", btn, shown];
  };
  function render() {
    if (!result) return;
    const [key, exactKey, modeName] = MODES[mode()];
    const d = result, unit = d.unit;
    $("#mode-name").textContent = `(${modeName})`;
    $("#unit-name").textContent = unit[0].toUpperCase() + unit.slice(1);
    CKChart.draw($("#chart"), { series: [{ name: d.title, points: d.rows.map((r) => ({
      x: r.x, label: r.label, y: r[key], exact: r[exactKey],
      tip: `${r.label} ${unit}: ${pct(r[key])}` + (r[exactKey] ? `\nexactly ${r[exactKey]}` : "") })) }],
      log: $("#log").checked, bars: $("#bars").checked, percent: true, legend: false, integerX: true,
      xLabel: unit, yLabel: modeName, title: `${d.title} (${modeName})` });
    $("#figures").replaceChildren(el("b", {}, d.title), ". ",
      el("span", { id: "mean", "data-exact": d.mean || "" }, `Mean ${num(d.mean_float, 6)} ${unit}`,
         ...exactly(d.mean, "mean")),
      ", ", el("span", { id: "variance", "data-exact": d.variance || "" },
               `variance ${num(d.variance_float, 6)}`, ...exactly(d.variance, "variance")),
      `, sd ${num(d.sd, 6)}.`);
    const last = d.shown_upto;
    $("#tail-note").replaceChildren(d.complete
      ? el("span", { id: "tail", "data-exact": "0" }, `Complete: the count never exceeds ${last} ${unit}; nothing is left over.`)
      : el("span", { id: "tail", "data-exact": d.tail || "", "data-p": d.tail_float },
           `Not shown: more than ${last} ${unit}, probability ${pct(d.tail_float, 6)}`, ...exactly(d.tail, "probability"),
           (d.rows_cut ? ` (${d.rows_cut} more counts were computed than are listed)` : "") +
           ". The rows above and this sum to 1 exactly."));
    $("#notes").replaceChildren(...CK.noteList(d.notes || []));
    $("#winner-card").hidden = !d.winner;
    $("#winner").replaceChildren(...(d.winner ? [
      el("thead", {}, el("tr", {}, el("th", { class: "l" }, "result"), el("th", {}, "probability"), el("th", {}, "exact"))),
      el("tbody", {}, d.winner.map((w) => el("tr", { "data-outcome": w.outcome }, el("td", { class: "l" }, w.label),
        el("td", {}, pct(w.p)), el("td", { class: "exact-cell" }, w.p_exact || "–"))))] : []));
    $("#outcomes").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", {}, unit), el("th", {}, "probability"), el("th", {}, "exact"),
        el("th", {}, "at least"), el("th", {}, "at most"))),
      el("tbody", {}, d.rows.map((r) => el("tr", { "data-count": r.count },
        el("td", {}, r.label), el("td", {}, pct(r.p)), el("td", { class: "exact-cell" }, r.p_exact || "–"),
        el("td", {}, pct(r.ge)), el("td", {}, pct(r.le))))));
  }

  function exportCSV() {
    if (!result) return;
    const out = ["count,probability,probability_exact,at_least,at_least_exact,at_most,at_most_exact"];
    for (const r of result.rows) out.push([r.count, r.p, r.p_exact, r.ge, r.ge_exact, r.le, r.le_exact]
      .map((v) => String(v ?? "")).join(","));
    out.push(`"more than ${result.shown_upto}",${result.tail_float},${result.tail ?? ""},,,,`);
    download(`chancekit-${result.kind}.csv`, out.join("\n") + "\n", "text/csv");
  }
  function exportJSON() {
    if (result) download(`chancekit-${result.kind}.json`, JSON.stringify({ request: body(), ...result }, null, 2),
                         "application/json");
  }
  const share = () => CK.share(view());

  $("#kind").addEventListener("change", () => { sync(); run(); });
  document.querySelectorAll("input[name=sides]").forEach((i) => i.addEventListener("change", () => { sync(); run(); }));
  $("#run").addEventListener("click", run);
  for (const f of FIELDS) if ($(`#${f}`).tagName === "INPUT")
    $(`#${f}`).addEventListener("keydown", (e) => { if (e.key === "Enter") run(); });
  document.querySelectorAll("input[name=mode], #log, #bars").forEach((i) => i.addEventListener("change", render));
  $("#csv").addEventListener("click", exportCSV);
  $("#json").addEventListener("click", exportJSON);
  $("#share").addEventListener("click", share);
  $("#png").addEventListener("click", () => result && CKChart.exportPNG($("#chart"), `chancekit-${result.kind}`));
  $("#svg").addEventListener("click", () => result && CKChart.exportSVG($("#chart"), `chancekit-${result.kind}`));
  sync();
  (async () => {
    if (location.hash.length > 1) {
      try {
        const got = await CK.decodeState(location.hash);
        if (!got) throw new Error("no state");
        apply(got.state);
        if (got.version && got.version !== CK.version())
          note = `link made with chancekit ${got.version}; this is ${CK.version()} · `;
      } catch (e) {
        linkError = errorBox({ message: "this share link is damaged: it could not be read; " +
                                        "the page shows its usual example instead" });
      }
    }
    run();
  })();
})();
