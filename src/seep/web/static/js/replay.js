// The replay view (/replay/{code}): step through a game forwards and back. The positions come
// from the server (GET /api/tables/{code}/replay: every position after every move, replayed by
// the engine); without that route the page falls back to the docs/format.md record and shows each
// deal's start with its list of moves. Nothing here applies a move itself.
import { cardBackHtml, cardHtml, chipsHtml, houseSets, seatCompass, seatLetter, sortCards } from "./cards.js";
import { moveSentence, notation, pastTenseHtml } from "./moves.js";
import { api, esc, prefs, toast } from "./net.js";
import { html, langSwitchHtml, t } from "./i18n.js";
import { errorText } from "./reasons.js";

const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 1400; // one move a step at speed 1: time to see what it did


export class ReplayView {
  /** `source`: an offline game's `{load, download}` (offline.js) instead of the server's. */
  constructor(root, code, source = null) {
    this.root = root;
    this.source = source;
    this.code = code.toUpperCase();
    this.steps = [];
    this.i = 0;
    this.names = []; // the players' names; a seat without one goes by its compass name
    this.players = 4; // two under the two_player rules (docs/rules.md §12)
    this.full = true;
    this.timer = null;
    this.speed = Number(prefs.get("replay-speed", "1")) || 1;
  }

  /** The server's steps (or its record's); false when there are none to show. */
  async fetchSteps() {
    try {
      const info = await api(`/api/tables/${this.code}`);
      // A bot's name is the server's English ("Bot S"): the page words it in its language.
      this.names = info.seats.map((s, i) => (s.kind === "bot" ? t("Bot {n}", { n: seatLetter(i, info.seats.length) }) : s.name || ""));
    } catch (e) {
      /* names are a nicety */
    }
    try {
      const data = await api(`/api/tables/${this.code}/replay`);
      this.steps = data.steps;
    } catch (e) {
      try {
        const rec = await api(`/api/tables/${this.code}/record`);
        this.full = false;
        this.steps = [];
        rec.deals.forEach((d, di) => {
          this.steps.push({ deal: di, move: null, position: d.start, result: null });
          d.moves.forEach((m, mi) => this.steps.push({ deal: di, move: m, position: null, index: mi, result: mi === d.moves.length - 1 ? d.result : null }));
        });
      } catch (e2) {
        this.root.innerHTML = `<div class="panel center-msg"><h2>${t("No replay")}</h2><p>${esc(errorText(e2))}</p><p><a class="btn" href="/">${t("Lobby")}</a></p></div>`;
        return false;
      }
    }
    return true;
  }

