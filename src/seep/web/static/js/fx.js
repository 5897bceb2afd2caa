// The table's motion and sound: cards glide from where they were to where they are (FLIP:
// First, Last, Invert, Play, with the Web Animations API), captured cards slide to the
// team's score row, a sweep banner, a tone and a title flash when the turn comes. Nothing
// moves under prefers-reduced-motion; the tone has a mute switch kept in localStorage.
import { prefs } from "./net.js";
import { t } from "./i18n.js";

const DURATION = 420; // ms: long enough to follow, short enough not to slow the game

export function reducedMotion() {
  return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

/** Where every card face (data-card) is on screen, before a redraw, and its face. */
export function snapshot(root) {
  const out = new Map();
  for (const el of root.querySelectorAll("[data-card]")) {
    const r = el.getBoundingClientRect();
    r.face = el.innerHTML; // our own card markup, drawn again for a captured card's slide
    r.color = el.classList.contains("red") ? "red" : "black";
    out.set(el.dataset.card, r);
  }
  return out;
}

function glide(el, from, to) {
  const dx = from.left - to.left;
  const dy = from.top - to.top;
  if (Math.abs(dx) < 1 && Math.abs(dy) < 1) return;
  el.animate(
    [{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }],
    { duration: DURATION, easing: "cubic-bezier(.2, .7, .2, 1)" },
  );
}

/**
 * After a redraw: each card still on show glides from its old place; a card new on the floor
 * comes from `origin` (the seat that played it); a card gone from the floor (captured) is
 * drawn once more where it was and slides to `pile` (the capturing team's score row).
 */
export function animate(root, before, { origin = null, pile = null } = {}) {
  if (reducedMotion() || !before || !before.size) return;
  window.seepAnimated = (window.seepAnimated || 0) + 1; // for the browser tests
  const seen = new Set();
  for (const el of root.querySelectorAll("[data-card]")) {
    const c = el.dataset.card;
    seen.add(c);
    const to = el.getBoundingClientRect();
    const from = before.get(c) || (origin ? origin.getBoundingClientRect() : null);
    if (from) glide(el, from, to);
  }
  if (!pile) return;
  const target = pile.getBoundingClientRect();
  for (const [c, from] of before) {
    if (seen.has(c)) continue;
    const ghost = document.createElement("div");
    ghost.className = `card ghost-card ${from.color || ""}`;
    ghost.setAttribute("aria-hidden", "true");
    ghost.innerHTML = from.face || "";
    document.body.appendChild(ghost);
    ghost.style.left = `${from.left}px`;
    ghost.style.top = `${from.top}px`;
    ghost.style.width = `${from.width}px`;
    ghost.style.height = `${from.height}px`;
    const dx = target.left + target.width / 2 - (from.left + from.width / 2);
    const dy = target.top + target.height / 2 - (from.top + from.height / 2);
    const anim = ghost.animate(
      [
        { transform: "translate(0, 0) scale(1)", opacity: 1 },
        { transform: `translate(${dx}px, ${dy}px) scale(.35)`, opacity: 0.2 },
      ],
      { duration: DURATION + 180, easing: "ease-in" },
    );
    anim.onfinish = () => ghost.remove();
    anim.oncancel = () => ghost.remove();
  }
}

/** The sweep banner: "Sweep! +50", over the floor for two seconds. */
export function sweepBanner(host, text) {
  if (!host) return;
  const el = document.createElement("div");
  el.className = "sweep-banner";
  el.id = "sweep-banner";
  el.setAttribute("role", "status");
  el.textContent = text;
  host.appendChild(el);
  setTimeout(() => el.remove(), reducedMotion() ? 3000 : 2200);
}

// --- sound ------------------------------------------------------------------------------------

let audio = null;

export function muted() {
  return prefs.get("mute", "0") === "1";
}

export function setMuted(on) {
  prefs.set("mute", on ? "1" : "0");
}

/** Browsers allow sound only after a gesture: the first click anywhere unlocks it. */
export function unlockAudio() {
  if (audio || !window.AudioContext) return;
  try {
    audio = new AudioContext();
  } catch (e) {
    audio = null;
  }
}

/** Two soft rising notes, made by the Web Audio API (no sound file). */
export function turnTone() {
  if (muted() || !audio) return;
  if (audio.state === "suspended") audio.resume();
  const now = audio.currentTime;
  [660, 880].forEach((f, i) => {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "sine";
    osc.frequency.value = f;
    const at = now + i * 0.13;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(0.18, at + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.22);
    osc.connect(gain).connect(audio.destination);
    osc.start(at);
    osc.stop(at + 0.25);
  });
  window.seepTones = (window.seepTones || 0) + 1; // for the browser tests
}

// --- the title flash ----------------------------------------------------------------------------

let flashTimer = null;
let baseTitle = null;

/** Alternate the tab title with "Your turn" until the turn ends (or stopFlash). */
export function flashTitle() {
  if (flashTimer) return;
  baseTitle = document.title;
  let on = false;
  const tick = () => {
    on = !on;
    document.title = on ? `● ${t("Your turn")} · Seep` : baseTitle;
  };
  tick();
  flashTimer = setInterval(tick, 1000);
}

export function stopFlash() {
  if (!flashTimer) return;
  clearInterval(flashTimer);
  flashTimer = null;
  if (baseTitle != null) document.title = baseTitle;
}
