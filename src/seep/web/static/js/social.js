// The social side of a table: chat and emotes (text only: every line goes in with
// textContent, never as HTML), reporting a chat line or a player to the moderators, the
// host's mute, who is watching, the coach and the position
// report, carrying the seat to another device (link and QR code), and one card's moves when
// the server sends counts per card instead of a long list. In the end-of-deal summary (its
// #summary-extra, drawn by table.js): the rematch with who is ready, and a practice deal's
// review. Above the table: quick match's countdown. The server decides everything; this
// module draws what it sends and asks for more.
import { seatCompass } from "./cards.js";
import { lang, t, tText, translatePage } from "./i18n.js";
import { moveSentence } from "./moves.js";
import { prefs, toast, tokens } from "./net.js";

const EMOTES = {
  well_played: "Well played!",
  nice_sweep: "Nice sweep!",
  oops: "Oops",
  thanks: "Thanks",
  hurry: "Your turn…",
  good_game: "Good game",
};
const MAX_LINES = 100;
// A report's reasons: the server's fixed list (docs/web.md "Reports"), in the page's words.
const REPORT_REASONS = {
  abuse: "Abuse or insults",
  cheating: "Cheating",
  spam: "Spam",
  name: "Offensive name",
  other: "Something else",
};

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text) node.textContent = text;
  return node;
}

