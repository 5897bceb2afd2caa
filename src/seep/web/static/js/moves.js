// Moves as the server sends them (docs/format.md move objects): text, labels and the narrowing of
// the server's legal list by what the player has pointed at. The page never decides what is
// legal: it only keeps the moves of the server's list that agree with the selection.
import { cardLabel, cardText, chipsHtml, chipHtml, sortCards } from "./cards.js";
import { html, t } from "./i18n.js";

export const ACTIONS = ["capture", "build", "cement", "break", "throw"];
export const ACTION_WORDS = {
  capture: t("Capture"),
  build: t("Build"),
  cement: t("Cement"),
  break: t("Break"),
  throw: t("Throw"),
  bid: t("Bid"),
  redeal: t("Redeal"),
};
export const ACTION_HELP = {
  capture: t("take cards or a house into your team's pile"),
  build: t("make a new house"),
  cement: t("add to a house"),
  break: t("raise someone's ordinary house"),
  throw: t("leave the card on the floor"),
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
  return html(`<span class="hv">${t("house {v}", { v })}</span>`);
}

/** Plain words with card chips, for buttons: "takes house 11 and 9♣ 2♦". */
export function describeHtml(m, { withCard = true } = {}) {
  const card = withCard && m.card ? chipHtml(m.card) + " " : "";
  const loose = m.loose || [];
  const with_ = loose.length ? ` ${t("with")} ${chipsHtml(loose)}` : "";
  switch (m.action) {
    case "bid":
      return `${t("Bid")} <b>${m.value}</b>`;
    case "redeal":
      return t("Show the hand and deal again");
    case "throw":
      return `${card}${t("throw onto the floor")}`;
    case "capture": {
      const parts = (m.houses || []).map(houseWord);
      if (loose.length) parts.push(chipsHtml(loose));
      return `${card}${t("takes")} ${parts.join(` ${t("and")} `)}`;
    }
    case "build":
      return `${card}${t("builds")} ${houseWord(m.value)}${with_}`;
    case "cement":
      return `${card}${t("cements")} ${houseWord(m.value)}${with_}`;
    case "break":
      return `${card}${t("breaks {house} up to {v}", { house: houseWord(m.house), v: m.value })}${with_}`;
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
      return `${t("bid")} <b>${m.value}</b>`;
    case "redeal":
      return t("asked for a redeal");
    case "throw":
      return `${t("threw")} ${card}`;
    case "capture": {
      const parts = (m.houses || []).map(houseWord);
      if (loose.length) parts.push(chipsHtml(loose));
      return `${card} ${t("took")} ${parts.join(" + ")}`;
    }
    case "build":
      return `${card} ${t("built")} ${houseWord(m.value)}`;
    case "cement":
      return `${card} ${t("cemented")} ${houseWord(m.value)}`;
    case "break":
      return `${card} ${t("broke {house} to {v}", { house: houseWord(m.house), v: m.value })}`;
    default:
      return notation(m);
  }
}

/**
 * A move in words, for the move log and the clock's notice: "2♦ built a house of 12 with
 * 10♥", "K♥ took house 11 and 9♣ 2♦". Only the move dict's own fields are worded (card, action,
 * value, house, houses, loose): nothing is worked out from the rules. `asText`: plain text
 * (a notice), `spoken`: plain text with the cards' names (a screen reader's live region),
 * else HTML with coloured card chips.
 */
export function moveSentence(m, { asText = false, spoken = false } = {}) {
  if (!m) return "";
  asText = asText || spoken;
  const one = spoken ? cardLabel : asText ? cardText : chipHtml;
  const many = (cards) => sortCards(cards).map(one).join(spoken ? ", " : " ");
  const house = (v) => (asText ? t("house {v}", { v }) : houseWord(v));
  // Card chips or card words: the page's own, put into t() as they are.
  const card = html(m.card ? one(m.card) : "");
  const loose = m.loose || [];
  const cards = html(many(loose));
  switch (m.action) {
    case "bid":
      return t("bid {v}", { v: m.value });
    case "redeal":
      return t("asked for a redeal");
    case "throw":
      return t("{card} thrown onto the floor", { card });
    case "capture": {
      const parts = (m.houses || []).map(house);
      if (loose.length) parts.push(cards);
      return t("{card} took {taken}", { card, taken: html(parts.join(` ${t("and")} `)) });
    }
    case "build":
      return loose.length ? t("{card} built a house of {v} with {cards}", { card, v: m.value, cards }) : t("{card} built a house of {v}", { card, v: m.value });
    case "cement":
      return loose.length ? t("{card} cemented the house of {v} with {cards}", { card, v: m.value, cards }) : t("{card} cemented the house of {v}", { card, v: m.value });
    case "break":
      return loose.length
        ? t("{card} raised the house of {h} to {v} with {cards}", { card, h: m.house, v: m.value, cards })
        : t("{card} raised the house of {h} to {v}", { card, h: m.house, v: m.value });
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
