// "Notify me when it is my turn" (docs/web.md "Notifications"): the switch in the table's
// settings asks the browser's permission, subscribes with the server's VAPID key and tells the
// server which seats this browser holds (in the body: a seat token never goes in a URL); off,
// it unsubscribes. The words of the notifications are kept in a cache for the service worker
// (sw-push.js), in the page's language.
import { api, prefs, toast, tokens } from "./net.js";
import { lang, t, tText } from "./i18n.js";

const TEXTS = "seep-push-texts";

export function pushSupported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window && window.isSecureContext;
}

function enabled() {
  return prefs.get("push") === "on" && Notification.permission === "granted";
}

/** The switch, for the table's settings (hidden where the browser has no Web Push). */
export function pushSwitchHtml() {
  if (!pushSupported()) return "";
  return `<button class="btn small ghost" type="button" role="switch" id="push-btn" aria-checked="${enabled()}">${t("Notify me when it is my turn")}</button>`;
}

async function registration() {
  // The app's service worker (/sw.js imports sw-push.js); registering it again is harmless.
  const reg = (await navigator.serviceWorker.getRegistration("/")) || (await navigator.serviceWorker.register("/sw.js"));
  await navigator.serviceWorker.ready;
  return reg;
}

function keyBytes(b64) {
  const raw = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function keepTexts() {
  try {
    const texts = {
      start: tText("Your table {code} has started"),
      turn: tText("Your turn at table {code}"),
      rematch: tText("A rematch is offered at table {code}"),
    };
    const cache = await caches.open(TEXTS);
    await cache.put(`/push-texts/${lang()}`, new Response(JSON.stringify(texts), { headers: { "Content-Type": "application/json" } }));
  } catch (e) {
    /* no cache: the worker words them in English */
  }
}

async function subscribe() {
  const reg = await registration();
  let sub = await reg.pushManager.getSubscription();
  if (!sub) {
    const { key } = await api("/api/push/key");
    sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  }
  await keepTexts();
  await api("/api/push/subscriptions", { subscription: sub.toJSON(), seats: tokens.seats().slice(-20), lang: lang() });
}

async function unsubscribe() {
  const reg = await navigator.serviceWorker.getRegistration("/");
  const sub = reg && (await reg.pushManager.getSubscription());
  if (!sub) return;
  await api("/api/push/subscriptions/delete", { endpoint: sub.endpoint });
  await sub.unsubscribe();
}

/** Wire the switch in `root`; with notifications on, the seats held now are told again (a
 * seat taken since, the language chosen since). */
export function initPush(root) {
  const btn = root.querySelector("#push-btn");
  if (!btn) return;
  const show = () => btn.setAttribute("aria-checked", String(enabled()));
  btn.addEventListener("click", async () => {
    try {
      if (enabled()) {
        prefs.set("push", "off");
        show();
        await unsubscribe();
        return;
      }
      const answer = await Notification.requestPermission();
      if (answer !== "granted") {
        toast(tText("Notifications are blocked for this site in the browser's settings"));
        return;
      }
      prefs.set("push", "on");
      show();
      await subscribe();
      toast(tText("You will be notified when it is your turn"), "info");
    } catch (e) {
      prefs.set("push", "off");
      show();
      toast(tText("Notifications could not be turned on in this browser"));
    }
  });
  if (enabled()) subscribe().catch(() => {});
}
