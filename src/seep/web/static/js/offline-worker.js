// The offline table's worker (served as /offline/worker.js; its fetches are the app's service
// worker's, which keeps Pyodide and the bundle for offline): Pyodide (served by our server,
// never a CDN) running our own Python, the offline host of seep.web.offline, which answers the page with the messages the server's
// socket sends (docs/web.md "Offline play"). No game rule is written here: this file loads,
// forwards, keeps the bots' pace and saves each change in IndexedDB (offline-store.js).
import { saveGame } from "/static/js/offline-store.js";

let host = null;
let game = null; // {id, started}: what the saved record is kept under
let botDelay = 600; // ms before each bot move, as the server's SEEP_BOT_DELAY
let timer = null;
let saving = Promise.resolve();
const waiting = []; // the page's messages that came before the host was ready

function post(msg) {
  self.postMessage(msg);
}

/** Each answer of the host (JSON text) to the page, then save and let the bots go on. */
function deliver(proxy) {
  const texts = proxy.toJs();
  proxy.destroy();
  for (const text of texts) post(JSON.parse(text));
  save();
  schedule();
}

function save() {
  const saved = JSON.parse(host.saved_text());
  const record = { ...saved, id: game.id, started: game.started, updated: Date.now() };
  delete record.type;
  const moves = saved.moves.length;
  saving = saving
    .then(() => saveGame(record))
    .then(() => post({ type: "saved", id: game.id, moves, status: saved.status }))
    .catch((e) => post({ type: "offline_failed", stage: "save", message: String(e) }));
}

function schedule() {
  clearTimeout(timer);
  if (host.pending()) timer = setTimeout(step, botDelay);
}

function step() {
  const bots = game.bots;
  const t0 = performance.now();
  const out = host.step();
  const ms = performance.now() - t0;
  post({ type: "timing", bots, ms });
  deliver(out);
}

/** Pyodide from our server (its indexURL: no CDN, no package beyond the standard library)
 * with our bundle unpacked in its file system; the seep.web.offline module. */
async function python(msg) {
  const { loadPyodide } = await import(`${msg.pyodide}pyodide.mjs`);
  const pyodide = await loadPyodide({ indexURL: msg.pyodide });
  const zip = await fetch(msg.bundle);
  if (!zip.ok) throw new Error(`${msg.bundle}: HTTP ${zip.status}`);
  pyodide.unpackArchive(await zip.arrayBuffer(), "zip", { extractDir: "/seep-offline" });
  pyodide.runPython("import sys; sys.path.insert(0, '/seep-offline')");
  return pyodide.pyimport("seep.web.offline");
}

async function openTable(msg) {
  const t0 = performance.now();
  const offline = await python(msg);
  const loaded = performance.now() - t0;
  host = offline.open_table(JSON.stringify({ options: msg.options, seed: msg.seed, moves: msg.moves, left: msg.left }));
  game = { id: msg.id, started: msg.started, bots: msg.options.bots };
  if (typeof msg.botDelay === "number") botDelay = Math.max(0, Math.min(5000, msg.botDelay));
  post({ type: "ready", loaded_ms: loaded, opened_ms: performance.now() - t0 });
  save(); // a new game is kept from its first state, a resumed one refreshed
  for (const m of waiting.splice(0)) receive(m);
  schedule();
}

function receive(msg) {
  if (!host) {
    waiting.push(msg);
    return;
  }
  deliver(host.receive(JSON.stringify(msg)));
}

self.onmessage = (ev) => {
  const msg = ev.data || {};
  if (msg.type === "replay") {
    // A finished game's steps for the replay page, replayed by the engine.
    python(msg)
      .then((offline) => post({ type: "replay", ...JSON.parse(offline.replay_text(JSON.stringify(msg.record))) }))
      .catch((e) => post({ type: "offline_failed", stage: "replay", message: String(e && e.message || e) }));
    return;
  }
  if (msg.type === "offline") {
    openTable(msg).catch((e) => post({ type: "offline_failed", stage: "load", message: String(e && e.message || e) }));
    return;
  }
  try {
    receive(msg);
  } catch (e) {
    post({ type: "offline_failed", stage: "play", message: String(e && e.message || e) });
  }
};
