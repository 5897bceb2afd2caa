// The page's language: English or Hindi (Devanagari), chosen with a switch and remembered in
// localStorage. Strings are looked up by their English text in one dictionary per language;
// a string missing from Hindi shows in English. The server's refusals and errors are worded
// by reasons.js from their rule and arguments or code; the bots' reasons stay English.
import { HI as HI_PAGE } from "./i18n-hi.js";
import { HI_HOWTO } from "./i18n-hi-howto.js";

const HI = { ...HI_PAGE, ...HI_HOWTO };

const KEY = "seep:lang";
export const LANGS = { en: "English", hi: "हिन्दी" };

export function lang() {
  try {
    const l = localStorage.getItem(KEY);
    return l && LANGS[l] ? l : "en";
  } catch (e) {
    return "en";
  }
}

export function setLang(l) {
  try {
    localStorage.setItem(KEY, l);
  } catch (e) {
    /* private mode: the choice lasts this page only */
  }
}

const HTML_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Markup the page made itself (card chips, a house's words), to go into `t()` unescaped. */
class Html {
  constructor(markup) {
    this.markup = String(markup);
  }

  toString() {
    return this.markup;
  }
}

/** Mark `markup` as the page's own, safe to put into `t()`'s HTML as it is. */
export function html(markup) {
  return new Html(markup);
}

function fill(en, vars, put) {
  const text = (lang() === "hi" && HI[en]) || en;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? put(vars[k]) : m));
}

/** The text of `en` in the page's language, with {name} filled from `vars`, as HTML: each
 * variable is escaped (a player's name is text, never markup) unless wrapped in `html()`.
 * For `textContent`, an attribute set by `setAttribute` or a toast, use `tText`. */
export function t(en, vars = {}) {
  return fill(en, vars, (v) => (v instanceof Html ? v.markup : String(v).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c])));
}

/** `t()` for plain text (textContent, toasts, setAttribute): the variables as they are. */
export function tText(en, vars = {}) {
  return fill(en, vars, (v) => String(v));
}

/** Translate the static page: elements with data-i18n (their text is the key; the key may
 * also be the attribute's value) and data-i18n-attr="placeholder,title,aria-label". */
export function translatePage(root = document) {
  document.documentElement.lang = lang();
  for (const el of root.querySelectorAll("[data-i18n]")) {
    const key = el.dataset.i18n || el.dataset.i18nKey || el.innerHTML.trim();
    if (!el.dataset.i18nKey) el.dataset.i18nKey = key;
    const text = lang() === "hi" ? HI[key] : null;
    if (text) el.innerHTML = text; // our own dictionary's markup (<b>), never user text
  }
  for (const el of root.querySelectorAll("[data-i18n-attr]")) {
    for (const a of el.dataset.i18nAttr.split(",")) {
      const v = el.getAttribute(a);
      if (v) el.setAttribute(a, t(v));
    }
  }
}

/** A button that switches to the other language and reloads the page in it. */
export function langSwitchHtml() {
  const other = lang() === "hi" ? "en" : "hi";
  return `<button class="btn small ghost lang-switch" data-lang="${other}" lang="${other}" title="${other === "hi" ? "हिन्दी में देखें" : "Show in English"}">${LANGS[other]}</button>`;
}

/** Any click on a [data-lang] button switches the language (the choice is kept). */
export function wireLangSwitch() {
  document.addEventListener("click", (ev) => {
    const b = ev.target.closest && ev.target.closest("[data-lang]");
    if (!b) return;
    setLang(b.dataset.lang);
    location.reload();
  });
}
