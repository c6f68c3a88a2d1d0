// API page: the OpenAPI document, rendered as plain HTML (no Swagger UI, no CDN)
"use strict";
(async () => {
  const { el, $, request: api } = CK;
  const r = await api("/api/openapi.json");
  if (!r.ok) { $("#endpoints").textContent = "could not load /api/openapi.json"; return; }
  const doc = r.data;
  const out = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const card = el("div", { class: "card endpoint", "data-path": path },
        el("h2", { style: "font-size:1.05em;margin:.2em 0" }, el("code", {}, `${method.toUpperCase()} ${path}`), " — ", op.summary || ""),
        el("p", {}, op.description || ""));
      const body = op.requestBody && op.requestBody.content["application/json"];
      if (body && body.example) card.append(el("p", { class: "muted" }, "Example request:"),
        el("pre", {}, JSON.stringify(body.example, null, 2)));
      const codes = Object.entries(op.responses || {}).map(([c, v]) => `${c}: ${v.description}`);
      card.append(el("p", { class: "muted" }, codes.join(" · ")));
      out.push(card);
    }
  }
  $("#endpoints").replaceChildren(...out);
})();
