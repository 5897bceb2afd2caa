// Play offline (/offline): the same table page against the same bots, with no server. The
// rules and the bots run in Python in a Web Worker (offline-worker.js: Pyodide and our own
// sources, served by our server once and kept by the app's service worker, /sw.js: pwa.js);
// OfflineSocket gives the table view the interface of TableSocket, so table.js draws the
// worker's messages as it draws the server's. Games are kept in IndexedDB (offline-store.js):
// a closed tab resumes its deal, finished games replay and download as docs/format.md records.
import { langSwitchHtml, t } from "./i18n.js";
import { esc, prefs, toast } from "./net.js";
import { deleteGame, getGame, listGames, saveGame } from "./offline-store.js";
import { ReplayView } from "./replay.js";
import { TableView } from "./table.js";

const WORDS = {
  players: { 4: "Four players (you and a bot partner)", 2: "Two players" },
  bots: { easy: "Easy", medium: "Medium", hard: "Hard", expert: "Expert" },
  length: { deal: "One deal", baazi: "One baazi" },
};

let assetsPromise = null;

/** What the server said the offline table needs (/offline/assets.json, kept by the service
 * worker): Pyodide's folder (null: not installed), our bundle, the bots offered. */
export function offlineAssets() {
  if (!assetsPromise) {
    assetsPromise = fetch("/offline/assets.json").then((r) => {
      if (!r.ok) throw new Error(`HTTP ${r.status}`);
      return r.json();
    });
    assetsPromise.catch(() => {
      assetsPromise = null;
    });
  }
  return assetsPromise;
}

/** The lobby's "Play offline" button says when this server cannot offer it. */
export function markOfflineButton(button) {
  if (!button) return;
  offlineAssets()
    .then((a) => {
      if (!a.pyodide) {
        button.classList.add("unavailable");
        button.title = t("Offline play is not installed on this server.");
      }
    })
    .catch(() => {});
}

/** Whether the app's service worker (pwa.js registers it) is active: it has precached the
 * page, Pyodide and our bundle when it installed. Never settles where there is none. */
async function serviceWorkerReady() {
  if (!("serviceWorker" in navigator)) return false;
  const reg = await navigator.serviceWorker.ready;
  return Boolean(reg.active);
}

/** A socket-like link to the worker (TableSocket's interface: send, close, onMessage,
 * onStatus). The worker's own messages (ready, saved, timing, offline_failed) go to `onExtra`. */
export class OfflineSocket {
  constructor(spec, { onMessage, onStatus, onExtra }) {
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.onExtra = onExtra || (() => {});
    this.closed = false;
    this.worker = new Worker("/offline/worker.js", { type: "module" });
    this.worker.onmessage = (ev) => {
      const msg = ev.data || {};
      if (["ready", "saved", "timing", "offline_failed", "replay"].includes(msg.type)) {
        if (msg.type === "ready") this.onStatus("open");
        if (msg.type === "offline_failed") this.onStatus("closed");
        this.onExtra(msg);
        return;
      }
      this.onMessage(msg);
    };
    this.worker.onerror = (ev) => {
      this.onStatus("closed");
      this.onExtra({ type: "offline_failed", stage: "worker", message: ev.message || "worker error" });
    };
    this.onStatus("connecting");
    this.worker.postMessage(spec);
    if (spec.type === "offline") this.worker.postMessage({ type: "hello", history: "full" });
  }

  send(msg) {
    if (this.closed) return false;
    this.worker.postMessage(msg);
    return true;
  }

  close() {
    this.closed = true;
    this.worker.terminate();
  }
}

function seed() {
  const a = new Uint32Array(2);
  crypto.getRandomValues(a);
  return (a[0] & 0x1fffff) * 2 ** 32 + a[1]; // under 2**53: a JavaScript number holds it
}

