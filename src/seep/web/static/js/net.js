// HTTP and WebSocket plumbing: JSON API calls, seat tokens in localStorage, a socket that
// reconnects by itself with backoff (every state message is complete, so a reconnect only
// has to wait for the next one).

export class ApiError extends Error {
  constructor(code, message, status) {
    super(message);
    this.code = code;
    this.status = status;
  }
}

export async function api(path, body) {
  const opts = body === undefined
    ? { headers: { Accept: "application/json" } }
    : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) };
  let res;
  try {
    res = await fetch(path, opts);
  } catch (e) {
    throw new ApiError("network", "The server cannot be reached.", 0);
  }
  let data = null;
  try {
    data = await res.json();
  } catch (e) {
    data = null;
  }
  if (!res.ok) {
    const err = (data && data.error) || {};
    throw new ApiError(err.code || "http_" + res.status, err.message || `HTTP ${res.status}`, res.status);
  }
  return data;
}

const KEY = (code) => `seep:token:${code.toUpperCase()}`;

export const tokens = {
  get(code) {
    try {
      const raw = localStorage.getItem(KEY(code));
      return raw ? JSON.parse(raw) : null;
    } catch (e) {
      return null;
    }
  },
  set(code, token, seat) {
    localStorage.setItem(KEY(code), JSON.stringify({ token, seat }));
  },
  clear(code) {
    localStorage.removeItem(KEY(code));
  },
  /** Every seat token this browser holds (quick match sends them: one seat a table). */
  held() {
    try {
      const prefix = KEY("");
      return Object.keys(localStorage)
        .filter((k) => k.startsWith(prefix))
        .map((k) => (JSON.parse(localStorage.getItem(k)) || {}).token)
        .filter((tok) => typeof tok === "string")
        .slice(-50);
    } catch (e) {
      return [];
    }
  },
  /** The seats this browser holds, as `{code, token}` (signing up or in makes them the account's). */
  seats() {
    try {
      const prefix = KEY("");
      return Object.keys(localStorage)
        .filter((k) => k.startsWith(prefix))
        .map((k) => ({ code: k.slice(prefix.length), token: (JSON.parse(localStorage.getItem(k)) || {}).token }))
        .filter((s) => typeof s.token === "string" && s.code.length <= 8 && s.token.length <= 100)
        .slice(-50);
    } catch (e) {
      return [];
    }
  },
};

export const prefs = {
  get(name, fallback = "") {
    try {
      return localStorage.getItem(`seep:${name}`) ?? fallback;
    } catch (e) {
      return fallback;
    }
  },
  set(name, value) {
    try {
      localStorage.setItem(`seep:${name}`, value);
    } catch (e) {
      /* private mode: nothing kept */
    }
  },
};

/** A WebSocket to /ws/{code} that reconnects (0.5 s, 1 s, 2 s ... up to 10 s). With a seat
 * token, its first message is the hello handshake (the token never goes in a URL); the
 * spectator's state the server sends before it has read the hello is not passed on. */
export class TableSocket {
  constructor(code, token, { onMessage, onStatus }) {
    this.code = code;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.delay = 500;
    this.closed = false;
    this.ws = null;
    this.pingTimer = null;
    // Whether the page is in sight: a player whose page is hidden may be sent a push when it
    // is his turn (docs/web.md "Notifications").
    document.addEventListener("visibilitychange", () => this.send({ type: "visibility", visible: !document.hidden }));
    this.connect();
  }

  url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}/ws/${encodeURIComponent(this.code)}`;
  }

  connect() {
    if (this.closed) return;
    this.onStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch (e) {
      this.retry();
      return;
    }
    this.ws = ws;
    let greeted = !this.token;
    let held = []; // the deal's moves this socket's last state showed
    ws.onopen = () => {
      // The appended history: each state brings only the moves we lack (docs/web.md).
      if (this.token) ws.send(JSON.stringify({ type: "hello", token: this.token, history: "append" }));
      ws.send(JSON.stringify({ type: "visibility", visible: !document.hidden }));
      this.delay = 500;
      this.onStatus("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), 20000);
    };
    ws.onmessage = (ev) => {
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch (e) {
        return;
      }
      if (msg.type === "state") {
        // history_from n: view.history starts at move n, the moves before are those held.
        if (msg.view && msg.history_from) msg.view.history = held.slice(0, msg.history_from).concat(msg.view.history);
        held = msg.view ? msg.view.history : [];
      }
      if (!greeted) {
        // Until the hello is answered (our seat's state, or an error) the states are a
        // spectator's: drawing them would flash the table as seen by a watcher.
        if (msg.type === "state" && msg.seat == null) return;
        greeted = true;
      }
      this.onMessage(msg);
    };
    ws.onclose = (ev) => {
      clearInterval(this.pingTimer);
      if (this.ws === ws) this.ws = null;
      if (ev.code === 4403) {
        // Banned by the server's operator (the "banned" error came first): no retry.
        this.closed = true;
        this.onStatus("banned");
        return;
      }
      if (!this.closed) {
        this.onStatus("closed");
        this.retry();
      }
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  retry() {
    if (this.closed) return;
    const d = this.delay;
    this.delay = Math.min(this.delay * 2, 10000);
    setTimeout(() => this.connect(), d);
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    clearInterval(this.pingTimer);
    if (this.ws) this.ws.close();
  }
}

export function toast(message, kind = "error") {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = document.createElement("div");
  el.className = `toast ${kind}`;
  el.setAttribute("role", kind === "error" ? "alert" : "status");
  el.textContent = message;
  box.appendChild(el);
  setTimeout(() => el.classList.add("gone"), 4500);
  setTimeout(() => el.remove(), 5000);
}

export function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
