// chancekit's Web Worker (a module worker, as Pyodide 314 needs) on the static site: Pyodide
// and chancekit, then one call per message into chancekit.web.api.handle_json -- the Python
// `chancekit serve` calls. python-flint's types load on first use (chancekit.site.boot).
// Two roles, by the init message:
//  - "serve" (the page's worker): restore Python from the memory snapshot in the browser's
//    cache when there is one (a repeat visit: under a second), else boot CPython (first
//    visit: the downloads counted for the progress line as they arrive);
//  - "snapshot" (a short-lived background worker after a first visit): boot CPython, import
//    the pages' modules, save Pyodide's memory snapshot of that heap into the cache.
// Messages in: {type: "init", config, role}, {type: "call", id, path, body}. Out: {type:
// "loading", done, total, stage}, {type: "ready", ms, stages, snapshot}, {type: "failed",
// message}, {type: "started", id}, {type: "progress", id, done, total, piece}, {type:
// "result", id, text}, {type: "snapshot", state, bytes}.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const root = new URL("../", self.location.href).href;
// Pyodide imports its 1.25 MB module (0.5-0.7 s to compile) only once asked to start: start
// it now, while the page sends the config (the module map gives Pyodide this same one)
import(root + "pyodide/pyodide.asm.mjs").catch(() => {});
const SNAPSHOT_KEY = root + "pyodide/heap.snapshot";  // not a file: an entry of the cache
const WARM_AFTER_MS = 1500;  // flint is loaded once the worker has been idle this long
let handle = null, boot = null, booting = null, warmTimer = null, warmed = false;

function post(m) { self.postMessage(m); }

// count this site's bytes as they arrive, for the page's progress line ("loading Python 3.2 /
// 21 MB"): fetch is wrapped while Python boots on a first visit, so that Pyodide's own
// downloads and the wheels' run at once instead of one after the other. Returns the unwrap.
function countDownloads(total) {
  const plain = self.fetch;
  let done = 0, last = 0;
  self.fetch = async (...args) => {
    const resp = await plain(...args);
    if (!resp.ok || !resp.body) return resp;
    const reader = resp.body.getReader();
    const body = new ReadableStream({
      async pull(controller) {
        const { done: end, value } = await reader.read();
        if (end) { controller.close(); return; }
        done += value.length;
        const now = performance.now();
        if (now - last > 100) { last = now; post({ type: "loading", done: Math.min(done, total), total, stage: "downloading" }); }
        controller.enqueue(value);
      },
      cancel(reason) { return reader.cancel(reason); },
    });
    return new Response(body, { status: resp.status, statusText: resp.statusText, headers: resp.headers });
  };
  return () => { self.fetch = plain; post({ type: "loading", done: total, total, stage: "starting Python" }); };
}

async function bytes(name) {
  const resp = await fetch(root + name);
  if (!resp.ok) throw new Error(`${name}: HTTP ${resp.status}`);
  return new Uint8Array(await resp.arrayBuffer());
}

// the snapshot cache of this build (null where the Cache API is missing: not a secure context)
async function snapshotCache(config) {
  if (!config.snapshot || typeof caches === "undefined") return null;
  try { return await caches.open(config.snapshot); } catch (e) { return null; }
}

const options = { indexURL: root + "pyodide/", fullStdLib: false, stdout: () => {},
                  stderr: (t) => console.warn(t) };

// Pyodide 314 copies a snapshot into the module's own memory, which starts at 480 pages
// (31.5 MB) whatever its INITIAL_MEMORY says, so a bigger heap would not fit: the memory is
// grown to the snapshot's size as the module is instantiated (before Emscripten makes its
// views of it). Only during loadPyodide; python-flint's libraries load after.
async function withMemory(size, start, mark = () => {}) {
  const streaming = WebAssembly.instantiateStreaming, plain = WebAssembly.instantiate;
  const grow = (out) => {
    mark("instantiated");
    const memory = out && out.instance && out.instance.exports.memory;
    if (memory instanceof WebAssembly.Memory) {
      const pages = Math.ceil((size - memory.buffer.byteLength) / 65536);
      if (pages > 0) memory.grow(pages);
    }
    return out;
  };
  WebAssembly.instantiateStreaming = (...args) => streaming(...args).then(grow);
  WebAssembly.instantiate = (...args) => plain(...args).then(grow);
  try { return await start(); } finally {
    WebAssembly.instantiateStreaming = streaming; WebAssembly.instantiate = plain;
  }
}

