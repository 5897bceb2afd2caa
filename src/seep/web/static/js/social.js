// The social side of a table: chat and emotes (text only: every line goes in with
// textContent, never as HTML), the host's mute, who is watching, rematch, the coach and the
// position report, carrying the seat to another device (link and QR code), and one card's
// moves when the server sends counts per card instead of a long list. The server decides
// everything; this module draws what it sends and asks for more.
import { t, translatePage } from "./i18n.js";
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

export class Social {
  constructor(view) {
    this.view = view;
    this.transfer = pendingTransfer();
    if (this.transfer) history.replaceState(null, "", location.pathname); // out of the address bar
    this.coachOn = prefs.get("coach") === "1";
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
        <button class="btn small" type="button" id="rematch-btn" hidden>Rematch</button>
        <label class="inline check" id="coach-label" hidden><input type="checkbox" id="coach-on"> <span data-i18n>Coach</span></label>
      </div>
      <div class="mutes" id="mutes"></div>
      <div class="card-picker" id="card-picker" hidden></div>
      <div class="coach" id="coach" hidden></div>
      <div class="transfer" id="transfer" hidden></div>`;
    translatePage(this.panel); // the fixed markup above: our dictionary's text only
    const page = view.root.querySelector(".table-page") || view.root;
    page.appendChild(this.panel);
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
    $("transfer-btn").addEventListener("click", () => view.send({ type: "transfer" }));
    $("rematch-btn").addEventListener("click", () => {
      if (view.send({ type: "rematch" })) $("rematch-btn").disabled = true;
    });
    this.panel.addEventListener("click", (ev) => {
      const b = ev.target.closest("button");
      if (!b) return;
      if (b.dataset.emote) view.send({ type: "emote", emote: b.dataset.emote });
      if (b.dataset.mute) view.send({ type: "mute", seat: Number(b.dataset.mute), muted: b.dataset.muted === "1" });
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

  addLine(seat, name, text, kind = "chat") {
    const li = el("li", { class: `chat-line ${kind} team${seat % 2}` });
    li.appendChild(el("b", {}, t("{name}: ", { name: name || t("Seat {n}", { n: seat + 1 }) })));
    li.appendChild(document.createTextNode(text));
    const box = this.$("chat-lines");
    box.appendChild(li);
    while (box.children.length > MAX_LINES) box.firstChild.remove();
    box.scrollTop = box.scrollHeight;
  }

  /** A message for this module: handled (true) or left to the table (false). */
  onMessage(msg) {
    const view = this.view;
    switch (msg.type) {
      case "chat":
        this.addLine(msg.seat, msg.name, msg.text);
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
        ? t("{n} watching: {names}", { n: w.count, names: w.names.join(", ") })
        : t("{n} watching", { n: w.count })
      : "";
    const seated = me != null;
    this.$("chat-form").hidden = !seated || (table.muted || []).includes(me);
    this.$("emotes").hidden = this.$("chat-form").hidden;
    this.$("report-btn").hidden = !seated || !st.view || st.view.phase === "waiting";
    this.$("transfer-btn").hidden = !seated || !["waiting", "playing"].includes(table.status);
    const rematch = this.$("rematch-btn");
    rematch.hidden = !seated || table.status !== "finished";
    rematch.textContent = (table.rematch || []).length ? t("Rematch ({n} ready)", { n: table.rematch.length }) : t("Rematch");
    // The host's mute switches.
    const mutes = this.$("mutes");
    mutes.textContent = "";
    if (seated && table.host === me) {
      table.seats.forEach((s, i) => {
        if (i === me || s.kind !== "human") return;
        const muted = (table.muted || []).includes(i);
        mutes.appendChild(
          el("button", { class: "btn small ghost", type: "button", "data-mute": String(i), "data-muted": muted ? "0" : "1" },
            t(muted ? "Unmute {name}" : "Mute {name}", { name: s.name || t("seat {n}", { n: i + 1 }) })),
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
    const coach = this.$("coach");
    if (!(practice && this.coachOn && myTurn)) {
      coach.hidden = true;
    } else if (this.coachVersion !== st.version) {
      this.coachVersion = st.version;
      view.send({ type: "coach" });
    }
  }

  drawCoach(msg) {
    const coach = this.$("coach");
    coach.hidden = false;
    coach.textContent = "";
    coach.appendChild(el("h3", {}, t("Coach")));
    const ol = el("ol");
    for (const top of msg.top) ol.appendChild(el("li", {}, top.reason));
    coach.appendChild(ol);
    if (msg.warnings.length) {
      coach.appendChild(el("p", { class: "warn" }, t("{n} of your moves leave something to the next player:", { n: msg.warnings.length })));
      const ul = el("ul", { class: "warnings" });
      for (const w of msg.warnings.slice(0, 8)) {
        ul.appendChild(el("li", {}, `${w.move.card}: ${w.warnings.join("; ")}`));
      }
      coach.appendChild(ul);
    }
    const order = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
    const unseen = order.filter((v) => msg.unseen[v] > 0).map((v) => `${v}×${msg.unseen[v]}`).join(" ");
    coach.appendChild(el("p", { class: "unseen" }, t("Unseen: {cards}", { cards: unseen || t("none") })));
    this.lastCoach = msg;
  }

  /** The coach's warnings for a move, if any (for a confirmation). */
  warningsFor(move) {
    if (!this.coachOn || !this.lastCoach) return [];
    const key = JSON.stringify(move);
    const hit = this.lastCoach.warnings.find((w) => JSON.stringify(w.move) === key);
    return hit ? hit.warnings : [];
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
