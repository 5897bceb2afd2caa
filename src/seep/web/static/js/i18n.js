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

/** The text of `en` in the page's language, with {name} filled from `vars`. */
export function t(en, vars = {}) {
  const text = (lang() === "hi" && HI[en]) || en;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
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
