// The offline table's service worker, scope /offline (served as /offline/sw.js): it keeps what
// /offline/assets.json lists (the page's files, Pyodide's runtime, our Python bundle) so that the
// offline table opens, and reloads, with no network. Names with a version or a digest in them
// are served from the cache; the others from the network while there is one (and kept), from
// the cache when there is none.
const CACHE = "seep-offline-1";
const FOREVER = /^\/(pyodide\/[^/]+\/[^/]+|offline\/seep-[0-9a-f]+\.zip)$/;

self.addEventListener("install", (ev) => {
  ev.waitUntil((async () => {
    const res = await fetch("/offline/assets.json", { cache: "no-cache" });
    if (!res.ok) throw new Error(`assets.json: HTTP ${res.status}`);
    const list = await res.clone().json();
    const cache = await caches.open(CACHE);
    await cache.put("/offline/assets.json", res);
    const wanted = [...new Set([...(list.shell || []), ...(list.assets || [])])];
    const have = new Set((await cache.keys()).map((r) => new URL(r.url).pathname));
    // Versioned files already kept stay (Pyodide's 12 MB are not fetched again).
    await cache.addAll(wanted.filter((u) => !(FOREVER.test(u) && have.has(u))));
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (ev) => {
  ev.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE && name.startsWith("seep-offline")) await caches.delete(name);
    await self.clients.claim();
  })());
});

async function fromCacheFirst(req) {
  const cache = await caches.open(CACHE);
  const hit = await cache.match(req);
  if (hit) return hit;
  const res = await fetch(req);
  if (res.ok) await cache.put(req, res.clone());
  return res;
}

async function fromNetworkFirst(req, key) {
  const cache = await caches.open(CACHE);
  try {
    const res = await fetch(req);
    if (res.ok) await cache.put(key, res.clone());
    return res;
  } catch (e) {
    const hit = await cache.match(key);
    if (hit) return hit;
    throw e;
  }
}

self.addEventListener("fetch", (ev) => {
  const req = ev.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (FOREVER.test(url.pathname)) {
    ev.respondWith(fromCacheFirst(req));
  } else if (req.mode === "navigate" && url.pathname === "/offline") {
    ev.respondWith(fromNetworkFirst(req, "/offline")); // ?game=... is read by the page
  } else if (url.pathname.startsWith("/static/") || url.pathname.startsWith("/offline") || url.pathname === "/favicon.ico") {
    ev.respondWith(fromNetworkFirst(req, url.pathname));
  }
});
