// What the race lobby (races.js) and the race page (race.js) share: the race requests, the
// race socket, the words for a racer's state and the race errors, the room's racer list
// and the "copy the link" button (API.md, Races).
import { api, ApiError, gettext, fmt, el, me, openSocket, levelLabel, signInUrl } from "./api.js";

/** The server's race refusals in the page's language (API.md, Races); others keep theirs. */
export function raceMessage(err) {
  if (!(err instanceof ApiError)) return String(err);
  switch (err.code) {
    case "race_full": return gettext("This race is full.");
    case "race_closed": return gettext("This race has already started or ended.");
    case "already_racing": return gettext("You are already in a race or waiting for a quick match: finish or leave it first.");
    case "not_race_host": return gettext("Only the host can start the race.");
    case "race_needs_players": return gettext("A race needs at least two racers.");
    case "race_game": return gettext("A race game cannot be paused.");
    case "not_found": return gettext("No such race.");
    default: return err.message;
  }
}

/** A request about a race; a 401 sends the visitor to sign in and back. */
export async function raceCall(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) location.href = signInUrl();
    throw err;
  }
}

export const racePath = (race) => `/races/${race.id}`;
export const raceLink = (race) => new URL(racePath(race), location.href).href;
export const myRacer = (race) => (race && me() ? race.racers.find((r) => r.player === me()) || null : null);
export const isRacer = (race) => {
  const r = myRacer(race);
  return !!r && r.state !== "left";
};

export function racerStateText(state) {
  switch (state) {
    case "waiting": return gettext("waiting");
    case "racing": return gettext("racing");
    case "won": return gettext("cleared");
    case "lost": return gettext("out");
    case "left": return gettext("left");
    default: return state;
  }
}

export function raceStateText(state) {
  switch (state) {
    case "open": return gettext("Waiting for racers");
    case "countdown": return gettext("Starting…");
    case "running": return gettext("Racing");
    case "finished": return gettext("Finished");
    case "cancelled": return gettext("Cancelled");
    default: return state;
  }
}

/** "Beginner · 9 × 9, 10 mines" */
export function raceSize(race) {
  return `${levelLabel(race.level)} · ${race.width} × ${race.height}, ${race.mines} ` + gettext("mines");
}

/** The room's list of racers: the host, who is ready. */
export function roomRacers(race) {
  return race.racers
    .filter((r) => r.state !== "left")
    .map((r) =>
      el(
        "li",
        { "data-player": r.player, "data-ready": String(r.ready), class: r.player === me() ? "me" : null },
        el("span", { class: "ready-mark " + (r.ready ? "is-ready" : ""), "aria-hidden": "true", text: r.ready ? "✓" : "…" }),
        el("a", { href: `/players/${encodeURIComponent(r.player)}`, text: r.player }),
        r.player_kind === "bot" ? el("span", { class: "badge badge-bot", text: gettext("Bot") }) : null,
        r.player === race.host ? el("span", { class: "badge badge-host", text: gettext("Host") }) : null,
        el("span", { class: "muted ready-text", text: r.ready ? gettext("Ready") : gettext("Not ready") }),
      ),
    );
}

/** Copy the race's link; `done` says it (or shows the link when the clipboard is refused). */
export async function copyLink(race, done) {
  const link = raceLink(race);
  try {
    await navigator.clipboard.writeText(link);
    done.textContent = gettext("Link copied.");
  } catch (err) {
    done.textContent = link; // the visitor can still select it
  }
}

/**
 * Follow a race's socket (/ws/races/{id}): `onMessage(msg)` for each message; while the
 * socket is down, `onDown()` is called every 2 s (the page re-reads the race over REST).
 * Returns { close() }.
 */
export function followRace(raceId, onMessage, onDown) {
  let ws = null;
  let retry = 0;
  let poll = null;
  let closed = false;
  function startPoll() {
    if (!poll) poll = setInterval(onDown, 2000);
  }
  function connect() {
    if (closed) return;
    ws = openSocket(`/ws/races/${raceId}`, (msg) => {
      if (msg.type === "state") {
        retry = 0;
        clearInterval(poll);
        poll = null;
      }
      onMessage(msg);
    });
    if (!ws) return startPoll();
    ws.addEventListener("close", () => {
      ws = null;
      if (closed) return;
      startPoll();
      retry = Math.min(retry + 1, 6);
      setTimeout(connect, 1000 * retry);
    });
  }
  connect();
  return {
    close() {
      closed = true;
      clearInterval(poll);
      if (ws) ws.close();
    },
  };
}

/** "1st", "2nd"... in English; other languages say "place %(n)s". */
export function placeText(n) {
  return fmt(gettext("place %(n)s"), { n });
}
