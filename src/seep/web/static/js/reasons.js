// The wording of the rules checker's refusals in the page's language. The server sends a
// refusal as data (docs/web.md "Reasons"): the rule's number, its English template and the
// facts filled into it. The rule is decided on the server (seep.verify.check); this file only
// words it: each rule's templates, the English text being the key of the Hindi in
// i18n-hi.js. tests/web/test_web_reasons.py holds this table equal to seep/verify.py's templates.
import { lang, t, tText } from "./i18n.js";

// The card plays' own rules (R22 throw ... R29 break) share the checks of their fields.
const PLAY_FIELDS = [
  "{cards} not loose on the floor",
  "a {action} names no captured house",
  "the card and the loose cards {cards} do not make a set worth {value} (plus whole groups of {value})",
  "the card and the loose cards {cards} do not split into a set worth {value} and whole groups of {value}",
];

export const REASONS = {
  R13: [
    "a bid carries only its value",
    "a bid is a house value 9..13, not {value}",
    "seat {seat} holds no card of value {value}; the bid must be the value of a card in hand (possible: {possible})",
    "the deal is in the bid phase: seat {seat} (the bidder) must bid",
  ],
  R14: [
    "seat {seat} holds no card above 8, so he cannot bid: redeal",
    "a redeal carries no card or value",
    "seat {seat} holds a card above 8 and can bid {possible}; a redeal is only for a hand without one",
  ],
  R16: [
    "play 1 is bound to the bid {bid}: only a card of value {bid} may capture or be thrown",
    "play 1 may only build a house of the bid value {bid}",
    "play 1 must capture, build or throw tied to the bid {bid}",
  ],
  R20: [
    "the bid has been made; now every turn is a card play",
    "action {action} is not a card play",
    "card {card} is not in the hand of seat {seat}, the player to move",
  ],
  R21a: ["a house is worth 9..13, not {value}"],
  R21d: [
    "seat {seat} owns house {value} and {card} is his last card of value {value}: he may only capture house {value} with it (retention)",
    "seat {seat} owns house {value} and would give up his last card of value {value}",
  ],
  R21e: ["a house of value {value} is already on the floor: a new set of {value} for it is a cement, not a new house"],
  "R21f(a)": ["the loose {cards} must merge into the house"],
  "R21f(b)": ["a house of value {value} is on the floor: {card} may capture it or be added to it, never thrown loose"],
  R21g: ["a house is captured only whole and only by a card of its value: {card} cannot take house {house}"],
  R21h: ["house {house} is cemented; cemented houses cannot be broken"],
  R22: [
    ...PLAY_FIELDS,
    "a throw puts only its own card on the floor",
    "{card} can capture; a card that can capture may not be thrown",
  ],
  R23: [
    ...PLAY_FIELDS,
    "a capture's value is the value of its card, {value}",
    "a capture must take at least one loose card or house",
    "there is no house of value {house} on the floor",
  ],
  R24: ["the cards taken {cards} cannot be split into groups each worth {value}"],
  R25: [
    "the capture must include house {value} (maximal capture)",
    "the capture is not maximal: a group worth {value} would remain; a capture must take a maximal family of groups",
  ],
  R27: [
    ...PLAY_FIELDS,
    "{card} is worth more than the house of {value} it would build",
    "seat {seat} must keep a card of value {value} to build a house of {value}; he would hold none",
  ],
  R28: [
    ...PLAY_FIELDS,
    "a cement names no broken house",
    "there is no house of value {value} to add to; a new house is a build",
    "{card} is worth more than house {value}",
    "house {value} belongs to the opponents: adding to it needs a card of value {value} kept in hand",
  ],
  R29: [
    ...PLAY_FIELDS,
    "there is no house of value {house} to break",
    "seat {seat} owns house {house}; you may never break your own house",
    "{card} raises house {house} to {raised}, not {value}",
    "breaking house {house} up to {value} needs a card of value {value} kept in hand; seat {seat} would hold none",
  ],
  R31: [
    "the loose cards {cards} are not whole groups of {value}",
    "absorb_loose_groups is 'never': no further loose groups may join the house",
    "absorb_loose_groups is 'mandatory': every loose group worth {value} must join the house",
  ],
  R40: ["the deal is over (48 plays made); no more moves"],
  A7: ["under throw_rule 'no_other_move' a card may be thrown only when no capture, build, cement or break is possible"],
  A12: [
    "building {value} with a card of value {value} needs allow_pair_build",
    "a pair build of {value} needs a loose card of value {value}",
  ],
  A13: ["with partner_cement_free false, cementing the partner's ordinary house {value} needs a card of value {value}"],
  A14: ["house {value} belongs to the opponents: adding to it needs a card of value {value} kept in hand or in the partner's hand (add_retention 'team')"],
  A22: ["at most {max_houses} houses may be on the floor"],
};

