// The table view (/t/{code}): draws the state the server sends and sends back moves taken
// from the server's `legal` list, narrowed by what the player points at.
import {
  cardHtml, cardBackHtml, cardLabel, chipsHtml, fourColour, houseSets, seatCompass, seatLetter, setFourColour, sortCards,
} from "./cards.js";
import { animate, flashTitle, muted, reducedMotion, setMuted, snapshot, stopFlash, sweepBanner, turnTone, unlockAudio } from "./fx.js";
import { langSwitchHtml, t, tText } from "./i18n.js";
import {
  ACTIONS, ACTION_WORDS, ACTION_HELP, describeHtml, housesTouched, moveValue, narrow, notation,
  moveSentence, pastTenseHtml, sameMove, sortMoves,
} from "./moves.js";
import { api, esc, prefs, TableSocket, toast, tokens } from "./net.js";
import { seatRatingHtml } from "./players.js";
import { pendingTransfer, Social } from "./social.js";
import { initPush, pushSwitchHtml } from "./push.js";
import { errorText, reasonText } from "./reasons.js";
import { goToEventSeat } from "./eventseat.js";

const POS = ["bottom", "right", "top", "left"]; // seat relative to me: me, my right, partner, left
const MAX_CHOICES = 8;

/** A count in words with its plural: `one` for 1, else `many` ("{n}" is the count). */
function plural(n, one, many) {
  return t(n === 1 ? one : many, { n });
}

function nCards(n) {
  return plural(n, "{n} card", "{n} cards");
}

function emptySel() {
  return { card: null, loose: new Set(), houses: new Set(), action: null, value: null, pick: null };
}

/** The rules' name as the lobby shows it (the preset's key for one it does not know). */
const PRESET_NAMES = { standard: "Standard", family: "Family", two_houses: "Two houses", two_player: "Two players" };
function presetName(key) {
  return key ? (PRESET_NAMES[key] ? t(PRESET_NAMES[key]) : key) : "";
}

export class TableView {
  /** `options.socket(code, token, handlers)`: the table's socket (offline.js gives its
   * worker's; by default a TableSocket to the server); `options.newGameUrl` and
   * `options.replayUrl`: where the end of the match leads (by default the lobby, /replay). */
  constructor(root, code, options = {}) {
    this.root = root;
    this.options = options;
    this.code = code.toUpperCase();
    this.state = null;
    this.sel = emptySel();
    this.legalKey = "";
    this.hint = null;
    this.sending = false;
    this.nextSent = null;
    this.dismissed = null;
    this.connStatus = "connecting";
    this.clockTimer = null;
    this.sentMove = false;
    root.addEventListener("click", (ev) => {
      unlockAudio();
      if (!ev.target.closest("#settings-menu, #menu-btn")) this.toggleMenu(false);
      this.onClick(ev);
    });
    document.addEventListener("keydown", unlockAudio, { once: true });
    document.addEventListener("visibilitychange", () => {
      if (!document.hidden && !this.isMyTurn()) stopFlash();
    });
    document.addEventListener("keydown", (ev) => this.onKey(ev));
  }

  async start() {
    const saved = tokens.get(this.code);
    if (pendingTransfer()) return this.open(null); // another device's seat: claimed over the socket
    if (saved && saved.token) {
      this.open(saved.token);
      return;
    }
    let info;
    try {
      info = await api(`/api/tables/${this.code}`);
    } catch (e) {
      this.root.innerHTML = `${this.pageHeader()}<div class="panel center-msg"><h2>${t("No table {code}", { code: this.code })}</h2>
        <p>${esc(errorText(e))}</p><p><a class="btn" href="/">${t("Back to the lobby")}</a></p></div>`;
      return;
    }
    this.renderJoin(info);
  }

  /** The top bar of the join and error pages: the logo, How to play and the language. */
  pageHeader() {
    return `<header class="topbar"><a class="logo" href="/">Seep</a><span class="room">${t("Table")} <b class="code">${esc(this.code)}</b></span>
      <span class="spacer"></span>${langSwitchHtml()}<a class="btn small ghost howto-link" href="/how-to-play" target="_blank">${t("How to play")}</a></header>`;
  }

  /** A server error in the page's language (a rule's refusal names seats by compass:
   * "seat North owns house 10", never "seat You"). */
  errorText(msg) {
    return errorText(msg, (s) => seatCompass(s, this.nSeats()));
  }

  renderJoin(info) {
    const n = info.seats.length;
    const free = info.seats.map((s, i) => [s, i]).filter(([s]) => s.kind === "empty");
    const canJoin = info.status === "waiting" && free.length > 0;
    // Two players have no partner: the seat is only the host's opponent's.
    const side = (i) => (n === 2 ? "" : ` (${i % 2 === 0 ? t("with the host") : t("against the host")})`);
    const seatOpts = free
      .map(([, i]) => `<option value="${i}">${seatCompass(i, n)}${side(i)}</option>`)
      .join("");
    const who = (s, i) => `${seatCompass(i, n)}: ${s.kind === "empty" ? t("empty seat") : esc(s.name)}`;
    this.root.innerHTML = `${this.pageHeader()}<div class="panel center-msg join">
      <h2>${t("Table")} <span class="code">${esc(this.code)}</span></h2>
      <p>${info.seats.map((s, i) => `<span class="seatname team${i % 2}">${who(s, i)}</span>`).join(" ")}</p>
      ${canJoin ? `<form id="join-form" class="form">
        <label>${t("Your name")} <input name="name" id="join-name" maxlength="24" required value="${esc(prefs.get("name"))}"></label>
        <label>${t("Seat")} <select name="seat" id="join-seat"><option value="">${t("first free seat")}</option>${seatOpts}</select></label>
        <button class="btn primary" id="join-btn" type="submit">${t("Take a seat")}</button>
      </form>` : `<p>${info.status === "waiting" ? t("Every seat is taken.") : t("This game has started.")}</p>`}
      <p><button class="btn" data-act="watch">${t("Watch as a spectator")}</button> <a class="btn" href="/">${t("Lobby")}</a></p>
    </div>`;
    const form = this.root.querySelector("#join-form");
    if (form) {
      form.addEventListener("submit", async (ev) => {
        ev.preventDefault();
        const name = form.name.value.trim();
        const body = { name };
        if (form.seat.value !== "") body.seat = Number(form.seat.value);
        try {
          const res = await api(`/api/tables/${this.code}/join`, body);
          prefs.set("name", name);
          tokens.set(this.code, res.token, res.seat);
          this.open(res.token);
        } catch (e) {
          toast(errorText(e));
        }
      });
    }
  }

