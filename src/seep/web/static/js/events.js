// The lobby's list of events (GET /api/events): upcoming and running ones, soonest first.
// What an event is and how it runs is the server's (docs/web.md "Events"); this only shows it,
// each event's name linking its page (event.js).
import { api } from "./net.js";
import { lang, tText } from "./i18n.js";

const KIND_WORDS = { swiss: "Swiss", arena: "Arena", duplicate: "Duplicate" };
const FORMAT_WORDS = { four: "Four players", two: "Two players" };

function when(seconds) {
  return new Date(seconds * 1000).toLocaleString(lang() === "hi" ? "hi-IN" : undefined, {
    dateStyle: "medium",
    timeStyle: "short",
    hourCycle: "h23", // no "am"/"pm" left in English on the Hindi page
  });
}

function stateText(e) {
  if (e.status === "paused") return tText("Paused");
  if (e.status === "running") return tText("Round {n} of {m}", { n: e.round, m: e.rounds });
  return tText("Starts {when}", { when: when(e.starts) });
}

export function initEvents(root) {
  const list = root.querySelector("#event-list");
  if (!list) return;
  const refresh = async () => {
    let data;
    try {
      data = await api("/api/events");
    } catch (e) {
      return;
    }
    list.textContent = "";
    if (!data.events.length) {
      const li = document.createElement("li");
      li.className = "empty";
      li.textContent = tText("No event coming up.");
      list.appendChild(li);
    }
    for (const e of data.events) {
      const li = document.createElement("li");
      const kind = KIND_WORDS[e.kind] ? tText(KIND_WORDS[e.kind]) : e.kind;
      const format = FORMAT_WORDS[e.format] ? tText(FORMAT_WORDS[e.format]) : e.format;
      const rounds = tText(e.rounds > 1 ? "{n} rounds" : "{n} round", { n: e.rounds });
      const facts = [kind, format, ...(e.rated ? [tText("Rated")] : []), rounds, stateText(e)];
      // Names go in as text: an event's and its organiser's names are the players' words.
      // The name links the event's page (event.js), whose address a player may share.
      const link = document.createElement("a");
      link.href = `/events/${encodeURIComponent(e.id)}`;
      link.className = "event-link";
      const name = document.createElement("strong");
      name.textContent = e.name;
      link.appendChild(name);
      li.append(link, ` · ${facts.join(" · ")} · `, tText("by {name}", { name: e.organiser }));
      list.appendChild(li);
    }
  };
  refresh();
}
