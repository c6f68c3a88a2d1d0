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
  const MAX_HIGHLIGHT = 100_000;

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

  // brackets paired the plain way: one stack per text, a closer pairs with the nearest
  // unclosed opener of its kind (openers skipped over stay unpaired)
  function pairs(toks, text) {
    const partner = new Array(toks.length).fill(-1), stack = [];
    toks.forEach((t, i) => {
      if (t.cls !== "br") return;
      const ch = text[t.start];
      if (OPEN[ch]) { stack.push(i); return; }
      let j = stack.length - 1;
      while (j >= 0 && text[toks[stack[j]].start] !== CLOSE[ch]) j--;
      if (j < 0) return;
      const open = stack[j];
      stack.length = j;
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
      // the bracket just before or just after the caret, and its partner
      const caret = ta.selectionStart === ta.selectionEnd && document.activeElement === ta ? ta.selectionStart : -1;
      let here = -1;
      if (caret >= 0) {
        here = toks.findIndex((t) => t.cls === "br" && t.start === caret - 1);
        if (here < 0) here = toks.findIndex((t) => t.cls === "br" && t.start === caret);
      }
      const lines = [[]];
      const put = (s, cls, attrs) => {
        const parts = s.split("\n");
        parts.forEach((p, k) => {
          if (k) lines.push([]);
          if (!p) return;
          if (!cls) { lines[lines.length - 1].push(p); return; }
          const span = document.createElement("span");
          span.className = cls; span.textContent = p;
          for (const [a, v] of Object.entries(attrs || {})) span.setAttribute(a, v);
          lines[lines.length - 1].push(span);
        });
      };
      let at = 0;
      toks.forEach((t, i) => {
        if (t.start > at) put(text.slice(at, t.start), "");
        let cls = `tok-${t.cls}`;
        if (here >= 0 && (i === here || i === partner[here])) cls += partner[here] >= 0 ? " bm" : " bm-bad";
        put(text.slice(t.start, t.end), cls, t.cls === "br" ? { "data-at": t.start } : null);
        at = t.end;
      });
      if (at < text.length) put(text.slice(at), "");
      const rows = lines.map((kids) => {
        const div = document.createElement("div");
        div.className = "ck-line";
        if (kids.length) div.append(...kids); else div.textContent = "\u200b";
        return div;
      });
      pre.replaceChildren(...rows);
      if (gutter) {
        const bad = badLine();
        const tall = box.classList.contains("wrap") && rows.length <= 5000;
        gutter.replaceChildren(...rows.map((row, k) => {
          const span = document.createElement("span");
          span.textContent = String(k + 1);
          span.className = "ln" + (k + 1 === bad ? " bad" : "");
          if (k + 1 === bad) span.dataset.line = k + 1;
          if (tall) span.style.height = `${row.getBoundingClientRect().height}px`;
          return span;
        }));
      }
      sync();
    }
    function sync() {
      pre.scrollTop = ta.scrollTop; pre.scrollLeft = ta.scrollLeft;
      if (gutter) gutter.scrollTop = ta.scrollTop;
    }
    let pending = 0;
    const later = () => { if (!pending) pending = requestAnimationFrame(() => { pending = 0; render(); }); };

    ta.addEventListener("keydown", (e) => {
      if (e.key === "Escape") { escaped = true; return; }
      if (e.key === "Tab" && tabIndents && !escaped && !e.shiftKey && !e.ctrlKey && !e.altKey && !e.metaKey) {
        e.preventDefault();                       // indent, as an editor does
        ta.setRangeText("  ", ta.selectionStart, ta.selectionEnd, "end");
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
    window.addEventListener("resize", later);
    if (typeof ResizeObserver === "function") new ResizeObserver(later).observe(ta);
    render();
    return { refresh: render };
  }
  return { attach, tokens, pairs };
})();