  open(token) {
    this.token = token;
    this.root.innerHTML = `<div class="table-page">
      <header class="topbar" id="topbar">
        <a class="logo" href="/">Seep</a>
        <span class="room"><span class="room-word">${t("Table")}</span> <b class="code">${esc(this.code)}</b></span>
        <button class="btn small" data-act="share" title="${t("Copy the link to this table")}">${t("Share link")}</button>
        <span class="conn" id="conn"></span>
        <span class="scoreline" id="scoreline" aria-live="off"></span>
        <span class="spacer"></span>
        ${this.settingsHtml()}
      </header>
      <div class="layout">
        <section class="movelog panel" id="movelog" aria-label="${t("Moves of this deal")}">
          <details id="movelog-box" ${window.matchMedia("(max-width: 640px)").matches ? "" : "open"}>
            <summary id="movelog-summary"><span class="movelog-title">${t("Moves")}</span> <span class="movelog-latest" id="movelog-latest"></span></summary>
            <ol class="movelog-list" id="movelog-list" tabindex="0" aria-label="${t("Moves of this deal, the latest last")}"></ol>
          </details>
          <p class="sr-only" id="movelog-live" aria-live="polite"></p>
        </section>
        <main class="board" id="board" aria-label="${t("The table")}">
          <div class="seat-slot top" id="seat-top"></div>
          <div class="seat-slot left" id="seat-left"></div>
          <div class="floor-area" id="floor-area"></div>
          <div class="seat-slot right" id="seat-right"></div>
          <div class="me-area" id="me-area"></div>
        </main>
        <aside class="sidebar" id="sidebar"></aside>
      </div>
      <div class="overlay" id="overlay" hidden></div>
    </div>`;
    this.social = new Social(this);
    const socket = this.options.socket || ((code, tok, handlers) => new TableSocket(code, tok, handlers));
    this.socket = socket(this.code, token, {
      onMessage: (m) => this.onMessage(m),
      onStatus: (s) => {
        this.connStatus = s;
        this.renderConn();
      },
    });
    if (!this.options.socket) initPush(this.root); // notifications come from a server
    this.clockTimer = setInterval(() => this.renderClock(), 250);
    this.log = { deal: null, shown: 0 };
    this.fitBoard();
    window.addEventListener("resize", () => this.fitBoard());
  }

  /** The settings: Sound, language, the four-colour deck and How to play. On a phone they
   * sit in a menu behind one button (seep.css); wider screens show them in the top bar. */
  settingsHtml() {
    return `<div class="settings"><button class="btn small menu-btn" data-act="menu" id="menu-btn" aria-expanded="false" aria-controls="settings-menu">☰ ${t("Settings")}</button>
      <div class="settings-menu" id="settings-menu" role="group" aria-label="${t("Settings")}">
        <button class="btn small ghost sound-switch" data-act="mute" id="mute-btn" aria-pressed="${muted()}">${muted() ? t("Sound off") : t("Sound on")}</button>
        <button class="btn small ghost" data-act="four-colour" id="four-colour-btn" aria-pressed="${fourColour()}" title="${t("Clubs green and diamonds blue, to tell the suits apart")}">${t("Four colours")}</button>
        ${langSwitchHtml()}
        ${pushSwitchHtml()}
        <a class="btn small ghost howto-link" href="/how-to-play" target="_blank">${t("How to play")}</a>
      </div></div>`;
  }

  /** Open or close the phone's settings menu (`open`: true, false, or undefined to toggle). */
  toggleMenu(open) {
    const btn = this.root.querySelector("#menu-btn");
    if (!btn) return;
    const now = open ?? btn.getAttribute("aria-expanded") !== "true";
    btn.setAttribute("aria-expanded", String(now));
    this.root.querySelector("#settings-menu").classList.toggle("open", now);
    if (now) {
      const first = this.root.querySelector("#settings-menu .btn");
      if (first) first.focus();
    }
  }

  /** The board fills the screen below the top bar, so the hand keeps its place at the bottom
   * however the floor grows (seep.css sizes the rows from --topbar-h). */
  fitBoard() {
    const bar = this.root.querySelector("#topbar");
    if (bar) document.documentElement.style.setProperty("--topbar-h", `${bar.offsetHeight}px`);
  }

  // --- messages ----------------------------------------------------------------------------

  onMessage(msg) {
    if (this.social.onMessage(msg)) return;
    if (msg.type === "state") {
      this.setState(msg);
    } else if (msg.type === "hint") {
      this.hint = msg;
      this.render();
    } else if (msg.type === "event_table") {
      this.showNextTable(msg.event);
    } else if (msg.type === "error") {
      this.sending = false;
      if (msg.code === "unknown_token") {
        tokens.clear(this.code);
        toast(t("This seat's token is no longer valid: watching as a spectator."));
        this.socket.close();
        this.open(null);
        return;
      }
      if (msg.code === "kicked") {
        // The seat's token is dead: this connection watches now (its states say so).
        tokens.clear(this.code);
        this.token = null;
        this.socket.token = null;
        toast(this.errorText(msg));
        return;
      }
      if (msg.code === "table_over") {
        // Finished or closed and gone from the server's memory: its deals stay to replay.
        this.socket.close();
        this.root.innerHTML = `${this.pageHeader()}<div class="panel center-msg"><h2>${t("Table {code} is over", { code: this.code })}</h2><p>${esc(this.errorText(msg))}</p><p><a class="btn" href="/replay/${esc(this.code)}">${t("Replay its deals")}</a> <a class="btn" href="/">${t("Back to the lobby")}</a></p></div>`;
        return;
      }
      if (msg.code === "unknown_table") {
        this.socket.close();
        this.root.innerHTML = `${this.pageHeader()}<div class="panel center-msg"><h2>${t("No table {code}", { code: this.code })}</h2><p>${esc(this.errorText(msg))}</p><p><a class="btn" href="/">${t("Back to the lobby")}</a></p></div>`;
        return;
      }
      toast(this.errorText(msg));
      this.render();
    }
  }

  setState(st) {
    if (!st.view) {
      // Before the start there is no deal: an empty table to draw the seats around.
      st.view = {
        seat: st.seat, dealer: -1, phase: "waiting", to_move: null, plays: 0, bid: null, stock: 0,
        hands: [0, 0, 0, 0], loose: [], houses: [], captured: [[], []], sweeps: [0, 0], history: [], rules: {},
      };
    }
    const key = JSON.stringify(st.legal || []);
    if (key !== this.legalKey) {
      this.sel = emptySel();
      this.hint = null;
      this.legalKey = key;
    }
    this.sending = false;
    const prev = this.state;
    const wasMyTurn = this.isMyTurn();
    this.state = st;
    if (st.seat != null && this.token) {
      const saved = tokens.get(this.code);
      if (saved && saved.seat !== st.seat) tokens.set(this.code, this.token, st.seat);
    }
    const before = prev ? snapshot(this.root) : null;
    this.render();
    this.social.onState(st);
    this.cues(prev, wasMyTurn, before);
  }

  /** What changed since the previous state, shown and heard: cards gliding to their new
   * places, a sweep banner, the turn's tone and title, a word when the clock played for us. */
  cues(prev, wasMyTurn, before) {
    const st = this.state;
    const v = st.view;
    const h = v.history || [];
    const pv = prev && prev.view;
    const sameDeal = pv && pv.dealer === v.dealer && (pv.plays ?? 0) <= (v.plays ?? 0) && prev.match && st.match && prev.match.deals === st.match.deals;
    const last = h.length ? h[h.length - 1] : null;
    if (sameDeal && last && h.length > (pv.history || []).length) {
      const origin = this.root.querySelector(`[data-seat="${last.seat}"]`);
      const pile = last.action === "capture" ? this.root.querySelector(`#score-team${last.seat % 2}`) : null;
      animate(this.root, before, { origin, pile });
      const sw = (v.sweeps || [0, 0]).map((x, i) => x - ((pv.sweeps || [0, 0])[i] || 0));
      const tm = sw[0] > 0 ? 0 : sw[1] > 0 ? 1 : null;
      if (tm != null) {
        sweepBanner(this.root.querySelector("#floor-area"), tText("Sweep! {who} +{points}", { who: this.seatName(last.seat), points: sw[tm] }));
      }
      const me = this.me();
      if (wasMyTurn && me != null && last.seat === me && !this.sentMove) {
        toast(tText("The clock played for you: {move}.", { move: moveSentence(last, { asText: true }) }), "info");
      }
    }
    if (!prev || !sameDeal || h.length !== (pv.history || []).length) this.sentMove = false;
    const mine = this.isMyTurn();
    if (mine && !wasMyTurn) {
      turnTone();
      if (document.hidden || !document.hasFocus()) flashTitle();
    } else if (!mine) {
      stopFlash();
    }
    document.body.dataset.reducedMotion = String(reducedMotion());
  }

