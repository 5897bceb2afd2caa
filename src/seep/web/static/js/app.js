// The single page app: the lobby at /, a table at /t/{code}, a replay at /replay/{code}, a
// player's profile at /u/{name}, the leaderboards at /leaderboard, an event at /events/{id}.
import { initAccount } from "./account.js";
import { initLobby } from "./lobby.js";
import { TableView } from "./table.js";
import { ReplayView } from "./replay.js";
import { EventView } from "./event.js";
import { LeaderboardView, ProfileView } from "./players.js";
import { langSwitchHtml, t, translatePage, wireLangSwitch } from "./i18n.js";
import { fourColour } from "./cards.js";
import { markOfflineButton, OfflineView } from "./offline.js";
import { initPwa } from "./pwa.js";

function show(id) {
  for (const el of document.querySelectorAll("body > .view")) el.hidden = el.id !== id;
}

function route() {
  wireLangSwitch();
  document.documentElement.classList.toggle("four-colour", fourColour()); // the remembered deck
  translatePage();
  const path = location.pathname;
  let m = path.match(/^\/t\/([A-Za-z0-9]{3,8})\/?$/);
  if (m) {
    show("table-view");
    document.title = `Seep · ${t("table")} ${m[1].toUpperCase()}`;
    const view = new TableView(document.getElementById("table-view"), m[1]);
    window.seepTable = view; // for the console and the browser tests
    view.start();
    return;
  }
  m = path.match(/^\/replay\/([A-Za-z0-9]{3,8})\/?$/);
  if (m) {
    show("replay-view");
    document.title = `Seep · ${t("replay")} ${m[1].toUpperCase()}`;
    new ReplayView(document.getElementById("replay-view"), m[1]).start();
    return;
  }
  m = path.match(/^\/u\/([^/]{1,64})\/?$/);
  if (m) {
    show("profile-view");
    new ProfileView(document.getElementById("profile-view"), decodeURIComponent(m[1])).start();
    return;
  }
  m = path.match(/^\/events\/(\d{1,9})\/?$/);
  if (m) {
    show("event-view");
    new EventView(document.getElementById("event-view"), m[1]).start();
    return;
  }
  if (/^\/offline\/?$/.test(path)) {
    show("table-view");
    document.title = `Seep · ${t("Play offline")}`;
    const offline = new OfflineView(document.getElementById("table-view"));
    window.seepOffline = offline; // for the console, the browser test and bench/offline.py
    offline.start();
    return;
  }
  if (/^\/leaderboard\/?$/.test(path)) {
    show("leaderboard-view");
    new LeaderboardView(document.getElementById("leaderboard-view")).start();
    return;
  }
  show("lobby");
  document.getElementById("lobby-lang").innerHTML = langSwitchHtml();
  initLobby(document.getElementById("lobby"));
  initAccount(document.getElementById("lobby"));
  markOfflineButton(document.getElementById("offline-link"));
}

route();
initPwa(); // the installable app's worker (after route: it reads window.seepTable)
