// Roll page: seeded rolls with the breakdown; the named-stream demo
"use strict";
(() => {
  const { el, $, api, errorBox } = CK;
  // "4d6kh3 (3, ~~1~~, 6, 5) = 14": dropped dice struck through
  function breakdown(text) {
    const parts = text.split(/~~(.*?)~~/);
    return parts.map((p, i) => (i % 2 ? el("s", { title: "dropped" }, p) : p));
  }
  const seedValue = () => {
    const s = $("#seed").value.trim();
    if (!s) return null;
    return /^\d+$/.test(s) && s.length < 16 ? Number(s) : s;
  };
  async function roll() {
    $("#error").replaceChildren(); $("#notes").replaceChildren(); document.body.dataset.state = "busy";
    const names = $("#names").value.split(",").map((s) => s.trim()).filter(Boolean).slice(0, 8);
    const r = await api("/api/roll", { text: $("#text").value, seed: seedValue(),
      stream: $("#stream").value.trim() || null, n: Number($("#n").value), streams: names, demo_n: 6,
      dialect: $("#dialect").value });
    if (!r.ok) {
      $("#error").replaceChildren(errorBox(r.data.error || {}));
      if ($("#rolls").children.length) CK.stale(true, "The last roll failed (see above).");
      document.body.dataset.state = "error";
      return;
    }
    const d = r.data;
    CK.stale(false);
    $("#notes").replaceChildren(...CK.noteList(d.notes || []));
    if (!$("#seed").value.trim()) $("#seed").value = String(d.seed);
    $("#status").textContent = `seed ${d.seed}` + (d.stream ? `, stream "${d.stream}"` : "");
    $("#rolls").replaceChildren(...d.rolls.map((x) => el("li", { "data-total": x.total }, breakdown(x.text))));
    $("#streams").replaceChildren(
      el("thead", {}, el("tr", {}, el("th", { class: "l" }, "stream"), d.streams[0] ?
        d.streams[0].rolls.map((_, i) => el("th", {}, `#${i + 1}`)) : [])),
      el("tbody", {}, d.streams.map((s) => el("tr", { "data-stream": s.stream }, el("td", { class: "l" }, s.stream),
        s.rolls.map((v) => el("td", {}, v))))));
    document.body.dataset.state = "done";
  }
  $("#roll").addEventListener("click", roll);
  $("#dialect").addEventListener("change", roll);
  for (const id of ["#text", "#seed", "#stream", "#names"])
    $(id).addEventListener("keydown", (e) => { if (e.key === "Enter") roll(); });
  roll();
})();
