// @ts-check
// What the race lobby (races.js) and the race page (race.js) share: the race requests, the
// words for a racer's state and the race errors, the room's racer list and the "copy the
// link" button (API.md, Races). The race socket is followed with live.js, as a game's is.
// The "Join by code" form serves the arena lobby (arenas.js) too. A rating with its
// provisional mark and a season's name serve the boards (leaderboards.js) and profiles.
import { api, ApiError, gettext, ngettext, fmt, me, playAsGuest, playerLabel, signInUrl, messageOf } from "./api.js";
import { el } from "./dom.js";
import { modeLabel } from "./constants.js";

/**
 * One racer of a Race (API.md, Races).
 * @typedef {object} Racer
 * @property {string} player
 * @property {string} [player_kind]
 * @property {"waiting" | "racing" | "won" | "lost" | "left"} state
 * @property {boolean} ready
 * @property {string | null} game  the racer's own game, once the race started
 * @property {number} opened  safe cells opened
 * @property {number} safe_cells
 * @property {number} flags
 * @property {number} elapsed_ms
 * @property {number | null} place
 * @property {boolean} [took_part]  made a move of their own: only they count (docs/ARENAS.md)
 * @property {number | null} rating_before
 * @property {number | null} rating_after
 * @property {boolean} [provisional]  the rating after the race is still provisional (docs/RACES.md)
 */

/**
 * A Race (API.md, Races): the fields the pages read.
 * @typedef {object} Race
 * @property {string} id
 * @property {string} code
 * @property {string} level
 * @property {boolean} [no_guess]
 * @property {number} width
 * @property {number} height
 * @property {number} mines
 * @property {"open" | "countdown" | "running" | "finished" | "cancelled"} state
 * @property {number} seq
 * @property {string | null} host
 * @property {number} max_players
 * @property {boolean} rated
 * @property {string | null} starts_at
 * @property {number} time_limit_ms
 * @property {Racer[]} racers
 * @property {string | null} [arena]  the arena whose race this is (docs/ARENAS.md), else null
 */

/** The server's race refusals in the page's language (API.md, Races); others keep theirs.
 * @param {unknown} err */
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

/** A request about a race; a 401 sends the visitor to sign in and back.
 * @param {string} method  @param {string} path  @param {unknown} [body]
 * @returns {Promise<any>} */
export async function raceCall(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) location.href = signInUrl();
    throw err;
  }
}

/** Race now: a visitor becomes a guest of this browser first (docs/GUESTS.md; a guest races,
 * unrated). False, with `say` told why, when that fails.
 * @param {(text: string) => void} say */
export async function asRacer(say) {
  try {
    await playAsGuest();
    return true;
  } catch (err) {
    say(messageOf(err));
    return false;
  }
}

/** The "Join by code" form of the race and arena lobbies (_code_form.html): the code typed,
 * trimmed and in capitals, is looked up in the list at `list` (`GET <list>?code=`), and `found`
 * gets what it names, or undefined when nothing has this code.
 * @param {HTMLFormElement} form  @param {string} list  e.g. "/api/races"
 * @param {(item: any) => unknown} found  may be async; what it throws is said too
 * @param {(text: string) => void} say  where the page says an error (cleared first)
 * @param {(err: unknown) => string} explain  what to say of an error */
export function onCodeForm(form, list, found, say, explain) {
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const code = String(new FormData(form).get("code") || "").trim().toUpperCase();
    if (!code) return;
    say("");
    try {
      const answer = await api("GET", `${list}?code=${encodeURIComponent(code)}`);
      await found((answer.results || [])[0]);
    } catch (err) {
      say(explain(err));
    }
  });
}

/** @param {{ id: string }} race */
export const racePath = (race) => `/races/${race.id}`;
/** @param {{ id: string }} race */
export const raceLink = (race) => new URL(racePath(race), location.href).href;
/** The visitor's own racer in `race`, if any. @param {Race | null} race @returns {Racer | null} */
export const myRacer = (race) => (race && me() ? race.racers.find((r) => r.player === me()) || null : null);
/** The visitor races in `race` (and has not left it). @param {Race | null} race */
export const isRacer = (race) => {
  const r = myRacer(race);
  return !!r && r.state !== "left";
};
/** The racers still in the room (the count against `max_players`). @param {Race} race */
export const inRoom = (race) => race.racers.filter((r) => r.state !== "left");

/** @param {string} state */
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

/** @param {string} state */
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

/** "Beginner · 9 × 9, 10 mines" @param {Race} race */
export function raceSize(race) {
  return `${modeLabel(race.level, race.no_guess)} · ${race.width} × ${race.height}, ` + fmt(ngettext("%(n)s mine", "%(n)s mines", race.mines), { n: race.mines });
}

/** The room's list of racers: the host, who is ready. @param {Race} race */
export function roomRacers(race) {
  return inRoom(race).map((r) =>
    el(
      "li",
      { "data-player": r.player, "data-ready": String(r.ready), class: r.player === me() ? "me" : null },
      // A tick for a racer who is ready; nothing for one who is not (the words say it).
      el("span", { class: "ready-mark " + (r.ready ? "is-ready" : ""), "aria-hidden": "true", text: r.ready ? "✓" : "" }),
      el("a", { href: `/players/${encodeURIComponent(r.player)}`, text: playerLabel(r.player) }),
      r.player_kind === "guest" ? el("span", { class: "badge badge-guest", title: gettext("A guest: races without a rating."), text: gettext("not rated") }) : null,
      r.player_kind === "bot" ? el("span", { class: "badge badge-bot", text: gettext("Bot") }) : null,
      r.player === race.host ? el("span", { class: "badge badge-host", text: gettext("Host") }) : null,
      el("span", { class: "muted ready-text", text: r.ready ? gettext("Ready") : gettext("Not ready") }),
    ),
  );
}

/** Copy the race's link; `done` says it (or shows the link when the clipboard is refused).
 * @param {Race} race  @param {HTMLElement} done */
export async function copyLink(race, done) {
  const link = raceLink(race);
  try {
    await navigator.clipboard.writeText(link);
    done.textContent = gettext("Link copied.");
  } catch (err) {
    done.textContent = link; // the visitor can still select it
  }
}

/** "1st", "2nd"... in English; other languages say "place %(n)s". @param {number} n */
export function placeText(n) {
  return fmt(gettext("place %(n)s"), { n });
}

/** A race rating as shown: the number, then "?" while it is provisional (docs/RACES.md,
 * Provisional ratings), the mark explained on hover and to screen readers.
 * @param {number} rating  @param {boolean | undefined} provisional */
export function ratingText(rating, provisional) {
  const shown = String(Math.round(rating));
  if (!provisional) return el("span", { text: shown });
  const why = gettext("Provisional rating: too few rated races to be sure of it yet.");
  return el("span", {}, shown, el("span", { class: "rating-provisional", title: why, "aria-hidden": "true", text: "?" }), el("span", { class: "visually-hidden", text: " " + why }));
}

/** A season's name as the page says it: `2026Q4` → "Q4 2026" in the page's words.
 * @param {string} season */
export function seasonLabel(season) {
  return fmt(gettext("Q%(quarter)s %(year)s"), { quarter: season.slice(5), year: season.slice(0, 4) });
}
