// The offline games kept in this browser (IndexedDB "seep-offline", store "games"): each one is
// what the worker's host says after every change (its `saved` message: the options, the seed,
// every move with its seat, the deals left, and once over its docs/format.md record), so a
// closed tab resumes the deal by replaying its moves. Used by the page and by the worker.

const DB = "seep-offline";
const STORE = "games";
const KEPT = 50; // finished games kept; older ones go

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE, { keyPath: "id" });
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

function run(mode, work) {
  return open().then((db) => new Promise((resolve, reject) => {
    const tx = db.transaction(STORE, mode);
    const out = work(tx.objectStore(STORE));
    tx.oncomplete = () => {
      db.close();
      resolve(out && "result" in out ? out.result : undefined);
    };
    tx.onerror = () => reject(tx.error);
  }));
}

/** Keep a game (`id`, `started`, `updated` and the host's saved fields). */
export function saveGame(game) {
  return run("readwrite", (s) => s.put(game));
}

export function getGame(id) {
  return run("readonly", (s) => s.get(id));
}

export function deleteGame(id) {
  return run("readwrite", (s) => s.delete(id));
}

/** Every kept game, the latest first. */
export async function listGames() {
  const all = (await run("readonly", (s) => s.getAll())) || [];
  all.sort((a, b) => (b.updated || 0) - (a.updated || 0));
  const finished = all.filter((g) => g.status === "finished");
  for (const g of finished.slice(KEPT)) await deleteGame(g.id);
  return all.filter((g) => g.status !== "finished" || finished.indexOf(g) < KEPT);
}

/** The game being played (not finished), if any: the latest. */
export async function currentGame() {
  return (await listGames()).find((g) => g.status !== "finished") || null;
}