  send(msg) {
    if (!this.socket.send(msg)) {
      toast(t("Not connected: reconnecting…"));
      return false;
    }
    return true;
  }

  // --- helpers -----------------------------------------------------------------------------

  me() {
    return this.state && this.state.seat != null ? this.state.seat : null;
  }

  /** Seats at the table: four, or two with the two_player preset (docs/rules.md §12). */
  nSeats() {
    return (this.state && this.state.table.seats.length) || 4;
  }

  rel(seat) {
    const me = this.me() ?? 0;
    // Two players face each other: you at the bottom, the opponent at the top.
    if (this.nSeats() === 2) return seat === me ? "bottom" : "top";
    return POS[(seat - me + 4) % 4];
  }

  seatName(s) {
    const seats = (this.state && this.state.table.seats) || [];
    const seat = seats[s];
    if (!seat) return seatCompass(s, this.nSeats());
    if (s === this.me()) return t("You");
    if (seat.kind === "empty") return t("{seat} (empty)", { seat: seatCompass(s, this.nSeats()) });
    // A bot's name is the server's English ("Bot S"): the page words it in its language.
    // Two seats: the one bot is "Bot", as the server names it.
    if (seat.kind === "bot") return this.nSeats() === 2 ? t("Bot") : t("Bot {n}", { n: seatLetter(s, this.nSeats()) });
    return seat.name || seatCompass(s, this.nSeats());
  }

  /** A seat's compass name, in full and as its letter (seep.css shows the letter on a phone). */
  compassHtml(s) {
    const n = this.nSeats();
    return `<span class="compass" title="${esc(seatCompass(s, n))}"><span class="compass-word">${esc(seatCompass(s, n))}</span><span class="compass-letter" aria-hidden="true">${seatLetter(s, n)}</span></span>`;
  }

  /** A team's seats by compass: "North–South", "West–East" (two players: the player's seat). */
  teamCompass(tm) {
    if (this.nSeats() === 2) return seatCompass(tm, 2);
    return `${seatCompass(tm, 4)}–${seatCompass(tm + 2, 4)}`;
  }

  teamName(tm) {
    const me = this.me();
    // Two players: each is his own side (R2P1), named by player.
    if (this.nSeats() === 2) return this.seatName(tm);
    if (me != null) return me % 2 === tm ? t("Your team") : t("Opponents");
    return this.teamCompass(tm);
  }

  /** "Your team leads", "Opponents lead". */
  teamVerb(tm, verb) {
    const name = this.teamName(tm);
    return name === t("Opponents") || name === t("You") ? t(verb) : t(`${verb}s`);
  }

  /** "You & Bhagyalakshmi Ramaswamy": shortened by the CSS, in full on hover. */
  teamMembers(tm) {
    if (this.nSeats() === 2) return ""; // the side is the player: no partner to name
    // A player's teams are "Your team" / "Opponents": their seats' compass names go before the
    // names; a spectator's teams are named by compass already.
    const seats = this.me() == null ? "" : `${this.teamCompass(tm)}: `;
    const full = `${seats}${this.seatName(tm)} & ${this.seatName(tm + 2)}`;
    return `<small class="members" title="${esc(full)}">${esc(full)}</small>`;
  }

  /** The short score line of the top bar (what a phone shows without scrolling). */
  renderScoreline() {
    const el = this.root.querySelector("#scoreline");
    const st = this.state;
    if (!el || !st || !st.match) {
      if (el) el.textContent = "";
      return;
    }
    const me = this.me();
    const my = me == null ? 0 : me % 2;
    const p = st.match.points || [0, 0];
    const sw = (st.view && st.view.sweeps) || [0, 0];
    el.innerHTML = `<span class="team${my}">${esc(this.teamName(my))} <b>${p[my] + sw[my]}</b></span> · <span class="team${1 - my}"><b>${p[1 - my] + sw[1 - my]}</b> ${esc(this.teamName(1 - my))}</span>`;
    el.title = t("This deal: card points and sweeps");
  }

  floorValues() {
    const v = this.state && this.state.view;
    return v && Array.isArray(v.houses) ? v.houses.map((h) => h.value) : [];
  }

  candidates() {
    const legal = (this.state && this.state.legal) || [];
    if (this.sel.pick) return [this.sel.pick];
    return narrow(legal, this.sel, this.floorValues());
  }

  // --- drawing -----------------------------------------------------------------------------

  render() {
    if (!this.state) return;
    const st = this.state;
    // Keyboard play: the element with the focus is drawn anew; give the focus back to its
    // successor (same action and card, house or move).
    const f = document.activeElement;
    const focusKey = f && this.root.contains(f) && f.dataset && f.dataset.act
      ? `[data-act="${f.dataset.act}"]${["c", "h", "i", "a", "v", "seat"].filter((k) => f.dataset[k] != null).map((k) => `[data-${k}="${f.dataset[k]}"]`).join("")}`
      : null;
    const board = this.root.querySelector("#board");
    if (board) board.classList.toggle("two-seats", this.nSeats() === 2);
    for (let s = 0; s < this.nSeats(); s++) {
      const where = this.rel(s);
      if (where === "bottom") continue;
      this.root.querySelector(`#seat-${where}`).innerHTML = this.seatHtml(s);
    }
    this.root.querySelector("#floor-area").innerHTML = this.floorHtml();
    this.root.querySelector("#me-area").innerHTML = this.meHtml();
    const handEl = this.root.querySelector("#hand");
    // The cards' overlap (seep.css): set here, as the page's CSP allows no style attribute.
    if (handEl) handEl.style.setProperty("--n", String(Math.max(1, handEl.querySelectorAll(".card").length)));
    this.root.querySelector("#sidebar").innerHTML = this.sidebarHtml();
    this.renderOverlay();
    this.renderLog();
    this.renderConn();
    this.renderClock();
    this.renderScoreline();
    if (this.focusMoves) {
      this.focusMoves = false;
      const next = this.root.querySelector("#confirm-btn, [data-act=choose], [data-act=action]:not([disabled])");
      if (next) next.focus({ preventScroll: true });
    } else if (focusKey) {
      const again = this.root.querySelector(focusKey) || (f.id && this.root.querySelector(`#${f.id}`));
      if (again) again.focus({ preventScroll: true });
      else if (this.isMyTurn()) {
        const next = this.root.querySelector("#confirm-btn, [data-act=choose], .hand .card.playable");
        if (next) next.focus({ preventScroll: true });
      }
    }
    document.body.dataset.status = st.table.status;
    document.body.dataset.myturn = String(this.isMyTurn());
    document.body.dataset.plays = String(st.view.plays ?? 0);
    document.body.dataset.phase = String(st.view.phase ?? "");
    document.body.dataset.version = String(st.version);
  }