// Python, restored from the snapshot or booted; `local()` is called once the files are here
// (at once on a repeat visit; after the counted download on a first), before Python starts
async function startPython(config, cache, mark, local) {
  const hit = cache && await cache.match(SNAPSHOT_KEY).catch(() => null);
  if (hit) {
    local();
    try {
      // read while Pyodide fetches and compiles its module (loadPyodide awaits the promise)
      const packed = hit.headers.get("X-Heap-Encoding") !== "identity";
      const snap = (packed ? new Response(hit.body.pipeThrough(new DecompressionStream("gzip"))) : hit)
        .arrayBuffer().then((b) => { mark("snapshot read"); return new Uint8Array(b); });
      const size = Number(hit.headers.get("X-Heap-Bytes")) || 64 << 20;
      const py = await withMemory(size, () => loadPyodide({ ...options, _loadSnapshot: snap }), mark);
      return { py, snapshot: "restored" };
    } catch (err) {
      // a snapshot this Pyodide cannot restore: drop it, boot as on a first visit
      console.warn("chancekit: the saved Python heap could not be restored", err);
      await cache.delete(SNAPSHOT_KEY).catch(() => {});
      return { py: await loadPyodide(options), snapshot: "failed" };
    }
  }
  const unwrap = countDownloads(Object.values(config.runtime).reduce((a, b) => a + b, 0));
  try {
    local();
    const py = await loadPyodide(options);
    return { py, snapshot: cache ? "none" : "unavailable" };
  } finally { unwrap(); }
}

// the files of a zip archive (a wheel) as [name, bytes], inflated by the browser's own
// DecompressionStream (native, and it does not block Python as zipfile in WebAssembly would)
async function unzip(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let end = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (dv.getUint32(i, true) === 0x06054b50) { end = i; break; }
  }
  if (end < 0) throw new Error("a wheel of the site is not a zip archive");
  const names = new TextDecoder();
  const files = [];
  for (let n = dv.getUint16(end + 10, true), p = dv.getUint32(end + 16, true); n > 0; n--) {
    if (dv.getUint32(p, true) !== 0x02014b50) throw new Error("a wheel of the site is damaged");
    const method = dv.getUint16(p + 10, true), size = dv.getUint32(p + 20, true);
    const nameLen = dv.getUint16(p + 28, true), local = dv.getUint32(p + 42, true);
    const name = names.decode(buf.subarray(p + 46, p + 46 + nameLen));
    p += 46 + nameLen + dv.getUint16(p + 30, true) + dv.getUint16(p + 32, true);
    if (name.endsWith("/")) continue;
    if (name.startsWith("/") || name.split("/").includes("..")) throw new Error(`a wheel holds ${name}`);
    const at = local + 30 + dv.getUint16(local + 26, true) + dv.getUint16(local + 28, true);
    const data = buf.subarray(at, at + size);
    if (method !== 0 && method !== 8) throw new Error(`${name}: zip method ${method}`);
    files.push([name, method === 0 ? data : new Response(new Blob([data]).stream()
      .pipeThrough(new DecompressionStream("deflate-raw"))).arrayBuffer().then((b) => new Uint8Array(b))]);
  }
  return Promise.all(files.map(async ([name, data]) => [name, await data]));
}

// a wheel's files; in a browser without DecompressionStream, the wheel for Pyodide to unzip
let nativeInflate = typeof DecompressionStream === "function";   // site-config "native_inflate": false turns it off
const inflate = (buf) => (nativeInflate ? unzip(buf) : { wheel: buf });

// write a wheel's files (or the wheel, unzipped by Pyodide) into site-packages
function install(py, files) {
  const root = py.runPython("import sysconfig; sysconfig.get_path('purelib')");
  if (files.wheel) { py.unpackArchive(files.wheel, "wheel", { extractDir: root }); return root; }
  for (const [name, data] of files) {
    const path = `${root}/${name}`;
    py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    py.FS.writeFile(path, data);
  }
  py.runPython("import importlib; importlib.invalidate_caches()");
  return root;
}