  async start() {
    this.root.innerHTML = `<div class="replay-page"><p class="muted">${t("Loading the game…")}</p></div>`;
    if (this.source) {
      // An offline game (offline.js): its steps replayed by the engine in the worker.
      try {
        ({ names: this.names, steps: this.steps } = await this.source.load());
      } catch (e) {
        this.root.innerHTML = `<div class="panel center-msg"><h2>${t("No replay")}</h2><p>${esc(String(e && e.message || e))}</p><p><a class="btn" href="/offline">${t("Offline games")}</a></p></div>`;
        return;
      }
    } else if (!(await this.fetchSteps())) {
      return;
    }
    const first = this.steps.find((st) => st.position && Array.isArray(st.position.hands));
    if (first) this.players = first.position.hands.length;
    if (!this.steps.length) {
      this.root.innerHTML = `<div class="panel center-msg"><h2>${t("Nothing to replay yet")}</h2><p>${t("No deal has finished at table {code}. A deal can be replayed once it is over: its record shows every hand.", { code: this.code })}</p><p><a class="btn" href="/t/${esc(this.code)}">${t("Back to the table")}</a></p></div>`;
      return;
    }
    this.root.innerHTML = `<div class="replay-page">
      <header class="topbar"><a class="logo" href="/">Seep</a><span class="room">${t("Replay of table")} <b class="code">${esc(this.code)}</b></span>
        <span class="spacer"></span>${langSwitchHtml()}${this.source ? `<button class="btn small ghost" type="button" id="replay-download">${t("Download record")}</button>` : `<a class="btn small ghost" href="/api/tables/${this.code}/record" download>${t("Download record")}</a>`}</header>
      <div class="replay-teams panel" id="replay-teams">${[0, 1].map((tm) => `<span class="team${tm}"><span class="dot team${tm}"></span>${this.teamLabel(tm)}</span>`).join(" ")}</div>
      <div class="replay-controls panel">
        <button class="btn" data-act="first" title="${t("Start")}" aria-label="${t("Start")}">◀◀</button>
        <button class="btn" data-act="prev" id="replay-prev" title="${t("Back")} (←)">◀ ${t("Back")}</button>
        <button class="btn primary" data-act="play" id="replay-play" aria-pressed="false">${t("Autoplay")}</button>
        <button class="btn" data-act="next" id="replay-next" title="${t("Forward")} (→)">${t("Forward")} ▶</button>
        <button class="btn" data-act="last" title="${t("End")}" aria-label="${t("End")}">▶▶</button>
        <label class="speed">${t("Speed")} <select id="replay-speed">${SPEEDS.map((x) => `<option value="${x}" ${x === this.speed ? "selected" : ""}>${x}×</option>`).join("")}</select></label>
        <input type="range" min="0" max="${Math.max(0, this.steps.length - 1)}" value="0" id="replay-range" aria-label="${t("Move")}">
        <span id="replay-pos" class="muted" aria-live="polite"></span>
      </div>
      <div id="replay-body"></div>
    </div>`;
    this.root.addEventListener("click", (ev) => {
      const t = ev.target.closest("[data-act]");
      if (!t || !this.root.contains(t)) return;
      const n = this.steps.length - 1;
      if (t.dataset.act === "play") {
        this.toggle();
        return;
      }
      const go = { first: 0, prev: this.i - 1, next: this.i + 1, last: n }[t.dataset.act];
      if (go !== undefined) {
        this.stop();
        this.go(go);
      }
    });
    const download = this.root.querySelector("#replay-download");
    if (download) download.addEventListener("click", () => this.source.download());
    this.root.querySelector("#replay-range").addEventListener("input", (ev) => {
      this.stop();
      this.go(Number(ev.target.value));
    });
    this.root.querySelector("#replay-speed").addEventListener("change", (ev) => {
      this.speed = Number(ev.target.value) || 1;
      prefs.set("replay-speed", String(this.speed));
    });
    document.addEventListener("keydown", (ev) => {
      if (ev.target.closest && ev.target.closest("input, select")) return;
      if (ev.key === "ArrowRight") this.go(this.i + 1);
      if (ev.key === "ArrowLeft") this.go(this.i - 1);
    });
    if (!this.full) toast(t("This server sends the record only: the floor is shown at each deal's start."), "info");
    this.go(0);
  }

  go(i) {
    if (!this.steps.length) return;
    this.i = Math.max(0, Math.min(this.steps.length - 1, i));
    this.root.querySelector("#replay-range").value = String(this.i);
    const step = this.steps[this.i];
    const dealSteps = this.steps.filter((s) => s.deal === step.deal);
    const k = dealSteps.indexOf(step);
    this.root.querySelector("#replay-pos").textContent = t("deal {d} · move {k} of {n}", { d: step.deal + 1, k, n: dealSteps.length - 1 });
    let pos = step.position;
    if (!pos) {
      for (let j = this.i; j >= 0 && !pos; j--) pos = this.steps[j].position;
    }
    this.root.querySelector("#replay-body").innerHTML = this.positionHtml(pos, step, dealSteps, k);
    const log = this.root.querySelector("#replay-log");
    if (log) log.scrollTop = log.scrollHeight; // the latest move in sight
  }

  name(s) {
    return esc(this.names[s] || seatCompass(s, this.players));
  }

  teamMembers(tm) {
    const who = (s) => this.names[s] || seatCompass(s, this.players);
    const full = `${who(tm)} & ${who(tm + 2)}`;
    return `<span class="members-inline" title="${esc(full)}">(${esc(full)})</span>`;
  }

