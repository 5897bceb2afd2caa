// Players: a profile (/u/{name}: GET /api/players/{name}) and the leaderboards (/leaderboard:
// GET /api/leaderboard), and a player's rating beside his name at a table. Names are text,
// never markup; the rating chart is SVG made here (no inline script or style: the CSP stays).
import { api, esc } from "./net.js";
import { langSwitchHtml, t, tText } from "./i18n.js";
import { errorText } from "./reasons.js";

const SVG = "http://www.w3.org/2000/svg";
const FORMAT_WORDS = { four: "With a partner", two: "Head to head" };
const RESULT_WORDS = { win: "won", loss: "lost", draw: "drawn" };

/** "1532?" while a rating is provisional (docs/web.md "Ratings"), "1532" once it is settled. */
export const ratingWord = (r) => `${r.rating}${r.provisional ? "?" : ""}`;

/** A seat's rating beside its name (none for a guest or a bot). */
export function seatRatingHtml(seat) {
  if (!seat || !seat.rating) return "";
  const title = seat.rating.provisional ? t("Rating (provisional: few rated matches yet)") : t("Rating");
  return ` <span class="rating-tag" title="${title}">${esc(ratingWord(seat.rating))}</span>`;
}

/** A player's name linking his profile when it is an account's, else the name as text. */
export function playerHtml(p, newTab = false) {
  if (!p) return "";
  if (!p.account) return esc(p.name);
  const target = newTab ? ` target="_blank" rel="noopener"` : "";
  return `<a href="/u/${encodeURIComponent(p.name)}"${target}>${esc(p.name)}</a>`;
}

const day = (unix) => new Date(unix * 1000).toLocaleDateString(document.documentElement.lang || "en");

/** The rating history as an SVG line chart with a text alternative (built as elements). */
function chart(points, label) {
  const w = 320, h = 120, pad = 8;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  const first = points[0].rating, last = points[points.length - 1].rating;
  svg.setAttribute("aria-label", tText("{what}: from {a} to {b} over {n} rated matches", { what: label, a: first, b: last, n: points.length }));
  const values = points.map((p) => p.rating);
  const lo = Math.min(...values) - 10, hi = Math.max(...values) + 10;
  const x = (i) => pad + (points.length === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (points.length - 1));
  const y = (v) => h - pad - ((v - lo) * (h - 2 * pad)) / (hi - lo);
  const line = document.createElementNS(SVG, "polyline");
  line.setAttribute("points", points.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "currentColor");
  line.setAttribute("stroke-width", "2");
  svg.appendChild(line);
  points.forEach((p, i) => {
    const dot = document.createElementNS(SVG, "circle");
    dot.setAttribute("cx", x(i).toFixed(1));
    dot.setAttribute("cy", y(p.rating).toFixed(1));
    dot.setAttribute("r", "2.5");
    dot.setAttribute("fill", "currentColor");
    const tip = document.createElementNS(SVG, "title");
    tip.textContent = `${day(p.ended)}: ${p.rating}`;
    dot.appendChild(tip);
    svg.appendChild(dot);
  });
  return svg;
}

export class ProfileView {
  constructor(root, name) {
    this.root = root;
    this.name = name;
    this.page = 1;
  }

  async start() {
    this.root.innerHTML = `<div class="profile-page"><p class="muted">${t("Loading…")}</p></div>`;
    let p;
    try {
      p = await api(`/api/players/${encodeURIComponent(this.name)}`);
    } catch (e) {
      this.root.innerHTML = `<div class="panel center-msg"><h2>${t("No such player")}</h2><p>${esc(errorText(e))}</p><p><a class="btn" href="/">${t("Lobby")}</a></p></div>`;
      return;
    }
    document.title = `Seep · ${p.name}`;
    const s = p.stats;
    const ratings = Object.entries(p.ratings)
      .map(([f, r]) => `<div class="rating-card"><span class="muted">${t(FORMAT_WORDS[f])}</span> <b class="rating-big" data-format="${f}">${esc(ratingWord(r))}</b> <small>${t(r.games === 1 ? "{n} rated match" : "{n} rated matches", { n: r.games })}</small></div>`)
      .join("");
    const stat = (label, value) => `<tr><th scope="row">${t(label)}</th><td>${esc(value)}</td></tr>`;
    this.root.innerHTML = `<div class="profile-page">
      <header class="page-head"><h1 id="profile-name">${esc(p.name)}</h1> ${langSwitchHtml()}
        <nav><a class="btn small ghost" href="/">${t("Lobby")}</a> <a class="btn small ghost" href="/leaderboard">${t("Leaderboard")}</a></nav></header>
      <p class="muted small">${t("Playing since {date}", { date: day(p.created) })}</p>
      <section class="panel" aria-labelledby="ratings-title"><h2 id="ratings-title">${t("Ratings")}</h2>${ratings}<div id="charts"></div></section>
      <section class="panel" aria-labelledby="stats-title"><h2 id="stats-title">${t("Statistics")}</h2>
        <table class="stats-table" id="stats"><tbody>
        ${stat("Rated matches", s.matches)}${stat("Won", s.wins)}${stat("Lost", s.losses)}${stat("Drawn", s.draws)}
        ${stat("Abandoned", s.abandons)}${stat("Baazis won", s.baazis)}${stat("Deals", s.deals)}
        ${stat("Card points per deal", s.points_per_deal)}${stat("Sweep points per deal", s.sweep_points_per_deal)}
        </tbody></table></section>
      <section class="panel" aria-labelledby="matches-title"><h2 id="matches-title">${t("Rated matches")}</h2>
        <div id="match-list"></div><p><button class="btn small" id="more-matches" hidden>${t("Older matches")}</button></p></section>
    </div>`;
    const charts = this.root.querySelector("#charts");
    for (const [f, points] of Object.entries(p.history)) {
      if (!points.length) continue;
      const fig = document.createElement("figure");
      const cap = document.createElement("figcaption");
      cap.textContent = tText("Rating history: {what}", { what: tText(FORMAT_WORDS[f]) });
      fig.append(cap, chart(points, tText(FORMAT_WORDS[f])));
      charts.appendChild(fig);
    }
    this.showMatches(p);
    this.root.querySelector("#more-matches").addEventListener("click", () => this.more());
  }

