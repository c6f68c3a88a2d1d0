// chancekit web app: a small code editor over a plain <textarea> (no library, no CDN).
// The textarea stays the source of truth (its value, selection, undo, keyboard and screen
// reader behaviour are the browser's); a <pre> drawn under it, with the same font, padding
// and wrapping, shows the text highlighted, and the bracket next to the caret with its
// partner (red when it has none). Optional: line numbers in a gutter, one line marked.
// Keys: Tab indents (two spaces) when `tabIndents`; Escape then Tab leaves the editor
// (as in CodeMirror and Monaco), Shift+Tab always does. On a phone (600 px or narrower)
// long lines wrap and the editor grows with its text instead of scrolling sideways.
"use strict";
const CKEditor = (() => {
  const KEYWORDS = new Set(["output", "named", "function", "result", "if", "else", "loop", "over",
                            "set", "to"]);
  const OPEN = { "(": ")", "[": "]", "{": "}" }, CLOSE = { ")": "(", "]": "[", "}": "{" };
  //: past this many characters the text is shown plain (highlighting is O(length) per key)
  const MAX_HIGHLIGHT = 50_000;

  // AnyDice: comments \ ... \, strings, numbers, VARIABLES, keywords, function words, d
  const ANYDICE = /(\\[^\\]*\\?)|("[^"\n]*"?)|([0-9]+)|([A-Z_]+)|([a-z]+)|(!=|<=|>=|\.\.|[-+*/^@#!&|=<>:,?])|([()[\]{}])/g;
  // dice notation: # comments (a whole line), a "label:" at the start of a line, numbers,
  // letters (d, kh, cs, ...), operators, brackets
  const DICE = /(^[ \t]*#.*$)|(^[^:\n]{1,100}?:(?=.))|([0-9]+(?:\.[0-9]+)?)|([A-Za-z]+)|(!=|<=|>=|[-+*/^!<>=,%])|([()[\]{}])/gm;

  function tokens(text, language) {
    const out = [], re = language === "anydice" ? ANYDICE : DICE;
    re.lastIndex = 0;
    let m;
    while ((m = re.exec(text)) !== null) {
      if (m[0] === "") { re.lastIndex++; continue; }
      let cls;
      if (language === "anydice") {
        cls = m[1] ? "com" : m[2] ? "str" : m[3] ? "num" : m[4] ? "var" :
          m[5] ? (m[5] === "d" ? "dice" : KEYWORDS.has(m[5]) ? "kw" : "word") : m[6] ? "op" : "br";
      } else {
        cls = m[1] ? "com" : m[2] ? "label" : m[3] ? "num" : m[4] ? "dice" : m[5] ? "op" : "br";
      }
      out.push({ start: m.index, end: m.index + m[0].length, cls });
    }
    return out;
  }

  // brackets paired with one stack per kind: a closer pairs with the nearest unclosed
  // opener of its kind; the rest stay unpaired. O(number of brackets), whatever the text
  function pairs(toks, text) {
    const partner = new Array(toks.length).fill(-1), stacks = { "(": [], "[": [], "{": [] };
    toks.forEach((t, i) => {
      if (t.cls !== "br") return;
      const ch = text[t.start];
      if (OPEN[ch]) { stacks[ch].push(i); return; }
      const stack = stacks[CLOSE[ch]];
      if (!stack.length) return;
      const open = stack.pop();
      partner[open] = i; partner[i] = open;
    });
    return partner;
  }

  function attach(ta, { language = "anydice", gutter = null, badLine = () => null, tabIndents = false } = {}) {
    // the textarea goes into a box with the highlighted copy under it
    const box = document.createElement("div");
    box.className = "ck-code";
    const pre = document.createElement("pre");
    pre.className = "ck-hl"; pre.setAttribute("aria-hidden", "true");
    ta.parentNode.insertBefore(box, ta);
    box.append(pre, ta);
    ta.classList.add("ck-input");
    ta.removeAttribute("wrap");
    const narrow = window.matchMedia("(max-width: 600px)");
    let escaped = false;          // Escape was the last key: the next Tab leaves
    let drawn = null, resized = false;   // the text last drawn; the width changed since
    let rows = [], sigs = [];            // one block per line drawn, and what it shows
    let lineStart = [0];                 // the offset where each line starts
    let brackets = new Map(), marked = [];   // bracket offset -> its partner's (or -1)
    let numbered = "";                   // what the gutter shows (its count and marked line)

    function grow() {             // wrapped (phone): as tall as the text, no inner scrolling
      if (!box.classList.contains("wrap")) { ta.style.height = ""; return; }
      ta.style.height = "auto";
      ta.style.height = `${ta.scrollHeight + 2}px`;
    }
    // the copy under the textarea must lay its text out exactly as the textarea does
    const COPY = ["paddingTop", "paddingRight", "paddingBottom", "paddingLeft", "borderTopWidth",
                  "borderRightWidth", "borderBottomWidth", "borderLeftWidth", "fontFamily", "fontSize",
                  "lineHeight", "letterSpacing", "tabSize", "whiteSpace", "overflowWrap", "wordBreak"];
    function match() {
      const cs = getComputedStyle(ta);
      for (const k of COPY) pre.style[k] = cs[k];
      // room to scroll as far as the textarea can (its scrollbars take room the copy has not)
      pre.style.paddingRight = `calc(${cs.paddingRight} + 40px)`;
      pre.style.paddingBottom = `calc(${cs.paddingBottom} + 40px)`;
      pre.style.borderStyle = "solid"; pre.style.borderColor = "transparent";
    }
    function render() {
      const text = ta.value;
      if (box.classList.contains("wrap") !== narrow.matches) {
        box.classList.toggle("wrap", narrow.matches); match();
      }
      grow();
      const plain = text.length > MAX_HIGHLIGHT;
      box.classList.toggle("plain", plain);
      const toks = plain ? [] : tokens(text, language);
      const partner = pairs(toks, text);
      // each line as [class, text] pieces (a comment may run over several lines)
      const lines = [[]];
      const put = (piece, cls) => piece.split("\n").forEach((part, k) => {
        if (k) lines.push([]);
        if (part) lines[lines.length - 1].push([cls, part]);
      });
      brackets = new Map(); marked = [];
      let at = 0;
      toks.forEach((t, i) => {
        if (t.start > at) put(text.slice(at, t.start), "");
        if (t.cls === "br") brackets.set(t.start, partner[i] >= 0 ? toks[partner[i]].start : -1);
        put(text.slice(t.start, t.end), t.cls);
        at = t.end;
      });
      if (at < text.length) put(text.slice(at), "");
      lineStart = [0];
      for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStart.push(i + 1);
      // only the lines that changed are drawn again (the browser then lays out only
      // those): the unchanged lines before and after the edit keep their blocks
      const next = lines.map((pieces) => pieces.map(([c, t]) => `${c}\u0001${t}`).join("\u0002"));
      let head = 0, tail = 0;
      while (head < next.length && head < sigs.length && next[head] === sigs[head]) head++;
      while (tail < next.length - head && tail < sigs.length - head &&
             next[next.length - 1 - tail] === sigs[sigs.length - 1 - tail]) tail++;
      const fresh = lines.slice(head, lines.length - tail).map((pieces) => {
        const div = document.createElement("div");
        div.className = "ck-line";
        let col = 0;
        for (const [cls, part] of pieces) {
          if (!cls) div.append(part);
          else {
            const span = document.createElement("span");
            span.className = `tok-${cls}`; span.textContent = part;
            if (cls === "br") span.dataset.col = col;
            div.append(span);
          }
          col += part.length;
        }
        if (!pieces.length) div.textContent = "\u200b";   // an empty line keeps its height
        return div;
      });
      const gone = rows.slice(head, rows.length - tail);
      const after = rows[rows.length - tail] || null;
      for (const div of gone) div.remove();
      for (const div of fresh) pre.insertBefore(div, after);
      rows = [...rows.slice(0, head), ...fresh, ...rows.slice(rows.length - tail)];
      sigs = next;
      if (gutter) {
        // wrapped (phone): each number as tall as its wrapped line
        const bad = badLine(), n = rows.length, wrap = box.classList.contains("wrap");
        const heights = wrap && n <= 5000 ? rows.map((row) => row.getBoundingClientRect().height) : null;
        const key = `${n}:${bad}:${heights ? heights.join(",") : ""}`;
        if (key !== numbered) {
          numbered = key;
          const kids = [];
          for (let k = 1; k <= n; k++) {
            if (!heights && k !== bad) { kids.push(k < n ? `${k}\n` : `${k}`); continue; }
            const span = document.createElement("span");
            span.textContent = String(k);
            span.className = (heights ? "ln " : "") + (k === bad ? "bad" : "");
            if (k === bad) span.dataset.line = k;
            if (heights) span.style.height = `${heights[k - 1]}px`;
            kids.push(span);
            if (!heights && k < n) kids.push("\n");
          }
          gutter.replaceChildren(...kids);
        }
      }
      drawn = text; resized = false;
      sync();
      mark();
    }
    // the bracket just before or just after the caret, and its partner (O(1): the
    // brackets were paired when the text was drawn)
    function mark() {
      for (const span of marked) span.classList.remove("bm", "bm-bad");
      marked = [];
      if (ta.selectionStart !== ta.selectionEnd || document.activeElement !== ta) return;
      const caret = ta.selectionStart;
      const here = brackets.has(caret - 1) ? caret - 1 : brackets.has(caret) ? caret : null;
      if (here === null) return;
      const other = brackets.get(here);
      const spanAt = (offset) => {       // the span of the bracket at `offset`
        let lo = 0, hi = lineStart.length - 1;
        while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (lineStart[mid] <= offset) lo = mid; else hi = mid - 1; }
        const span = rows[lo] && rows[lo].querySelector(`span[data-col="${offset - lineStart[lo]}"]`);
        if (span) span.dataset.at = offset;
        return span;
      };
      marked = [spanAt(here), other >= 0 ? spanAt(other) : null].filter(Boolean);
      for (const span of marked) span.classList.add(other >= 0 ? "bm" : "bm-bad");
    }
    function sync() {
      pre.scrollTop = ta.scrollTop; pre.scrollLeft = ta.scrollLeft;
      if (gutter) gutter.scrollTop = ta.scrollTop;
    }
    // a caret move only re-marks brackets; a new text (or width) draws everything again
    let pending = 0;
    const later = () => {
      if (!pending) pending = requestAnimationFrame(() => {
        pending = 0;
        if (ta.value !== drawn || resized) render(); else mark();
      });
    };
    const resize = () => { resized = true; later(); };

    ta.addEventListener("keydown", (e) => {
      if (e.key === "Escape") { escaped = true; return; }
      if (e.key === "Tab" && tabIndents && !escaped && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey) {
        e.preventDefault();                       // indent, as an editor does
        const a = ta.selectionStart, b = ta.selectionEnd, text = ta.value;
        if (text.slice(a, b).includes("\n")) {   // several lines selected: indent each
          const from = text.lastIndexOf("\n", a - 1) + 1;
          const body = text.slice(from, b), trail = body.endsWith("\n");   // not the line after
          const block = (trail ? body.slice(0, -1) : body).replace(/^/gm, "  ") + (trail ? "\n" : "");
          ta.setRangeText(block, from, b, "select");
        } else ta.setRangeText("  ", a, b, "end");
        ta.dispatchEvent(new Event("input", { bubbles: true }));
        return;
      }
      if (!["Shift", "Control", "Alt", "Meta"].includes(e.key)) escaped = false;
    });
    // a value set by the page's code (an example, a share link) is drawn too
    const proto = Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, "value");
    Object.defineProperty(ta, "value", { configurable: true, get() { return proto.get.call(this); },
                                          set(v) { proto.set.call(this, v); later(); } });
    ta.addEventListener("input", render);
    ta.addEventListener("scroll", sync);
    for (const ev of ["keyup", "click", "focus", "blur", "select"]) ta.addEventListener(ev, later);
    document.addEventListener("selectionchange", () => { if (document.activeElement === ta) later(); });
    narrow.addEventListener("change", render);
    box.classList.toggle("wrap", narrow.matches);
    match();
    window.addEventListener("resize", resize);
    if (typeof ResizeObserver === "function") new ResizeObserver(resize).observe(box);
    render();
    return { refresh: render };
  }
  return { attach, tokens, pairs };
})();
