// The lobby: create a table (name, rules, bots, length, practice, clock) or join one by code.
import { api, prefs, toast, tokens } from "./net.js";
import { t, tText } from "./i18n.js";
import { errorText } from "./reasons.js";
import { ratingWord } from "./players.js";
import { initEvents } from "./events.js";
import { initOrganise } from "./organise.js";

// The names the create form shows for a preset and a bot level (the key for one it lacks).
const PRESET_WORDS = { standard: "Standard", family: "Family", two_houses: "Two houses", two_player: "Two players" };
const LEVEL_WORDS = { easy: "Easy", medium: "Medium", hard: "Hard", expert: "Expert" };
const word = (table, key) => (table[key] ? t(table[key]) : key);
// The Rated box counts only while it is offered (a signed-in player: account.js shows it).
const rated = (form) => Boolean(form.rated && form.rated.checked && !form.querySelector("#rated-box").hidden);

export function initLobby(root) {
  const create = root.querySelector("#create-form");
  const join = root.querySelector("#join-code-form");
  const name = prefs.get("name");
  for (const input of root.querySelectorAll("input[name=name]")) if (name) input.value = name;
  for (const key of ["preset", "bots"]) {
    const saved = prefs.get(key);
    if (saved && create[key].querySelector(`option[value="${saved}"]`)) create[key].value = saved;
  }
  const lengthKind = () => create.querySelector("input[name=length]:checked").value;
  const syncLength = () => {
    const baazis = lengthKind() === "baazis";
    create.count.max = baazis ? 9 : 20;
    const one = Number(create.count.value) === 1;
    root.querySelector("#count-unit").textContent = t(baazis ? (one ? "baazi" : "baazis") : one ? "deal" : "deals");
  };
  create.querySelectorAll("input[name=length]").forEach((r) => r.addEventListener("change", syncLength));
  create.count.addEventListener("input", syncLength);
  syncLength();

  create.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const body = {
      name: create.name.value.trim() || "Player",
      preset: create.preset.value,
      bots: create.bots.value,
      practice: create.practice.checked,
      rated: rated(create),
      public: Boolean(create.public && create.public.checked) && !create.practice.checked,
      turn_seconds: create.clock.value ? Number(create.clock.value) : null,
    };
    body[lengthKind()] = Math.max(1, Number(create.count.value) || 1);
    prefs.set("name", body.name);
    prefs.set("preset", body.preset);
    prefs.set("bots", body.bots);
    const btn = create.querySelector("button[type=submit]");
    btn.disabled = true;
    try {
      const res = await api("/api/tables", body);
      tokens.set(res.code, res.token, res.seat);
      location.href = res.url || `/t/${res.code}`;
    } catch (e) {
      toast(errorText(e));
      btn.disabled = false;
    }
  });

  initOpenTables(root, create, lengthKind);
  initEvents(root);
  initOrganise(root);

  // A practice table is never listed (undo and the coach are for the player alone): the Public
  // box says so instead of being ignored.
  const practice = create.practice;
  const pub = create.public;
  if (practice && pub) {
    const note = root.querySelector("#public-note");
    const syncPublic = () => {
      pub.disabled = practice.checked;
      if (practice.checked) pub.checked = false;
      if (note) note.hidden = !practice.checked;
    };
    practice.addEventListener("change", syncPublic);
    syncPublic();
  }
  // Rated and practice exclude each other: checking one clears the other.
  if (practice && create.rated) {
    const ratedNote = root.querySelector("#rated-note");
    const waitBox = root.querySelector("#wait-box"); // rated quick match's wait for players
    const syncRated = (changed) => {
      if (changed === practice && practice.checked) create.rated.checked = false;
      if (changed === create.rated && create.rated.checked && practice.checked) {
        practice.checked = false;
        practice.dispatchEvent(new Event("change"));
      }
      if (ratedNote) ratedNote.hidden = !create.rated.checked;
      if (waitBox) waitBox.hidden = !create.rated.checked;
    };
    practice.addEventListener("change", () => syncRated(practice));
    create.rated.addEventListener("change", () => syncRated(create.rated));
  }

  join.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const code = join.code.value.trim().toUpperCase();
    if (!code) return;
    const who = join.name.value.trim();
    if (tokens.get(code) || !who) {
      location.href = `/t/${code}`;
      return;
    }
    prefs.set("name", who);
    try {
      const res = await api(`/api/tables/${code}/join`, { name: who });
      tokens.set(code, res.token, res.seat);
      location.href = `/t/${code}`;
    } catch (e) {
      if (e.code === "unknown_table") toast(errorText(e));
      else location.href = `/t/${code}`; // full or started: the table page offers to watch
    }
  });
}

