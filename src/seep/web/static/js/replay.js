// The replay view (/replay/{code}): step through a game forwards and back. The positions come
// from the server (GET /api/tables/{code}/replay: every position after every move, replayed by
// the engine); without that route the page falls back to the docs/format.md record and shows each
// deal's start with its list of moves. Nothing here applies a move itself.
import { cardHtml, sortCards } from "./cards.js";
import { notation, pastTenseHtml } from "./moves.js";
import { api, esc, toast } from "./net.js";

const SEAT_NAMES = ["Seat 1", "Seat 2", "Seat 3", "Seat 4"];

export class ReplayView {
  constructor(root, code) {
    this.root = root;
    this.code = code.toUpperCase();
    this.steps = [];
    this.i = 0;
    this.names = SEAT_NAMES;
    this.full = true;
  }

  async start() {
    this.root.innerHTML = `<div class="replay-page"><p class="muted">Loading the game…</p></div>`;
    try {
      const info = await api(`/api/tables/${this.code}`);
      this.names = info.seats.map((s, i) => s.name || SEAT_NAMES[i]);
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
        this.root.innerHTML = `<div class="panel center-msg"><h2>No replay</h2><p>${esc(e2.message)}</p><p><a class="btn" href="/">Lobby</a></p></div>`;
        return;
      }
    }
    if (!this.steps.length) {
      this.root.innerHTML = `<div class="panel center-msg"><h2>Nothing to replay yet</h2><p>No deal has finished at table ${esc(this.code)}. A deal can be replayed once it is over: its record shows every hand.</p><p><a class="btn" href="/t/${esc(this.code)}">Back to the table</a></p></div>`;
      return;
    }
    this.root.innerHTML = `<div class="replay-page">
      <header class="topbar"><a class="logo" href="/">Seep</a><span class="room">Replay of table <b class="code">${esc(this.code)}</b></span>
        <span class="spacer"></span><a class="btn small ghost" href="/api/tables/${this.code}/record" download>Download record</a></header>
      <div class="replay-controls panel">
        <button class="btn" data-act="first" title="Start">◀◀</button>
        <button class="btn" data-act="prev" id="replay-prev" title="Back (←)">◀ Back</button>
        <button class="btn primary" data-act="next" id="replay-next" title="Forward (→)">Forward ▶</button>
        <button class="btn" data-act="last" title="End">▶▶</button>
        <input type="range" min="0" max="${Math.max(0, this.steps.length - 1)}" value="0" id="replay-range" aria-label="Move">
        <span id="replay-pos" class="muted"></span>
      </div>
      <div id="replay-body"></div>
    </div>`;
    this.root.addEventListener("click", (ev) => {
      const t = ev.target.closest("[data-act]");
      if (!t) return;
      const n = this.steps.length - 1;
      const go = { first: 0, prev: this.i - 1, next: this.i + 1, last: n }[t.dataset.act];
      if (go !== undefined) this.go(go);
    });
    this.root.querySelector("#replay-range").addEventListener("input", (ev) => this.go(Number(ev.target.value)));
    document.addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowRight") this.go(this.i + 1);
      if (ev.key === "ArrowLeft") this.go(this.i - 1);
    });
    if (!this.full) toast("This server sends the record only: the floor is shown at each deal's start.", "info");
    this.go(0);
  }

  go(i) {
    if (!this.steps.length) return;
    this.i = Math.max(0, Math.min(this.steps.length - 1, i));
    this.root.querySelector("#replay-range").value = String(this.i);
    const step = this.steps[this.i];
    const dealSteps = this.steps.filter((s) => s.deal === step.deal);
    const k = dealSteps.indexOf(step);
    this.root.querySelector("#replay-pos").textContent = `deal ${step.deal + 1} · move ${k} of ${dealSteps.length - 1}`;
    let pos = step.position;
    if (!pos) {
      for (let j = this.i; j >= 0 && !pos; j--) pos = this.steps[j].position;
    }
    this.root.querySelector("#replay-body").innerHTML = this.positionHtml(pos, step, dealSteps, k);
  }

  name(s) {
    return esc(this.names[s] || SEAT_NAMES[s]);
  }

  positionHtml(p, step, dealSteps, k) {
    const move = step.move;
    const prev = this.steps[this.i - 1];
    const mover = move ? (move.seat ?? step.seat ?? (prev && prev.position ? prev.position.to_move : null)) : null;
    const moveText = move
      ? `<b>${mover != null ? this.name(mover) : ""}</b> ${pastTenseHtml(move)} <span class="notation">${esc(notation(move))}</span>`
      : `Deal ${step.deal + 1} starts: ${this.name(p.dealer)} deals, ${this.name((p.dealer + 1) % 4)} bids.`;
    const hands = p.hands
      .map((h, s) => `<div class="seat replay-hand team${s % 2} ${p.to_move === s ? "to-move" : ""}">
        <div class="seat-head"><span class="dot team${s % 2}"></span><span class="name">${this.name(s)}</span>${p.dealer === s ? `<span class="badge">dealer</span>` : ""}</div>
        <div class="cards">${Array.isArray(h) ? sortCards(h).map((c) => cardHtml(c, "mini-face")).join("") : ""}</div></div>`)
      .join("");
    const loose = Array.isArray(p.loose) ? p.loose : [];
    const houses = (p.houses || [])
      .map((h) => `<div class="house ${h.cemented ? "cemented" : ""}"><div class="house-head"><span class="house-value">${h.value}</span>${h.cemented ? `<span class="cement-mark">cemented</span>` : `<span class="ordinary-mark">house</span>`}</div>
        <div class="house-cards">${sortCards(h.cards).map((c) => cardHtml(c, "in-house")).join("")}</div>
        <div class="owners">${h.owners.map((o) => `<span class="owner team${o % 2}">${this.name(o)}</span>`).join("")}</div></div>`)
      .join("");
    const list = this.full
      ? ""
      : `<ol class="move-list panel">${dealSteps.slice(1).map((s, j) => `<li class="${j + 1 === k ? "current" : ""}">${esc(notation(s.move))}</li>`).join("")}</ol>`;
    const result = step.result || (p.phase === "over" && step.result !== null ? null : null);
    return `<div class="panel replay-move">${moveText}</div>
      <div class="replay-floor"><div class="floor">
        <div class="floor-info"><span>Bid <b>${p.bid ?? "–"}</b></span><span>Plays <b>${p.plays}</b>/48</span>
          <span>Captured <b class="team0">${(p.captured || [[], []])[0].length}</b> / <b class="team1">${(p.captured || [[], []])[1].length}</b></span>
          <span>Sweeps <b>${(p.sweeps || [0, 0]).join(" / ")}</b></span></div>
        ${houses ? `<div class="houses">${houses}</div>` : ""}
        <div class="loose">${p.phase === "bid" ? loose.map(() => `<div class="card back"></div>`).join("") : sortCards(loose).map((c) => cardHtml(c)).join("")}</div>
      </div></div>
      ${result ? `<div class="panel">Result: points ${result.points.join(" – ")}, sweeps ${result.sweeps.join(" – ")}, score <b>${result.score.join(" – ")}</b></div>` : ""}
      <div class="replay-hands">${hands}</div>${list}`;
  }
}