  /** The move log: the deal's moves in words from view.history (newest last), each sweep's
   * points from the state's history_sweeps, the plays since my last move marked. New moves of
   * the same deal are read out once in the live region. */
  renderLog() {
    const list = this.root.querySelector("#movelog-list");
    if (!list) return;
    const st = this.state;
    const v = st.view;
    const h = v.history || [];
    const sweeps = st.history_sweeps || [];
    const deal = `${(st.match && st.match.deals) || 0}:${v.dealer}`;
    const me = this.me();
    let mine = -1;
    if (me != null) for (let i = h.length - 1; i >= 0 && mine < 0; i--) if (h[i].seat === me) mine = i;
    const line = (m, i) => {
      const since = me != null && i > mine && m.seat !== me;
      const sweep = sweeps[i] ? ` <span class="log-sweep">${t("sweep +{n}", { n: sweeps[i] })}</span>` : "";
      return `<li class="log-move team${m.seat % 2} ${since ? "since" : ""} ${m.action}" data-i="${i}">`
        + `<span class="log-who"><span class="compass-tag" title="${esc(seatCompass(m.seat, this.nSeats()))}">${seatLetter(m.seat, this.nSeats())}</span> ${esc(this.seatName(m.seat))}</span> `
        + `<span class="log-what">${moveSentence(m)}</span>${sweep}${since ? `<span class="sr-only"> (${t("since your turn")})</span>` : ""}</li>`;
    };
    const key = `${deal}|${h.length}|${mine}|${sweeps.join()}`;
    if (key !== this.log.key) {
      list.innerHTML = h.length ? h.map(line).join("") : `<li class="muted log-empty">${t("No move yet in this deal.")}</li>`;
      list.scrollTop = list.scrollHeight;
      const latest = this.root.querySelector("#movelog-latest");
      const last = h[h.length - 1];
      latest.innerHTML = last ? `<span class="compass-tag">${seatLetter(last.seat, this.nSeats())}</span> ${esc(this.seatName(last.seat))}: ${moveSentence(last)}${sweeps[h.length - 1] ? ` <span class="log-sweep">${t("sweep +{n}", { n: sweeps[h.length - 1] })}</span>` : ""}` : "";
      if (this.log.deal === deal && h.length > this.log.shown) {
        const said = h.slice(this.log.shown).map((m, j) => {
          const i = this.log.shown + j;
          const sweep = sweeps[i] ? `, ${t("sweep +{n}", { n: sweeps[i] })}` : "";
          return `${this.seatName(m.seat)}: ${moveSentence(m, { spoken: true })}${sweep}.`;
        });
        this.root.querySelector("#movelog-live").textContent = said.join(" ");
      }
      this.log = { deal, shown: h.length, key };
    }
  }

  isMyTurn() {
    const st = this.state;
    return !!(st && st.legal && st.legal.length && !st.summary);
  }

  renderConn() {
    const el = this.root.querySelector("#conn");
    if (!el) return;
    const text = { open: t("connected"), connecting: t("connecting…"), closed: t("reconnecting…"), banned: t("banned") }[this.connStatus];
    el.className = `conn ${this.connStatus}`;
    el.textContent = text || this.connStatus;
  }

  renderClock() {
    const st = this.state;
    this.root.querySelectorAll(".clock").forEach((el) => {
      if (!st || !st.clock) {
        el.textContent = "";
        return;
      }
      const left = Math.max(0, Math.ceil(st.clock.deadline - Date.now() / 1000));
      el.innerHTML = `<svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="10" cy="11" r="7.5" fill="none" stroke="currentColor" stroke-width="2"/><path d="M10 6.5V11l3 2" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"/><path d="M7.5 1.5h5" stroke="currentColor" stroke-width="2"/></svg>${left}s`;
      el.classList.toggle("low", left <= 10);
    });
  }

  seatHtml(s) {
    const st = this.state;
    const v = st.view;
    const seat = st.table.seats[s] || {};
    const size = Array.isArray(v.hands[s]) ? v.hands[s].length : v.hands[s];
    const toMove = v.to_move === s && st.table.status === "playing";
    const last = st.last_moves && st.last_moves[s];
    const lastSeat = this.lastMover();
    const backs = size
      ? Array.from({ length: Math.min(size, 12) }, () => cardBackHtml("mini")).join("") + `<span class="count">${size}</span>`
      : "";
    const badges = [];
    if (v.dealer === s) badges.push(`<span class="badge" title="${t("Dealer")}">${t("dealer")}</span>`);
    if ((v.dealer + 1) % this.nSeats() === s && v.bid) badges.push(`<span class="badge bid" title="${t("The bid")}">${t("bid {v}", { v: v.bid })}</span>`);
    if (seat.kind === "bot") badges.push(`<span class="badge bot">${t("bot")}</span>`);
    if (seat.kind === "human" && seat.away) badges.push(`<span class="badge away" title="${t("Gone too long: a bot plays until the player is back")}">${t("bot plays")}</span>`);
    // Fair play (docs/web.md): a rated match left for too long counts as lost for that player.
    if (seat.kind === "human" && seat.forfeited) badges.push(`<span class="badge away" title="${t("Left the rated match: it counts as lost for this player")}">${t("forfeited")}</span>`);
    else if (seat.kind === "human" && !seat.connected) badges.push(`<span class="badge away">${t("away")}</span>`);
    const clock = st.clock && st.clock.seat === s ? `<span class="clock"></span>` : "";
    const thinking = toMove && seat.kind === "bot" ? `<span class="thinking"><i></i><i></i><i></i></span>` : "";
    return `<div class="seat team${s % 2} ${toMove ? "to-move" : ""}" data-seat="${s}" aria-label="${esc(this.seatName(s))}, ${esc(seatCompass(s, this.nSeats()))}${toMove ? `, ${t("to move")}` : ""}">
      <div class="seat-head"><span class="dot team${s % 2}"></span>${this.compassHtml(s)}<span class="name" title="${esc(this.seatName(s))}">${esc(this.seatName(s))}</span>${seatRatingHtml(seat)}${badges.join("")}${clock}</div>
      <div class="backs" title="${nCards(size)}">${backs}</div>
      <div class="last ${last ? "" : "none"} ${lastSeat === s ? "latest" : ""}">${last ? pastTenseHtml(last) : "&nbsp;"}${thinking}</div>
    </div>`;
  }

  lastMover() {
    const h = this.state.view.history || [];
    return h.length ? h[h.length - 1].seat : null;
  }

  floorHtml() {
    const st = this.state;
    const v = st.view;
    const pickable = this.pickable();
    const lastMove = (v.history || []).length ? v.history[v.history.length - 1] : null;
    const fresh = new Set();
    if (lastMove && lastMove.card) fresh.add(lastMove.card);
    let inner = "";
    if (st.table.status === "waiting") {
      inner = this.waitingHtml();
    } else if (v.phase === "bid") {
      const n = typeof v.loose === "number" ? v.loose : 4;
      inner = `<div class="loose">${Array.from({ length: n }, () => cardBackHtml()).join("")}</div>
        <div class="floor-note">${this.me() === (v.dealer + 1) % this.nSeats()
          ? t("Four cards lie face down. You bid a house value (9 to 13) from your first four cards.")
          : t("Four cards lie face down. {who} bids a house value (9 to 13) from the first four cards.", { who: this.seatName((v.dealer + 1) % this.nSeats()) })}</div>`;
    } else {
      const houses = (v.houses || []).map((h) => this.houseHtml(h, pickable, fresh)).join("");
      const loose = sortCards(v.loose || [])
        .map((c) => {
          const cls = ["loose-card"];
          if (this.sel.loose.has(c)) cls.push("picked");
          else if (pickable.loose.has(c)) cls.push("pickable");
          if (fresh.has(c)) cls.push("fresh");
          return cardHtml(c, cls.join(" "), `data-act="loose" data-c="${c}" role="button" tabindex="0" aria-label="${t("On the floor: {card}", { card: cardLabel(c) })}" aria-pressed="${this.sel.loose.has(c)}"`);
        })
        .join("");
      const empty = !houses && !loose ? `<div class="floor-note">${t("The floor is empty.")}</div>` : "";
      inner = `${houses ? `<div class="houses">${houses}</div>` : ""}<div class="loose">${loose}</div>${empty}`;
    }
    const info = v.phase === "play" ? `<div class="floor-info"><span>${t("Bid")} <b>${v.bid ?? "–"}</b></span><span>${t("Play #")} <b>${Math.min(v.plays + 1, 48)}</b>/48</span><span>${t("Stock")} <b>${v.stock}</b></span></div>` : "";
    return `<div class="floor" id="floor">${info}${inner}</div>`;
  }

