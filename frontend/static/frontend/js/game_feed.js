// The game's feed: what the page learns from the server, in order (API.md, Games and Live
// updates; docs/LIVE.md).
//
// Moves travel over the game's WebSocket when it is open and over REST otherwise; every
// answer carries the game's `seq`, so each move is applied exactly once, a gap makes the page
// re-read the game, and a move sent on a socket that dies is re-sent over REST with the same
// client_move_id (the server applies it once). A refusal keeps its real HTTP status, over
// REST and over the socket alike (the socket's error frame carries it).
import { api, ApiError, gettext, fmt, openSocket, signInUrl } from "./api.js";
import { ENDED, isPlayer } from "./game_state.js";

const WS_ANSWER_TIMEOUT_MS = 3000;
const POLL_MS = 2000;
const END_WAIT_MS = 1500;
// Refusals after which the page's picture of the game is stale: read it again.
const REREAD = new Set(["game_paused", "game_over", "not_found", "game_not_started"]);

/** The ApiError of a socket `error` frame: the REST error body with its HTTP status, which the
 * frame carries (`status`, demineur_site/api_errors.py STATUS_BY_CODE): no copy of the table
 * lives here. */
export function socketError(frame) {
  const e = (frame && frame.error) || {};
  const status = Number.isInteger(frame && frame.status) ? frame.status : 400;
  return new ApiError(status, e.code || "error", e.message || gettext("The move was refused."), e.details);
}

function newId() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

