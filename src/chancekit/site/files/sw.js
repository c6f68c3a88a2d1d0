// chancekit's static site: offline after the first visit. Every file of this build is kept
// in one cache named by the hash of their contents (written by `chancekit site`); a new
// build has a new name, replaces the cache, and drops the old one.
"use strict";
const CACHE = "__CACHE__";
const FILES = __FILES__;
const SNAPSHOT = "__SNAPSHOT__";  // the worker's saved Python heap for this build (worker.js)

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys().then((names) => Promise.all(
    names.filter((n) => n.startsWith("chancekit-") && n !== CACHE && n !== SNAPSHOT).map((n) => caches.delete(n))))
    .then(() => self.clients.claim()));
});

// this site's files from the cache first (the network when it is not there yet); nothing
// else is ever asked for
self.addEventListener("fetch", (event) => {
  const req = event.request;
  if (req.method !== "GET" || new URL(req.url).origin !== self.location.origin) return;
  event.respondWith(caches.open(CACHE).then(async (cache) => {
    const hit = await cache.match(req, { ignoreSearch: true });
    if (hit) return hit;
    // /anydice (a page's address under chancekit serve): the page itself, offline too
    const url = new URL(req.url);
    if (req.mode === "navigate" && /\/[a-z]+\/?$/.test(url.pathname)) {
      const page = await cache.match(new URL(url.pathname.replace(/\/?$/, ".html"), url));
      if (page) return page;
    }
    const resp = await fetch(req);
    if (resp.ok && resp.type === "basic") cache.put(req, resp.clone());
    return resp;
  }));
});