// The action names the checker puts into "a {action} names no captured house".
const ACTION_NAMES = { build: "build", cement: "cement", break: "break", capture: "capture", throw: "throw" };

/**
 * A refusal ({rule, template, args}) as a sentence in the page's language, ending with its
 * rule number; `seatName(n)` words a seat. `null` when the template is not in the table (a
 * server newer than this page): the caller shows the server's English then.
 */
export function reasonText(reason, seatName = (n) => String(n)) {
  if (!reason || !reason.rule) return null;
  const known = REASONS[reason.rule] || [];
  const template = known.includes(reason.template) ? reason.template : null;
  if (!template) return null;
  const args = { ...(reason.args || {}) };
  if (typeof args.seat === "number") args.seat = seatName(args.seat);
  if (typeof args.action === "string" && ACTION_NAMES[args.action]) args.action = t(ACTION_NAMES[args.action]);
  return `${tText(template, args)} (${reason.rule})`; // plain text: a toast, or esc() for HTML
}

// The server's error codes (docs/web.md) in a player's words, for the page's language; the
// server's own message is English and more precise, so it is what the English page shows.
export const ERRORS = {
  network: "The server cannot be reached.",
  bad_json: "The server could not read that message.",
  bad_message: "The server could not read that message.",
  bad_request: "Something in the form is not right.",
  too_large: "That message is too long.",
  unknown_type: "The server could not read that message.",
  not_your_turn: "It is not your turn.",
  stale: "The table changed before your move arrived: look again and play.",
  illegal_move: "That move is not allowed here.",
  malformed_move: "The server could not read that move.",
  not_host: "Only the host may do that.",
  not_allowed: "That is not possible now.",
  seat_taken: "That seat is taken.",
  already_seated: "You already have a seat at this table.",
  unavailable: "The server is busy: try again in a moment.",
  rate_limited: "Too many messages: wait a moment.",
  too_many_tables: "Too many tables are open: try again later.",
  unknown_table: "There is no such table: it may have ended, or the code is mistyped.",
  unknown_token: "This seat's token is no longer valid: watching as a spectator.",
  muted: "You are muted: your line was not sent.",
  banned: "You are banned from this server.",
  bad_transfer: "That transfer code is not valid (it works once, for five minutes).",
  moved_device: "Your seat went to another device: you are watching.",
  too_many_connections: "Too many connections to this table from here.",
  kicked: "The host took you off this table: you are watching.",
  table_over: "This table is over: its deals can be replayed.",
  moved: "The table moved to another server: reconnecting.",
  internal_error: "The server could not handle that (it is logged).",
  store_unavailable: "The server could not save that (its storage is busy or full): try again.",
  store_retrying: "The server cannot save moves right now: it keeps trying, the game waits.",
  store_recovered: "The moves are saved again: play goes on.",
  bad_login: "Wrong name or password.",
  not_signed_in: "You are not signed in.",
  name_taken: "That name is taken: choose another.",
  busy: "The server is busy: try again in a moment.",
  bad_challenge: "The passkey request expired or was used already: try again.",
  bad_passkey: "The passkey was refused.",
  passkey_taken: "This passkey is added already.",
  too_many_passkeys: "Your account has as many passkeys as it may: remove one first.",
  unknown_passkey: "There is no such passkey.",
  not_found: "Nothing here.",
  unknown_event: "There is no such event.",
  not_organiser: "Only the event's organiser can do that.",
  event_full: "This event is full.",
  too_many_events: "You organise as many events as you may: wait until one is over.",
  unknown_player: "There is no player of that name.",
};

/** An error from the server (a socket `error` message or an API error: {code, message,
 * rule, template, args}) in the page's language. */
export function errorText(err, seatName) {
  const worded = reasonText(err, seatName);
  if (worded) return worded;
  if (lang() === "en") return err.message || err.code;
  return ERRORS[err.code] ? t(ERRORS[err.code]) : tText("The server refused that ({code}).", { code: err.code });
}
