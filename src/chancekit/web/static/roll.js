// Roll page: seeded rolls with the breakdown; the named-stream demo
"use strict";
(() => {
  const { el, $, request: api, errorBox } = CK;
  // "4d6kh3 (3, ~~1~~, 6, 5) = 14": the library's markdown marks as elements -- dropped
  // dice struck through, crits (**20**) bold, fumbles (_1_) underlined; never shown raw
  const MARKS = /~~(.*?)~~|\*\*(.*?)\*\*|(?<![\w])_(-?\d+)_(?![\w])/g;
  function breakdown(text) {
    const out = [];
    let last = 0;
    for (const m of text.matchAll(MARKS)) {
      out.push(text.slice(last, m.index));
      if (m[1] !== undefined) out.push(el("s", { title: "dropped" }, m[1]));
      else if (m[2] !== undefined) out.push(el("b", { title: "critical" }, m[2]));
      else out.push(el("u", { title: "fumble" }, m[3]));
      last = m.index + m[0].length;
    }
    out.push(text.slice(last));
    return out;
  }
  const seedValue = () => {
    const s = $("#seed").value.trim();
    if (!s) return null;
    return /^\d+$/.test(s) && Number.isSafeInteger(Number(s)) ? Number(s) : s;  // up to 2**53 - 1
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
