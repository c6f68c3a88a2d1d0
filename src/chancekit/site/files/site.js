// chancekit's static site: the pages' back end is a Web Worker running chancekit in Pyodide
// (static/worker.js). CK.request (common.js) calls CKSite.request when <html
// data-backend="site">, and gets what `chancekit serve` answers: the same JSON, the same
// status codes, the same time limit (the worker is stopped and restarted past it, as the
// server kills its worker), the same tuning-job protocol (POST /api/tune, GET/DELETE
// /api/jobs/ID). Nothing is sent anywhere: the worker reads only this site's files.
"use strict";
const CKSite = (() => {
  const here = document.currentScript.src;
  const root = new URL("../", here).href;
  // the server's defaults (chancekit serve --time-limit 10; tuning jobs six times that)
  const limits = { time_limit_s: 10, tune_time_limit_s: 60 };
  const TUNE_REFUSAL_WAIT_MS = 500;
  const SNAPSHOT_AFTER_MS = 1000;  // after the first answer, so the two do not compete
  let worker = null, ready = null, config = null, nextId = 1, loadedMs = null;
  const calls = new Map();   // id -> {resolve, onProgress, onStart}
  const jobs = new Map();    // tuning jobs, as the server keeps them

  const mb = (n) => (n / 1e6).toFixed(1);
  function say(text) {
    if (!document.body) { addEventListener("DOMContentLoaded", () => say(text), { once: true }); return; }
    let line = document.getElementById("runtime-status");
    if (!line) {
      line = document.createElement("div");
      line.id = "runtime-status"; line.className = "runtime-status"; line.setAttribute("role", "status");
      (document.querySelector("main") || document.body).prepend(line);
    }
    line.textContent = text; line.hidden = !text;
  }

  async function loadConfig() {
    if (!config) config = await (await fetch(root + "static/site-config.json")).json();
    return config;
  }

  function start() {
    if (ready) return ready;
    ready = (async () => {
      const cfg = await loadConfig();
      worker = new Worker(root + "static/worker.js", { type: "module" });
      const me = worker;
      return new Promise((resolve, reject) => {
        me.onmessage = (e) => {
          const m = e.data;
          if (m.type === "loading") {
            say(m.stage === "downloading"
              ? `loading Python ${mb(m.done)} / ${mb(m.total)} MB`
              : `${m.stage}…`);
          } else if (m.type === "ready") {
            loadedMs = { ms: m.ms, stages: m.stages, snapshot: m.snapshot, unzip: m.unzip,
                         since_page_ms: Math.round(performance.now()) };
            say(""); document.documentElement.dataset.runtime = "ready"; resolve(me);
            if (m.snapshot === "none" || m.snapshot === "failed") saveSnapshotLater(cfg);
          } else if (m.type === "checked") {
            const call = calls.get(m.id); if (call) { calls.delete(m.id); call.resolve({ bad: m.bad, flint: m.flint }); }
          } else if (m.type === "warmed") {
            if (loadedMs) loadedMs.warmed = { at_ms: Math.round(performance.now()), ms: m.ms };
          } else if (m.type === "failed") {
            say(`Python could not start here: ${m.message}`);
            document.documentElement.dataset.runtime = "failed"; reject(new Error(m.message));
          } else {
            const call = calls.get(m.id);
            if (!call) return;
            if (m.type === "started") call.onStart();
            else if (m.type === "progress") call.onProgress(m);
            else if (m.type === "result") { calls.delete(m.id); call.resolve(JSON.parse(m.text)); }
          }
        };
        me.onerror = (e) => { say(`Python stopped: ${e.message || "worker error"}`); };
        me.postMessage({ type: "init", config: cfg });
      });
    })();
    ready.catch(() => { ready = null; });
    return ready;
  }

  // after a first visit: a short-lived second worker boots Python, imports the pages'
  // modules and saves the heap (Pyodide's memory snapshot) in this build's cache, so that
  // the next visit restores it instead of starting CPython. Only where the site is installed
  // for offline use (a service worker): the snapshot belongs with the cached files.
  let snapshotState = "none";
  function saveSnapshotLater(cfg) {
    if (snapshotState !== "none") return;
    snapshotState = "waiting";
    setTimeout(async () => {
      if (!(await swReady)) { snapshotState = "no service worker"; return; }
      snapshotState = "saving";
      const w = new Worker(root + "static/worker.js", { type: "module" });
      w.onmessage = (e) => {
        if (e.data.type !== "snapshot") return;
        snapshotState = e.data.state; w.terminate();
        if (loadedMs) loadedMs.snapshot_saved = { state: e.data.state, bytes: e.data.bytes, ms: e.data.ms,
                                                  message: e.data.message };
      };
      w.onerror = () => { snapshotState = "failed"; w.terminate(); };
      w.postMessage({ type: "init", role: "snapshot", config: cfg });
    }, SNAPSHOT_AFTER_MS);
  }

  // stop the computation: the worker (and Python) go, a fresh one starts in the background
  function restart(reason) {
    if (worker) worker.terminate();
    worker = null; ready = null;
    for (const [id, call] of calls) { calls.delete(id); call.resolve(reason); }
    document.documentElement.dataset.runtime = "restarting";
    start().catch(() => {});
  }

  const timeLimitError = (limit, partial) => [422, { error: { type: "LimitError", limit: "time_limit",
    message: `the computation took longer than the time limit of ${limit} s and was stopped; ` +
             "try a smaller expression", ...(partial.length ? { partial } : {}) } }];
  const stoppedError = [499, { error: { type: "Stopped", message: "stopped together with another computation" } }];

  // one call into the worker: [status, data]; `signal` aborts it (AbortError), the time limit
  // answers as the server does; `onProgress(done, total)` sees the job's progress
  async function call(path, body, { signal, limit = limits.time_limit_s, onProgress } = {}) {
    const w = await start();
    if (signal && signal.aborted) throw new DOMException("stopped", "AbortError");
    const id = nextId++;
    const partial = [];
    return new Promise((resolve, reject) => {
      let timer = null;
      const done = (value) => { clearTimeout(timer); if (signal) signal.removeEventListener("abort", abort); resolve(value); };
      const abort = () => {
        clearTimeout(timer); calls.delete(id); restart(stoppedError);
        reject(new DOMException("stopped", "AbortError"));
      };
      calls.set(id, {
        resolve: done,
        onStart: () => { timer = setTimeout(() => { calls.delete(id); restart(stoppedError);
                                                    done(timeLimitError(limit, partial)); }, limit * 1000); },
        onProgress: (m) => { if (m.piece) partial.push(JSON.parse(m.piece)); if (onProgress) onProgress(m.done, m.total); },
      });
      if (signal) signal.addEventListener("abort", abort);
      w.postMessage({ type: "call", id, path, body: body === undefined ? null : JSON.stringify(body) });
    });
  }

  // -- the tuning-job protocol of the server, kept in the page ----------------------------
  const jobView = (j) => ({ job: j.id, kind: "tune", state: j.state, done: j.done, total: j.total,
    result: j.result, error: j.error, elapsed_ms: j.elapsed_ms,
    running_s: Math.round((performance.now() - j.started)) / 1000 });
  async function tune(body) {
    const j = { id: crypto.randomUUID().replace(/-/g, ""), state: "running", done: 0, total: 0,
                result: null, error: null, elapsed_ms: null, started: performance.now(), status: 200,
                controller: new AbortController() };
    jobs.set(j.id, j);
    j.finished = call("/api/tune", body, { signal: j.controller.signal, limit: limits.tune_time_limit_s,
      onProgress: (d, t) => { j.done = d; j.total = t; } }).then(([status, data]) => {
      if (status === 200) {
        const { version, elapsed_ms, server_ms, cached, ...result } = data;
        Object.assign(j, { state: "done", result, elapsed_ms });
      } else Object.assign(j, { state: "error", error: data.error, status });
    }, () => { j.state = "cancelled"; });
    const quick = await Promise.race([j.finished.then(() => true),
      new Promise((r) => setTimeout(() => r(false), TUNE_REFUSAL_WAIT_MS))]);
    if (quick && j.state === "error") { jobs.delete(j.id); return [j.status, { error: j.error }]; }
    return [202, jobView(j)];
  }
  async function jobCall(path, method) {
    const j = jobs.get(path.split("/").pop());
    if (!j) return [404, { error: { type: "NotFound", message: "no such job (finished jobs are kept for 5 minutes)" } }];
    if (method === "DELETE") {
      if (j.state === "running") { j.controller.abort(); await j.finished; }
      return [200, jobView(j)];
    }
    if (j.state === "error") return [j.status, { ...jobView(j), error: j.error }];
    return [200, jobView(j)];
  }

  // the runtime's own check: {bad: files that differ from their wheel's RECORD, flint: loaded?}
  async function selfCheck() {
    const w = await start();
    const id = nextId++;
    return new Promise((resolve) => { calls.set(id, { resolve }); w.postMessage({ type: "check", id }); });
  }

  // what CK.request returns: {ok, status, data, ms}
  async function request(path, body, { signal, method } = {}) {
    const t0 = performance.now();
    let status, data;
    if (path.startsWith("/api/jobs/")) [status, data] = await jobCall(path, method || "GET");
    else if (path === "/api/tune" && body !== undefined) [status, data] = await tune(body);
    else {
      try { [status, data] = await call(path, body, { signal }); }
      catch (e) {
        if (e.name === "AbortError") throw e;
        status = 0; data = { error: { type: "NetworkError", message: `Python did not start in this browser: ${e.message}` } };
      }
    }
    return { ok: status >= 200 && status < 300, status, data, ms: performance.now() - t0 };
  }

  // the public address of share links (chancekit site --base-url), else this copy's own
  function pageURL() {
    const base = document.documentElement.dataset.baseUrl;
    if (!base) return location.origin + location.pathname;
    return base.replace(/\/?$/, "/") + location.pathname.split("/").pop();
  }

  // offline after the first visit: the service worker keeps every file of this build
  // (registered once Python is up: its install copies every file into the cache, which on
  // a first visit would compete with the worker's own download)
  const swReady = ("serviceWorker" in navigator && location.protocol !== "file:")
    ? new Promise((resolve) => {
        start().catch(() => {}).finally(() => navigator.serviceWorker.register(root + "sw.js")
          .then(() => resolve(true), () => resolve(false)));
      })
    : Promise.resolve(false);
  // start Python at once (this script is in the page's head): the first answer comes sooner
  start().catch(() => {});

  return { request, pageURL, start, limits, bootTimes: () => loadedMs, snapshotState: () => snapshotState,
           selfCheck };
})();