  houseHtml(h, pickable, fresh) {
    const cls = ["house"];
    if (h.cemented) cls.push("cemented");
    if (this.sel.houses.has(h.value)) cls.push("picked");
    else if (pickable.houses.has(h.value)) cls.push("pickable");
    const owners = h.owners
      .map((o) => `<span class="owner team${o % 2}">${esc(this.seatName(o))}</span>`)
      .join("");
    // A cemented house is drawn set by set, each set worth the house's value.
    const sets = houseSets(h.cards, h.value);
    const cards = sets
      .map((set) => `<span class="house-set">${set.map((c) => cardHtml(c, `in-house ${fresh.has(c) ? "fresh" : ""}`)).join("")}</span>`)
      .join("");
    const label = tText(h.cemented ? "Cemented house of {v}: {cards}; owners {owners}" : "House of {v}: {cards}; owners {owners}", {
      v: h.value,
      cards: sets.map((set) => set.map(cardLabel).join(", ")).join("; "),
      owners: h.owners.map((o) => this.seatName(o)).join(", "),
    });
    return `<div class="${cls.join(" ")}" data-act="house" data-h="${h.value}" role="button" tabindex="0"
        aria-label="${esc(label)}" aria-pressed="${this.sel.houses.has(h.value)}" title="${esc(label)}">
      <div class="house-head"><span class="house-value">${h.value}</span>
        ${h.cemented ? `<span class="cement-mark" title="${t("Cemented: cannot be broken")}">${t("cemented")}</span>` : `<span class="ordinary-mark">${t("house")}</span>`}</div>
      <div class="house-cards">${cards}</div>
      <div class="owners">${owners}</div>
    </div>`;
  }

  /** Floor items that appear in at least one legal move of the selected card. */
  pickable() {
    const out = { loose: new Set(), houses: new Set() };
    if (!this.sel.card || !this.isMyTurn()) return out;
    const fv = this.floorValues();
    for (const m of narrow(this.state.legal, { ...this.sel, loose: new Set(), houses: new Set() }, fv)) {
      (m.loose || []).forEach((c) => out.loose.add(c));
      housesTouched(m, fv).forEach((h) => out.houses.add(h));
    }
    return out;
  }

  waitingHtml() {
    const st = this.state;
    const me = this.me();
    const host = st.table.host === me;
    // A host who left (or never came) does not hold the table up: the server lets a seated
    // player start it once the host has been away a grace period, and he hosts it from then.
    const hostAway = me != null && !host && !st.table.seats[st.table.host].connected;
    const seats = st.table.seats
      .map((s, i) => {
        const here = s.kind === "human" && !s.connected && i !== me ? ` <span class="muted">(${t("not here")})</span>` : "";
        const who = s.kind === "empty" ? `<span class="muted">${t("empty: a bot will play")}</span>` : esc(i === me ? `${s.name} (${t("you")})` : s.name) + seatRatingHtml(s) + here;
        const sit = s.kind === "empty" && me != null ? `<button class="btn small" data-act="sit" data-seat="${i}">${t("Sit here")}</button>` : "";
        // The host sees who joined and may take a stranger off the table before the start.
        const kick = host && s.kind === "human" && i !== me ? `<button class="btn small ghost" data-act="kick" data-seat="${i}" title="${t("Take this player off the table")}">${t("Remove")}</button>` : "";
        return `<li class="team${i % 2}" data-seat-row="${i}"><span class="dot team${i % 2}"></span> <b class="compass-name">${seatCompass(i, this.nSeats())}</b>: ${who} ${sit}${kick}</li>`;
      })
      .join("");
    return `<div class="waiting">
      <h2>${t("Waiting to start")}</h2>
      <p>${this.nSeats() === 2 ? t("Two players: North plays against South.") : t("Partners sit opposite: North &amp; South play against West &amp; East.")}</p>
      <ul class="seat-list">${seats}</ul>
      <p class="share">${t("Invite friends:")} <input class="share-url" readonly aria-label="${t("Link to this table")}" value="${esc(location.origin + "/t/" + this.code)}"> <button class="btn small" data-act="share">${t("Copy")}</button></p>
      ${host ? `<button class="btn primary big" data-act="start" id="start-btn">${t("Start the game")}</button>` : hostAway ? `<p>${t("The host is away: after a short wait anyone seated may start the game.")}</p><button class="btn primary big" data-act="start" id="start-btn">${t("Start the game")}</button>` : `<p class="muted">${t("The host starts the game.")}</p>`}
    </div>`;
  }

  meHtml() {
    const st = this.state;
    const v = st.view;
    const me = this.me();
    if (me == null) {
      // A spectator sees the table from seat 1: it is drawn at the bottom like the others.
      const bottom = st.table.status === "waiting" ? "" : this.seatHtml(0);
      const replay = (st.match && st.match.deals) || st.table.status === "finished" ? ` <a href="/replay/${this.code}">${t("Replay")}</a>` : "";
      return `<div class="me-top spectator-seat">${bottom}</div><div class="spectator">${t("You are watching.")}${replay}</div>`;
    }
    const hand = Array.isArray(v.hands[me]) ? sortCards(v.hands[me]) : [];
    const myTurn = this.isMyTurn();
    const legalCards = new Set((st.legal || []).map((m) => m.card).filter(Boolean));
    const cards = hand
      .map((c) => {
        const cls = ["hand-card"];
        if (this.sel.card === c) cls.push("selected");
        if (myTurn && legalCards.size && !legalCards.has(c)) cls.push("dim");
        if (myTurn && legalCards.has(c)) cls.push("playable");
        const dead = myTurn && legalCards.size && !legalCards.has(c) ? `, ${t("no legal use now")}` : "";
        return cardHtml(c, cls.join(" "), `data-act="card" data-c="${c}" role="button" tabindex="0" aria-label="${t("In your hand: {card}", { card: cardLabel(c) })}${dead}" aria-pressed="${this.sel.card === c}"`);
      })
      .join("");
    const seat = this.seatHtml(me).replace('class="seat ', 'class="seat mine ');
    if (st.table.status === "waiting") return `<div class="me-top">${seat}</div>`;
    return `<div class="me-top">${seat}<div class="actions" id="actions">${this.actionsHtml()}</div></div>
      <div class="hand ${myTurn ? "my-turn" : ""}" id="hand">${cards || `<span class="muted">${v.phase === "bid" ? t("Your cards are dealt after the bidder's first play.") : t("No cards in hand.")}</span>`}</div>`;
  }