/** The transfer code in this page's URL fragment (which browsers never send to a server). */
export function pendingTransfer() {
  const m = location.hash.match(/^#transfer=([0-9a-f]{1,64})$/);
  return m ? m[1] : null;
}

/** A coach's warning in words, one sentence a risk, naming the move (two plays of one card
 * read differently): the server sends the move and its risks as keys and values. */
export function riskSentences(w) {
  const move = moveSentence(w.move, { asText: true });
  return (w.risks || []).map((r) => (r.risk === "sweep"
    ? t("Careful: after {move}, the next player can sweep the floor (with {values}).", { move, values: r.values.join(` ${t("or")} `) })
    : t("Careful: after {move}, the next player can take your house of {v}.", { move, v: r.value })));
}

export class Social {
  constructor(view) {
    this.view = view;
    this.transfer = pendingTransfer();
    if (this.transfer) history.replaceState(null, "", location.pathname); // out of the address bar
    // On unless the player turned it off: a practice table is where advice is wanted.
    this.coachOn = prefs.get("coach") !== "0";
    this.chatHidden = prefs.get("chat-hidden") === "1";
    this.coachVersion = -1;
    this.askedCard = null;
    this.panel = el("aside", { class: "social", id: "social", "aria-label": t("Chat and table tools") });
    this.panel.innerHTML = `
      <div class="social-bar">
        <button class="btn small" id="chat-toggle" type="button"></button>
        <span class="watching" id="watching"></span>
      </div>
      <div id="chat-box">
        <ol class="chat-lines" id="chat-lines" aria-live="polite"></ol>
        <form id="chat-form" class="chat-form" autocomplete="off">
          <input id="chat-input" maxlength="200" placeholder="Say something" aria-label="Chat message" data-i18n-attr="placeholder,aria-label">
          <button class="btn small" type="submit" data-i18n>Send</button>
        </form>
        <div class="emotes" id="emotes"></div>
      </div>
      <div class="tools" id="social-tools">
        <button class="btn small" type="button" id="report-btn" title="Copy the position as your seat sees it" data-i18n data-i18n-attr="title">Report position</button>
        <button class="btn small" type="button" id="transfer-btn" data-i18n>Continue on another device</button>
        <label class="inline check" id="coach-label" hidden><input type="checkbox" id="coach-on"> <span data-i18n>Coach</span></label>
      </div>
      <div class="mutes" id="mutes"></div>
      <form class="report-form" id="report-form" hidden autocomplete="off">
        <p id="report-what"></p>
        <label><span data-i18n>Why?</span> <select id="report-reason"></select></label>
        <input id="report-note" maxlength="200" placeholder="A few words (optional)" aria-label="A few words (optional)" data-i18n-attr="placeholder,aria-label">
        <button class="btn small" type="submit" data-i18n>Send report</button>
        <button class="btn small ghost" type="button" id="report-cancel" data-i18n>Cancel</button>
      </form>
      <div class="card-picker" id="card-picker" hidden></div>
      <div class="transfer" id="transfer" hidden></div>`;
    translatePage(this.panel); // the fixed markup above: our dictionary's text only
    const page = view.root.querySelector(".table-page") || view.root;
    page.appendChild(this.panel);
    // The coach sits beside the hand, in view (social.css pins it), not down in this panel.
    this.coachBox = el("section", { class: "coach", id: "coach", "aria-label": t("Coach"), "aria-live": "polite" });
    this.coachBox.hidden = true;
    page.appendChild(this.coachBox);
    this.countdown = el("p", { class: "quick-countdown", id: "quick-countdown", role: "status" });
    this.countdown.hidden = true;
    const head = page.querySelector(".topbar");
    if (head) head.after(this.countdown);
    else page.prepend(this.countdown);
    this.countdownTimer = setInterval(() => this.drawCountdown(), 250);
    this.coachBox.addEventListener("click", (ev) => {
      if (!ev.target.closest("[data-coach-off]")) return;
      this.$("coach-on").checked = false;
      this.$("coach-on").dispatchEvent(new Event("change"));
    });
    document.addEventListener("seep:summary", (ev) => this.onSummary(ev.detail));
    const $ = (id) => this.panel.querySelector(`#${id}`);
    this.$ = $;
    for (const [key, label] of Object.entries(EMOTES)) {
      const b = el("button", { class: "btn small ghost", type: "button", "data-emote": key }, t(label));
      $("emotes").appendChild(b);
    }
    $("chat-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = $("chat-input").value.trim();
      if (text && view.send({ type: "chat", text })) $("chat-input").value = "";
    });
    $("chat-toggle").addEventListener("click", () => {
      this.chatHidden = !this.chatHidden;
      prefs.set("chat-hidden", this.chatHidden ? "1" : "0");
      this.drawChatToggle();
    });
    $("coach-on").checked = this.coachOn;
    $("coach-on").addEventListener("change", () => {
      this.coachOn = $("coach-on").checked;
      prefs.set("coach", this.coachOn ? "1" : "0");
      this.coachVersion = -1;
      this.onState(view.state);
    });
    $("report-btn").addEventListener("click", () => view.send({ type: "report" }));
    for (const [key, label] of Object.entries(REPORT_REASONS)) {
      $("report-reason").appendChild(el("option", { value: key }, t(label)));
    }
    $("report-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const msg = { type: "report_player", ...this.reporting, reason: $("report-reason").value, note: $("report-note").value.trim() };
      if (view.send(msg)) this.closeReport();
    });
    $("report-cancel").addEventListener("click", () => this.closeReport());
    $("transfer-btn").addEventListener("click", () => view.send({ type: "transfer" }));
    this.panel.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b) return;
      if (b.dataset.emote) view.send({ type: "emote", emote: b.dataset.emote });
      if (b.dataset.mute) view.send({ type: "mute", seat: Number(b.dataset.mute), muted: b.dataset.muted === "1" });
      if (b.dataset.reportLine) this.openReport({ line: Number(b.dataset.reportLine) }, b.dataset.name);
      if (b.dataset.reportSeat) this.openReport({ seat: Number(b.dataset.reportSeat) }, b.dataset.name);
      if (b.dataset.card) {
        this.askedCard = b.dataset.card;
        view.send({ type: "moves", card: b.dataset.card });
      }
    });
    this.drawChatToggle();
  }

  drawChatToggle() {
    this.$("chat-box").hidden = this.chatHidden;
    this.$("chat-toggle").textContent = t(this.chatHidden ? "Show chat" : "Hide chat");
  }

  addLine(seat, name, text, kind = "chat", line = null) {
    const li = el("li", { class: `chat-line ${kind} team${seat % 2}` });
    const who = name || t("Seat {n}", { n: seat + 1 });
    li.appendChild(el("b", {}, tText("{name}: ", { name: who })));
    li.appendChild(document.createTextNode(text));
    const me = this.view.state ? this.view.state.seat : null;
    if (line != null && me != null && seat !== me) {
      // A button, so the keyboard reaches it; the line goes by its number, never its text.
      li.appendChild(document.createTextNode(" "));
      li.appendChild(el("button", {
        class: "report-line", type: "button", "data-report-line": String(line), "data-name": who,
        "aria-label": tText("Report this line by {name}", { name: who }),
      }, t("Report")));
    }
    const box = this.$("chat-lines");
    box.appendChild(li);
    while (box.children.length > MAX_LINES) box.firstChild.remove();
    box.scrollTop = box.scrollHeight;
  }

  /** The report form for a chat line ({line}) or a player ({seat}), its reason first. */
  openReport(what, name) {
    this.reporting = what;
    this.$("report-what").textContent = what.line != null
      ? tText("Report this line by {name} to the moderators.", { name })
      : tText("Report {name} to the moderators.", { name });
    this.$("report-note").value = "";
    this.$("report-form").hidden = false;
    this.$("report-reason").focus();
  }

  closeReport() {
    this.reporting = null;
    this.$("report-form").hidden = true;
  }

  /** A message for this module: handled (true) or left to the table (false). */
  onMessage(msg) {
    const view = this.view;
    switch (msg.type) {
      case "chat":
        this.addLine(msg.seat, msg.name, msg.text, "chat", msg.line);
        return true;
      case "reported":
        toast(t(msg.repeat ? "You have reported this already." : "Thank you: your report went to the moderators."), "info");
        return true;
      case "emote":
        this.addLine(msg.seat, msg.name, EMOTES[msg.emote] ? t(EMOTES[msg.emote]) : msg.emote, "emote");
        return true;
      case "rematch":
        if (msg.token) {
          tokens.set(msg.code, msg.token, msg.seat);
          location.href = `/t/${msg.code}`;
        } else {
          toast(t("The rematch is at table {code}.", { code: msg.code }), "info");
        }
        return true;
      case "transfer":
        this.drawTransfer(msg);
        return true;
      case "claimed":
        tokens.set(view.code, msg.token, msg.seat);
        view.token = msg.token;
        view.socket.token = msg.token; // a reconnect says hello with it
        toast(t("This device holds the seat now."), "info");
        return true;
      case "coach":
        this.drawCoach(msg);
        return true;
      case "review":
        this.lastReview = msg;
        this.drawExtra();
        return true;
      case "report":
        this.saveReport(msg.report);
        return true;
      case "moves":
        if (view.state && msg.card === this.askedCard) {
          view.state.legal = msg.moves; // the table narrows this card's list as usual
          view.render();
        }
        return true;
      case "error":
        if (msg.code === "moved_device") {
          tokens.clear(view.code);
          view.token = null;
          view.socket.token = null;
          toast(t("Your seat went to another device: you are watching."));
          return true;
        }
        return false;
      default:
        return false;
    }
  }

  onState(st) {
    if (!st) return;
    const view = this.view;
    if (this.transfer && view.socket) {
      // Claimed once the socket is open (the first state says so): the code is spent.
      view.send({ type: "claim", code: this.transfer });
      this.transfer = null;
    }
    const table = st.table;
    const me = st.seat;
    const w = table.watching || { count: 0, names: [] };
    this.$("watching").textContent = w.count
      ? w.names.length
        ? tText("{n} watching: {names}", { n: w.count, names: w.names.join(", ") })
        : t("{n} watching", { n: w.count })
      : "";
    const seated = me != null;
    this.$("chat-form").hidden = !seated || (table.muted || []).includes(me);
    this.$("emotes").hidden = this.$("chat-form").hidden;
    this.$("report-btn").hidden = !seated || !st.view || st.view.phase === "waiting";
    this.$("transfer-btn").hidden = !seated || !["waiting", "playing"].includes(table.status);
    this.startsAt = table.status === "waiting" ? table.starts_at ?? null : null;
    this.drawCountdown();
    this.drawExtra();
    // The host's mute switches.
    const mutes = this.$("mutes");
    mutes.textContent = "";
    if (seated) {
      table.seats.forEach((s, i) => {
        if (i === me || s.kind !== "human") return;
        const name = s.name || t("seat {n}", { n: i + 1 });
        if (table.host === me) {
          const muted = (table.muted || []).includes(i);
          mutes.appendChild(
            el("button", { class: "btn small ghost", type: "button", "data-mute": String(i), "data-muted": muted ? "0" : "1" },
              tText(muted ? "Unmute {name}" : "Mute {name}", { name })),
          );
        }
        // Any seated player may report another (the host's mute is for this table only).
        mutes.appendChild(
          el("button", { class: "btn small ghost", type: "button", "data-report-seat": String(i), "data-name": name },
            tText("Report {name}", { name })),
        );
      });
    }
    // A long list: pick a card first (the server sends that card's moves).
    const picker = this.$("card-picker");
    const counts = seated && st.legal_counts;
    picker.hidden = !counts;
    picker.textContent = "";
    if (counts) {
      picker.appendChild(el("p", {}, t("Many moves: choose the card to play first.")));
      for (const [card, n] of Object.entries(counts)) {
        picker.appendChild(el("button", { class: "btn small", type: "button", "data-card": card }, `${card} (${n})`));
      }
    }
    // The coach: practice tables, my turn.
    const practice = table.settings && table.settings.practice;
    this.$("coach-label").hidden = !seated || !practice;
    const myTurn = seated && st.view && st.view.to_move === me && table.status === "playing";
    const coach = this.coachBox;
    if (!(practice && this.coachOn && myTurn)) {
      coach.hidden = true;
    } else if (this.coachVersion !== st.version) {
      this.coachVersion = st.version;
      view.send({ type: "coach" });
    }
  }

  drawCoach(msg) {
    const view = this.view;
    const st = view.state;
    if (!st || msg.version !== st.version || !this.coachOn) return; // an answer to a past turn
    const coach = this.coachBox;
    coach.hidden = false;
    coach.textContent = "";
    const head = el("div", { class: "coach-head" });
    head.appendChild(el("h3", {}, t("Coach")));
    head.appendChild(el("button", { class: "btn small ghost", type: "button", "data-coach-off": "1", title: t("Turn the coach off") }, t("Hide")));
    coach.appendChild(head);
    const ol = el("ol", { class: "coach-top" });
    for (const top of msg.top) {
      // The bot's own reason is English prose: shown as it is only on an English page.
      const said = lang() === "en" && top.reason ? ` (${top.reason})` : "";
      ol.appendChild(el("li", {}, t("Good: {move}", { move: moveSentence(top.move, { asText: true }) }) + said));
    }
    coach.appendChild(ol);
    if (msg.warnings.length) {
      coach.appendChild(el("p", { class: "warn" }, t("Moves that leave something to the next player:")));
      const ul = el("ul", { class: "warnings" });
      for (const w of msg.warnings.slice(0, 8)) {
        for (const text of riskSentences(w)) ul.appendChild(el("li", {}, text));
      }
      coach.appendChild(ul);
    }
    const order = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
    const unseen = order.filter((v) => msg.unseen[v] > 0).map((v) => `${v}×${msg.unseen[v]}`).join(" ");
    coach.appendChild(el("p", { class: "unseen" }, t("Unseen: {cards}", { cards: unseen || t("none") })));
    this.lastCoach = msg;
  }

  // --- quick match's countdown -----------------------------------------------------------

  drawCountdown() {
    const box = this.countdown;
    if (this.startsAt == null) {
      box.hidden = true;
      return;
    }
    const left = Math.max(0, Math.ceil(this.startsAt - Date.now() / 1000));
    box.hidden = false;
    const text = t("The game starts in {n} s: bots take the empty seats then.", { n: left });
    if (box.textContent !== text) box.textContent = text;
  }

  // --- the end-of-deal summary: rematch and review ---------------------------------------

  onSummary(detail) {
    this.summaryDeal = detail.deal;
    this.drawExtra();
  }

  /** Fill the summary's #summary-extra (table.js keeps the node across its redraws). */
  drawExtra() {
    const view = this.view;
    const st = view.state;
    const box = view.root.querySelector("#summary-extra");
    if (!box || !st || !st.summary) return;
    const table = st.table;
    const me = st.seat;
    const names = (seats) => seats.map((i) => {
      const s = table.seats[i] || {};
      const where = seatCompass(i, table.seats.length);
      return s.name ? tText("{seat} ({name})", { seat: where, name: s.name }) : where;
    }).join(", ");
    const parts = [];
    if (table.status === "finished" && !table.rematched) {
      const ready = table.rematch || [];
      const mine = me != null && ready.includes(me);
      const sec = el("section", { class: "rematch", id: "rematch", "aria-label": t("Rematch") });
      if (me != null) {
        const b = el("button", { class: "btn primary", type: "button", id: "rematch-btn" }, mine ? t("Waiting for the others…") : t("Rematch"));
        if (mine) b.disabled = true;
        b.addEventListener("click", () => {
          if (view.send({ type: "rematch" })) b.disabled = true;
        });
        sec.appendChild(b);
      }
      sec.appendChild(el("p", { class: "muted", id: "rematch-ready" },
        ready.length ? tText("Ready for a rematch: {names}", { names: names(ready) }) : t("Nobody has asked for a rematch yet.")));
      parts.push(sec);
    }
    const rv = this.lastReview;
    // The review of this very deal: an undo after it, and the deal ended again, makes another.
    const moves = ((st.view && st.view.history) || []).length;
    if (rv && rv.seat === me && rv.deal === st.summary.deal && rv.moves === moves) parts.push(this.reviewHtml(rv));
    const key = JSON.stringify([table.status, table.rematch, me, rv && [rv.deal, rv.moves], moves, st.summary.deal, lang()]);
    if (box.dataset.drawn === key && box.childElementCount === parts.length) return; // no redraw: focus stays
    box.dataset.drawn = key;
    const hadFocus = box.contains(document.activeElement);
    box.replaceChildren(...parts);
    if (hadFocus) (box.querySelector("button:not([disabled])") || box).focus?.();
  }

  reviewHtml(rv) {
    const sec = el("section", { class: "review", id: "review", "aria-label": t("Your plays reviewed") });
    sec.appendChild(el("h3", {}, t("Your plays reviewed")));
    const word = (m) => moveSentence(m, { asText: true });
    const costly = rv.costly.map((i) => rv.plays.find((p) => p.index === i)).filter(Boolean);
    if (!costly.length) {
      sec.appendChild(el("p", {}, t("The bots would have played as you did at every turn.")));
    } else {
      sec.appendChild(el("p", {}, t("The plays that cost you most, by the bots' count (points):")));
      const ol = el("ol", { class: "review-costly" });
      for (const p of costly) {
        ol.appendChild(el("li", {}, t("You: {played}. Better: {best} (+{n} points).", { played: word(p.move), best: word(p.best), n: p.loss })));
      }
      sec.appendChild(ol);
    }
    const details = el("details", { class: "review-all" });
    details.appendChild(el("summary", {}, t("Each of your plays ({n})", { n: rv.plays.length })));
    const ul = el("ul");
    for (const p of rv.plays) {
      const verdict = p.loss > 0 ? t("{n} points below the best", { n: p.loss }) : t("the bots' choice too");
      ul.appendChild(el("li", {}, `${word(p.move)}: ${verdict}`));
    }
    details.appendChild(ul);
    sec.appendChild(details);
    return sec;
  }

  async saveReport(report) {
    const text = JSON.stringify(report, null, 2);
    try {
      await navigator.clipboard.writeText(text);
      toast(t("The position report is copied: paste it into an issue."), "info");
    } catch (e) {
      const a = el("a", { href: URL.createObjectURL(new Blob([text], { type: "application/json" })), download: `seep-position-${this.view.code}.json` });
      document.body.appendChild(a);
      a.click();
      a.remove();
    }
    this.lastReport = report;
  }

  drawTransfer(msg) {
    const box = this.$("transfer");
    box.hidden = false;
    box.textContent = "";
    const link = `${location.origin}/t/${this.view.code}#transfer=${msg.code}`;
    box.appendChild(el("p", { class: "warn" },
      t("Whoever has this link or code can play for you. It works once, for five minutes; your seat then leaves this browser.")));
    const input = el("input", { readonly: "", value: link, "aria-label": t("Link for the other device"), id: "transfer-link" });
    box.appendChild(input);
    if (msg.qr) {
      const NS = "http://www.w3.org/2000/svg";
      const svg = document.createElementNS(NS, "svg");
      svg.setAttribute("viewBox", `0 0 ${msg.qr.size} ${msg.qr.size}`);
      svg.setAttribute("class", "qr");
      svg.setAttribute("role", "img");
      svg.setAttribute("aria-label", t("QR code of the link"));
      const bg = document.createElementNS(NS, "rect");
      bg.setAttribute("width", String(msg.qr.size));
      bg.setAttribute("height", String(msg.qr.size));
      bg.setAttribute("fill", "#fff");
      const path = document.createElementNS(NS, "path");
      path.setAttribute("d", msg.qr.path);
      path.setAttribute("fill", "#000");
      svg.append(bg, path);
      box.appendChild(svg);
    }
  }
}
