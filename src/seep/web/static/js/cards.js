// Drawing cards: inline SVG suit symbols, big readable ranks, red and black suits (or four
// colours: the page's "four-colour" preference colours each suit on its own, seep.css).
// Nothing here knows a rule of Seep: ranks and suits are only drawn and sorted for display.
import { t } from "./i18n.js";
import { prefs } from "./net.js";

/** The seats' fixed compass letters, as the core and the notation name them: four players
 * sit N W S E (seat 0 to 3), two sit N and S facing each other. */
const COMPASS_LETTERS = { 4: "NWSE", 2: "NS" };
const COMPASS_WORDS = { N: "North", W: "West", S: "South", E: "East" };

/** A seat's compass letter: "N", "W", "S", "E" (where a full name has no room). */
export function seatLetter(seat, nSeats = 4) {
  return (COMPASS_LETTERS[nSeats] || COMPASS_LETTERS[4])[seat] || "?";
}

/** A seat's compass name in the page's language: "North", "West", "South", "East". */
export function seatCompass(seat, nSeats = 4) {
  const word = COMPASS_WORDS[seatLetter(seat, nSeats)];
  return word ? t(word) : "?";
}

const SUIT_PATHS = {
  S: "M50 5C41 22 7 38 7 61c0 14 10 23 22 23 8 0 14-3 18-9-1 10-5 17-13 21h32c-8-4-12-11-13-21 4 6 10 9 18 9 12 0 22-9 22-23C93 38 59 22 50 5z",
  H: "M50 90C22 65 5 49 5 29 5 15 16 5 29 5c10 0 17 6 21 14 4-8 11-14 21-14 13 0 24 10 24 24 0 20-17 36-45 61z",
  D: "M50 3 87 50 50 97 13 50z",
  C: "M50 7a19 19 0 0 0-17 28 19 19 0 1 0 13 33c-1 11-5 19-13 25h34c-8-6-12-14-13-25a19 19 0 1 0 13-33A19 19 0 0 0 50 7z",
};
export const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
export const RANKS = "A23456789TJQK";
const SUIT_ORDER = "SHDC";

export function suitSvg(suit, cls = "suit") {
  return `<svg class="${cls}" viewBox="0 0 100 100" aria-hidden="true"><path d="${SUIT_PATHS[suit]}"/></svg>`;
}

export function rankText(rank) {
  return rank === "T" ? "10" : rank;
}

export function isRed(card) {
  return card[1] === "H" || card[1] === "D";
}

export function cardLabel(card) {
  const names = { A: "ace", T: "ten", J: "jack", Q: "queen", K: "king" };
  const r = names[card[0]] || card[0];
  return t("{rank} of {suit}", { rank: t(r), suit: t(SUIT_NAMES[card[1]]) });
}

/** A card's number for drawing a house set by set: ace 1 ... king 13 (as printed). */
function faceNumber(card) {
  return RANKS.indexOf(card[0]) + 1;
}

/**
 * A house's cards split into sets that each add up to its value, for drawing a cemented
 * house set by set (the view lists a house's cards, not its sets). Tries the biggest cards
 * first; falls back to one group when no split is found.
 */
export function houseSets(cards, value) {
  const sorted = [...cards].sort((a, b) => faceNumber(b) - faceNumber(a) || cardKey(a) - cardKey(b));
  const total = sorted.reduce((n, c) => n + faceNumber(c), 0);
  if (!value || total % value || total === value) return [sortCards(cards)];
  const k = total / value;
  const sets = Array.from({ length: k }, () => []);
  const sums = new Array(k).fill(0);
  const place = (i) => {
    if (i === sorted.length) return true;
    const n = faceNumber(sorted[i]);
    for (let s = 0; s < k; s++) {
      if (sums[s] + n > value) continue;
      sets[s].push(sorted[i]);
      sums[s] += n;
      if (place(i + 1)) return true;
      sets[s].pop();
      sums[s] -= n;
      if (sums[s] === 0) break; // the empty sets are alike: trying the next one is the same
    }
    return false;
  };
  return place(0) ? sets.map((set) => [...set].sort((a, b) => faceNumber(b) - faceNumber(a))) : [sortCards(cards)];
}

/** Sort key: by rank (A low), then suit in the order S H D C, as the notation lists cards. */
export function cardKey(card) {
  return RANKS.indexOf(card[0]) * 4 + SUIT_ORDER.indexOf(card[1]);
}

export function sortCards(cards) {
  return [...cards].sort((a, b) => cardKey(a) - cardKey(b));
}

/** A full card face. extra: extra class names; attrs: extra attribute text. */
export function cardHtml(card, extra = "", attrs = "") {
  const color = `${isRed(card) ? "red" : "black"} suit-${card[1]}`;
  const r = rankText(card[0]);
  return (
    `<div class="card ${color} ${extra}" data-card="${card}" title="${cardLabel(card)}" ${attrs}>` +
    `<span class="idx"><b>${r}</b>${suitSvg(card[1], "suit small")}</span>` +
    `<span class="face">${suitSvg(card[1], "suit big")}</span>` +
    `<span class="idx rot"><b>${r}</b>${suitSvg(card[1], "suit small")}</span>` +
    `</div>`
  );
}

export function cardBackHtml(extra = "") {
  return `<div class="card back ${extra}" aria-hidden="true"></div>`;
}

/** A small inline card chip for text: rank and suit symbol, coloured. */
export function chipHtml(card) {
  const color = `${isRed(card) ? "red" : "black"} suit-${card[1]}`;
  return `<span class="chip ${color}" title="${cardLabel(card)}">${rankText(card[0])}${suitSvg(card[1], "suit tiny")}</span>`;
}

export function chipsHtml(cards) {
  return sortCards(cards).map(chipHtml).join("");
}

const SUIT_SYMBOLS = { S: "♠", H: "♥", D: "♦", C: "♣" };

/** A card as plain text, for a notice read as text: "10♦". */
export function cardText(card) {
  return `${rankText(card[0])}${SUIT_SYMBOLS[card[1]]}`;
}

/** Whether the page draws the four-colour deck (♣ green, ♦ blue), a remembered preference. */
export function fourColour() {
  return prefs.get("four-colour", "0") === "1";
}

/** Switch the four-colour deck on or off, for this page and the next visits. */
export function setFourColour(on) {
  prefs.set("four-colour", on ? "1" : "0");
  document.documentElement.classList.toggle("four-colour", on);
}