  teamLabel(tm) {
    // Two players: each is his own side (R2P1), named by player.
    if (this.players === 2) return `<span class="team${tm}"><b>${this.name(tm)}</b></span>`;
    return `<span class="team${tm}"><b>${seatCompass(tm, 4)}–${seatCompass(tm + 2, 4)}</b> ${this.teamMembers(tm)}</span>`;
  }

  /** Autoplay: one step every STEP_MS / speed until the end or a pause. */
  toggle() {
    if (this.timer) this.stop();
    else {
      if (this.i >= this.steps.length - 1) this.go(0);
      this.tick();
    }
  }

  tick() {
    const btn = this.root.querySelector("#replay-play");
    btn.textContent = t("Pause");
    btn.setAttribute("aria-pressed", "true");
    document.body.dataset.autoplay = "true";
    this.timer = setTimeout(() => {
      this.go(this.i + 1);
      if (this.i >= this.steps.length - 1) this.stop();
      else this.tick();
    }, STEP_MS / this.speed);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    const btn = this.root.querySelector("#replay-play");
    if (btn) {
      btn.textContent = t("Autoplay");
      btn.setAttribute("aria-pressed", "false");
    }
    document.body.dataset.autoplay = "false";
  }

  /** At a deal's end: the cards left on the floor after play 48 and the team that took them
   * (the last to capture, R40), from the floor before the last move and that move. */
  leftoverHtml(p, step) {
    if (!step.result || !step.move) return "";
    const prev = this.steps[this.i - 1];
    const before = prev && prev.position;
    if (!before || !Array.isArray(before.loose)) return "";
    const m = step.move;
    const floor = new Set([...before.loose, ...(before.houses || []).flatMap((h) => h.cards)]);
    if (m.card) floor.add(m.card);
    if (m.action === "capture") {
      floor.delete(m.card);
      (m.loose || []).forEach((c) => floor.delete(c));
      for (const h of before.houses || []) if ((m.houses || []).includes(h.value)) h.cards.forEach((c) => floor.delete(c));
    }
    const team = p.last_capture;
    if (!floor.size) return `<div class="panel leftover" id="replay-leftover">${t("No cards were left on the floor.")}</div>`;
    return `<div class="panel leftover" id="replay-leftover">${t("Left on the floor: {cards} taken by {team}, the last to capture.", { cards: html(chipsHtml([...floor])), team: team == null ? "–" : html(this.teamLabel(team)) })}</div>`;
  }

  seatHtml(p, s) {
    const h = p.hands[s];
    const cards = Array.isArray(h) ? sortCards(h).map((c) => cardHtml(c, "mini-face")).join("") : Array.from({ length: h || 0 }, () => cardBackHtml("mini")).join("");
    return `<div class="seat replay-hand team${s % 2} ${p.to_move === s ? "to-move" : ""}" data-seat="${s}">
        <div class="seat-head"><span class="dot team${s % 2}"></span><span class="compass-tag" title="${esc(seatCompass(s, this.players))}">${seatLetter(s, this.players)}</span><span class="name" title="${this.name(s)}">${this.name(s)}</span>${p.dealer === s ? `<span class="badge">${t("dealer")}</span>` : ""}</div>
        <div class="cards">${cards}</div></div>`;
  }

  /** The deal's moves up to this step in words, as the table's move log has them; a sweep's
   * points are the rise of the position's sweeps over the move (the server's numbers). */
  logHtml(dealSteps, k) {
    const lines = [];
    for (let j = 1; j <= k; j++) {
      const step = dealSteps[j];
      const before = dealSteps[j - 1].position;
      const m = step.move;
      const seat = m.seat ?? step.seat ?? (before ? before.to_move : null);
      const rise = step.position && before ? (step.position.sweeps || [0, 0]).reduce((a, x, i) => a + x - ((before.sweeps || [0, 0])[i] || 0), 0) : 0;
      const who = seat != null ? `<span class="log-who"><span class="compass-tag">${seatLetter(seat, this.players)}</span> ${this.name(seat)}</span> ` : "";
      lines.push(`<li class="log-move ${seat != null ? `team${seat % 2}` : ""} ${j === k ? "current" : ""}">${who}<span class="log-what">${moveSentence(m)}</span>${rise > 0 ? ` <span class="log-sweep">${t("sweep +{n}", { n: rise })}</span>` : ""}</li>`);
    }
    return `<section class="panel movelog replay-log" aria-label="${t("Moves of this deal")}"><h3>${t("Moves")}</h3>
      <ol class="movelog-list" id="replay-log" tabindex="0">${lines.join("") || `<li class="muted log-empty">${t("No move yet in this deal.")}</li>`}</ol></section>`;
  }