  actionsHtml() {
    const st = this.state;
    const v = st.view;
    if (st.table.status !== "playing" || st.summary) return "";
    if (!this.isMyTurn()) {
      const who = v.to_move != null ? this.seatName(v.to_move) : "";
      return `<div class="prompt muted">${t("Waiting for <b>{who}</b>…", { who })}</div>`;
    }
    const legal = st.legal;
    const hintHtml = this.hint
      ? `<div class="hint-box" id="hint-box"><b>${t("Hint")}:</b> ${describeHtml(this.hint.move)} <span class="muted">(${esc(notation(this.hint.move))})</span><br><span class="reason">${esc(this.hint.reason || "")}</span>
          <button class="btn small" data-act="use-hint">${t("Select it")}</button></div>`
      : "";
    // Bid phase: no card is chosen first, every move is a button.
    if (legal.some((m) => m.action === "bid" || m.action === "redeal")) {
      const btns = legal
        .map((m, i) => `<button class="btn move-btn ${m.action}" data-act="play-now" data-i="${i}">${describeHtml(m)}</button>`)
        .join("");
      return `<div class="prompt">${t("<b>Your bid.</b> Choose the house value you will play for: you must capture, build or throw with it on your first play.")}</div>
        <div class="choices">${btns}</div>${hintHtml}`;
    }
    if (!this.sel.card && !this.sel.pick) {
      return `<div class="prompt">${v.plays === 0 ? t("<b>Your turn.</b> Pick a card from your hand (your first play must use the bid, {bid}).", { bid: v.bid }) : t("<b>Your turn.</b> Pick a card from your hand.")}</div>${hintHtml}`;
    }
    const cands = sortMoves(this.candidates());
    const forCard = narrow(legal, { card: this.sel.card, loose: new Set(), houses: new Set() }, this.floorValues());
    // Action chips: only the uses this card has, with counts; the chosen one is pressed.
    const counts = {};
    for (const m of narrow(legal, { ...this.sel, action: null }, this.floorValues())) counts[m.action] = (counts[m.action] || 0) + 1;
    const actionChips = ACTIONS.filter((a) => forCard.some((m) => m.action === a))
      .map((a) => {
        const n = counts[a] || 0;
        return `<button class="chip-btn ${this.sel.action === a ? "on" : ""}" data-act="action" data-a="${a}" ${n ? "" : "disabled"} title="${ACTION_HELP[a]}">${ACTION_WORDS[a]} <small>${n}</small></button>`;
      })
      .join("");
    const values = [...new Set(narrow(legal, { ...this.sel, value: null }, this.floorValues()).map(moveValue).filter((x) => x != null))].sort((a, b) => a - b);
    const valueChips = values.length > 1 || this.sel.value != null
      ? `<span class="sep">${t("value")}</span>` + values.map((x) => `<button class="chip-btn ${this.sel.value === x ? "on" : ""}" data-act="value" data-v="${x}">${x}</button>`).join("")
      : "";
    let body;
    if (cands.length === 0) {
      body = `<div class="prompt muted">${t("No move fits this selection.")} <button class="btn small" data-act="clear-floor">${t("Clear the floor selection")}</button></div>`;
    } else if (cands.length === 1) {
      const m = cands[0];
      body = `<div class="confirm-row"><button class="btn primary big" data-act="confirm" id="confirm-btn" ${this.sending ? "disabled" : ""}>${t("Play")}: ${describeHtml(m)}</button>
        <span class="notation">${esc(notation(m))}</span></div>`;
    } else {
      const shown = cands.slice(0, MAX_CHOICES);
      const more = cands.length - shown.length;
      body = `<div class="choices">${shown
        .map((m) => `<button class="btn move-btn ${m.action}" data-act="choose" data-i="${this.state.legal.indexOf(m)}" title="${esc(notation(m))}">${describeHtml(m, { withCard: false })}</button>`)
        .join("")}</div>${more > 0 ? `<div class="muted more">${t("{n} more: point at the floor cards and houses to narrow them down.", { n: more })}</div>` : `<div class="muted more">${t("Choose one, or point at floor cards and houses.")}</div>`}`;
    }
    return `<div class="sel-row"><span class="sel-card">${chipsHtml([this.sel.card || this.sel.pick.card])}</span>${actionChips}${valueChips}
      <button class="chip-btn ghost" data-act="clear" aria-label="${t("Clear the selection")}" title="${t("Clear the selection")}">✕</button></div>${body}${hintHtml}`;
  }

