// The lobby's account panel: a guest signs in or creates an account (both optional), or signs in
// with a passkey; a signed-in player sees his name and his passkeys (passkeys.js) and may sign
// out. The session is the server's HttpOnly cookie: this script never sees it, and keeps no
// password once a request is sent.
import { api, prefs, tokens } from "./net.js";
import { tText } from "./i18n.js";
import { errorText } from "./reasons.js";
import { ratingWord } from "./players.js";
import { initPasskeys } from "./passkeys.js";

const ratingsText = (all) =>
  all
    ? tText("Rating: {four} with a partner, {two} head to head", {
        four: ratingWord(all.four),
        two: ratingWord(all.two),
      })
    : "";

export function initAccount(root) {
  const panel = root.querySelector("#account");
  if (!panel) return;
  const form = panel.querySelector("#account-form");
  const guest = panel.querySelector("#account-guest");
  const signedIn = panel.querySelector("#account-signed-in");
  const who = panel.querySelector("#account-who");
  const ratings = panel.querySelector("#account-ratings");
  const error = panel.querySelector("#account-error");

  const say = (text) => {
    error.textContent = text || "";
  };
  let showPasskeys = () => {};
  const show = (me) => {
    showPasskeys(me);
    guest.hidden = Boolean(me);
    signedIn.hidden = !me;
    panel.dataset.signedIn = me ? "yes" : "no";
    // The lobby's parts offered to signed-in players only (organise.js) follow.
    root.dispatchEvent(new CustomEvent("seep:account", { detail: me || null }));
    who.textContent = me ? tText("Signed in as {name}", { name: me.name }) : "";
    ratings.textContent = me ? ratingsText(me.ratings) : "";
    const profile = panel.querySelector("#profile-link");
    if (profile) profile.href = me ? `/u/${encodeURIComponent(me.name)}` : "/";
    // Rated play is for signed-in players: the lobby offers it only to them.
    const box = root.querySelector("#rated-box");
    if (box) {
      box.hidden = !me;
      if (!me) {
        box.querySelector("input").checked = false;
        const note = root.querySelector("#rated-note");
        if (note) note.hidden = true;
        const wait = root.querySelector("#wait-box");
        if (wait) wait.hidden = true;
      }
    }
    if (me) {
      // A signed-in player sits under his account's name: the table's join form offers it.
      prefs.set("name", me.name);
      // The account's name where the lobby asks for one, unless the player typed another.
      for (const input of root.querySelectorAll("#create-form input[name=name], #join-code-form input[name=name]")) {
        if (!input.value || input.dataset.fromAccount === "yes") {
          input.value = me.name;
          input.dataset.fromAccount = "yes";
        }
      }
    }
  };

  const send = async (path) => {
    if (!form.reportValidity()) return;
    say("");
    // The seats this browser holds as a guest become the account's.
    const body = { name: form.name.value.trim(), password: form.password.value, seats: tokens.seats() };
    try {
      const me = await api(path, body);
      form.password.value = "";
      show(me);
      panel.querySelector("#sign-out-btn").focus();
    } catch (err) {
      say(errorText(err));
      form.password.focus();
    }
  };

  // A passkey's sign-in ends as a password's does.
  showPasskeys = initPasskeys(panel, (me) => {
    show(me);
    panel.querySelector("#sign-out-btn").focus();
  }, say);

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    send("/api/login");
  });
  panel.querySelector("#sign-up-btn").addEventListener("click", () => send("/api/accounts"));
  panel.querySelector("#sign-out-btn").addEventListener("click", async () => {
    say("");
    try {
      await api("/api/logout", {});
      show(null);
      form.name.focus();
    } catch (err) {
      say(errorText(err));
    }
  });

  api("/api/me").then(show, (err) => {
    show(null);
    if (err.code !== "not_signed_in") say(errorText(err));
  });
}
