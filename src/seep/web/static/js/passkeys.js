// Passkeys in the account panel: a guest signs in with one, a signed-in player adds, lists and
// removes his. The browser's WebAuthn calls take ArrayBuffers where the server's JSON has
// base64url strings: the conversions are here. Hidden where the browser has no WebAuthn.
import { api, tokens } from "./net.js";
import { tText } from "./i18n.js";
import { errorText } from "./reasons.js";

export const passkeysWork = () => typeof window.PublicKeyCredential === "function" && Boolean(navigator.credentials);

function fromB64url(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  const raw = atob(b64);
  const bytes = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
  return bytes.buffer;
}

function toB64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let raw = "";
  for (const b of bytes) raw += String.fromCharCode(b);
  return btoa(raw).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

const withIds = (list) => (list || []).map((c) => ({ ...c, id: fromB64url(c.id) }));

// The WebAuthn answer in the JSON form the server reads (its ArrayBuffers as base64url).
function credentialJson(cred, fields) {
  const response = {};
  for (const f of fields) {
    const value = cred.response[f];
    response[f] = value ? toB64url(value) : null;
  }
  if (typeof cred.response.getTransports === "function") response.transports = cred.response.getTransports();
  const out = { id: cred.id, rawId: toB64url(cred.rawId), type: cred.type, response };
  if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
  out.clientExtensionResults = typeof cred.getClientExtensionResults === "function" ? cred.getClientExtensionResults() : {};
  return out;
}

// A refusal from the browser (the player cancelled, no passkey here) or from the server.
function failureText(err) {
  if (err && err.name === "NotAllowedError") return tText("No passkey was used (cancelled, or none for this site here).");
  if (err && err.name === "InvalidStateError") return tText("This device has a passkey for your account already.");
  if (err && typeof err.code === "string") return errorText(err);
  return tText("The passkey did not work: try again.");
}

const day = (unix) => new Date(unix * 1000).toLocaleDateString(document.documentElement.lang || "en");

/** Wire the panel's passkey parts. `signedIn(me)` is called after a passkey sign-in, `say`
 * shows a line in the panel. Returns `show(me)`, for the panel to call as it changes. */
export function initPasskeys(panel, signedIn, say) {
  const signInRow = panel.querySelector("#passkey-sign-in-row");
  const box = panel.querySelector("#passkeys");
  const list = panel.querySelector("#passkey-list");
  const label = panel.querySelector("#passkey-label");
  if (!signInRow || !box) return () => {};
  const works = passkeysWork();
  signInRow.hidden = !works;

  const render = (keys) => {
    list.replaceChildren();
    for (const key of keys) {
      const li = document.createElement("li");
      li.className = "passkey";
      const name = document.createElement("span");
      name.className = "passkey-label";
      name.textContent = key.label;
      const when = document.createElement("span");
      when.className = "muted small";
      when.textContent = key.used
        ? tText("added {added}, last used {used}", { added: day(key.created), used: day(key.used) })
        : tText("added {added}, not used yet", { added: day(key.created) });
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "btn small ghost";
      remove.textContent = tText("Remove");
      remove.setAttribute("aria-label", tText("Remove the passkey {label}", { label: key.label }));
      remove.addEventListener("click", async () => {
        say("");
        try {
          render((await api("/api/me/passkeys/delete", { id: key.id })).passkeys);
        } catch (err) {
          say(failureText(err));
        }
      });
      li.append(name, " ", when, " ", remove);
      list.append(li);
    }
    list.dataset.count = String(keys.length);
  };

  const refresh = async () => {
    try {
      render((await api("/api/me/passkeys")).passkeys);
    } catch (err) {
      say(failureText(err));
    }
  };

  panel.querySelector("#passkey-add-btn").addEventListener("click", async () => {
    say("");
    try {
      const started = await api("/api/passkeys/register/options", {});
      const o = started.options;
      const publicKey = {
        ...o,
        challenge: fromB64url(o.challenge),
        user: { ...o.user, id: fromB64url(o.user.id) },
        excludeCredentials: withIds(o.excludeCredentials),
      };
      const cred = await navigator.credentials.create({ publicKey });
      const credential = credentialJson(cred, ["clientDataJSON", "attestationObject"]);
      await api("/api/passkeys/register", { handle: started.handle, credential, label: label.value.trim() });
      label.value = "";
      await refresh();
    } catch (err) {
      say(failureText(err));
    }
  });

  panel.querySelector("#passkey-sign-in-btn").addEventListener("click", async () => {
    say("");
    try {
      const started = await api("/api/passkeys/login/options", {});
      const o = started.options;
      const publicKey = { ...o, challenge: fromB64url(o.challenge), allowCredentials: withIds(o.allowCredentials) };
      const cred = await navigator.credentials.get({ publicKey });
      const credential = credentialJson(cred, ["clientDataJSON", "authenticatorData", "signature", "userHandle"]);
      // The seats this browser holds as a guest become the account's, as a password's sign-in.
      signedIn(await api("/api/passkeys/login", { handle: started.handle, credential, seats: tokens.seats() }));
    } catch (err) {
      say(failureText(err));
    }
  });

  return (me) => {
    box.hidden = !(me && works);
    if (me && works) refresh();
    else list.replaceChildren();
  };
}
