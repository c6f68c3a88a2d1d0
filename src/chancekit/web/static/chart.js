// chancekit web app: small inline-SVG charts (lines with points, grouped bars), no library;
// drawn at the container's real width (labels stay 11 px on a phone), exported as SVG or PNG
"use strict";
const CKChart = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const PALETTE = ["#3b5ba5", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860",
                   "#da8bc3", "#8c8c8c", "#ccb974", "#64b5cd", "#2f4b7c", "#a05195"];
  // up to 12 series: the palette; more (Transpose: one series per outcome): evenly spaced
  // hues at three lightnesses, so every series has its own colour
  const color = (i, n = PALETTE.length) => n <= PALETTE.length ? PALETTE[i % PALETTE.length] :
    `hsl(${Math.round((i * 360) / n)}, 70%, ${[38, 52, 30][i % 3]}%)`;
  const CHAR = 6.4;   // the width of an 11 px label's character, about
  const svg = (tag, attrs = {}, text) => {
    const e = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  function niceTicks(lo, hi, count = 6) {
    if (!(hi > lo)) return [lo];
    const raw = (hi - lo) / count, mag = 10 ** Math.floor(Math.log10(raw));
    const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) || raw;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
    return out;
  }
  const fmtY = (v, percent) => percent ? (Math.abs(v) < 0.001 && v !== 0 ? (100 * v).toExponential(0) + "%" :
    +(100 * v).toPrecision(3) + "%") : +v.toPrecision(4) + "";

  let tip = null;
  function showTip(evt, text) {
    if (!tip) { tip = document.createElement("div"); tip.className = "tip"; document.body.append(tip); }
    tip.textContent = text; tip.style.display = "block";
    tip.style.left = `${evt.clientX + 12}px`; tip.style.top = `${evt.clientY + 12}px`;
  }
  const hideTip = () => { if (tip) tip.style.display = "none"; };

  // series: [{name, points: [{x, label, y, tip, exact}]}]; categorical x uses `categories`
  function draw(container, opts) {
    container._ckOpts = opts;  // redrawn at the new width when the window is resized
    const W = opts.width || Math.max(300, Math.min(1400, Math.round(container.clientWidth || 900)));
    const narrow = W < 600;
    const M = { l: narrow ? 50 : 64, r: 12, t: 14, b: opts.xLabel ? 52 : 40 };
    // category labels (loot names, outputs) are never cut short below 24 characters: when
    // they do not fit side by side they are drawn slanted, with room made below the axis
    const cats0 = opts.categories;
    const catStep = cats0 ? Math.max(1, Math.ceil(cats0.length / Math.floor((W - M.l - M.r) / 40))) : 1;
    const catText = (v) => { const t = String(cats0[v]); return t.length > 24 ? t.slice(0, 23) + "…" : t; };
    let slant = 0;
    if (cats0 && cats0.length) {
      const room = (W - M.l - M.r) / cats0.length * catStep - 8;
      const longest = Math.max(...cats0.map((_, i) => (i % catStep ? 0 : catText(i).length)));
      if (longest * CHAR > room) slant = Math.ceil(longest * CHAR * 0.6);   // sin 37 degrees
    }
    M.b += slant;
    const H = (opts.height ? (narrow ? Math.round(opts.height * 0.85) : opts.height) : (narrow ? 280 : 340)) + slant;
    const series = opts.series.filter((s) => s.points.length);
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
                             class: "ck-chart", "data-kind": opts.bars ? "bars" : "lines",
                             "data-log": opts.log ? "1" : "0", "aria-label": opts.title || "chart" });
    // the y range holds the points and the tops of their error bars (an estimate's `hi`)
    const ys = series.flatMap((s) => s.points.flatMap((p) => [p.y, p.hi ?? null]))
      .filter((y) => y !== null && y !== undefined && isFinite(y));
    const cats = opts.categories;
    let xs = cats ? [0, Math.max(cats.length - 1, 1)] :
      series.flatMap((s) => s.points.map((p) => p.x)).filter((x) => x !== null && isFinite(x));
    if (!xs.length) xs = [0, 1];
    let x0 = Math.min(...xs), x1 = Math.max(...xs);
    // the smallest gap between two outcomes: a bar's slot, and how far apart two outcomes
    // may be for a line to join them (integers: only neighbours; 4d6k3's 0, 3, 6 are not)
    const distinct = [...new Set(series.flatMap((s) => s.points.map((p) => p.x))
      .filter((x) => x !== null && isFinite(x)))].sort((a, b) => a - b);
    let gap = 1;
    if (!cats && distinct.length > 1) {
      gap = Infinity;
      for (let i = 1; i < distinct.length; i++) gap = Math.min(gap, distinct[i] - distinct[i - 1]);
      if (distinct.every(Number.isInteger)) gap = 1;
    }
    if (opts.step) gap = opts.step;  // the caller knows the spacing (an estimate's bins)
    if (opts.bars || cats) { x0 -= gap / 2; x1 += gap / 2; }
    if (x1 === x0) { x0 -= 1; x1 += 1; }
    let y0, y1, Y;
    const plotH = H - M.t - M.b, plotW = W - M.l - M.r;
    if (opts.log) {
      const pos = ys.filter((y) => y > 0);
      const lo = pos.length ? Math.min(...pos) : 1e-6, hi = pos.length ? Math.max(...pos) : 1;
      y0 = Math.floor(Math.log10(Math.max(lo, 1e-300))); y1 = Math.ceil(Math.log10(hi));
      if (y1 === y0) y1 += 1;
      Y = (y) => M.t + plotH * (1 - (Math.log10(Math.max(y, 10 ** y0)) - y0) / (y1 - y0));
    } else {
      y0 = Math.min(0, ...ys); y1 = Math.max(...ys, 0) * 1.05 || 1;
      Y = (y) => M.t + plotH * (1 - (y - y0) / (y1 - y0));
    }
    const X = (x) => M.l + plotW * (x - x0) / (x1 - x0);
    // grid and axes
    const yt = opts.log ? Array.from({ length: y1 - y0 + 1 }, (_, i) => 10 ** (y0 + i)) : niceTicks(y0, y1 / 1.05 * 1.04);
    const grid = svg("g", { class: "grid-lines" });
    for (const v of yt) {
      const y = Y(v);
      grid.append(svg("line", { x1: M.l, x2: W - M.r, y1: y, y2: y, class: "grid" }));
      grid.append(svg("text", { x: M.l - 6, y: y + 4, "text-anchor": "end" },
                      opts.log ? (opts.percent ? fmtY(v, true) : v.toExponential(0)) : fmtY(v, opts.percent)));
    }
    root.append(grid);
    const xt = cats ? cats.map((_, i) => i) : niceTicks(x0, x1, Math.min(12, Math.round(plotW / 60)))
      .filter((v) => (!(opts.integerX || (distinct.length && distinct.every(Number.isInteger))) ||
                      Number.isInteger(v)));
    const step = catStep;
    const xaxis = svg("g", { class: "x-axis" });
    xt.forEach((v, i) => {
      if (i % step) return;
      const at = { x: X(v), y: H - M.b + 16, "text-anchor": "middle" };
      if (cats && slant) Object.assign(at, { y: H - M.b + 12, "text-anchor": "end",
                                             transform: `rotate(-37 ${X(v).toFixed(1)} ${H - M.b + 12})` });
      const t = svg("text", at, cats ? catText(v) : +v.toPrecision(6) + "");
      if (cats && String(cats[v]) !== catText(v)) t.append(svg("title", {}, String(cats[v])));
      xaxis.append(t);
    });
    root.append(xaxis);
    root.append(svg("line", { x1: M.l, x2: W - M.r, y1: H - M.b, y2: H - M.b, class: "axis" }));
    root.append(svg("line", { x1: M.l, x2: M.l, y1: M.t, y2: H - M.b, class: "axis" }));
    if (opts.xLabel) root.append(svg("text", { x: M.l + plotW / 2, y: H - 8, "text-anchor": "middle" }, opts.xLabel));
    if (opts.yLabel) root.append(svg("text", { x: 12, y: M.t + plotH / 2, "text-anchor": "middle",
                                              transform: `rotate(-90 12 ${M.t + plotH / 2})` }, opts.yLabel));
    // data
    const n = series.length;
    // an error bar (an estimate's interval, `lo` to `hi`) under a point or bar
    const whisker = (g, x, p) => {
      if (p.lo === undefined || p.hi === undefined || p.lo === null || p.hi === null) return;
      const a = Y(opts.log ? Math.max(p.lo, 10 ** y0) : p.lo), b = Y(p.hi);
      g.append(svg("line", { class: "err", x1: x, x2: x, y1: a, y2: b, "stroke-width": 1.2,
                             stroke: "#1d2330", "data-lo": p.lo, "data-hi": p.hi }));
      for (const y of [a, b]) g.append(svg("line", { x1: x - 3, x2: x + 3, y1: y, y2: y,
                                                     "stroke-width": 1.2, stroke: "#1d2330" }));
    };
    const slot = plotW * gap / (x1 - x0);
    series.forEach((s, k) => {
      const c = s.color || color(k, n);
      const g = svg("g", { class: "series", "data-series": s.name, fill: c, stroke: c });
      const pts = s.points.filter((p) => p.y !== null && isFinite(p.y) && (cats || p.x !== null));
      if (opts.bars) {
        const bw = Math.max(slot * 0.8 / n, 0.5);
        for (const p of pts) {
          const x = X(p.x) - slot * 0.4 + k * bw;
          const top = Y(p.y), base = Y(opts.log ? 10 ** y0 : 0);
          const r = svg("rect", { class: "bar", x, y: Math.min(top, base), width: bw,
                                  height: Math.abs(base - top), "data-x": p.label, "data-y": p.y,
                                  "data-exact": p.exact || "", stroke: "none" });
          r.append(svg("title", {}, p.tip));
          r.addEventListener("mousemove", (e) => showTip(e, p.tip));
          r.addEventListener("mouseleave", hideTip);
          g.append(r);
          whisker(g, x + bw / 2, p);
        }
      } else {
        // one polyline per run of neighbouring outcomes: no line across outcomes that
        // cannot happen (categories are always joined)
        const runs = [];
        for (const p of pts) {
          const last = runs.length ? runs[runs.length - 1] : null;
          const prev = last ? last[last.length - 1] : null;
          if (prev && (cats || p.x - prev.x <= gap * 1.0000001)) last.push(p); else runs.push([p]);
        }
        for (const run of runs) if (run.length > 1)
          g.append(svg("polyline", { fill: "none", "stroke-width": 1.8, "stroke-linejoin": "round",
                                     points: run.map((p) => `${X(p.x).toFixed(2)},${Y(p.y).toFixed(2)}`).join(" ") }));
        const r = pts.length > 200 ? 1.6 : 3.2;
        for (const p of pts) {
          const dot = svg("circle", { class: "pt", cx: X(p.x).toFixed(2), cy: Y(p.y).toFixed(2), r,
                                      stroke: "none", "data-x": p.label, "data-y": p.y,
                                      "data-exact": p.exact || "" });
          whisker(g, X(p.x), p);
          dot.append(svg("title", {}, p.tip));
          dot.addEventListener("mousemove", (e) => showTip(e, p.tip));
          dot.addEventListener("mouseleave", hideTip);
          g.append(dot);
        }
      }
      root.append(g);
    });
    container.replaceChildren(root);
    if (opts.legend) {
      const leg = document.createElement("div"); leg.className = "legend";
      series.forEach((s, k) => {
        const sp = document.createElement("span"); sp.textContent = s.name;
        sp.style.setProperty("--c", s.color || color(k, n)); leg.append(sp);
      });
      container.append(leg);
    }
    return root;
  }
  // `text` in lines of at most `width` characters (words kept whole when they fit), at
  // most `most` lines, the last cut with an ellipsis
  function wrapWords(text, width, most) {
    const lines = [];
    let line = "";
    for (const word of String(text).split(/\s+/).filter(Boolean)) {
      const next = line ? `${line} ${word}` : word;
      if (next.length <= width) { line = next; continue; }
      if (line) lines.push(line);
      line = word.length > width ? word.slice(0, width - 1) + "…" : word;
    }
    if (line) lines.push(line);
    if (lines.length > most) {
      lines.length = most;
      lines[most - 1] = lines[most - 1].slice(0, width - 1) + "…";
    }
    return lines;
  }
  // the chart as a standalone SVG file: its styles inline, a white background, its title
  // above it (the chart's `title`: the series or the program's outputs), the legend below
  function standalone(container) {
    const src = container.querySelector("svg.ck-chart");
    if (!src) return null;
    const out = src.cloneNode(true);
    const W = +out.getAttribute("width"), H1 = +out.getAttribute("height");
    const names = [...src.querySelectorAll("g.series")].map((g) => [g.dataset.series, g.getAttribute("fill")]);
    const legendRows = names.length <= 24 ? Math.ceil(names.length / Math.max(1, Math.floor(W / 150))) : 0;
    const title = wrapWords((container._ckOpts && container._ckOpts.title) || "", Math.floor((W - 24) / 7.5), 3);
    const T = title.length ? 10 + title.length * 18 : 0;   // the title's height
    const body = svg("g", { class: "chart-body", transform: `translate(0 ${T})` });
    body.append(...out.childNodes);
    out.append(body);
    const H0 = H1 + T, H = H0 + legendRows * 18;
    out.setAttribute("xmlns", NS);
    out.setAttribute("height", H); out.setAttribute("viewBox", `0 0 ${W} ${H}`);
    out.insertBefore(svg("style", {}, "text{font:11px system-ui,sans-serif;fill:#4a5261}" +
      ".axis{stroke:#8a93a3}.grid{stroke:#e7e9ee}text.chart-title{font:600 13px system-ui,sans-serif;fill:#1d2330}"),
      out.firstChild);
    out.insertBefore(svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff" }), out.children[1]);
    title.forEach((line, i) => out.append(svg("text", { class: "chart-title", x: W / 2, y: 20 + i * 18,
                                                        "text-anchor": "middle" }, line)));
    const per = Math.max(1, Math.floor(W / 150));
    if (legendRows) names.forEach(([name, c], i) => {
      const x = 12 + (i % per) * 150, y = H0 + 4 + Math.floor(i / per) * 18;
      out.append(svg("rect", { x, y, width: 10, height: 10, fill: c }));
      out.append(svg("text", { x: x + 15, y: y + 9 }, String(name).slice(0, 22)));
    });
    out.querySelectorAll("title").forEach((t) => t.remove());
    return { text: new XMLSerializer().serializeToString(out), width: W, height: H };
  }
  function exportSVG(container, name) {
    const s = standalone(container);
    if (s) CK.download(`${name}.svg`, s.text, "image/svg+xml");
  }
  // PNG at twice the size: the SVG drawn on a canvas (a blob: image, allowed by the CSP)
  async function exportPNG(container, name) {
    const s = standalone(container);
    if (!s) return;
    const url = URL.createObjectURL(new Blob([s.text], { type: "image/svg+xml" }));
    try {
      const img = new Image();
      await new Promise((ok, bad) => { img.onload = ok; img.onerror = bad; img.src = url; });
      const canvas = document.createElement("canvas");
      canvas.width = 2 * s.width; canvas.height = 2 * s.height;
      const ctx = canvas.getContext("2d");
      ctx.scale(2, 2); ctx.drawImage(img, 0, 0, s.width, s.height);
      const blob = await new Promise((ok) => canvas.toBlob(ok, "image/png"));
      CK.download(`${name}.png`, blob, "image/png");
    } finally { URL.revokeObjectURL(url); }
  }
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => document.querySelectorAll(".chart").forEach((c) => {
      if (c._ckOpts && c.offsetParent !== null) draw(c, c._ckOpts);
    }), 150);
  });
  return { draw, color, exportSVG, exportPNG, standalone };
})();
