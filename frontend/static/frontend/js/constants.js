// @ts-check
// What the server decides and the scripts need to know: the levels and their sizes, the
// custom board's bounds, the race countdown and the number of racers, an arena's length, the
// settings' defaults and ranges, the largest page of a list, the puzzles' themes and the
// storm's clock. The server renders them into every page
// (frontend/views.py site_constants, base.html: the JSON of <html data-site-constants>) and
// this module reads them once, so no script keeps a copy of a server constant
// (docs/FRONTEND.md, Constants).

/** @typedef {{ name: string, label: string, width: number, height: number, mines: number }} Level */

/**
 * The puzzles' constants (docs/PUZZLES.md; frontend/views.py `_puzzle_constants`).
 * @typedef {object} PuzzleConstants
 * @property {{ name: string, label: string }[]} themes  every theme, easiest first, with its
 *   words in the page's language (games.puzzles.positions.THEMES, PUZZLE_THEME_LABELS)
 * @property {number} storm_ms  a storm's length (games.puzzles.rules.STORM_DURATION)
 * @property {number} storm_penalty_ms  the time a failed puzzle costs a storm (STORM_PENALTY)
 */

/**
 * @typedef {object} PlayerSettings
 * @property {number} long_press_ms  how long a touch is held to flag
 * @property {boolean} click_chords  a click or tap on an opened number chords
 * @property {boolean} animations
 * @property {boolean} sounds
 * @property {string} theme  one of `settings.themes`
 * @property {boolean} no_flags  play without flags: no right click, long press, F key or flag mode
 */

/**
 * @typedef {object} SiteConstants
 * @property {Level[]} levels  the ranked levels, easiest first (games.engine.LEVELS)
 * @property {{ label: string, min_side: number, max_side: number, kept_free: number }} custom
 *   a custom board's sides, and the cells kept free of mines (at most width × height − kept_free)
 * @property {{ classic: string, no_guess: string }} modes  the modes' words (RULES.md, No-guess boards)
 * @property {{ countdown_ms: number, min_racers: number, max_racers: number }} race
 * @property {{ min_minutes: number, max_minutes: number, pairing_stop_ms: number }} arena  an
 *   arena's length, and how long before its end no race forms (docs/ARENAS.md)
 * @property {{ defaults: PlayerSettings, long_press_ms: { min: number, max: number }, themes: string[] }} settings
 * @property {number} max_page_size  the most rows a list gives in one page (API.md, Lists)
 * @property {PuzzleConstants} puzzles
 */

/** @returns {SiteConstants} */
function read() {
  const raw = document.documentElement.dataset.siteConstants;
  if (!raw) throw new Error("<html data-site-constants> is not on this page (base.html renders it)");
  return JSON.parse(raw);
}

/** The server's constants for this page. */
export const SITE = read();

/** The label of a level (or "custom") in the page's language, as the server says it. */
export function levelLabel(/** @type {string} */ level) {
  if (level === "custom") return SITE.custom.label;
  const found = SITE.levels.find((l) => l.name === level);
  return found ? found.label : level;
}

/** A level's label with its mode, for a game, a race or a board of no-guess games
 * (RULES.md, No-guess boards): "Expert · no guess". The words come from the server
 * (SITE.modes), translated there.
 * @param {string} level  @param {boolean | undefined} noGuess */
export function modeLabel(level, noGuess) {
  const label = levelLabel(level);
  return noGuess ? `${label} · ${SITE.modes.no_guess}` : label;
}
