// The installable app's page side (docs/web.md "Installable app"): registers the service
// worker /sw.js and lets a new version in only when no deal is in progress. The worker of a
// new release installs beside the old one and waits; the page then says so in a banner and
// activates it (and reloads) at once when nothing is being played: in the lobby, a replay, a
// profile, a table's waiting room or the summary between two deals, or when the player
// presses "Update now" (offered whenever no deal is in progress). Mid-deal it waits for the
// end of the deal.
import { t } from "./i18n.js";

// How often a page that stays open (a long match) asks whether a new version is out; the
// browser also asks at each page load.
const CHECK_EVERY_MS = 15 * 60 * 1000;

let waiting = null; // the installed worker of a new version, waiting
let applying = false;

/** Where this page stands, for a reload: "free" (nothing lost: a page other than a table, a
 * table's waiting room, its join or error page, the summary between two deals, which the
 * server draws again), "deal" (a deal in progress, played or watched), "ask" (a finished
 * match's last summary, which a reload would not show again: the player chooses, or the lobby
 * he goes to next loads the new version) or "unknown" (a table before its first state). */
function moment() {
  const view = window.seepTable; // app.js: the table page's view
  if (!view) return "free";
  const st = view.state;
  if (!st || !st.table) return document.querySelector("#table-view .center-msg") ? "free" : "unknown";
  if (st.table.status === "waiting") return "free";
  if (st.table.status === "playing" && !st.summary) return "deal";
  return st.table.status === "playing" && !st.summary.match_over ? "free" : "ask";
}

/** Whether a deal is in progress on this page (a new version waits for its end). */
export function midDeal() {
  return moment() === "deal";
}

function typing() {
  const el = document.activeElement;
  return !!el && /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
}

function apply() {
  if (!waiting || applying) return;
  applying = true;
  waiting.postMessage({ type: "activate" }); // the worker calls skipWaiting; controllerchange reloads
}

function banner(busy) {
  let el = document.getElementById("update-banner");
  if (!el) {
    el = document.createElement("div");
    el.id = "update-banner";
    el.className = "update-banner";
    el.setAttribute("role", "status");
    el.addEventListener("click", (ev) => {
      if (ev.target.closest("#update-now") && !midDeal()) apply();
    });
    document.body.prepend(el);
  }
  const key = busy ? "busy" : "ready";
  if (el.dataset.state === key) return;
  el.dataset.state = key;
  el.innerHTML = busy
    ? `<span>${t("A new version is ready: it loads at the end of the deal.")}</span>`
    : `<span>${t("A new version is ready.")}</span> <button class="btn small primary" type="button" id="update-now">${t("Update now")}</button>`;
}

/** Decide again (a state came, a summary opened, the tab was hidden): let the waiting worker
 * in when nothing is being played and the player is not typing, else say it waits. */
function consider() {
  if (!waiting || applying) return;
  const now = moment();
  if (now === "unknown") return; // the first state decides (table.js marks <body>)
  if (now === "free" && (!typing() || document.hidden)) apply();
  else banner(now === "deal");
}

export function initPwa() {
  if (!("serviceWorker" in navigator)) return;
  const sw = navigator.serviceWorker;
  sw.addEventListener("controllerchange", () => {
    if (applying) location.reload();
  });
  const found = (worker) => {
    if (!worker) return;
    const seen = () => {
      // "installed" with a controller: a new version waits (the first install has none).
      if (worker.state === "installed" && sw.controller) {
        waiting = worker;
        consider();
      }
    };
    worker.addEventListener("statechange", seen);
    seen();
  };
  sw.register("/sw.js", { scope: "/", updateViaCache: "none" }).then((reg) => {
    found(reg.waiting);
    found(reg.installing);
    reg.addEventListener("updatefound", () => found(reg.installing));
    const check = () => reg.update().catch(() => {}); // offline: the next check will do
    setInterval(check, CHECK_EVERY_MS);
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden) check();
      consider();
    });
  }).catch(() => {}); // no worker (a private window may refuse): the page works as before
  // table.js writes the state's status and version on <body> at every redraw.
  new MutationObserver(consider).observe(document.body, { attributes: true, attributeFilter: ["data-status", "data-version"] });
  // A table's join, error or "over" page comes with no state: its view's content tells.
  const tableView = document.getElementById("table-view");
  if (tableView) new MutationObserver(consider).observe(tableView, { childList: true });
  document.addEventListener("seep:summary", consider);
}
