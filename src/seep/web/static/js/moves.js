// Moves as the server sends them (docs/format.md move objects): text, labels and the narrowing of
// the server's legal list by what the player has pointed at. The page never decides what is
// legal: it only keeps the moves of the server's list that agree with the selection.
import { chipsHtml, chipHtml, sortCards } from "./cards.js";

export const ACTIONS = ["capture", "build", "cement", "break", "throw"];
export const ACTION_WORDS = {
  capture: "Capture",
  build: "Build",
  cement: "Cement",
  break: "Break",
  throw: "Throw",
  bid: "Bid",
  redeal: "Redeal",
};
export const ACTION_HELP = {
  capture: "take cards or a house into your team's pile",
  build: "make a new house",
  cement: "add to a house",
  break: "raise someone's ordinary house",
  throw: "leave the card on the floor",
};

/** The move in the notation of docs/notation.md: `KH x H11 9C 2D`, `4D =13 9H`, `2H ^9=11`. */
export function notation(m) {
  if (!m) return "";
  const loose = sortCards(m.loose || []);
  switch (m.action) {
    case "bid":
      return `bid ${m.value}`;
    case "redeal":
      return "redeal";
    case "throw":
      return m.card;
    case "capture":
      return [m.card, "x", ...(m.houses || []).map((h) => `H${h}`), ...loose].join(" ");
    case "build":
      return [m.card, `=${m.value}`, ...loose].join(" ");
    case "cement":
      return [m.card, `+${m.value}`, ...loose].join(" ");
    case "break":
      return [m.card, `^${m.house}=${m.value}`, ...loose].join(" ");
    default:
      return JSON.stringify(m);
  }
}

function houseWord(v) {
  return `<span class="hv">house ${v}</span>`;
}

/** Plain words with card chips, for buttons: "takes house 11 and 9♣ 2♦". */
export function describeHtml(m, { withCard = true } = {}) {
  const card = withCard && m.card ? chipHtml(m.card) + " " : "";
  const loose = m.loose || [];
  const with_ = loose.length ? ` with ${chipsHtml(loose)}` : "";
  switch (m.action) {
    case "bid":
      return `Bid <b>${m.value}</b>`;
    case "redeal":
      return "Show the hand and deal again";
    case "throw":
      return `${card}throw onto the floor`;
    case "capture": {
      const parts = (m.houses || []).map(houseWord);
      if (loose.length) parts.push(chipsHtml(loose));
      return `${card}takes ${parts.join(" and ")}`;
    }
    case "build":
      return `${card}builds ${houseWord(m.value)}${with_}`;
    case "cement":
      return `${card}cements ${houseWord(m.value)}${with_}`;
    case "break":
      return `${card}breaks ${houseWord(m.house)} up to ${m.value}${with_}`;
    default:
      return notation(m);
  }
}

/** Short plain text for a seat's last move ("threw 9C", "captured 3 cards"). */
export function pastTenseHtml(m) {
  if (!m) return "";
  const loose = m.loose || [];
  const card = m.card ? chipHtml(m.card) : "";
  switch (m.action) {
    case "bid":
      return `bid <b>${m.value}</b>`;
    case "redeal":
      return "asked for a redeal";
    case "throw":
      return `threw ${card}`;
    case "capture": {
      const parts = (m.houses || []).map(houseWord);
      if (loose.length) parts.push(chipsHtml(loose));
      return `${card} took ${parts.join(" + ")}`;
    }
    case "build":
      return `${card} built ${houseWord(m.value)}`;
    case "cement":
      return `${card} cemented ${houseWord(m.value)}`;
    case "break":
      return `${card} broke ${houseWord(m.house)} to ${m.value}`;
    default:
      return notation(m);
  }
}

/** Two moves are the same when action, card, value, house and the sets agree (docs/format.md). */
export function sameMove(a, b) {
  if (!a || !b) return false;
  const set = (x) => JSON.stringify([...(x || [])].map(String).sort());
  return (
    a.action === b.action &&
    (a.card ?? null) === (b.card ?? null) &&
    (a.value ?? null) === (b.value ?? null) &&
    (a.house ?? null) === (b.house ?? null) &&
    set(a.loose) === set(b.loose) &&
    set(a.houses) === set(b.houses)
  );
}

/** House values on the floor that a move takes or joins (pointing at them selects it). */
export function housesTouched(m, floorValues) {
  switch (m.action) {
    case "capture":
      return m.houses || [];
    case "cement":
      return [m.value];
    case "break":
      return floorValues.includes(m.value) ? [m.house, m.value] : [m.house];
    default:
      return [];
  }
}

/** A move's "value" for the value filter: the value of the house made, joined or raised. */
export function moveValue(m) {
  return ["build", "cement", "break"].includes(m.action) ? m.value : null;
}

/**
 * The moves of `legal` consistent with the selection:
 * sel = {card, loose: Set, houses: Set, action, value}. Selected loose cards must all leave
 * with the move, selected houses must all be taken or joined by it.
 */
export function narrow(legal, sel, floorValues) {
  return legal.filter((m) => {
    if (sel.card && m.card !== sel.card) return false;
    if (sel.action && m.action !== sel.action) return false;
    if (sel.value != null && moveValue(m) !== sel.value) return false;
    if (sel.loose && sel.loose.size) {
      const ml = new Set(m.loose || []);
      for (const c of sel.loose) if (!ml.has(c)) return false;
    }
    if (sel.houses && sel.houses.size) {
      const mh = housesTouched(m, floorValues);
      for (const h of sel.houses) if (!mh.includes(h)) return false;
    }
    return true;
  });
}

export function sortMoves(moves) {
  const order = (m) => {
    const i = ACTIONS.indexOf(m.action);
    return i < 0 ? -1 : i;
  };
  return [...moves].sort(
    (a, b) =>
      order(a) - order(b) ||
      (moveValue(a) ?? 0) - (moveValue(b) ?? 0) ||
      (a.loose || []).length - (b.loose || []).length ||
      notation(a).localeCompare(notation(b)),
  );
}
