// Draws the cards of the How to play page from data attributes (no rules here: pictures only).
import { cardHtml, chipsHtml } from "./cards.js";
import { langSwitchHtml, t, translatePage, wireLangSwitch } from "./i18n.js";

// The language first: the Hindi text carries the same card placeholders as the English.
wireLangSwitch();
translatePage();
document.title = t("How to play Seep");
document.querySelector(".topbar .spacer").insertAdjacentHTML("afterend", langSwitchHtml());

for (const el of document.querySelectorAll("[data-cards]:not(.house)")) {
  el.innerHTML = el.dataset.cards.split(" ").map((c) => cardHtml(c)).join("");
}
for (const el of document.querySelectorAll("[data-chips]")) {
  el.innerHTML = chipsHtml(el.dataset.chips.split(" "));
}
for (const el of document.querySelectorAll(".house.demo")) {
  const team = el.dataset.team || "0";
  const cemented = el.classList.contains("cemented");
  el.innerHTML = `<div class="house-head"><span class="house-value">${el.dataset.house}</span>
      ${cemented ? `<span class="cement-mark">${t("cemented")}</span>` : `<span class="ordinary-mark">${t("house")}</span>`}</div>
    <div class="house-cards">${el.dataset.cards.split(" ").map((c) => cardHtml(c, "in-house")).join("")}</div>
    <div class="owners"><span class="owner team${team}">${t(el.dataset.owners)}</span></div>`;
}