// The footer names the server's version (seep.__version__), which the lobby's answer carries:
// the page itself is a static file.
function showVersion(root, version) {
  const footer = root.querySelector("#site-footer");
  if (!footer || typeof version !== "string") return;
  footer.textContent = tText("Seep version {v}", { v: version });
  footer.hidden = false;
}

// Open public tables (GET /api/lobby) and quick match (POST /api/quick: the first open
// public table with the chosen settings, or a new public one). Names go in as text.
function initOpenTables(root, create, lengthKind) {
  const list = root.querySelector("#lobby-list");
  if (!list) return;
  const refresh = async () => {
    let data;
    try {
      data = await api("/api/lobby");
    } catch (e) {
      return;
    }
    showVersion(root, data.version);
    list.textContent = "";
    if (!data.tables.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = t("No open public table: start one, or use Quick match.");
      list.appendChild(li);
    }
    for (const row of data.tables) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/t/${row.code}`;
      a.className = "btn small";
      a.textContent = t("Join");
      const s = row.settings;
      const length = s.deals
        ? t(s.deals > 1 ? "{n} deals" : "{n} deal", { n: s.deals })
        : t(s.baazis > 1 ? "{n} baazis" : "{n} baazi", { n: s.baazis });
      // A signed-in player's name with his rating ("Asha 1532?").
      const who = row.seats
        .filter((x) => x.kind === "human")
        .map((x) => (x.rating ? `${x.name} ${ratingWord(x.rating)}` : x.name))
        .join(", ");
      const facts = [row.code, ...(s.rated ? [t("Rated")] : []), word(PRESET_WORDS, s.preset), t("{level} bots", { level: word(LEVEL_WORDS, s.bots) }), length, t("{n} free", { n: row.free })];
      li.append(`${facts.join(" · ")} · ${who} `, a);
      list.appendChild(li);
    }
  };
  root.querySelector("#lobby-refresh").addEventListener("click", refresh);
  // Quick match takes the name from whichever box the player typed in last (either will do).
  const boxes = [...root.querySelectorAll("input[name=name]")];
  let typed = null;
  for (const box of boxes) box.addEventListener("input", () => { typed = box; });
  const quickName = () => {
    const order = typed ? [typed, ...boxes] : boxes;
    return order.map((b) => b.value.trim()).find(Boolean) || "Player";
  };
  root.querySelector("#quick-btn").addEventListener("click", async () => {
    const body = {
      name: quickName(),
      preset: create.preset.value,
      bots: create.bots.value,
      turn_seconds: create.clock.value ? Number(create.clock.value) : null,
      rated: rated(create),
      tokens: tokens.held(), // a second quick match answers the seat already held there
    };
    body[lengthKind()] = Math.max(1, Number(create.count.value) || 1);
    // Rated only: how long to wait for players near in rating before bots fill the seats.
    if (body.rated && create.wait && create.wait.value) body.wait = Number(create.wait.value);
    if (body.name !== "Player") prefs.set("name", body.name);
    try {
      const res = await api("/api/quick", body);
      tokens.set(res.code, res.token, res.seat);
      location.href = res.url || `/t/${res.code}`;
    } catch (e) {
      toast(errorText(e));
    }
  });
  refresh();
  // The list follows the server while the lobby is in view (4 looks a minute, well inside the
  // server's limit of lobby looks), and at once when the player comes back to the tab.
  setInterval(() => { if (document.visibilityState === "visible") refresh(); }, 15000);
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") refresh(); });
}
