// The service worker's Web Push handlers (docs/web.md "Notifications"), loaded by /sw.js with
// importScripts. A push carries a message key, the page's language and a table's code: never
// a card. Its words are the page's own translations (push.js keeps them in a cache for the
// worker, which cannot load the page's modules); English when none were kept.
"use strict";

const SEEP_PUSH_TEXTS = "seep-push-texts";
const SEEP_PUSH_ENGLISH = {
  start: "Your table {code} has started",
  turn: "Your turn at table {code}",
  rematch: "A rematch is offered at table {code}",
};

async function seepPushTexts(lang) {
  try {
    const cache = await caches.open(SEEP_PUSH_TEXTS);
    const found = await cache.match(`/push-texts/${lang === "hi" ? "hi" : "en"}`);
    return found ? await found.json() : {};
  } catch (e) {
    return {};
  }
}

self.addEventListener("push", (event) => {
  let msg = null;
  try {
    msg = event.data ? event.data.json() : null;
  } catch (e) {
    msg = null;
  }
  // Only our own messages, and only a table code: the link is made here, never taken as sent.
  if (!msg || msg.type !== "seep" || !/^[A-Z0-9]{3,8}$/.test(msg.code || "")) return;
  const key = Object.prototype.hasOwnProperty.call(SEEP_PUSH_ENGLISH, msg.key) ? msg.key : "turn";
  event.waitUntil(
    seepPushTexts(msg.lang).then((texts) => {
      const words = (typeof texts[key] === "string" ? texts[key] : SEEP_PUSH_ENGLISH[key]).replace("{code}", msg.code);
      return self.registration.showNotification("Seep", {
        body: words,
        tag: `seep-${msg.code}`, // a newer notice of the same table replaces the older
        renotify: true,
        lang: msg.lang === "hi" ? "hi" : "en",
        icon: "/favicon.ico",
        data: { url: `/t/${msg.code}` },
      });
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || "/";
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((open) => {
      for (const c of open) {
        if (new URL(c.url).pathname === url && "focus" in c) return c.focus();
      }
      return self.clients.openWindow(url);
    }),
  );
});