/** The feed of the page's state `s`, drawn by `view` (game_view.js). */
export function createFeed(s, view) {
  const f = s.feed;
  const path = (tail = "") => `/api/games/${s.gameId}${tail}`;

  /** A full Game: it replaces what the page knew. */
  function take(g) {
    const first = s.game === null;
    s.game = g;
    s.seq = g.seq;
    if (ENDED.has(g.state)) {
      clearTimeout(s.endTimer);
      stopPolling();
    }
    view.drawGame(first);
  }

  /**
   * Something the server refused. `answer`: it answers a request of this page (a move, a
   * pause...), as opposed to a notice the socket sends on its own (its sign-in ended, the game
   * is gone). Only an answer sends the visitor to sign in: watching needs no account, so a
   * watcher whose session ended elsewhere keeps watching (the socket reconnects anonymous).
   */
  function refused(err, answer = true) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 401 && answer) return (location.href = signInUrl());
    if (REREAD.has(err.code)) refetch();
    view.say(err.message);
  }

  // --- moves -----------------------------------------------------------------------------------

  function send(action, x, y) {
    const id = newId();
    const ws = f.ws;
    if (ws && f.ready && ws.readyState === WebSocket.OPEN) {
      const p = { id, action, x, y };
      p.timer = setTimeout(() => viaRestAgain(p), WS_ANSWER_TIMEOUT_MS);
      f.pending.push(p);
      ws.send(JSON.stringify({ action, x, y, client_move_id: id }));
    } else {
      viaRest(action, x, y, id);
    }
  }

  function viaRestAgain(p) {
    const i = f.pending.indexOf(p);
    if (i < 0) return;
    f.pending.splice(i, 1);
    viaRest(p.action, p.x, p.y, p.id); // same id: the server applies the move at most once
  }

  async function viaRest(action, x, y, id) {
    try {
      onMoveResult(await api("POST", path(`/${action}`), { x, y, client_move_id: id }));
    } catch (err) {
      refused(err);
    }
  }

  function onMoveResult(result) {
    if (result.seq === s.seq + 1 && !ENDED.has(result.game.state)) {
      s.seq = result.seq;
      s.game = { ...result.game, board: null };
      view.drawStep(result.changes);
    } else if (result.game.seq >= s.seq) {
      take(result.game); // a gap, or the end: draw the whole board (only changed cells move)
    }
  }

  /** pause, resume or resign over REST; true once the Game it answers is drawn. */
  async function act(action, { keepalive = false } = {}) {
    try {
      // keepalive: the request still leaves when the page is being hidden or closed
      take(await api("POST", path(`/${action}`), undefined, { keepalive }));
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

  function dropPending(id) {
    const i = f.pending.findIndex((p) => p.id === id);
    if (i < 0) return;
    clearTimeout(f.pending[i].timer);
    f.pending.splice(i, 1);
  }

  function onSocketMessage(msg) {
    switch (msg.type) {
      case "state":
        f.ready = true;
        s.root.dataset.live = "socket"; // moves now travel over the socket
        stopPolling();
        if (!s.game || msg.game.seq >= s.seq) take(msg.game);
        break;
      case "move":
        if (msg.seq <= s.seq) return resolvePending(); // already applied from a REST answer
        if (msg.seq !== s.seq + 1) return refetch(); // a gap: re-read the game (API.md)
        resolvePending();
        s.seq = msg.seq;
        s.game = { ...s.game, state: msg.state, mines_left: msg.mines_left, elapsed_ms: msg.elapsed_ms, seq: msg.seq };
        // After the last move the layout comes with the "ended" message; if it gets lost, read
        // the game.
        if (ENDED.has(msg.state)) s.endTimer = setTimeout(refetch, END_WAIT_MS);
        view.drawStep(msg.changes || []);
        break;
      case "paused":
        if (msg.seq <= s.seq) return;
        if (msg.seq !== s.seq + 1) return refetch();
        s.seq = msg.seq;
        // A pause after the first tap unranks the game (RULES.md, Fair play); the next full
        // Game (resumed, ended) says so too.
        s.game = { ...s.game, state: "paused", elapsed_ms: msg.elapsed_ms, seq: msg.seq, board: null, ranked: false, unranked_reason: s.game.unranked_reason || "paused" };
        view.drawStep([]);
        if (!isPlayer(s)) view.say(fmt(gettext("%(player)s paused the game."), { player: s.game.player }));
        break;
      case "resumed":
        if (msg.seq < s.seq) return;
        if (msg.game) take(msg.game);
        else refetch();
        break;
      case "ended":
        if (msg.game && msg.game.seq >= s.seq) take(msg.game);
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

  function connect() {
    if (!("WebSocket" in window)) return startPolling();
    const ws = openSocket(`/ws/games/${s.gameId}`, onSocketMessage);
    if (!ws) return startPolling();
    f.ws = ws;
    ws.addEventListener("open", () => (f.retry = 0));
    ws.addEventListener("close", () => {
      f.ready = false;
      s.root.dataset.live = "rest";
      f.ws = null;
      // Moves still waiting for an answer go over REST now, with their ids.
      while (f.pending.length) viaRestAgain(f.pending[0]);
      if (s.game && ENDED.has(s.game.state)) return;
      startPolling();
      f.retry = Math.min(f.retry + 1, 6);
      setTimeout(connect, 1000 * f.retry);
    });
  }

  // Without a socket a watcher still follows the game by reading it every few seconds.
  function startPolling() {
    if (f.pollTimer || (s.game && ENDED.has(s.game.state))) return;
    f.pollTimer = setInterval(() => {
      if (!isPlayer(s)) refetch();
    }, POLL_MS);
  }

  function stopPolling() {
    clearInterval(f.pollTimer);
    f.pollTimer = null;
  }

  // --- reading the game ------------------------------------------------------------------------

  function notFound() {
    view.notFound();
    stopPolling();
  }

  async function refetch() {
    try {
      const g = await api("GET", path());
      if (g.seq >= s.seq || ENDED.has(g.state)) take(g);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) notFound();
    }
  }

  /** The first read of the game; false when it does not exist. */
  async function load() {
    try {
      take(await api("GET", path()));
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        notFound();
        return false;
      }
      view.say(err.message);
    }
    return true;
  }

  return { load, connect, send, act, refetch, refused };
}