  sidebarHtml() {
    const st = this.state;
    const v = st.view;
    const match = st.match || { deals: 0, diff: 0, baazis: [0, 0], history: [] };
    const settings = st.table.settings || {};
    const me = this.me();
    const myTeam = me == null ? 0 : me % 2;
    const teams = [myTeam, 1 - myTeam];
    const diff = match.diff || 0;
    const lead = diff === 0 ? t("level") : t("{team} {lead} by <b>{n}</b>", { team: this.teamName(diff > 0 ? 0 : 1), lead: this.teamVerb(diff > 0 ? 0 : 1, "lead"), n: Math.abs(diff) });
    const target = (v.rules && v.rules.baazi_lead) || 100;
    const rows = teams
      .map((tm) => `<tr class="team${tm}" id="score-team${tm}"><th><span class="dot team${tm}"></span>${esc(this.teamName(tm))}${this.teamMembers(tm)}</th>
        <td title="${plural(v.captured && v.captured[tm] ? v.captured[tm].length : 0, "card points this deal ({n} card taken)", "card points this deal ({n} cards taken)")}">${(match.points || [0, 0])[tm]}</td>
        <td title="${t("sweep points this deal")}">${v.sweeps ? v.sweeps[tm] : 0}</td>
        <td title="${t("baazis won")}"><b>${(match.baazis || [0, 0])[tm]}</b></td></tr>`)
      .join("");
    const hist = (match.history || [])
      .map((h, i) => `<tr><td>${i + 1}</td>${teams.map((tm) => `<td class="team${tm}">${h.score ? h.score[tm] : ""}${h.sweeps && h.sweeps[tm] ? `<small> (${t("{n} sw", { n: h.sweeps[tm] })})</small>` : ""}</td>`).join("")}</tr>`)
      .join("");
    const length = settings.baazis ? t(settings.baazis > 1 ? "{n} baazis" : "{n} baazi", { n: settings.baazis }) : settings.deals ? t(settings.deals > 1 ? "{n} deals" : "{n} deal", { n: settings.deals }) : "";
    const myTurn = this.isMyTurn();
    const buttons = [];
    // A rated match allows no hints (docs/web.md "Ratings"): no button to be refused.
    if (me != null && st.table.status === "playing" && !settings.rated) {
      buttons.push(`<button class="btn" data-act="hint" id="hint-btn" ${myTurn ? "" : "disabled"}>${t("Hint")}</button>`);
      // Undo takes back my last move of this deal: shown once there is one.
      const moved = (v.history || []).some((m) => m.seat === me);
      if (settings.practice && moved) buttons.push(`<button class="btn" data-act="undo" id="undo-btn">${t("Undo")}</button>`);
    }
    if (st.summary && this.dismissed === st.summary.deal) buttons.push(`<button class="btn primary" data-act="show-summary" id="results-btn">${t("Results")}</button>`);
    // A record and a replay hold finished deals only: offered once one is over.
    if ((match.deals || 0) > 0 || st.table.status === "finished") {
      buttons.push(`<a class="btn ghost" href="/api/tables/${this.code}/record" download="seep-${this.code}.json" id="record-btn">${t("Record")}</a>`);
      buttons.push(`<a class="btn ghost" href="/replay/${this.code}" target="_blank" id="replay-btn">${t("Replay")}</a>`);
    }
    return `<section class="panel scores" aria-label="${t("Scores")}">
        <h3>${t("Scores")} <small>${esc(presetName(settings.preset))} ${length ? "· " + length : ""}${settings.practice ? " · " + t("practice") : ""}${settings.rated ? " · " + t("rated") : ""}</small></h3>
        <table class="score-table"><thead><tr><th><span class="sr-only">${t("Team")}</span></th><th title="${t("card points this deal")}">${t("points")}</th><th title="${t("sweep points this deal")}">${t("sweeps")}</th><th title="${t("baazis won")}">${t("baazis")}</th></tr></thead><tbody>${rows}</tbody></table>
        <div class="baazi-diff" id="baazi-diff">${t("Baazi")}: ${lead} <small>(${t("target {n}", { n: target })})</small></div>
        <div class="deals-played">${t("Deals played")}: <b>${match.deals || 0}</b></div>
      </section>
      <section class="panel history" aria-label="${t("Deal history")}">
        <h3>${t("Deal history")}</h3>
        ${hist ? `<table class="hist-table"><thead><tr><th>#</th>${teams.map((tm) => `<th class="team${tm}">${esc(this.teamName(tm))}</th>`).join("")}</tr></thead><tbody>${hist}</tbody></table>` : `<p class="muted">${t("No deal finished yet.")}</p>`}
      </section>
      ${buttons.length ? `<section class="panel tools" aria-label="${t("Tools")}">${buttons.join(" ")}</section>` : ""}`;
  }

  /** The match's winner: more baazis; at equal baazis, the lead in the unfinished baazi
   * (R44-R47 count baazis; the running difference decides who was ahead when it stopped). */
  renderOverlay() {
    const el = this.root.querySelector("#overlay");
    const st = this.state;
    const sum = st.summary;
    if (!sum || this.dismissed === sum.deal) {
      el.hidden = true;
      el.innerHTML = "";
      delete el.dataset.deal; // shown again (Results): "seep:summary" fires again
      return;
    }
    const match = st.match || {};
    const me = this.me();
    const myTeam = me == null ? 0 : me % 2;
    const teams = [myTeam, 1 - myTeam];
    const res = sum.result || sum;
    const val = (k, tm) => (res[k] ? res[k][tm] : 0);
    const withBonus = res.bonus && (res.bonus[0] || res.bonus[1]);
    const rows = teams
      .map((tm) => `<tr class="team${tm}"><th><span class="dot team${tm}"></span>${esc(this.teamName(tm))}${this.teamMembers(tm)}</th>
        <td>${val("points", tm)}</td>${withBonus ? `<td>${val("bonus", tm)}</td>` : ""}<td>${val("sweeps", tm)}</td><td class="total">${val("score", tm)}</td></tr>`)
      .join("");
    const bonusHead = withBonus ? `<th>${t("most cards")}</th>` : "";
    const captured = sum.captured
      ? teams.map((tm) => `<div class="pile team${tm}"><b>${esc(this.teamName(tm))}</b> <span class="muted">(${nCards(sum.captured[tm].length)})</span><div class="pile-cards">${chipsHtml(sum.captured[tm])}</div></div>`).join("")
      : "";
    const baaziWinner = sum.baazi_winner ?? null;
    const baazis = sum.baazis || match.baazis || [0, 0];
    const over = !!sum.match_over || st.table.status === "finished";
    const diff = sum.diff ?? match.diff ?? 0;
    let banner = "";
    if (baaziWinner != null && !over) {
      const tm = Number(baaziWinner);
      banner += `<div class="banner team${tm}" id="baazi-banner">${t("{team} {win} the baazi!", { team: this.teamName(tm), win: this.teamVerb(tm, "win") })}</div>`;
    }
    // The server names the winner (seep.session.Standing.leader): no rule is written here.
    const winner = over ? sum.match_winner ?? null : null;
    if (over) {
      // The match's end names its winner, and why: baazis won, or the lead in the last one.
      const why = baazis[0] !== baazis[1]
        ? t("{a} – {b} in baazis", { a: baazis[winner], b: baazis[1 - winner] })
        : winner != null
          ? t("no baazi finished: {n} points ahead in the baazi", { n: Math.abs(diff) })
          : t("level in baazis and points");
      // The result is said once, as the title (issue 22 item 5: it was said four times); the
      // baazi count below says why, unless no baazi decided it.
      if (baazis[0] === baazis[1]) banner += `<p class="match-why" id="match-why">${why}</p>`;
    }
    if (baaziWinner != null || over) {
      banner += `<div class="baazi-count">${t("Baazis won")}: ${esc(this.teamName(teams[0]))} <b>${baazis[teams[0]]}</b> – <b>${baazis[teams[1]]}</b> ${esc(this.teamName(teams[1]))}</div>`;
    }
    const lead = baaziWinner != null
      ? t("A new baazi starts from 0.")
      : diff === 0 ? t("The baazi is level.") : t("{team} {lead} the baazi by {n}.", { team: this.teamName(diff > 0 ? 0 : 1), lead: this.teamVerb(diff > 0 ? 0 : 1, "lead"), n: Math.abs(diff) });
    const deal = sum.deal ?? (match.deals || 0) + 1;
    const ready = sum.ready || [];
    const waiting = me != null && (ready.includes(me) || this.nextSent === deal);
    if (over && me != null && !ready.includes(me) && this.nextSent !== deal && st.table.status !== "finished") {
      // The last deal of the match: say we are ready, so the server can close the game.
      if (this.send({ type: "next" })) this.nextSent = deal;
    }
    let title = t("Deal {n} is over", { n: deal });
    if (over) {
      const result = winner == null ? t("A draw: the match is over") : me == null ? t("{team} {win} the match", { team: this.teamName(winner), win: this.teamVerb(winner, "win") })
        : winner === myTeam ? t("You win the match!")
          : this.nSeats() === 2 ? t("{player} wins the match", { player: this.seatName(winner) }) : t("The opponents win the match");
      title = `<span id="match-winner">${result}</span>`;
    }
    const next = over
      ? `<a class="btn primary" href="${esc(this.options.newGameUrl || "/")}">${t("New game")}</a> <a class="btn" href="${esc(this.options.replayUrl || `/replay/${this.code}`)}">${t("Replay this game")}</a> <button class="btn ghost" data-act="close-summary">${t("Look at the table")}</button>`
      : me == null
        ? `<span class="muted">${t("Waiting for the players…")}</span>`
        : waiting
          ? `<span class="muted" id="next-wait">${t("Waiting for the other players…")}</span>`
          : `<button class="btn primary big" data-act="next" id="next-btn">${t("Next deal")}</button>`;
    el.hidden = false;
    // #summary-extra belongs to social.js (rematch, post-deal review): it fills the element
    // when the "seep:summary" event says a summary opened, and the node survives redraws.
    const extra = el.querySelector("#summary-extra");
    const opened = el.dataset.deal !== String(deal);
    el.dataset.deal = String(deal);
    el.innerHTML = `<div class="dialog summary" id="summary" role="dialog" aria-modal="true" aria-labelledby="summary-title">
      <h2 id="summary-title">${title}</h2>
      ${banner}
      ${over ? `<h3 class="deal-detail">${t("Deal {n}", { n: deal })}</h3>` : ""}
      <table class="sum-table"><thead><tr><th><span class="sr-only">${t("Team")}</span></th><th>${t("card points")}</th>${bonusHead}<th>${t("sweeps")}</th><th>${t("score")}</th></tr></thead><tbody>${rows}</tbody></table>
      ${over ? "" : `<p class="lead">${lead}</p>`}
      ${captured ? `<details class="piles"><summary>${t("Captured cards")}</summary>${captured}</details>` : ""}
      <div id="summary-extra"></div>
      <div class="dialog-buttons">${next}</div>
    </div>`;
    if (extra && !opened) el.querySelector("#summary-extra").replaceWith(extra);
    if (opened) {
      document.dispatchEvent(new CustomEvent("seep:summary", { detail: { deal, summary: sum, over, table: this, extra: el.querySelector("#summary-extra") } }));
    }
    const first = el.querySelector("#next-btn, .dialog-buttons .btn");
    if (first && !el.contains(document.activeElement)) first.focus({ preventScroll: true });
  }

  /** `event_table`: this player's next table of event `event` is open. A banner with the
   * button that takes his seat there (eventseat.js: the server answers the seat to his
   * session, the message names no table). It lives outside the view's root, so redraws and
   * the table leaving the server keep it; its text is announced (a polite live region). */
  showNextTable(event) {
    const id = Number(event);
    if (!Number.isInteger(id) || id <= 0) return;
    let box = document.getElementById("event-next");
    if (!box) {
      box = document.createElement("div");
      box.id = "event-next";
      box.className = "event-next";
      box.setAttribute("role", "status");
      box.setAttribute("aria-live", "polite");
      document.body.appendChild(box);
    }
    // Filled after the region is in the page: a screen reader announces what changes in it.
    requestAnimationFrame(() => {
      box.innerHTML = `<p>${t("Your next table in this event is open.")}</p>
        <button class="btn primary" type="button" id="event-next-btn">${t("Go to your next table")}</button>`;
      const btn = box.querySelector("#event-next-btn");
      btn.addEventListener("click", async () => {
        btn.disabled = true;
        try {
          await goToEventSeat(id);
        } catch (e) {
          toast(errorText(e));
          btn.disabled = false;
        }
      });
    });
  }

  // --- input -------------------------------------------------------------------------------

  onClick(ev) {
    const el = ev.target.closest("[data-act]");
    if (!el || !this.root.contains(el)) return;
    const act = el.dataset.act;
    const legal = (this.state && this.state.legal) || [];
    switch (act) {
      case "card": {
        if (!this.isMyTurn()) return;
        const c = el.dataset.c;
        if (!legal.some((m) => m.card === c)) {
          const why = reasonText((this.state.dead_reasons || {})[c], (s) => seatCompass(s, this.nSeats())) || (this.state.dead || {})[c];
          toast(why ? tText("{card} cannot be played: {why}", { card: cardLabel(c), why }) : t("That card has no legal use now."), "info");
          return;
        }
        const keep = this.sel.card === c ? null : c;
        this.sel = emptySel();
        this.sel.card = keep;
        // Chosen by keyboard (a click of detail 0): the focus goes on to the card's moves.
        this.focusMoves = !!keep && ev.detail === 0;
        break;
      }
      case "loose":
      case "house": {
        if (!this.isMyTurn() || !this.sel.card) {
          if (this.isMyTurn()) toast(t("Pick a card from your hand first."), "info");
          return;
        }
        this.sel.pick = null;
        const key = act === "loose" ? el.dataset.c : Number(el.dataset.h);
        const set = act === "loose" ? this.sel.loose : this.sel.houses;
        if (set.has(key)) set.delete(key);
        else {
          set.add(key);
          if (!this.candidates().length) {
            // Start the floor selection again from this item alone.
            this.sel.loose = new Set(act === "loose" ? [key] : []);
            this.sel.houses = new Set(act === "house" ? [key] : []);
            this.sel.action = null;
            this.sel.value = null;
            if (!this.candidates().length) {
              this.sel.loose = new Set();
              this.sel.houses = new Set();
              toast(t("The selected card cannot take or join that."), "info");
            }
          }
        }
        break;
      }
      case "action":
        this.sel.pick = null;
        this.sel.action = this.sel.action === el.dataset.a ? null : el.dataset.a;
        break;
      case "value":
        this.sel.pick = null;
        this.sel.value = this.sel.value === Number(el.dataset.v) ? null : Number(el.dataset.v);
        break;
      case "choose":
        this.sel.pick = legal[Number(el.dataset.i)];
        break;
      case "clear":
        this.sel = emptySel();
        break;
      case "clear-floor":
        this.sel.loose = new Set();
        this.sel.houses = new Set();
        this.sel.pick = null;
        break;
      case "confirm": {
        const c = this.candidates();
        if (c.length === 1) this.play(c[0]);
        return;
      }
      case "play-now":
        this.play(legal[Number(el.dataset.i)]);
        return;
      case "use-hint":
        if (this.hint) {
          const m = legal.find((x) => sameMove(x, this.hint.move));
          if (m) {
            this.sel = emptySel();
            this.sel.card = m.card || null;
            this.sel.pick = m;
          }
        }
        break;
      case "hint":
        this.send({ type: "hint" });
        return;
      case "undo":
        this.send({ type: "undo" });
        return;
      case "start":
        this.send({ type: "start" });
        return;
      case "sit":
        this.send({ type: "sit", seat: Number(el.dataset.seat) });
        return;
      case "kick":
        this.send({ type: "kick", seat: Number(el.dataset.seat) });
        return;
      case "next":
        if (this.send({ type: "next" })) this.nextSent = (this.state.summary || {}).deal;
        break;
      case "show-summary":
        this.dismissed = null;
        break;
      case "close-summary":
        this.dismissed = (this.state.summary || {}).deal;
        break;
      case "share":
        this.share();
        return;
      case "menu":
        this.toggleMenu();
        return;
      case "four-colour": {
        setFourColour(!fourColour());
        el.setAttribute("aria-pressed", String(fourColour()));
        return;
      }
      case "mute": {
        setMuted(!muted());
        el.textContent = muted() ? t("Sound off") : t("Sound on");
        el.setAttribute("aria-pressed", String(muted()));
        return;
      }
      case "watch":
        this.open(null);
        return;
      default:
        return;
    }
    this.render();
  }

  onKey(ev) {
    if (ev.key === "Escape" && this.root.querySelector("#settings-menu.open")) {
      this.toggleMenu(false);
      this.root.querySelector("#menu-btn").focus();
      return;
    }
    if (!this.state || ev.target.closest("input, select, textarea")) return;
    const focused = ev.target.closest && ev.target.closest("[data-act][role=button]");
    // Enter on the card or house that narrowed the move to one: play it (Space still un-picks).
    const narrowedBy = focused && focused.getAttribute("aria-pressed") === "true";
    if (ev.key === "Enter" && narrowedBy && this.isMyTurn() && this.root.querySelector("#confirm-btn")) {
      ev.preventDefault();
      const c = this.candidates();
      if (c.length === 1) this.play(c[0]);
      return;
    }
    if (focused && (ev.key === "Enter" || ev.key === " ")) {
      ev.preventDefault();
      focused.click();
      return;
    }
    if (ev.key === "Escape") {
      this.sel = emptySel();
      this.render();
    } else if (ev.key === "Enter" && this.isMyTurn()) {
      const c = this.candidates();
      if ((this.sel.card || this.sel.pick) && c.length === 1) this.play(c[0]);
    }
  }

  play(m) {
    if (!m || this.sending) return;
    // The coach (on by default in practice) shows its warnings beside the hand, each naming
    // its move: the move goes at once, never held for a second click.
    if (this.send({ type: "move", move: m, version: this.state.version })) {
      this.sending = true;
      this.sentMove = true;
      this.hint = null;
      this.render();
    }
  }

  async share() {
    const url = `${location.origin}/t/${this.code}`;
    try {
      await navigator.clipboard.writeText(url);
      toast(tText("Link copied: {url}", { url }), "info");
    } catch (e) {
      const input = this.root.querySelector(".share-url");
      if (input) input.select();
      toast(tText("Share this link: {url}", { url }), "info");
    }
  }
}
