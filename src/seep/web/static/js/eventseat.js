// The signed-in player's seat at the table of an event being played (docs/web.md "Events"):
// POST /api/events/{id}/seat answers the table and the seat's token in its body (never in a
// URL); the token goes to this browser's store and the page goes to the table. The event's
// page (event.js) and a table's page told that the next table is open (table.js,
// `event_table`) both take a seat this way.
import { api, tokens } from "./net.js";

/** Take my seat at event `id`'s table and go there; rejects with the request's ApiError. */
export async function goToEventSeat(id) {
  const seat = await api(`/api/events/${encodeURIComponent(id)}/seat`, {});
  tokens.set(seat.code, seat.token, seat.seat);
  location.href = seat.url || `/t/${encodeURIComponent(seat.code)}`;
}
