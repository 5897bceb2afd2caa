// An event's page (/events/{id}: GET /api/events/{id}): what the event is, the signed-in
// player's next step (register with a partner, accept, check in, go to his table, withdraw),
// the organiser's controls, the standings, each round's tables with their results and
// replays, and for a duplicate event the deal-by-deal comparison. Everything shown is what
// the server sent (docs/web.md "Events"): pairings, results, standings and matchpoints are
// decided there; this page only lays them out. Names are the players' words: text, never
// markup. While the event is not over the page asks again every few seconds.
import { api, esc, toast } from "./net.js";
import { goToEventSeat } from "./eventseat.js";
import { html, lang, langSwitchHtml, t, tText } from "./i18n.js";
import { errorText } from "./reasons.js";

const KIND_WORDS = { swiss: "Swiss", arena: "Arena", duplicate: "Duplicate" };
const FORMAT_WORDS = { four: "Four players", two: "Two players" };
const STATUS_WORDS = { open: "Taking registrations", running: "Running", paused: "Paused", finished: "Finished" };
const ACTION_WORDS = { start: "Start now", pause: "Pause", resume: "Resume", end: "End the event" };
// Which of the organiser's requests the server takes in each state (routes/events.py).
const ORGANISER_ACTIONS = { open: ["start", "pause", "end"], running: ["pause", "end"], paused: ["resume", "end"], finished: [] };
const LIVE = ["open", "running", "paused"];
// Seconds between looks while the event is live: a round's tables open within the runner's
// tick, so a running event is looked at more often; both well inside the lobby's limit.
const POLL_RUNNING = 10;
const POLL_WAITING = 15;
const ENDED = ["finished", "closed"];

const word = (table, key) => (table[key] ? t(table[key]) : esc(key));
const locale = () => (lang() === "hi" ? "hi-IN" : undefined);

function when(seconds) {
  // A 24-hour clock: no "am"/"pm" left in English on the Hindi page.
  return new Date(seconds * 1000).toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short", hourCycle: "h23" });
}

/** A number as the page's language writes it, with at most ``digits`` decimals (48, 48.5). */
function number(x, digits = 0) {
  return Number(x).toLocaleString(locale(), { maximumFractionDigits: digits });
}

/** A value that may be missing (nothing to compare with yet) as a dash. */
const orDash = (v, fmt) => (v === null || v === undefined ? "–" : fmt(v));
const percentText = (v) => orDash(v, (x) => `${number(x, 1)} %`);

/** The side (0 or 1) of a round table's first team: side 0 unless the table is swapped. */
const sideOf = (table, i) => (i === 0) === !table.swapped ? 0 : 1;

export class EventView {
  constructor(root, id) {
    this.root = root;
    this.id = id;
    this.data = null;
    this.me = undefined; // the signed-in player's name, null for a guest
    this.seen = "";
    this.timer = null;
    this.busy = false;
    this.listed = null; // the event in the lobby's list (see planned())
  }

