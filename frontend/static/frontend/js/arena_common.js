// @ts-check
// What the arena list (arenas.js), the arena page (arena.js) and the race page of an arena's
// race (race.js) share: the Arena and its standings rows, the arena refusals in the page's
// language, the words for an arena's state and its clock (API.md, Arenas; docs/ARENAS.md).
import { ApiError, clockText, gettext, ngettext, fmt, fmtDate } from "./api.js";
import { modeLabel } from "./constants.js";

/**
 * The viewer's own part of an Arena (`me`; null for someone who has not joined).
 * @typedef {object} ArenaMe
 * @property {number} score
 * @property {string | null} race  the race they are in (or were in last)
 * @property {boolean} [active]  in the arena's pool (false once they left)
 * @property {number | null} [rank]
 * @property {number} [streak]
 * @property {boolean} [fire]  the next win scores double
 * @property {string | null} [eligible_at]  not paired before this instant (coming back)
 */

/**
 * An Arena (API.md, Arenas): the fields the pages read.
 * @typedef {object} Arena
 * @property {string} id
 * @property {string} code
 * @property {string} name
 * @property {string} level
 * @property {boolean} no_guess
 * @property {"humans" | "bots"} players
 * @property {boolean} [private]
 * @property {"scheduled" | "running" | "finished"} state
 * @property {string} starts_at
 * @property {string} ends_at
 * @property {string | null} [ended_at]
 * @property {string | null} created_by
 * @property {number} joined
 * @property {number} seq
 * @property {number} [min_players]
 * @property {ArenaMe | null} me
 */

/**
 * A row of the standings (API.md, Arenas).
 * @typedef {{ rank: number, player: string, score: number, races: number, wins: number, streak: number, fire: boolean, active?: boolean }} Standing
 */

/** The server's arena refusals in the page's language; others keep theirs.
 * @param {unknown} err */
export function arenaMessage(err) {
  if (!(err instanceof ApiError)) return String(err);
  switch (err.code) {
    case "arena_closed": return gettext("This arena is over: it takes no new players.");
    case "already_racing": return gettext("You are already in a race, a quick match or another arena: finish or leave it first.");
    case "arena_players": return gettext("This arena is for the other kind of player: humans and bots have their own arenas.");
    case "too_many_arenas": {
      const n = Number(err.details.max_arenas);
      return fmt(ngettext("You already have %(n)s arena scheduled or running: wait until it ends.", "You already have %(n)s arenas scheduled or running: wait until one ends.", n), { n });
    }
    case "guest_account": return gettext("Arenas are for signed-up players: sign up first (your games are kept).");
    case "not_found": return gettext("No such arena.");
    case "invalid": {
      const start = (err.details.fields || {}).starts_at;
      if (start === "past") return gettext("The start is in the past: pick a later time, or start now.");
      if (start === "far") return gettext("The start is too far ahead: pick an earlier day.");
      return err.message;
    }
    default: return err.message;
  }
}

/** @param {{ id: string }} arena */
export const arenaPath = (arena) => `/arenas/${arena.id}`;

/** An arena's name in the page's language. The server's own arenas (no creator) are named in
 * English by their schedule (games.arenas.services._slot_name: "Hourly Beginner", "Daily Expert
 * no-guess", "Every 90 min Hard"): their period is read from that name and said again here with
 * the level and mode in the page's words. A player's arena keeps the name its player gave.
 * @param {Arena} arena */
export function arenaName(arena) {
  const slot = arena.created_by === null ? /^(Hourly|Daily|Weekly|Every (\d+) min) [A-Z]/.exec(arena.name) : null;
  if (!slot) return arena.name;
  const level = modeLabel(arena.level, arena.no_guess);
  if (slot[2]) return fmt(gettext("Every %(n)s min: %(level)s"), { n: slot[2], level });
  const period = {
    Hourly: gettext("Hourly %(level)s"),
    Daily: gettext("Daily %(level)s"),
    Weekly: gettext("Weekly %(level)s"),
  }[slot[1]];
  return period ? fmt(period, { level }) : arena.name;
}

/** @param {Arena} arena  "Beginner · no guess · 30 min" */
export function arenaKind(arena) {
  const minutes = Math.round((Date.parse(arena.ends_at) - Date.parse(arena.starts_at)) / 60000);
  const bits = [modeLabel(arena.level, arena.no_guess), fmt(gettext("%(n)s min"), { n: minutes })];
  if (arena.players === "bots") bits.push(gettext("bots"));
  return bits.join(" · ");
}

/** @param {string} state */
export function arenaStateText(state) {
  switch (state) {
    case "scheduled": return gettext("Starting soon");
    case "running": return gettext("Running");
    case "finished": return gettext("Finished");
    default: return state;
  }
}

/** When the arena starts or ends, in a few words for a list. @param {Arena} arena */
export function arenaWhen(arena) {
  const now = Date.now();
  if (arena.state === "scheduled") {
    const left = Date.parse(arena.starts_at) - now;
    return left > 86_400_000 ? fmt(gettext("starts %(when)s"), { when: fmtDate(arena.starts_at) }) : fmt(gettext("starts in %(clock)s"), { clock: clockText(left) });
  }
  if (arena.state === "running") {
    const left = Date.parse(arena.ends_at) - now;
    return left > 0 ? fmt(gettext("ends in %(clock)s"), { clock: clockText(left) }) : gettext("The time is up: the last races are finishing.");
  }
  return fmt(gettext("ended %(when)s"), { when: fmtDate(arena.ended_at || arena.ends_at) });
}

/** From a start to an end: "12 May 2026, 14:00 – 14:30" (the end's day too when it differs).
 * @param {string} from  @param {string} to */
export function spanText(from, to) {
  const lang = document.documentElement.lang || undefined;
  const a = new Date(from), b = new Date(to);
  if (Number.isNaN(a.getTime()) || Number.isNaN(b.getTime())) return "";
  const sameDay = a.toDateString() === b.toDateString();
  let end;
  try {
    end = sameDay ? b.toLocaleTimeString(lang, { timeStyle: "short" }) : fmtDate(to);
  } catch (err) {
    end = fmtDate(to);
  }
  return `${fmtDate(from)} – ${end}`;
}