  showMatches(p) {
    const list = this.root.querySelector("#match-list");
    if (!p.matches.length && this.page === 1) {
      list.innerHTML = `<p class="muted">${t("No rated match yet.")}</p>`;
    } else {
      let table = list.querySelector("table");
      if (!table) {
        list.innerHTML = `<table class="match-table"><thead><tr><th>${t("Date")}</th><th>${t("Partner")}</th><th>${t("Opponents")}</th><th>${t("Result")}</th><th>${t("Rating")}</th><th><span class="sr-only">${t("Replay")}</span></th></tr></thead><tbody></tbody></table>`;
        table = list.querySelector("table");
      }
      const body = table.querySelector("tbody");
      for (const m of p.matches) {
        const change = m.change > 0 ? `+${m.change}` : String(m.change);
        const result = t(RESULT_WORDS[m.result]) + (m.forfeited ? ` (${t("abandoned")})` : "");
        const tr = document.createElement("tr");
        tr.className = `result-${m.result}`;
        tr.innerHTML = `<td>${esc(day(m.ended))}</td><td>${m.partner ? playerHtml(m.partner) : `<span class="muted">${t("none: head to head")}</span>`}</td>
          <td>${m.opponents.map((o) => playerHtml(o)).join(", ")}</td><td>${result}</td>
          <td>${esc(m.rating_after)} <small>(${esc(change)})</small></td><td><a href="${esc(m.replay)}">${t("Replay")}</a></td>`;
        body.appendChild(tr);
      }
    }
    const more = this.root.querySelector("#more-matches");
    more.hidden = !p.next_page;
    this.next = p.next_page;
  }

  async more() {
    if (!this.next) return;
    try {
      const p = await api(`/api/players/${encodeURIComponent(this.name)}?page=${this.next}`);
      this.page = this.next;
      this.showMatches(p);
    } catch (e) {
      this.root.querySelector("#more-matches").hidden = true;
    }
  }
}

export class LeaderboardView {
  constructor(root) {
    this.root = root;
    this.format = new URLSearchParams(location.search).get("format") === "two" ? "two" : "four";
    this.page = 1;
  }

  async start() {
    document.title = `Seep · ${tText("Leaderboard")}`;
    this.root.innerHTML = `<div class="board-page">
      <header class="page-head"><h1>${t("Leaderboard")}</h1> ${langSwitchHtml()}
        <nav><a class="btn small ghost" href="/">${t("Lobby")}</a></nav></header>
      <div class="tabs" role="group" aria-label="${t("Format")}">
        ${["four", "two"].map((f) => `<button class="btn small" data-format="${f}" aria-pressed="${f === this.format}">${t(FORMAT_WORDS[f])}</button>`).join(" ")}</div>
      <section class="panel" id="board" aria-live="polite"></section>
      <p class="muted small">${t("Players with a settled rating and at least 5 rated matches, the latest in the last 30 days.")}</p>
    </div>`;
    this.root.querySelector(".tabs").addEventListener("click", (ev) => {
      const b = ev.target.closest("[data-format]");
      if (!b) return;
      this.format = b.dataset.format;
      this.page = 1;
      for (const x of this.root.querySelectorAll(".tabs [data-format]")) x.setAttribute("aria-pressed", String(x === b));
      this.load();
    });
    await this.load();
  }

  async load() {
    const board = this.root.querySelector("#board");
    let data;
    try {
      data = await api(`/api/leaderboard?format=${this.format}&page=${this.page}`);
    } catch (e) {
      board.innerHTML = `<p>${esc(errorText(e))}</p>`;
      return;
    }
    if (!data.players.length) {
      board.innerHTML = `<p class="muted" id="board-empty">${t("Nobody is on this leaderboard yet.")}</p>`;
      return;
    }
    const rows = data.players
      .map((p) => `<tr><td>${p.rank}</td><td>${playerHtml({ name: p.name, account: true })}</td><td>${p.rating}</td><td>${p.games}</td></tr>`)
      .join("");
    board.innerHTML = `<table class="board-table"><thead><tr><th>#</th><th>${t("Player")}</th><th>${t("Rating")}</th><th>${t("Rated matches")}</th></tr></thead><tbody>${rows}</tbody></table>
      <p>${this.page > 1 ? `<button class="btn small" data-page="${this.page - 1}">${t("Previous")}</button>` : ""}
      ${data.next_page ? `<button class="btn small" data-page="${data.next_page}">${t("Next")}</button>` : ""}</p>`;
    for (const b of board.querySelectorAll("[data-page]")) {
      b.addEventListener("click", () => {
        this.page = Number(b.dataset.page);
        this.load();
      });
    }
  }
}
