// The rest of /sw.js (docs/web.md "Installable app"); the server writes VERSION, SHELL,
// NEVER_CACHED and APP_PAGES above it (seep.web.pwa). One cache per version, filled whole
// when the worker installs, so a page never mixes the modules of two releases.
//
// A new worker waits (no skipWaiting here): the page (static/js/pwa.js) lets it in when no
// deal is in progress, then reloads. Pages (navigations) come from the network first, so an
// online player always gets the server's page; offline, the cached index.html serves every
// page route. Static files come from the cache first; the next version brings their updates.
// APP_PAGES: the single page app's routes (seep.web.pwa.APP_PAGES); offline, each is "/".
// IMMUTABLE: URLs of SHELL whose bytes never change (seep.web.pwa.EXTRA_IMMUTABLE).
/* global VERSION, SHELL, NEVER_CACHED, APP_PAGES, IMMUTABLE */
const PREFIX = "seep-shell-";
const CACHE = PREFIX + VERSION;

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    const fetched = [];
    for (const url of SHELL) {
      // A file that never changes under its name (Pyodide's 13 MB) is copied from the last
      // version's cache: a release costs a phone only what changed.
      const kept = IMMUTABLE.includes(url) ? await caches.match(url) : undefined;
      if (kept) await cache.put(url, kept);
      else fetched.push(url);
    }
    // "reload": the files as the server has them now, never the browser's HTTP cache.
    await cache.addAll(fetched.map((url) => new Request(url, { cache: "reload" })));
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const key of await caches.keys()) {
      if (key.startsWith(PREFIX) && key !== CACHE) await caches.delete(key);
    }
    // The first worker takes the page that registered it at once (nothing to wait for then).
    await self.clients.claim();
  })());
});

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "activate") self.skipWaiting();
  else if (data.type === "version" && event.source) event.source.postMessage({ type: "version", version: VERSION });
});

function neverCached(path) {
  return NEVER_CACHED.some((p) => path === p || path.startsWith(p.endsWith("/") ? p : `${p}/`));
}

async function page(request, url) {
  try {
    return await fetch(request);
  } catch (err) {
    const cache = await caches.open(CACHE);
    const shell = url.pathname === "/how-to-play" ? "/how-to-play" : APP_PAGES.some((p) => p.test(url.pathname)) ? "/" : null;
    const hit = shell && (await cache.match(shell));
    if (hit) return hit;
    throw err;
  }
}

async function asset(request, url) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(request);
  if (hit) return hit;
  const response = await fetch(request);
  // A static file the shell did not list (added by a module at run time): kept for offline.
  if (response.ok && response.type === "basic" && url.pathname.startsWith("/static/")) {
    await cache.put(request, response.clone());
  }
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || neverCached(url.pathname)) return;
  if (request.headers.has("range")) return; // partial answers are not cached
  event.respondWith(request.mode === "navigate" ? page(request, url) : asset(request, url));
});
