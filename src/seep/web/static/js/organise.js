// The organiser's form in the lobby's events panel: a signed-in player makes an event
// (POST /api/events) and lands on its page; a guest is asked to sign in. The form only
// collects: what an event may be (kinds, bounds, which combinations are served) is the
// server's to say (docs/web.md "Events"), and its refusal is shown next to the form, in the
// page's language. The form is built here so that every word goes through i18n.js.
import { api, esc } from "./net.js";
import { lang, t } from "./i18n.js";
import { errorText } from "./reasons.js";

// A club evening: a Swiss event of partnerships, three rounds of two deals, unrated, bots
// standing in for a player who does not come, starting at half past seven.
const EVENING = { hour: 19, minute: 30 };
const ROUNDS = 3;
const DEALS = 2;

const two = (n) => String(n).padStart(2, "0");

/** A `datetime-local` value ("2026-12-05T19:30") for a Date, in the browser's time zone. */
function localValue(d) {
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** This evening's start, or tomorrow's when this evening's is less than an hour away. */
function eveningStart(now = new Date()) {
  const d = new Date(now);
  d.setHours(EVENING.hour, EVENING.minute, 0, 0);
  if (d.getTime() - now.getTime() < 3600 * 1000) d.setDate(d.getDate() + 1);
  return d;
}

/** A number field as sent: an integer stays a number; anything else goes as typed (the
 * server names what is wrong with it); empty is null. */
function numberOf(input) {
  const raw = input.value.trim();
  if (!raw) return null;
  const n = Number(raw);
  return Number.isFinite(n) ? n : raw;
}

function formHtml() {
  const option = (value, text, selected = false) => `<option value="${value}"${selected ? " selected" : ""}>${text}</option>`;
  return `
    <p id="event-new-guest" class="muted small" hidden>${t("Sign in to organise an event.")}</p>
    <p id="event-new-open" hidden><button class="btn small" type="button" id="event-new-btn" aria-expanded="false" aria-controls="event-form">${t("New event")}</button></p>
    <form id="event-form" class="form event-form" novalidate hidden aria-labelledby="event-form-title">
      <h3 id="event-form-title">${t("New event")}</h3>
      <label for="event-form-name"><span>${t("Name of the event")}</span>
        <input id="event-form-name" name="name" maxlength="60" autocomplete="off" placeholder="${esc(t("Friday Seep"))}"></label>
      <label for="event-form-kind"><span>${t("Kind")}</span><select id="event-form-kind" name="kind">
        ${option("swiss", t("Swiss: paired by standings each round"), true)}
        ${option("arena", t("Arena: paired again as soon as a game ends"))}
        ${option("duplicate", t("Duplicate: every table plays the same cards"))}
      </select></label>
      <label for="event-form-minutes" id="event-form-minutes-box" hidden><span>${t("How long the arena lasts, in minutes (60 if empty)")}</span>
        <input id="event-form-minutes" name="minutes" type="number" inputmode="numeric" step="1"></label>
      <label for="event-form-format"><span>${t("Format")}</span><select id="event-form-format" name="format">
        ${option("four", t("Four players"), true)}
        ${option("two", t("Two players"))}
      </select></label>
      <label for="event-form-partners"><span>${t("Partners")}</span><select id="event-form-partners" name="partners">
        ${option("registered", t("Registered together"), true)}
        ${option("individual", t("Drawn each round"))}
      </select></label>
      <label for="event-form-starts"><span>${t("Starts (your local time)")}</span>
        <input id="event-form-starts" name="starts" type="datetime-local"></label>
      <div class="event-form-numbers">
        <label for="event-form-rounds"><span>${t("Rounds")}</span>
          <input id="event-form-rounds" name="rounds" type="number" inputmode="numeric" step="1" value="${ROUNDS}"></label>
        <label for="event-form-deals"><span>${t("Deals a round")}</span>
          <input id="event-form-deals" name="deals" type="number" inputmode="numeric" step="1" value="${DEALS}"></label>
        <label for="event-form-baazis"><span>${t("Or baazis a round")}</span>
          <input id="event-form-baazis" name="baazis" type="number" inputmode="numeric" step="1"></label>
      </div>
      <label class="inline check" for="event-form-rated"><input type="checkbox" id="event-form-rated" name="rated"> <span>${t("Rated: the results change the players' ratings")}</span></label>
      <label class="inline check" for="event-form-bots"><input type="checkbox" id="event-form-bots" name="bots" checked> <span>${t("Bots play for players who do not come")}</span></label>
      <p id="event-form-error" class="account-error" role="alert" aria-live="assertive"></p>
      <button class="btn primary" type="submit" id="event-form-submit">${t("Create the event")}</button>
    </form>`;
}

/** The request's body, as the form holds it. */
function bodyOf(form) {
  const when = form.starts.value ? new Date(form.starts.value).getTime() : NaN;
  const body = {
    name: form.name.value,
    kind: form.kind.value,
    format: form.format.value,
    rated: form.rated.checked,
    // A datetime-local value has no zone: Date reads it as the browser's local time.
    starts: Number.isFinite(when) ? when / 1000 : null,
    rounds: numberOf(form.rounds),
    deals: numberOf(form.deals),
    partners: form.partners.value,
    bots: form.bots.checked,
  };
  // Baazis a round replace its deals, when the organiser gave a number (the server says for
  // which kinds).
  if (form.baazis.value.trim()) body.baazis = numberOf(form.baazis);
  // An arena's length goes only with an arena, and only when the organiser gave one.
  if (body.kind === "arena" && form.minutes.value.trim()) body.minutes = numberOf(form.minutes);
  return body;
}

/** The field a refusal names ("'rounds' must be at most 12", "starts: from now ..."). */
function fieldOf(message) {
  const m = /^'?([a-z]+)'?[: ]/.exec(message || "");
  return m ? m[1] : null;
}

export function initOrganise(root) {
  const box = root.querySelector("#event-new");
  if (!box) return;
  box.innerHTML = formHtml();
  const guest = box.querySelector("#event-new-guest");
  const open = box.querySelector("#event-new-open");
  const toggle = box.querySelector("#event-new-btn");
  const form = box.querySelector("#event-form");
  const error = box.querySelector("#event-form-error");
  const minutes = box.querySelector("#event-form-minutes-box");
  form.starts.value = localValue(eveningStart());

  const shown = (on) => {
    form.hidden = !on;
    toggle.setAttribute("aria-expanded", String(on));
  };
  const say = (text) => {
    error.textContent = text;
  };
  const unmark = () => {
    for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
    for (const el of form.querySelectorAll("[aria-describedby='event-form-error']")) el.removeAttribute("aria-describedby");
  };

  // account.js says who is signed in (and again on signing in or out).
  root.addEventListener("seep:account", (ev) => {
    const me = ev.detail;
    guest.hidden = Boolean(me);
    open.hidden = !me;
    if (!me) shown(false);
  });

  toggle.addEventListener("click", () => {
    const on = form.hidden;
    shown(on);
    if (on) form.name.focus();
  });
  form.addEventListener("keydown", (ev) => {
    if (ev.key !== "Escape") return;
    shown(false);
    toggle.focus();
  });
  // The arena's length is asked only of an arena.
  form.kind.addEventListener("change", () => {
    minutes.hidden = form.kind.value !== "arena";
  });

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const submit = form.querySelector("#event-form-submit");
    submit.disabled = true;
    say("");
    unmark();
    try {
      const made = await api("/api/events", bodyOf(form));
      location.assign(`/events/${encodeURIComponent(made.id)}`);
    } catch (err) {
      let text = errorText(err);
      // The English page shows the server's own sentence, which names the field; another
      // language words the code, so the field's label is added to say which one.
      const field = fieldOf(err.message);
      const input = field ? form.querySelector(`#event-form-${field}`) : null;
      if (input) {
        input.setAttribute("aria-invalid", "true");
        input.setAttribute("aria-describedby", "event-form-error");
        if (lang() !== "en") text = `${text} (${input.closest("label").querySelector("span").textContent})`;
      }
      say(text);
      submit.disabled = false;
    }
  });
}
