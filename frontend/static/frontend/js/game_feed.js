// @ts-check
// The game's feed: what the page learns from the server, in order (API.md, Games and Live
// updates; docs/LIVE.md).
//
// Moves travel over the game's WebSocket when it is open and over REST otherwise; every
// answer carries the game's `seq`, so each move is applied exactly once, a gap makes the page
// re-read the game, and a move sent on a socket that dies is re-sent over REST with the same
// client_move_id (the server applies it once). A refusal keeps its real HTTP status, over
// REST and over the socket alike (the socket's error frame carries it). The socket's
// reconnection and the seq order are live.js's, as on the race page.
import { api, ApiError, gettext, fmt, signInUrl, messageOf, playerLabel } from "./api.js";
import { ENDED, isPlayer } from "./game_state.js";
import { followSocket } from "./live.js";

/** @typedef {import("./game_state.js").GameState} GameState */
/** @typedef {import("./game_state.js").Game} Game */
/** @typedef {import("./game_state.js").PendingMove} PendingMove */
/** @typedef {import("./live.js").Frame} Frame */
/** @typedef {ReturnType<typeof import("./game_view.js").createView>} View */
/** A move's REST answer (API.md, Moves).
 * @typedef {{ seq: number, game: Game, changes: import("./game_state.js").Change[] }} MoveResult */

const WS_ANSWER_TIMEOUT_MS = 3000;
const POLL_MS = 2000;
const END_WAIT_MS = 1500;
// Refusals after which the page's picture of the game is stale: read it again.
const REREAD = new Set(["game_paused", "game_over", "not_found", "game_not_started"]);

/** The ApiError of a socket `error` frame: the REST error body with its HTTP status, which the
 * frame carries (`status`, demineur_site/api_errors.py STATUS_BY_CODE): no copy of the table
 * lives here.
 * @param {Frame} frame
 * @returns {ApiError} */
export function socketError(frame) {
  const e = (frame && frame.error) || {};
  const status = Number.isInteger(frame && frame.status) ? frame.status : 400;
  return new ApiError(status, e.code || "error", e.message || gettext("The move was refused."), e.details);
}

function newId() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

/** The feed of the page's state `s`, drawn by `view` (game_view.js).
 * @param {GameState} s
 * @param {View} view */
