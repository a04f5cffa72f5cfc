// @ts-check
// What the daily pages share (API.md and RULES.md, The daily challenge): the day's answer
// and its types, starting today's daily or a past day's practice, the words for a result,
// the countdown to the day's end and copying the share line. The home page's daily card,
// the daily page, the game page's result box and the profile's calendar use it.
import { api, gettext, ngettext, fmt, fmtNum, fmtTime, me, playAsGuest } from "./api.js";
import { levelLabel } from "./constants.js";
import { el } from "./dom.js";

/** @typedef {import("./game_state.js").Game} Game */

/**
 * One level of a day (API.md, GET /api/daily).
 * @typedef {object} DailyLevel
 * @property {string} level
 * @property {boolean} no_guess
 * @property {number} players
 * @property {number} winners
 * @property {Game | null} game  the signed-in player's daily game of this level
 * @property {string | null} share  the player's result line, once their game ended (English)
 * @property {ShareFacts | null} [share_facts]  what that line says, field by field
 * @property {{ x: number, y: number }} [start_cell]  once the day is over
 */

/**
 * What a daily's share line says (games.daily.rules.share_line).
 * @typedef {object} ShareFacts
 * @property {string} day  YYYY-MM-DD
 * @property {boolean} won
 * @property {number | null} time_ms
 * @property {number} opened
 * @property {number} safe_cells
 * @property {number | null} rank  on the player's board as it stands
 * @property {number} players
 * @property {number | null} bbbv_per_s
 */

/**
 * A day's six dailies.
 * @typedef {object} DailyDay
 * @property {string} date  YYYY-MM-DD (UTC)
 * @property {string} ends_at
 * @property {boolean} over  the server has handled the day's end: boards are public
 * @property {DailyLevel[]} levels
 */

/** A row of a day's board (GET /api/leaderboards/{level}/daily).
 * @typedef {{ rank: number, player: string, state: string, time_ms: number | null, opened: number, game_id: string, achieved_at: string }} DailyRow */

/** Today's dailies (`day` empty) or a day's. @param {string} [day]  @returns {Promise<DailyDay>} */
export function readDay(day = "") {
  return api("GET", day ? `/api/daily/${day}` : "/api/daily");
}

/** Today's daily of `level`: the player's one game (the server has made the opening, the
 * clock runs). A visitor plays as a guest (docs/GUESTS.md): a guest's daily never ranks.
 * @param {string} level  @returns {Promise<Game>} */
export async function startDaily(level) {
  if (!me()) await playAsGuest();
  return api("POST", `/api/daily/${level}`);
}

/** A past day's daily again, unranked (RULES.md: practice): a new game each time.
 * @param {string} day  @param {string} level  @returns {Promise<Game>} */
export async function practise(day, level) {
  if (!me()) await playAsGuest();
  return api("POST", `/api/daily/${day}/${level}`);
}

/** The daily page of `day`: `/daily` for today. @param {string} day  @param {string} today */
export const dayPath = (day, today) => (day === today ? "/daily" : `/daily/${day}`);

/** A day in the page's language, as a date (never shifted by the browser's time zone: the
 * day is a UTC day). @param {string} day  YYYY-MM-DD */
export function fmtDay(day) {
  try {
    return new Date(`${day}T00:00:00Z`).toLocaleDateString(document.documentElement.lang || undefined, { dateStyle: "long", timeZone: "UTC" });
  } catch (err) {
    return day;
  }
}

/** "3:05:09" to `endsAt` from now; "0:00:00" once it has passed. @param {string} endsAt */
export function countdownText(endsAt) {
  const left = Math.max(0, Date.parse(endsAt) - Date.now());
  const s = Math.floor(left / 1000);
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${Math.floor(s / 3600)}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}`;
}

/** "12 players · 8 won" @param {DailyLevel} l */
export function countsText(l) {
  return [
    fmt(ngettext("%(n)s player", "%(n)s players", l.players), { n: l.players }),
    fmt(ngettext("%(n)s won", "%(n)s won", l.winners), { n: l.winners }),
  ].join(" · ");
}

/** The player's daily game in a few words. @param {Game} g */
export function resultText(g) {
  if (g.state === "won") return fmt(gettext("Won in %(time)s"), { time: fmtTime(g.elapsed_ms) });
  if (g.state === "lost") return g.end_reason === "abandoned" ? gettext("Not finished") : gettext("Lost");
  return g.state === "paused" ? gettext("Paused") : gettext("In progress");
}

/** A row of a board or of the calendar in a few words.
 * @param {{ state: string, time_ms: number | null, opened: number }} row */
export function rowResult(row) {
  if (row.state === "won") return fmtTime(row.time_ms);
  if (row.state === "lost") return fmt(ngettext("lost, %(n)s cell", "lost, %(n)s cells", row.opened), { n: row.opened });
  return fmt(ngettext("playing, %(n)s cell", "playing, %(n)s cells", row.opened), { n: row.opened });
}

/** Copy `text`: the Clipboard API, or (an older browser, a page not served over HTTPS) a
 * selected text area and the copy command; failing both, the line stays selected on the
 * page for the player to copy. `done` says which happened.
 * @param {string} text  @param {HTMLElement} done  @param {HTMLElement} [line]  the element showing it */
export async function copyText(text, done, line) {
  try {
    await navigator.clipboard.writeText(text);
    done.textContent = gettext("Copied.");
    return;
  } catch (err) {
    // no Clipboard API, or no permission: the fallback below
  }
  const area = el("textarea", { class: "visually-hidden", "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand("copy");
  } catch (err) {
    copied = false;
  }
  area.remove();
  if (copied) {
    done.textContent = gettext("Copied.");
    return;
  }
  if (line) {
    const range = document.createRange();
    range.selectNodeContents(line);
    const sel = window.getSelection();
    if (sel) {
      sel.removeAllRanges();
      sel.addRange(range);
    }
  }
  done.textContent = gettext("Select the line and copy it.");
}

/** The player's share line in the page's language ("Démineur, défi du jour 2026-12-03 Expert
 * 41,2 s, n° 12 sur 340, 3BV/s 2,9" in French), from the facts the API's English `share` says.
 * @param {DailyLevel} l */
export function shareText(l) {
  const f = l.share_facts;
  if (!f) return l.share || "";
  const result =
    f.won && f.time_ms !== null
      ? fmt(gettext("%(seconds)s s"), { seconds: fmtNum(f.time_ms / 1000, 1) })
      : fmt(gettext("%(opened)s/%(cells)s cells"), { opened: f.opened, cells: f.safe_cells });
  const parts = [fmt(gettext("Démineur daily %(day)s %(level)s %(result)s"), { day: f.day, level: levelLabel(l.level), result })];
  if (f.rank !== null && f.players) parts.push(fmt(gettext("#%(rank)s of %(players)s"), { rank: f.rank, players: f.players }));
  if (f.won && f.bbbv_per_s !== null) parts.push(fmt(gettext("3BV/s %(speed)s"), { speed: fmtNum(f.bbbv_per_s, 1) }));
  return parts.join(", ");
}

/** The share line with its Copy button (and the word that says it was copied).
 * @param {DailyLevel} level */
export function shareBox(level) {
  const share = shareText(level);
  const line = el("code", { class: "share-line", text: share });
  const done = el("span", { class: "muted copy-done", role: "status", "aria-live": "polite" });
  const button = el("button", { type: "button", class: "btn", text: gettext("Copy"), onclick: () => copyText(share, done, line) });
  return el("div", { class: "share" }, el("span", { class: "visually-hidden", text: gettext("Your result line to share:") }), line, el("span", { class: "share-actions" }, button, done));
}
