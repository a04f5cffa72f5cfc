// @ts-check
// The one state of a game page. game.js makes it and passes it to the feed, the controls and
// the view; none of them keeps a copy of its own, so whatever the page knows is here.
import { me } from "./api.js";
import { SeqOrder } from "./live.js";

/** @typedef {{ x: number, y: number, v: string }} Change  one cell that changed (API.md) */

/**
 * A Game of API.md (the fields the page reads). After a move patches it, `board` is null:
 * the cells on screen hold it.
 * @typedef {object} Game
 * @property {string} id
 * @property {string} player
 * @property {string} level
 * @property {boolean} [no_guess]  a no-guess board (RULES.md, No-guess boards)
 * @property {number} width
 * @property {number} height
 * @property {number} mines
 * @property {"new" | "playing" | "paused" | "won" | "lost"} state
 * @property {number} seq
 * @property {number} elapsed_ms
 * @property {number} mines_left
 * @property {string[] | null} board
 * @property {boolean} ranked
 * @property {string | null} unranked_reason
 * @property {string | null} [race]
 * @property {string | null} [daily]  the day of a daily game (practice included), YYYY-MM-DD
 * @property {string | null} [end_reason]
 * @property {Record<string, number | null> | null} [result_stats]
 */

/** A move sent on the socket and not answered yet.
 * @typedef {{ id: string, action: string, x: number, y: number, timer: ReturnType<typeof setTimeout> }} PendingMove */

/**
 * @typedef {object} GameState
 * @property {HTMLElement} root  the #game section
 * @property {string} gameId
 * @property {Game | null} game  the last Game read
 * @property {SeqOrder} order  the seq of the last message applied (API.md, Live updates)
 * @property {import("./board.js").BoardView | null} board  the BoardView on screen
 * @property {boolean} flagMode
 * @property {{ base: number, at: number, running: boolean }} clock  the server's elapsed_ms and when it came
 * @property {ReturnType<typeof setTimeout> | undefined} endTimer  re-reads the game if the
 *   "ended" message after a last move is lost
 * @property {number} wholeSeq  the seq of the last whole Game applied (a read, a `state`)
 * @property {{ issued: number, applied: number }} reads  whole-Game requests over HTTP, numbered
 *   as they leave: the number of the last one sent, and of the last one whose answer was drawn
 * @property {{ live: import("./live.js").Follow | null, pending: PendingMove[] }} feed
 *   the game's socket (live.js) while the page follows it, and the moves sent on it, oldest first
 */

/**
 * The player's intentions, made by the controls (game_controls.js) and given to the board and
 * the result box by the view (game_view.js bindInput).
 * @typedef {object} Controls
 * @property {(x: number, y: number, how?: string) => void} tap
 * @property {(x: number, y: number, how?: string) => void} flag
 * @property {(x: number, y: number) => void} chord
 * @property {() => boolean} canLongPress
 * @property {() => boolean} canPress
 * @property {() => number} longPressMs
 * @property {() => boolean} clickChords
 * @property {() => Promise<void>} newGame
 */

export const ENDED = new Set(["won", "lost"]);

/** How long the page may be hidden before its game pauses itself (RULES.md, Time; the
 * choice is explained in docs/FAIRPLAY.md, "Away from the page"). A reload, a look at
 * another tab or a phone that drops the page for a moment stays under it: the game goes on,
 * still ranked, and the clock never stopped, so nothing was gained. */
export const AWAY_GRACE_MS = 5000;

/** @param {HTMLElement} root  @returns {GameState} */
export function createState(root) {
  return {
    root,
    gameId: root.dataset.gameId || "",
    game: null,
    order: new SeqOrder(), // the feed gives it its re-read (game_feed.js)
    board: null,
    flagMode: false,
    clock: { base: 0, at: 0, running: false },
    endTimer: undefined,
    wholeSeq: -1,
    reads: { issued: 0, applied: 0 },
    feed: { live: null, pending: [] },
  };
}

/** The signed-in visitor is this game's player. */
export const isPlayer = (/** @type {GameState} */ s) => !!s.game && me() !== "" && me() === s.game.player;

/** Another player's daily game while its day runs (API.md, Daily challenge): the server
 * sends no board and refuses its socket; the page says so and follows nothing. */
export const sealedDaily = (/** @type {GameState} */ s) => !!s.game && !!s.game.daily && !isPlayer(s) && !s.game.board && s.game.state !== "paused";

/** The player, and the game has not ended. */
export const canPlay = (/** @type {GameState} */ s) => isPlayer(s) && !!s.game && !ENDED.has(s.game.state);