export function createFeed(s, view) {
  const f = s.feed;
  const path = (tail = "") => `/api/games/${s.gameId}${tail}`;
  const ended = () => !!s.game && ENDED.has(s.game.state);
  /** The Game the page knows: a step is only applied after a first whole Game. */
  const known = () => /** @type {Game} */ (s.game);

  /** A full Game: it replaces what the page knew.
   * @param {Game} g */
  function take(g) {
    view.reached();
    const first = s.game === null;
    s.game = g;
    s.order.seq = g.seq;
    s.wholeSeq = g.seq;
    if (ENDED.has(g.state)) clearTimeout(s.endTimer); // (polling stops by itself: live.js)
    view.drawGame(first);
  }

  /**
   * A whole Game asked over HTTP (a read, pause, resume, resign), and whether its answer is
   * still news. Two answers at one seq can differ (a race's end makes a racer's layout public)
   * and, on a busy server, arrive in either order: the answer to the request sent last wins.
   * @param {string} method  @param {string} url  @param {{ keepalive?: boolean }} [options]
   * @returns {Promise<{ g: Game, news: () => boolean }>}
   */
  async function ask(method, url, options) {
    const sent = ++s.reads.issued;
    /** @type {Game} */
    const g = await api(method, url, undefined, options);
    const news = () => {
      if (sent < s.reads.applied) return false;
      s.reads.applied = sent;
      return true;
    };
    return { g, news };
  }

  /**
   * Something the server refused. `answer`: it answers a request of this page (a move, a
   * pause...), as opposed to a notice the socket sends on its own (its sign-in ended, the game
   * is gone). Only an answer sends the visitor to sign in: watching needs no account, so a
   * watcher whose session ended elsewhere keeps watching (the socket reconnects anonymous).
   * @param {unknown} err
   * @param {boolean} [answer]
   */
  function refused(err, answer = true) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 401 && answer) return (location.href = signInUrl());
    // No answer at all: said until the server answers again (it once stayed for good).
    if (err.code === "network") return view.say(messageOf(err), "until-online");
    if (REREAD.has(err.code)) refetch();
    view.say(messageOf(err));
  }

  // --- moves -----------------------------------------------------------------------------------

  /** @param {string} action  @param {number} x  @param {number} y */
  function send(action, x, y) {
    const id = newId();
    if (f.live && f.live.isUp()) {
      /** @type {PendingMove} */
      const p = { id, action, x, y, timer: setTimeout(() => viaRestAgain(p), WS_ANSWER_TIMEOUT_MS) };
      f.pending.push(p);
      f.live.send(JSON.stringify({ action, x, y, client_move_id: id }));
    } else {
      viaRest(action, x, y, id);
    }
  }

  /** @param {PendingMove} p */
  function viaRestAgain(p) {
    const i = f.pending.indexOf(p);
    if (i < 0) return;
    f.pending.splice(i, 1);
    viaRest(p.action, p.x, p.y, p.id); // same id: the server applies the move at most once
  }

  /** @param {string} action  @param {number} x  @param {number} y  @param {string} id */
  async function viaRest(action, x, y, id) {
    try {
      onMoveResult(await api("POST", path(`/${action}`), { x, y, client_move_id: id }));
    } catch (err) {
      refused(err);
    }
  }

  /** @param {MoveResult} result */
  function onMoveResult(result) {
    view.reached();
    if (s.order.where(result.seq) === "next" && !ENDED.has(result.game.state)) {
      s.order.seq = result.seq;
      s.game = { ...result.game, board: null };
      view.drawStep(result.changes);
    } else if (s.order.current(result.game.seq)) {
      take(result.game); // a gap, or the end: draw the whole board (only changed cells move)
    }
  }

  /** pause, resume or resign over REST; true once the Game it answers is drawn.
   * @param {string} action
   * @param {{ keepalive?: boolean }} [options] */
  async function act(action, { keepalive = false } = {}) {
    try {
      // keepalive: the request still leaves when the page is being hidden or closed
      const { g, news } = await ask("POST", path(`/${action}`), { keepalive });
      if (news()) take(g);
      return true;
    } catch (err) {
      refused(err);
      return false;
    }
  }

  // --- the socket ----------------------------------------------------------------------------

  function resolvePending() {
    const p = f.pending.shift();
    if (p) clearTimeout(p.timer);
  }

  /** @param {string} id */
  function dropPending(id) {
    const i = f.pending.findIndex((p) => p.id === id);
    if (i < 0) return;
    clearTimeout(f.pending[i].timer);
    f.pending.splice(i, 1);
  }

  /** @param {Frame} msg */
  function onSocketMessage(msg) {
    if (msg.type !== "error") view.reached(); // the socket carries the server's answers again
    switch (msg.type) {
      case "state":
        if (!s.game || s.order.current(msg.game.seq)) take(msg.game);
        break;
      case "move": {
        const at = s.order.step(msg.seq ?? -1); // a gap re-reads the game (API.md)
        if (at === "old") return resolvePending(); // already applied from a REST answer
        if (at === "gap") return;
        resolvePending();
        s.game = { ...known(), state: msg.state, mines_left: msg.mines_left, elapsed_ms: msg.elapsed_ms, seq: s.order.seq };
        // After the last move the layout comes with the "ended" message; if it gets lost, read
        // the game.
        if (ENDED.has(msg.state)) s.endTimer = setTimeout(refetch, END_WAIT_MS);
        view.drawStep(msg.changes || []);
        break;
      }
      case "paused": {
        if (s.order.step(msg.seq ?? -1) !== "next") return;
        // A pause after the first tap unranks the game (RULES.md, Fair play); the next full
        // Game (resumed, ended) says so too.
        const g = known();
        s.game = { ...g, state: "paused", elapsed_ms: msg.elapsed_ms, seq: s.order.seq, board: null, ranked: false, unranked_reason: g.unranked_reason || "paused" };
        view.drawStep([]);
        if (!isPlayer(s)) view.say(fmt(gettext("%(player)s paused the game."), { player: playerLabel(g.player) }));
        break;
      }
      case "resumed":
        if (!s.order.current(msg.seq ?? -1)) return;
        if (msg.game) take(msg.game);
        else refetch();
        break;
      case "ended":
        // The game as its last move committed. A whole Game of that same seq already taken was
        // read since, and may show more: a race's end makes a racer's layout public, and
        // race.js reads the game again then; on a busy server this message can come after.
        if (msg.game && s.order.current(msg.game.seq) && msg.game.seq !== s.wholeSeq) take(msg.game);
        break;
      case "error": {
        // Our moves always carry a client_move_id, which the answer echoes; a frame without
        // one is the socket's own notice (a kick after a sign-out, a discarded game, a flood).
        const answer = typeof msg.client_move_id === "string";
        if (answer) dropPending(msg.client_move_id);
        refused(socketError(msg), answer);
        break;
      }
      default:
        break;
    }
  }

  /** Follow the game's socket (live.js: reconnects with a growing wait). Until it says its
   * `state`, and whenever it is down, moves go over REST and a watcher reads the game every
   * few seconds. */
  function connect() {
    f.live = followSocket(`/ws/games/${s.gameId}`, {
      onFrame: onSocketMessage,
      onUp: () => {
        s.root.dataset.live = "socket"; // moves now travel over the socket
        view.reached();
      },
      onDown: () => {
        s.root.dataset.live = "rest";
        // Moves still waiting for an answer go over REST now, with their ids.
        while (f.pending.length) viaRestAgain(f.pending[0]);
      },
      poll: () => {
        if (!isPlayer(s)) refetch();
      },
      pollMs: POLL_MS,
      keepFollowing: () => !ended(),
    });
  }

  // --- reading the game ------------------------------------------------------------------------

  function notFound() {
    view.notFound();
    if (f.live) f.live.close();
  }

  async function refetch() {
    try {
      const { g, news } = await ask("GET", path());
      if ((s.order.current(g.seq) || ENDED.has(g.state)) && news()) take(g);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) notFound();
    }
  }

  /** The first read of the game; false when it does not exist. */
  async function load() {
    try {
      const { g, news } = await ask("GET", path());
      if (news()) take(g);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        notFound();
        return false;
      }
      view.say(messageOf(err));
    }
    return true;
  }

  s.order.resync = refetch;
  return { load, connect, send, act, refetch, refused };
}
