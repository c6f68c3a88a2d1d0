// chancekit's Web Worker (a module worker, as Pyodide 314 needs) on the static site: Pyodide, python-flint and chancekit, then one
// call per message into chancekit.web.api.handle_json -- the Python `chancekit serve` calls.
// Messages in: {type: "init", config}, {type: "call", id, path, body}. Out: {type:
// "loading", done, total, stage}, {type: "ready", ms}, {type: "failed", message},
// {type: "started", id}, {type: "progress", id, done, total, piece}, {type: "result", id, text}.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const root = new URL("../", self.location.href).href;
let handle = null;
let booting = null;

function post(m) { self.postMessage(m); }

// fetch one file, counting its bytes (the page shows "loading Python 3.2 / 21 MB"); the
// second fetch of the same file (by Pyodide) comes from the service worker's or the HTTP cache
async function prefetch(files, total) {
  let done = 0, last = 0;
  for (const [name, size] of files) {
    const resp = await fetch(root + name);
    if (!resp.ok) throw new Error(`${name}: HTTP ${resp.status}`);
    const reader = resp.body.getReader();
    let got = 0;
    for (;;) {
      const { done: end, value } = await reader.read();
      if (end) break;
      got += value.length; done += value.length;
      const now = performance.now();
      if (now - last > 100) { last = now; post({ type: "loading", done, total, stage: "downloading" }); }
    }
    done += Math.max(0, size - got);
  }
  post({ type: "loading", done: total, total, stage: "starting Python" });
}

async function boot(config) {
  const t0 = performance.now();
  const stages = {};
  const mark = (name) => { stages[name] = Math.round(performance.now() - t0); };
  const files = Object.entries(config.runtime).filter(([n]) => !n.endsWith(".json"));
  await prefetch(files, files.reduce((s, [, n]) => s + n, 0));
  mark("download");
  const py = await loadPyodide({ indexURL: root + "pyodide/", fullStdLib: false,
                                 stdout: () => {}, stderr: (t) => console.warn(t) });
  mark("python");
  post({ type: "loading", done: 1, total: 1, stage: "loading chancekit" });
  await py.loadPackage(config.wheels.map((w) => root + w), { messageCallback: () => {} });
  mark("wheels");
  py.runPython("from chancekit.web.api import handle_json");
  handle = py.globals.get("handle_json");
  mark("import");
  post({ type: "ready", ms: performance.now() - t0, stages });
}

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === "init") {
    booting = boot(m.config).catch((err) => {
      post({ type: "failed", message: String(err && err.message || err).slice(0, 500) });
      throw err;
    });
    return;
  }
  if (m.type !== "call") return;
  try { await booting; } catch (err) { return; }
  post({ type: "started", id: m.id });
  const progress = (done, total, piece) => post({ type: "progress", id: m.id, done, total,
                                                  piece: piece === undefined ? null : piece });
  let text;
  try {
    text = handle(m.path, m.body === null ? undefined : m.body, progress);  // JS null is not None in Pyodide
  } catch (err) {
    console.error(err);
    text = JSON.stringify([500, { error: { type: "InternalError",
      message: "internal error (see the browser's console)" } }]);
  }
  post({ type: "result", id: m.id, text });
};