// python-flint's libraries (GMP, MPFR, FLINT), loaded asynchronously (compiled off the
// worker's thread); its extension modules then load on import. Without Pyodide's loader
// (a private API) the import loads them itself, synchronously.
async function loadFlintLibraries(py, root, files) {
  if (files.wheel) return;   // the import loads them
  const libs = files.filter(([n]) => /^python_flint\.libs\/[^/]+\.so$/.test(n))
    .sort((a, b) => a[1].length - b[1].length);   // libflint (the largest) needs the others
  if (!py._api || typeof py._api.loadDynlib !== "function") return;
  for (const [name] of libs) await py._api.loadDynlib(`${root}/${name}`, true);
}

async function serve(config) {
  const t0 = performance.now();
  const stages = {};
  const mark = (name) => { stages[name] = Math.round(performance.now() - t0); };
  const cache = await snapshotCache(config);
  const [flintWheel, ownWheel] = config.wheels;
  let flint, own;   // fetched and inflated while Python starts
  const { py, snapshot } = await startPython(config, cache, mark, () => {
    flint = bytes(flintWheel).then(inflate); own = bytes(ownWheel).then(inflate);
    flint.catch(() => {}); own.catch(() => {});
  });
  mark("python");
  post({ type: "loading", done: 1, total: 1, stage: "loading chancekit" });
  // python-flint's files first, so that its libraries compile (off this thread) while
  // chancekit is installed and imported
  const flintFiles = await flint;
  const root = install(py, flintFiles);
  const libs = loadFlintLibraries(py, root, flintFiles);
  install(py, await own);
  boot = py.pyimport("chancekit.site.boot");
  if (snapshot === "restored") boot.after_restore();
  boot.lazy_package(`${root}/flint/__init__.py`);
  handle = py.pyimport("chancekit.web.api").handle_json;
  mark("chancekit");
  await libs;
  mark("flint libraries");
  post({ type: "ready", ms: performance.now() - t0, stages, snapshot,
         unzip: nativeInflate ? "browser" : "pyodide" });
  scheduleWarm();
}

async function makeSnapshot(config) {
  const t0 = performance.now();
  const cache = await snapshotCache(config);
  if (!cache) { post({ type: "snapshot", state: "unavailable" }); return; }
  const py = await loadPyodide({ ...options, _makeSnapshot: true });
  install(py, await inflate(await bytes(config.wheels[1])));
  py.runPython("from chancekit.site.boot import import_page_modules; import_page_modules()");
  const snap = py.makeMemorySnapshot();
  // kept gzipped (37 MB of heap, 9 MB stored): reading it back is the repeat visit's longest step
  const gzip = typeof CompressionStream === "function";
  const body = gzip ? new Blob([snap]).stream().pipeThrough(new CompressionStream("gzip")) : snap;
  await cache.put(SNAPSHOT_KEY, new Response(body, { headers: {
    "Content-Type": "application/octet-stream", "X-Heap-Encoding": gzip ? "gzip" : "identity",
    "X-Heap-Bytes": String(snap.length) } }));
  post({ type: "snapshot", state: "stored", bytes: snap.length, ms: performance.now() - t0 });
}

// load python-flint while nobody waits (a call that comes first loads it itself)
function scheduleWarm() {
  clearTimeout(warmTimer);
  if (warmed || !boot) return;
  warmTimer = setTimeout(() => {
    warmed = true;
    const t0 = performance.now();
    try { boot.warm(); } catch (err) { console.warn("chancekit: python-flint did not load", err); }
    post({ type: "warmed", ms: Math.round(performance.now() - t0) });
  }, WARM_AFTER_MS);
}

self.onmessage = async (e) => {
  const m = e.data;
  if (m.type === "init") {
    if (m.config.native_inflate === false) nativeInflate = false;
    const run = m.role === "snapshot" ? makeSnapshot : serve;
    booting = run(m.config).catch((err) => {
      post({ type: m.role === "snapshot" ? "snapshot" : "failed", state: "failed",
             message: String(err && err.message || err).slice(-600) });
      throw err;
    });
    return;
  }
  if (m.type === "check") {   // CKSite.selfCheck(): every installed file against its wheel's RECORD
    try { await booting; } catch (err) { return; }
    const bad = boot.check_record_all().toJs();
    post({ type: "checked", id: m.id, bad, flint: boot.flint_loaded() });
    return;
  }
  if (m.type !== "call") return;
  try { await booting; } catch (err) { return; }
  clearTimeout(warmTimer);
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
  scheduleWarm();
};