function download(game) {
  const blob = new Blob([JSON.stringify(game.record, null, 1)], { type: "application/json" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `seep-offline-${new Date(game.started).toISOString().slice(0, 16).replace(/[:T]/g, "-")}.json`;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

/** The names a game's seats go by (the player's own, the bots' in the page's language). */
function names(game) {
  const n = game.options.players === 2 ? 2 : 4;
  return Array.from({ length: n }, (_, i) => (i === 0 ? game.options.name || t("You") : n === 2 ? t("Bot") : t("Bot {n}", { n: "NWSE"[i] })));
}

/** /offline: the offline lobby, an offline table (?game=id) or a finished game's replay
 * (?replay=id). */
export class OfflineView {
  constructor(root) {
    this.root = root;
    this.metrics = { opened: performance.now(), firstLegal: null, ready: null, timings: [], saved: 0 };
    this.swReady = serviceWorkerReady();
  }

  async start() {
    const q = new URLSearchParams(location.search);
    let assets = null;
    try {
      assets = await offlineAssets();
    } catch (e) {
      assets = null;
    }
    this.assets = assets;
    if (q.get("game")) return this.openGame(q.get("game"));
    if (q.get("replay")) return this.replay(q.get("replay"));
    return this.lobby();
  }

  header(title) {
    return `<header class="topbar"><a class="logo" href="/">Seep</a><span class="room">${title}</span>
      <span class="spacer"></span>${langSwitchHtml()}<a class="btn small ghost howto-link" href="/how-to-play" target="_blank">${t("How to play")}</a></header>`;
  }

  unavailable() {
    if (!this.assets) return t("The offline table's files are not in this browser yet: open this page once while online.");
    if (!this.assets.pyodide) return t("Offline play is not installed on this server.");
    return "";
  }

  async lobby() {
    const games = await listGames().catch(() => []);
    const current = games.find((g) => g.status !== "finished");
    const finished = games.filter((g) => g.status === "finished");
    const offered = (this.assets && this.assets.difficulties) || ["easy", "medium"];
    const saved = prefs.get("offline-bots");
    const bots = offered.includes(saved) ? saved : offered.includes("medium") ? "medium" : offered[0];
    const missing = this.unavailable();
    const opt = (kind, value, chosen) => `<option value="${value}" ${String(value) === String(chosen) ? "selected" : ""}>${t(WORDS[kind][value])}</option>`;
    this.root.innerHTML = `<div class="offline-page">${this.header(t("Play offline"))}
      <div class="lobby-grid">
        <form id="offline-form" class="panel form" autocomplete="off">
          <h2>${t("Play offline")}</h2>
          <p class="muted small">${t("The same rules and bots as the server, running in this browser: no connection needed once this page has been opened online.")}</p>
          ${missing ? `<p class="form-note" id="offline-missing" role="alert">${esc(missing)}</p>` : ""}
          <label><span>${t("Players")}</span><select name="players" id="offline-players">${[4, 2].map((n) => opt("players", n, prefs.get("offline-players", "4"))).join("")}</select></label>
          <label><span>${t("Bots")}</span><select name="bots" id="offline-bots">${offered.map((b) => opt("bots", b, bots)).join("")}</select></label>
          <p class="muted small" id="offline-bots-note">${t("Only the bots that answer within a second on this machine are offered.")}</p>
          <label><span>${t("Play")}</span><select name="length" id="offline-length">${["deal", "baazi"].map((l) => opt("length", l, prefs.get("offline-length", "deal"))).join("")}</select></label>
          <button class="btn primary big" type="submit" id="offline-start" ${missing ? "disabled" : ""}>${t("Start an offline game")}</button>
          ${current ? `<p><a class="btn" id="offline-resume" href="/offline?game=${esc(current.id)}">${t("Resume your game")}</a> <button class="btn small ghost" type="button" id="offline-abandon">${t("Abandon it")}</button></p>` : ""}
          <p class="muted small" id="offline-ready" hidden>${t("Ready to play offline.")}</p>
        </form>
        <section class="panel" id="offline-games">
          <h2>${t("Finished offline games")}</h2>
          ${finished.length ? `<ol class="lobby-list">${finished.map((g) => this.gameRow(g)).join("")}</ol>` : `<p class="muted">${t("None yet.")}</p>`}
        </section>
      </div></div>`;
    const form = this.root.querySelector("#offline-form");
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const options = {
        players: Number(form.players.value),
        bots: form.bots.value,
        length: form.length.value,
        name: prefs.get("name") || "",
      };
      prefs.set("offline-players", String(options.players));
      prefs.set("offline-bots", options.bots);
      prefs.set("offline-length", options.length);
      const id = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
      const now = Date.now();
      try {
        await saveGame({ id, started: now, updated: now, options, seed: seed(), moves: [], left: 0, status: "playing", record: null });
      } catch (e) {
        toast(t("This browser keeps no offline games (private mode?): {why}", { why: String(e && e.message || e) }));
        return;
      }
      location.href = `/offline?game=${id}`;
    });
    const abandon = this.root.querySelector("#offline-abandon");
    if (abandon) {
      abandon.addEventListener("click", async () => {
        await deleteGame(current.id);
        this.lobby();
      });
    }
    this.root.querySelector("#offline-games").addEventListener("click", (ev) => {
      const b = ev.target.closest("[data-download]");
      if (!b) return;
      const g = finished.find((x) => x.id === b.dataset.download);
      if (g && g.record) download(g);
    });
    if (await this.swReady) this.root.querySelector("#offline-ready").hidden = !!missing;
  }

  gameRow(g) {
    const when = new Date(g.started).toLocaleString();
    const what = `${t(WORDS.players[g.options.players] || "")} · ${t(WORDS.bots[g.options.bots] || "")}`;
    const r = g.result || [0, 0];
    return `<li class="offline-game"><span>${esc(when)} · ${what} · ${t("Score")} ${r[0]}–${r[1]}</span>
      <a class="btn small" href="/offline?replay=${esc(g.id)}">${t("Replay")}</a>
      <button class="btn small ghost" type="button" data-download="${esc(g.id)}">${t("Download record")}</button></li>`;
  }

  message(title, text) {
    this.root.innerHTML = `${this.header(t("Play offline"))}<div class="panel center-msg"><h2>${title}</h2><p>${esc(text)}</p><p><a class="btn" href="/offline">${t("Offline games")}</a></p></div>`;
  }

  spec(type, extra) {
    const delay = Number(prefs.get("offline-bot-delay", ""));
    return { type, pyodide: this.assets.pyodide, bundle: this.assets.bundle, botDelay: Number.isFinite(delay) && prefs.get("offline-bot-delay", "") !== "" ? delay : 600, ...extra };
  }

  async openGame(id) {
    const game = await getGame(id).catch(() => null);
    if (!game) return this.message(t("No such offline game"), t("It is not kept in this browser."));
    if (game.status === "finished") {
      location.replace(`/offline?replay=${encodeURIComponent(id)}`);
      return undefined;
    }
    const missing = this.unavailable();
    if (missing) return this.message(t("Play offline"), missing);
    this.root.classList.add("offline-table");
    const view = new TableView(this.root, "OFFLINE", {
      newGameUrl: "/offline",
      replayUrl: `/offline?replay=${encodeURIComponent(id)}`,
      socket: (code, token, handlers) => new OfflineSocket(
        this.spec("offline", { id, started: game.started, options: game.options, seed: game.seed, moves: game.moves, left: game.left }),
        {
          ...handlers,
          onMessage: (msg) => {
            if (msg.type === "state" && this.metrics.firstLegal === null && (msg.legal || []).length) {
              this.metrics.firstLegal = performance.now() - this.metrics.opened;
            }
            handlers.onMessage(msg);
          },
          onExtra: (msg) => this.onExtra(msg),
        },
      ),
    });
    window.seepTable = view; // for the console and the browser tests
    view.open("offline");
    return undefined;
  }

  onExtra(msg) {
    if (msg.type === "ready") this.metrics.ready = msg;
    else if (msg.type === "timing") this.metrics.timings.push(msg);
    else if (msg.type === "saved") {
      this.metrics.saved = msg.moves;
      document.body.dataset.offlineSaved = String(msg.moves);
      document.body.dataset.offlineStatus = msg.status;
    } else if (msg.type === "offline_failed") toast(t("The offline table failed: {why}", { why: msg.message }));
  }

  async replay(id) {
    const game = await getGame(id).catch(() => null);
    if (!game || !game.record) return this.message(t("No such offline game"), t("It is not kept in this browser."));
    const missing = this.unavailable();
    if (missing) return this.message(t("Play offline"), missing);
    const source = {
      load: () => new Promise((resolve, reject) => {
        const sock = new OfflineSocket(this.spec("replay", { record: game.record }), {
          onMessage: () => {},
          onExtra: (msg) => {
            if (msg.type === "replay") resolve({ names: names(game), steps: msg.steps });
            if (msg.type === "offline_failed") reject(new Error(msg.message));
            if (msg.type === "replay" || msg.type === "offline_failed") sock.close();
          },
        });
      }),
      download: () => download(game),
    };
    return new ReplayView(this.root, "OFFLINE", source).start();
  }
}