  positionHtml(p, step, dealSteps, k) {
    const move = step.move;
    const prev = this.steps[this.i - 1];
    const mover = move ? (move.seat ?? step.seat ?? (prev && prev.position ? prev.position.to_move : null)) : null;
    const moveText = move
      ? `<b>${mover != null ? this.name(mover) : ""}</b> ${pastTenseHtml(move)} <span class="notation">${esc(notation(move))}</span>`
      : t("Deal {n} starts: {dealer} deals, {bidder} bids.", { n: step.deal + 1, dealer: html(this.name(p.dealer)), bidder: html(this.name((p.dealer + 1) % this.players)) });
    const loose = Array.isArray(p.loose) ? p.loose : [];
    const houses = (p.houses || [])
      .map((h) => `<div class="house ${h.cemented ? "cemented" : ""}"><div class="house-head"><span class="house-value">${h.value}</span>${h.cemented ? `<span class="cement-mark">${t("cemented")}</span>` : `<span class="ordinary-mark">${t("house")}</span>`}</div>
        <div class="house-cards">${houseSets(h.cards, h.value).map((set) => `<span class="house-set">${set.map((c) => cardHtml(c, "in-house")).join("")}</span>`).join("")}</div>
        <div class="owners">${h.owners.map((o) => `<span class="owner team${o % 2}">${this.name(o)}</span>`).join("")}</div></div>`)
      .join("");
    const list = this.full ? this.logHtml(dealSteps, k)
      : `<ol class="move-list panel">${dealSteps.slice(1).map((s, j) => `<li class="${j + 1 === k ? "current" : ""}">${esc(notation(s.move))}</li>`).join("")}</ol>`;
    const result = step.result;
    const cap = p.captured || [[], []];
    const floor = `<div class="floor">
        <div class="floor-info"><span>${t("Bid")} <b>${p.bid ?? "–"}</b></span><span>${t("Plays")} <b>${p.plays}</b>/48</span>
          <span>${t("Captured")} <b class="team0">${cap[0].length}</b> / <b class="team1">${cap[1].length}</b></span>
          <span>${t("Sweeps")} <b>${(p.sweeps || [0, 0]).join(" / ")}</b></span></div>
        ${houses ? `<div class="houses">${houses}</div>` : ""}
        <div class="loose">${p.phase === "bid" ? loose.map(() => cardBackHtml()).join("") : sortCards(loose).map((c) => cardHtml(c)).join("")}</div>
      </div>`;
    const resultHtml = result
      ? `<div class="panel replay-result" id="replay-result">${t("Result")}: ${this.teamLabel(0)} <b>${result.score[0]}</b> – <b>${result.score[1]}</b> ${this.teamLabel(1)}
          <small class="muted">(${t("card points")} ${result.points.join(" – ")}, ${t("sweeps")} ${result.sweeps.join(" – ")})</small></div>`
      : "";
    // Seat 1 at the bottom, then counter-clockwise as at the table: right, top, left; with
    // two players the other sits opposite.
    const two = this.players === 2;
    return `<div class="panel replay-move">${moveText}</div>
      <div class="board replay-board ${two ? "two-seats" : ""}">
        <div class="seat-slot top">${this.seatHtml(p, two ? 1 : 2)}</div>
        ${two ? "" : `<div class="seat-slot left">${this.seatHtml(p, 3)}</div>`}
        <div class="floor-area replay-floor">${floor}</div>
        ${two ? "" : `<div class="seat-slot right">${this.seatHtml(p, 1)}</div>`}
        <div class="me-area">${this.seatHtml(p, 0)}</div>
      </div>
      ${this.leftoverHtml(p, step)}${resultHtml}${list}`;
  }
}