  async start() {
    this.root.innerHTML = `<div class="event-page"><p class="muted">${t("Loading…")}</p></div>`;
    try {
      this.me = (await api("/api/me")).name;
    } catch (e) {
      this.me = null;
    }
    let data;
    try {
      data = await api(`/api/events/${this.id}`);
    } catch (e) {
      document.title = `Seep · ${tText("No such event")}`;
      this.root.innerHTML = `<div class="panel center-msg"><h2>${t("No such event")}</h2><p>${esc(errorText(e))}</p><p><a class="btn" href="/">${t("Lobby")}</a></p></div>`;
      return;
    }
    // GET /api/events/{id} lists the rounds played under "rounds" (and a duplicate event's
    // deals under "deals"); the numbers planned are under "planned" (a server before it: the
    // lobby's list, one look at the start, since they never change).
    if (!data.planned && data.status !== "finished") {
      try {
        this.listed = (await api("/api/events")).events.find((e) => String(e.id) === String(this.id)) || null;
      } catch (e) {
        /* shown without it */
      }
    }
    this.skeleton();
    this.show(data);
    this.root.addEventListener("click", (ev) => this.clicked(ev));
    this.root.addEventListener("submit", (ev) => this.submitted(ev));
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.refresh();
    });
    this.schedule();
  }

  skeleton() {
    this.root.innerHTML = `<div class="event-page">
      <header class="page-head"><h1 id="event-name"></h1> ${langSwitchHtml()}
        <nav><a class="btn small ghost" href="/">${t("Lobby")}</a></nav></header>
      <p id="event-facts" class="muted"></p>
      <p id="event-status" class="event-status" role="status" aria-live="polite"></p>
      <section class="panel" id="event-you" aria-labelledby="event-you-title"><h2 id="event-you-title">${t("You")}</h2><div id="event-you-body"></div></section>
      <section class="panel" id="event-organiser" aria-labelledby="event-organiser-title" hidden><h2 id="event-organiser-title">${t("Organiser")}</h2><div id="event-organiser-body"></div></section>
      <section class="panel" id="event-standings" aria-labelledby="event-standings-title"><h2 id="event-standings-title">${t("Standings")}</h2><div id="event-standings-body"></div></section>
      <section class="panel" id="event-rounds" aria-labelledby="event-rounds-title"><h2 id="event-rounds-title">${t("Rounds")}</h2><div id="event-rounds-body"></div></section>
      <section class="panel" id="event-deals" aria-labelledby="event-deals-title" hidden><h2 id="event-deals-title">${t("Deal by deal")}</h2><div id="event-deals-body"></div></section>
      <section class="panel" id="event-teams" aria-labelledby="event-teams-title"><h2 id="event-teams-title">${t("Teams")}</h2><div id="event-teams-body"></div></section>
    </div>`;
  }

  schedule() {
    clearTimeout(this.timer);
    if (!this.data || !LIVE.includes(this.data.status)) return;
    const seconds = this.data.status === "running" ? POLL_RUNNING : POLL_WAITING;
    this.timer = setTimeout(async () => {
      if (document.visibilityState === "visible") await this.refresh();
      else this.schedule();
    }, seconds * 1000);
  }

  async refresh() {
    try {
      this.show(await api(`/api/events/${this.id}`));
    } catch (e) {
      /* the next look may get through (a busy server, the lobby's limit) */
    }
    this.schedule();
  }

  show(data) {
    const text = JSON.stringify(data);
    if (text === this.seen) return;
    this.seen = text;
    const before = this.data;
    this.data = data;
    this.teams = new Map(data.teams.map((x) => [x.id, x]));
    // Redrawn parts lose the focus: it goes back to the element of the same id, if any.
    const focused = document.activeElement && this.root.contains(document.activeElement) ? document.activeElement.id : "";
    const typed = this.root.querySelector("#event-partner");
    const partner = typed ? typed.value : "";
    document.title = `Seep · ${data.name}`;
    this.root.querySelector("#event-name").textContent = data.name;
    this.root.querySelector("#event-facts").innerHTML = this.facts();
    if (!before || before.status !== data.status || before.round !== data.round) {
      this.root.querySelector("#event-status").innerHTML = this.statusText();
    }
    const you = this.you();
    this.root.querySelector("#event-you").hidden = !you;
    this.root.querySelector("#event-you-body").innerHTML = you;
    const organiser = this.root.querySelector("#event-organiser");
    organiser.hidden = !this.organising();
    this.root.querySelector("#event-organiser-body").innerHTML = organiser.hidden ? "" : this.organiserHtml();
    this.root.querySelector("#event-standings-body").innerHTML = this.standings();
    this.root.querySelector("#event-rounds-body").innerHTML = this.rounds();
    const deals = this.root.querySelector("#event-deals");
    deals.hidden = !(Array.isArray(data.deals) && data.deals.length);
    this.root.querySelector("#event-deals-body").innerHTML = deals.hidden ? "" : this.deals();
    this.root.querySelector("#event-teams-body").innerHTML = this.teamList();
    const box = this.root.querySelector("#event-partner");
    if (box && partner) box.value = partner;
    if (focused) {
      const again = this.root.querySelector(`#${CSS.escape(focused)}`);
      if (again && document.activeElement !== again) again.focus();
    }
  }

  facts() {
    const d = this.data;
    const total = this.total();
    const played = this.playedRounds().length;
    let rounds = [];
    if (total) rounds = [t(total > 1 ? "{n} rounds" : "{n} round", { n: total })];
    else if (played) rounds = [t(played > 1 ? "{n} rounds played" : "{n} round played", { n: played })];
    const baazis = this.planned("baazis");
    const perRound = this.planned("deals");
    let deals = perRound ? [t(perRound > 1 ? "{n} deals a round" : "{n} deal a round", { n: perRound })] : [];
    if (baazis) deals = [t(baazis > 1 ? "{n} baazis a round" : "{n} baazi a round", { n: baazis })];
    const parts = [word(KIND_WORDS, d.kind), word(FORMAT_WORDS, d.format), d.rated ? t("Rated") : t("Not rated"), ...rounds, ...deals, t("Starts {when}", { when: when(d.starts) }), t("by {name}", { name: d.organiser })];
    return parts.join(" · ");
  }

  statusText() {
    const d = this.data;
    const state = word(STATUS_WORDS, d.status);
    if (d.status === "running" || (d.status === "paused" && d.round > 0)) {
      const total = this.total();
      return `${state}: ${total ? t("Round {n} of {m}", { n: d.round, m: total }) : t("Round {n}", { n: d.round })}`;
    }
    return state;
  }

  /** The rounds opened so far, with their tables. The event's answer carries them under
   * ``rounds``, where the lobby's list has the number of rounds planned. */
  playedRounds() {
    return Array.isArray(this.data.rounds) ? this.data.rounds : [];
  }

  /** The number of rounds planned. */
  total() {
    return this.planned("rounds");
  }

  /** The event's ``rounds`` or ``deals`` (a round's) planned: the answer's number, else the
   * lobby list's (an event over is not listed: then null). The event's answer carries the
   * numbers under "planned", the rounds played and the deals compared under these names. */
  planned(key) {
    const planned = this.data.planned || {};
    if (typeof planned[key] === "number") return planned[key];
    if (typeof this.data[key] === "number") return this.data[key];
    return this.listed && typeof this.listed[key] === "number" ? this.listed[key] : null;
  }

  myTeam() {
    return this.data.me ? this.teams.get(this.data.me.team) || null : null;
  }

  organising() {
    return Boolean(this.me && this.me === this.data.organiser && this.data.status !== "finished");
  }

  /** The round being played (the last, not done yet), or null. */
  current() {
    const rounds = this.playedRounds();
    const last = rounds[rounds.length - 1];
    return last && last.status !== "done" ? last : null;
  }

  /** The player's table in the round being played, or null. */
  myTable() {
    const mine = this.myTeam();
    const round = this.current();
    if (!mine || !round) return null;
    // A duplicate round has a table per deal, opened one after the other: the latest is his.
    const own = round.tables.filter((x) => x.teams.includes(mine.id));
    return own.reduce((best, x) => (!best || (x.deal || 0) > (best.deal || 0) ? x : best), null);
  }

  you() {
    const d = this.data;
    if (this.me === null) {
      if (d.status === "finished") return ""; // nothing for a guest to do
      return `<p>${t("Sign in in the lobby to register for this event.")}</p><p><a class="btn small" id="event-sign-in" href="/">${t("Sign in")}</a></p>`;
    }
    const mine = this.myTeam();
    if (!mine) {
      if (d.status !== "open") return `<p class="muted">${t("You are not playing in this event.")}</p>`;
      const partner = d.format === "four"
        ? `<label><span>${t("Your partner's account name")}</span><input id="event-partner" name="partner" maxlength="24" autocomplete="off" required></label>`
        : "";
      return `<form id="event-register" class="form inline-form">${partner}<button class="btn primary" type="submit" id="event-register-btn">${t("Register")}</button></form>`;
    }
    const lines = [`<p id="event-my-team">${t("Your team: {name}", { name: mine.name })}</p>`];
    const buttons = [];
    const second = mine.players.length > 1 && mine.players[1] === this.me;
    if (!mine.accepted) {
      if (second) {
        lines.push(`<p>${t("{name} asked you to be partners.", { name: mine.players[0] })}</p>`);
        buttons.push(`<button class="btn primary" type="button" id="event-accept" data-act="accept">${t("Accept")}</button>`);
      } else {
        lines.push(`<p>${t("Waiting for {name} to accept.", { name: mine.players[1] || "" })}</p>`);
      }
    } else if (!mine.checked_in && (d.status === "open" || d.status === "paused") && d.round === 0) {
      lines.push(`<p>${t("Check in before the start to play.")}</p>`);
      buttons.push(`<button class="btn primary" type="button" id="event-checkin" data-act="checkin">${t("Check in")}</button>`);
    } else if (mine.checked_in && d.round === 0 && d.status !== "finished") {
      lines.push(`<p>${t("Checked in: the first round starts {when}.", { when: when(d.starts) })}</p>`);
    } else if (!mine.checked_in && d.round > 0) {
      lines.push(`<p class="muted">${t("Your team did not check in: it is not playing.")}</p>`);
    }
    const table = this.myTable();
    const round = this.current();
    if (mine.checked_in && d.status !== "finished" && round) {
      if (table && table.status && !ENDED.includes(table.status)) {
        lines.push(`<p>${t("Round {n}: your table is ready.", { n: round.number })}</p>`);
        buttons.unshift(`<button class="btn primary" type="button" id="event-seat" data-act="seat">${t("Go to your table")}</button>`);
      } else if (table && !table.status) {
        lines.push(`<p>${t("Round {n}: your table is opening.", { n: round.number })}</p>`);
      } else if (round.bye === mine.id) {
        lines.push(`<p>${t("Round {n}: your team has a bye (it counts as a win).", { n: round.number })}</p>`);
      } else if (table) {
        lines.push(`<p>${t("Round {n}: your table has finished. Waiting for the other tables.", { n: round.number })}</p>`);
      }
    }
    if (d.status !== "finished") {
      buttons.push(`<button class="btn ghost" type="button" id="event-withdraw" data-act="withdraw">${t(second && !mine.accepted ? "Decline" : "Withdraw")}</button>`);
    }
    return lines.join("") + (buttons.length ? `<p class="event-actions">${buttons.join(" ")}</p>` : "");
  }

  organiserHtml() {
    const d = this.data;
    const actions = (ORGANISER_ACTIONS[d.status] || [])
      .map((a) => `<button class="btn${a === "start" || a === "resume" ? " primary" : ""}" type="button" id="event-org-${a}" data-act="organise" data-action="${a}">${t(ACTION_WORDS[a])}</button>`)
      .join(" ");
    const teams = d.teams.filter((x) => !x.withdrawn);
    const withdraw = teams.length
      ? `<form id="event-withdraw-team" class="form inline-form"><label><span>${t("Withdraw a team")}</span><select id="event-team-select" name="team">${teams.map((x) => `<option value="${x.id}">${esc(x.name)}</option>`).join("")}</select></label> <button class="btn ghost" type="submit" id="event-withdraw-team-btn">${t("Withdraw the team")}</button></form>`
      : "";
    return `<p class="event-actions">${actions}</p>${withdraw}`;
  }

  teamName(id) {
    const team = this.teams.get(id);
    return team ? esc(team.name) : esc(id);
  }

  standings() {
    const rows = this.data.standings || [];
    if (!rows.length) return `<p class="muted" id="standings-empty">${t("The standings show once the first round is played.")}</p>`;
    const mine = this.myTeam();
    // A duplicate event ranks by percent of matchpoints; a Swiss one by points, Buchholz and
    // the points difference (docs/web.md "Events"): the columns are the fields sent.
    const percent = rows.some((r) => "percent" in r);
    const cols = percent
      ? [["matchpoints", "Matchpoints", (v, r) => (v === undefined ? "" : "top" in r ? `${number(v)} / ${number(r.top)}` : number(v))], ["percent", "Percent", percentText]]
      : [["points", "Points", (v) => number(v)], ["buchholz", "Buchholz", (v) => number(v)], ["diff", "Points difference", (v) => (v > 0 ? "+" : "") + number(v)]];
    const shown = cols.filter(([key]) => rows.some((r) => key in r));
    const head = `<tr><th scope="col">${t("Rank")}</th><th scope="col">${t("Team")}</th>${shown.map(([, label]) => `<th scope="col">${t(label)}</th>`).join("")}</tr>`;
    const body = rows
      .map((r) => {
        const own = mine && Number(r.team) === mine.id;
        const name = esc(r.name ?? (this.teams.get(Number(r.team)) || {}).name ?? r.team);
        const notes = (own ? ` <span class="tag">${t("your team")}</span>` : "") + (r.withdrawn ? ` <span class="muted">(${t("withdrawn")})</span>` : "");
        return `<tr${own ? ' class="mine"' : ""}><td>${esc(r.rank)}</td><th scope="row">${name}${notes}</th>${shown.map(([key, , fmt]) => `<td>${esc(fmt(r[key], r))}</td>`).join("")}</tr>`;
      })
      .join("");
    return `<div class="scroll-x"><table class="board-table event-standings" id="standings-table"><caption class="sr-only">${t("Standings")}</caption><thead>${head}</thead><tbody>${body}</tbody></table></div>`;
  }

  resultHtml(table) {
    const r = table.result;
    if (!r) {
      if (ENDED.includes(table.status)) return `<span class="muted">${t("ended")}</span>`;
      return `<span class="muted">${table.status ? t("playing") : t("opening")}</span>`;
    }
    const [a, b] = table.teams;
    const score = `${number(r.score[sideOf(table, 0)])} – ${number(r.score[sideOf(table, 1)])}`;
    if (r.winner === null || r.winner === undefined) return `${score} · ${t(r.deals ? "drawn" : "nothing played")}`;
    const winner = r.winner === sideOf(table, 0) ? a : b;
    return `${score} · ${t("{team} won", { team: html(this.teamName(winner)) })}`;
  }

  linkHtml(table, round) {
    if (table === this.myTable() && table.status && !ENDED.includes(table.status)) {
      return `<button class="btn small" type="button" data-act="seat" id="event-seat-${esc(table.code)}">${t("Your seat")}</button>`;
    }
    // No code: a duplicate deal's table before every table has finished that deal (they
    // hold the same cards), which nobody watches or replays until then.
    if (!table.code || !table.status) return "";
    if (ENDED.includes(table.status)) return `<a href="/replay/${esc(table.code)}">${t("Replay")}</a>`;
    if (this.data.kind === "duplicate" && round.status !== "done") return "";
    return `<a href="/t/${esc(table.code)}">${t("Watch")}</a>`;
  }

  /** A duplicate deal's number as players count, from 1: its place among the round's deals
   * (the server numbers them as it likes; they open in order). */
  dealNumber(round, deal) {
    const lines = Array.isArray(this.data.deals) ? this.data.deals : [];
    const seen = new Set(lines.filter((x) => x.round === round).map((x) => x.deal));
    const r = this.playedRounds().find((x) => x.number === round);
    for (const x of r ? r.tables : []) seen.add(x.deal);
    const order = [...seen].filter((x) => typeof x === "number").sort((a, b) => a - b);
    return order.indexOf(deal) + 1 || esc(deal);
  }

  rounds() {
    const rounds = this.playedRounds();
    if (!rounds.length) return `<p class="muted">${t("No round has started yet.")}</p>`;
    const mine = this.myTeam();
    return rounds
      .slice()
      .reverse()
      .map((round) => {
        // A duplicate round's tables, one a pair and deal, are listed deal by deal.
        const deals = this.data.kind === "duplicate" && round.tables.some((x) => "deal" in x);
        const rows = round.tables
          .slice()
          .sort((x, y) => (x.deal || 0) - (y.deal || 0) || x.board - y.board)
          .map((x) => {
            const [a, b] = x.teams;
            const own = mine && x.teams.includes(mine.id);
            return `<tr${own ? ' class="mine"' : ""}>${deals ? `<td>${this.dealNumber(round.number, x.deal)}</td>` : ""}<td>${esc(x.board)}</td><td>${this.teamName(a)}</td><td>${this.teamName(b)}</td><td>${this.resultHtml(x)}</td><td>${this.linkHtml(x, round)}</td></tr>`;
          })
          .join("");
        const bye = round.bye ? `<p class="muted">${t("Bye: {team}", { team: html(this.teamName(round.bye)) })}</p>` : "";
        const state = round.status === "done" ? t("played") : t("being played");
        const id = `round-${round.number}`;
        return `<section class="event-round" aria-labelledby="${id}"><h3 id="${id}">${t("Round {n}", { n: round.number })} <small class="muted">(${state})</small></h3>
          <div class="scroll-x"><table class="board-table"><thead><tr>${deals ? `<th scope="col">${t("Deal")}</th>` : ""}<th scope="col">${t("Table")}</th><th scope="col">${t("Team")}</th><th scope="col">${t("Opponents")}</th><th scope="col">${t("Result")}</th><th scope="col"><span class="sr-only">${t("Link")}</span></th></tr></thead><tbody>${rows}</tbody></table></div>${bye}</section>`;
      })
      .join("");
  }

  deals() {
    const mine = this.myTeam();
    const deals = this.data.deals.slice().sort((x, y) => x.round - y.round || x.deal - y.deal);
    return deals
      .map((d) => {
        const own = mine ? d.results.find((r) => r.team === mine.id) : null;
        let line = "";
        if (own && own.field_average !== null && own.field_average !== undefined) {
          line = t("On this deal your team took {score}, the field averaged {average}.", { score: number(own.score), average: number(own.field_average, 1) });
        } else if (own) {
          line = t("On this deal your team took {score}; no other team held these cards.", { score: number(own.score) });
        }
        if (line) line = `<p class="deal-line">${line}</p>`;
        const rows = d.results
          .map((r) => {
            const isMine = own && r === own;
            return `<tr${isMine ? ' class="mine"' : ""}><th scope="row">${this.teamName(r.team)}${isMine ? ` <span class="tag">${t("your team")}</span>` : ""}</th><td>${number(r.score)}</td><td>${orDash(r.field_average, (v) => number(v, 1))}</td><td>${number(r.matchpoints)}</td><td>${percentText(r.percent)}</td></tr>`;
          })
          .join("");
        const id = `deal-${d.round}-${d.deal}`;
        return `<section class="event-deal" aria-labelledby="${id}"><h3 id="${id}">${t("Round {r}, deal {d}", { r: d.round, d: this.dealNumber(d.round, d.deal) })}</h3>${line}
          <div class="scroll-x"><table class="board-table"><thead><tr><th scope="col">${t("Team")}</th><th scope="col">${t("Score on the deal")}</th><th scope="col">${t("Field average")}</th><th scope="col">${t("Matchpoints")}</th><th scope="col">${t("Percent")}</th></tr></thead><tbody>${rows}</tbody></table></div></section>`;
      })
      .join("");
  }

  teamList() {
    const teams = this.data.teams;
    if (!teams.length) return `<p class="muted">${t("No team has registered yet.")}</p>`;
    const items = teams
      .map((x) => {
        const state = x.withdrawn ? t("withdrawn") : !x.accepted ? t("waiting for the partner") : x.checked_in ? t("checked in") : t("registered");
        return `<li>${esc(x.name)} · <span class="muted">${state}</span></li>`;
      })
      .join("");
    return `<ul class="event-team-list">${items}</ul>`;
  }

  async post(path, body = {}) {
    if (this.busy) return null;
    this.busy = true;
    try {
      return await api(`/api/events/${this.id}${path}`, body);
    } catch (e) {
      toast(errorText(e));
      return null;
    } finally {
      this.busy = false;
    }
  }

  async clicked(ev) {
    const b = ev.target.closest && ev.target.closest("[data-act]");
    if (!b || !this.root.contains(b)) return;
    const act = b.dataset.act;
    if (act === "seat") {
      if (this.busy) return;
      this.busy = true;
      try {
        await goToEventSeat(this.id);
      } catch (e) {
        toast(errorText(e));
      } finally {
        this.busy = false;
      }
      return;
    }
    if (act === "withdraw" && !window.confirm(tText("Withdraw your team from this event?"))) return;
    if (act === "organise" && b.dataset.action === "end" && !window.confirm(tText("End the event now? Tables still playing will count for nothing."))) return;
    const path = act === "organise" ? `/${b.dataset.action}` : `/${act}`;
    if (await this.post(path)) toast(tText("Done."), "info");
    await this.refresh();
    // The organiser's start or resume is taken by the server's runner a moment later.
    if (act === "organise") setTimeout(() => this.refresh(), 2500);
  }

  async submitted(ev) {
    const form = ev.target;
    if (form.id === "event-register") {
      ev.preventDefault();
      const box = form.querySelector("#event-partner");
      const body = box ? { partner: box.value.trim() } : {};
      if (await this.post("/register", body)) toast(tText("Registered."), "info");
      await this.refresh();
    } else if (form.id === "event-withdraw-team") {
      ev.preventDefault();
      const team = Number(form.querySelector("#event-team-select").value);
      if (!window.confirm(tText("Withdraw this team from the event?"))) return;
      if (await this.post("/teams/withdraw", { team })) toast(tText("Done."), "info");
      await this.refresh();
    }
  }
}
