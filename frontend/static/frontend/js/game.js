// Play or watch one game (RULES.md; API.md Games and Live updates).
//
// The server is the only judge: the page sends intentions (reveal, flag, chord) and draws
// what comes back. Moves travel over the game's WebSocket when it is open and over REST
// otherwise; every answer carries the game's `seq`, so each move is applied exactly once,
// a gap makes the page re-read the game, and a move sent on a socket that dies is re-sent
// over REST with the same client_move_id (the server applies it once).
import { api, ApiError, gettext, fmt, me, fmtClock, fmtTime, fmtNum, levelLabel, el, wsUrl, signInUrl } from "./api.js";
import { BoardView } from "./board.js";

const root = document.getElementById("game");
const gameId = root.dataset.gameId;
const $ = (id) => document.getElementById(id);
const ENDED = new Set(["won", "lost"]);
const WS_ANSWER_TIMEOUT_MS = 3000;
const POLL_MS = 2000;

let game = null;
let seq = -1;
let board = null;
let flagMode = false;
let ws = null;
let wsReady = false;
let wsRetry = 0;
let pollTimer = null;
let endTimer = null;
const pending = []; // moves sent on the socket, oldest first: {id, action, x, y, timer}
const clock = { base: 0, at: 0, running: false };

const isPlayer = () => !!game && me() !== "" && me() === game.player;
const canPlay = () => isPlayer() && !ENDED.has(game.state);

function say(text) {
  $("status").textContent = text;
}

function newId() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + Math.random().toString(36).slice(2);
}

// --- drawing -------------------------------------------------------------------------------

function setClock(ms, running) {
  clock.base = ms;
  clock.at = performance.now();
  clock.running = running;
  drawClock();
}

function drawClock() {
  const ms = clock.running ? clock.base + (performance.now() - clock.at) : clock.base;
  $("clock").textContent = fmtClock(ms);
}
setInterval(() => clock.running && drawClock(), 100);

function drawHud() {
  drawFairNote();
  $("mines-left").textContent = String(game.mines_left); // may go below zero (RULES.md, Flags)
  root.dataset.state = game.state;
  const paused = game.state === "paused";
  $("paused-cover").hidden = !paused;
  $("board").hidden = paused;
  const player = canPlay();
  $("pause").hidden = !player || game.state === "new";
  $("pause").textContent = paused ? gettext("Resume") : gettext("Pause");
  $("resign").hidden = !player || game.state === "new";
  $("resume").hidden = !player;
  $("flag-mode").hidden = !player || paused; // nothing to flag on a hidden board
  $("keys-help").hidden = !isPlayer(); // a watcher has no keys to learn
  $("live-badge").hidden = isPlayer() || ENDED.has(game.state);
}

// --- fair play (RULES.md, Fair play) ------------------------------------------------------------

// One sentence per reason a game does not rank (API.md: Game.unranked_reason).
function unrankedText(reason) {
  switch (reason) {
    case "custom": return gettext("Not ranked: custom boards never rank.");
    case "paused": return gettext("Not ranked: the game was paused after its first tap.");
    case "review": return gettext("Not ranked for now: held for review by staff.");
    case "flagged": return gettext("Not ranked: the account is flagged.");
    case "race": return gettext("Not ranked: race games count in race ratings only.");
    case "guest": return gettext("Not ranked: games played as a guest never rank.");
    default: return gettext("Not ranked.");
  }
}

/** What the page says about ranking: while the game runs (the note above the board) and
 * at the end (the result box). */
function fairText(g) {
  if (!g.ranked) return unrankedText(g.unranked_reason);
  if (ENDED.has(g.state)) return g.state === "won" ? gettext("Ranked: this win counts on the leaderboards.") : gettext("This game was ranked.");
  // The automatic pause (page hidden, a menu opened) cannot ask first: the player is told now.
  if (isPlayer()) return gettext("Ranked game: pausing, or leaving this page, unranks it.");
  return gettext("Ranked game.");
}

function drawFairNote() {
  const note = $("fair-note");
  const text = ENDED.has(game.state) ? "" : fairText(game); // at the end the result box says it
  if (note.textContent === text && note.hidden === !text) return;
  note.textContent = text;
  note.hidden = !text;
  note.className = "fair-note " + (game.ranked ? "fair-ranked" : "fair-unranked");
  note.dataset.reason = game.ranked ? "ranked" : game.unranked_reason || "unknown";
  if (board) sizeFrame(); // the note's height moves the frame's top
}

function titleFor(g) {
  const size = `${g.width} × ${g.height}, ${g.mines} ` + gettext("mines");
  const level = levelLabel(g.level);
  if (isPlayer()) return [level, size];
  return [fmt(gettext("%(player)s · %(level)s"), { player: g.player, level }), size];
}

function buildBoard() {
  const wrap = $("board-wrap");
  board = new BoardView($("board"), {
    width: game.width,
    height: game.height,
    label: fmt(gettext("Minefield, %(w)s columns by %(h)s rows"), { w: game.width, h: game.height }),
    interactive: true,
    onTap: tap,
    onFlag: flag,
    onChord: chord,
    canLongPress: () => canPlay() && game.state !== "new",
  });
  wrap.classList.toggle("board-big", game.width * game.height > 900);
  sizeFrame();
  applyZoom(defaultZoom());
}

function setGame(g) {
  const first = game === null;
  game = g;
  seq = g.seq;
  drawFairNote(); // before the board is built: its first zoom fits the room under the note
  if (first || !board || board.width !== g.width || board.height !== g.height) buildBoard();
  if (g.board) board.setRows(g.board);
  const [title, sub] = titleFor(g);
  $("game-title").textContent = title;
  $("game-sub").textContent = sub;
  document.title = title + " · Démineur";
  setClock(g.elapsed_ms, g.state === "playing");
  drawHud();
  if (first) sizeFrame(); // now that the toolbar shows what this visitor may use
  if (ENDED.has(g.state)) showResult();
  else $("result").hidden = true;
}

function showResult() {
  const g = game;
  clearTimeout(endTimer);
  stopPolling();
  const rs = g.result_stats || {};
  const won = g.state === "won";
  let headline;
  if (isPlayer()) headline = won ? fmt(gettext("You won in %(time)s!"), { time: fmtTime(g.elapsed_ms) }) : lostText(g, true);
  else headline = won ? fmt(gettext("%(player)s won in %(time)s."), { player: g.player, time: fmtTime(g.elapsed_ms) }) : lostText(g, false);
  const stats = [];
  if (rs.bbbv !== undefined && rs.bbbv !== null) stats.push(fmt(gettext("3BV %(n)s"), { n: rs.bbbv }));
  if (rs.bbbv_per_s) stats.push(fmt(gettext("%(n)s 3BV/s"), { n: fmtNum(rs.bbbv_per_s, 2) }));
  if (rs.efficiency) stats.push(fmt(gettext("efficiency %(n)s"), { n: Math.round(rs.efficiency * 100) + " %" }));
  const box = $("result");
  box.replaceChildren(
    el("p", { class: "result-head " + (won ? "win" : "loss"), text: headline }),
    stats.length ? el("p", { class: "muted", text: stats.join(" · ") }) : null,
    el("p", { class: "fair-result " + (g.ranked ? "fair-ranked" : "fair-unranked"), id: "fair-result", "data-reason": g.ranked ? "ranked" : g.unranked_reason || "unknown", text: fairText(g) }),
    el(
      "p",
      { class: "result-actions" },
      el("a", { class: "btn", href: `/games/${g.id}/replay`, text: gettext("Replay") }),
      g.ranked ? el("a", { class: "btn", href: `/leaderboards/${g.level}`, text: gettext("Leaderboard") }) : null,
      isPlayer() ? el("button", { class: "btn btn-primary", type: "button", onclick: newGame, text: gettext("New game") }) : null,
    ),
  );
  box.hidden = false;
  box.className = "result " + (won ? "result-win" : "result-loss");
  say(headline);
  // A big board fills the screen: bring the result (and New game) into sight below it.
  const r = box.getBoundingClientRect();
  if (r.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
}

function lostText(g, mine) {
  const reasons = {
    mine: mine ? gettext("Boom! You opened a mine.") : fmt(gettext("%(player)s opened a mine."), { player: g.player }),
    resigned: mine ? gettext("You gave up.") : fmt(gettext("%(player)s gave up."), { player: g.player }),
    abandoned: mine ? gettext("This game was abandoned.") : fmt(gettext("%(player)s abandoned this game."), { player: g.player }),
  };
  return reasons[g.end_reason] || gettext("Game over.");
}

// --- zoom ----------------------------------------------------------------------------------

function zoomKey() {
  return "zoom:" + game.width + "x" + game.height;
}

// The height the board frame may take: from its top to the bottom of the screen, so the
// counters, the tools and the whole frame are seen at once (no page scroll fighting the
// board's own scroll on a phone). On a very short screen, the screen under the top bar.
function frameRoom() {
  const wrap = $("board-wrap");
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  const bar = document.querySelector(".topbar").offsetHeight;
  // On a phone the flag toggle floats over the bottom corner: the frame stops above it, so
  // no cell can hide under the toggle.
  const toggle = $("flag-mode");
  // (It is hidden while paused, so its height is then taken as the CSS gives it: 52 px.)
  const floating = canPlay() && getComputedStyle(toggle).position === "fixed";
  const below = window.innerHeight - top - 12 - (floating ? (toggle.offsetHeight || 52) + 12 : 0);
  return below >= 240 ? below : window.innerHeight - bar - 16;
}

function sizeFrame() {
  const wrap = $("board-wrap");
  wrap.style.maxHeight = Math.round(frameRoom()) + "px"; // a board that fits is not affected
}
window.addEventListener("resize", () => game && sizeFrame());

function defaultZoom() {
  const saved = Number(localStorage.getItem(zoomKey()));
  if (saved) return saved;
  const coarse = window.matchMedia("(pointer: coarse)").matches;
  const pad = 16;
  const fitW = Math.floor((Math.max(280, $("board-wrap").parentElement.clientWidth) - pad) / game.width);
  if (coarse) return Math.max(30, Math.min(36, fitW)); // a finger needs ~30 px; big boards scroll
  // With a mouse, fit the whole board on the screen when the cells stay readable (15 px:
  // Marathon on a laptop), else scroll.
  const fitH = Math.floor((frameRoom() - pad) / game.height);
  return Math.max(15, Math.min(36, fitW, fitH));
}

function applyZoom(px) {
  const size = Math.max(12, Math.min(56, px));
  $("board-wrap").style.setProperty("--cell", size + "px");
  return size;
}

function zoom(step) {
  const wrap = $("board-wrap");
  const current = parseFloat(wrap.style.getPropertyValue("--cell")) || 28;
  // Keep the cell at the centre of the frame where it is, so zooming never loses your place.
  const cx = (wrap.scrollLeft + wrap.clientWidth / 2) / current;
  const cy = (wrap.scrollTop + wrap.clientHeight / 2) / current;
  const size = applyZoom(current + step);
  wrap.scrollLeft = cx * size - wrap.clientWidth / 2;
  wrap.scrollTop = cy * size - wrap.clientHeight / 2;
  localStorage.setItem(zoomKey(), String(size));
}
$("zoom-in").addEventListener("click", () => zoom(4));
$("zoom-out").addEventListener("click", () => zoom(-4));

// --- intentions (RULES.md: tap, flag, chord) ----------------------------------------------------

function tap(x, y) {
  if (!canPlay() || game.state === "paused") return;
  const v = board.get(x, y);
  if (v === "#") return flagMode ? flag(x, y, "flag-mode") : send("reveal", x, y);
  if (v === "F") {
    if (flagMode) return flag(x, y, "flag-mode");
    return say(gettext("A flagged cell does not open: remove the flag first."));
  }
  if (v >= "1" && v <= "8") return chord(x, y); // tapping an opened number chords, in both modes
}

function flag(x, y, how) {
  if (!canPlay() || game.state === "paused") return;
  if (game.state === "new") return say(gettext("Flags can be placed once the game has started: open a cell first."));
  const v = board.get(x, y);
  if (v === "#" || v === "F") send("flag", x, y);
}

function chord(x, y) {
  if (!canPlay() || game.state !== "playing") return;
  const v = board.get(x, y);
  if (!(v >= "1" && v <= "8")) return;
  // The chord's condition (RULES.md): exactly as many flags around as the number, else nothing.
  if (board.flagsAround(x, y) !== Number(v) || board.closedAround(x, y) === 0) return;
  send("chord", x, y);
}

function setFlagMode(on) {
  flagMode = on;
  const b = $("flag-mode");
  b.setAttribute("aria-pressed", String(on));
  b.classList.toggle("on", on);
  root.classList.toggle("flag-mode", on);
  say(on ? gettext("Flag mode: each tap places or removes a flag.") : gettext("Number mode: each tap opens a cell."));
}
$("flag-mode").addEventListener("click", () => setFlagMode(!flagMode));

// --- sending moves ---------------------------------------------------------------------------

function send(action, x, y) {
  const id = newId();
  if (ws && wsReady && ws.readyState === WebSocket.OPEN) {
    const p = { id, action, x, y };
    p.timer = setTimeout(() => viaRestAgain(p), WS_ANSWER_TIMEOUT_MS);
    pending.push(p);
    ws.send(JSON.stringify({ action, x, y, client_move_id: id }));
  } else {
    viaRest(action, x, y, id);
  }
}

function viaRestAgain(p) {
  const i = pending.indexOf(p);
  if (i < 0) return;
  pending.splice(i, 1);
  viaRest(p.action, p.x, p.y, p.id); // same id: the server applies the move at most once
}

async function viaRest(action, x, y, id) {
  try {
    const result = await api("POST", `/api/games/${gameId}/${action}`, { x, y, client_move_id: id });
    onMoveResult(result);
  } catch (err) {
    moveFailed(err);
  }
}

function onMoveResult(result) {
  if (result.seq === seq + 1 && !ENDED.has(result.game.state)) {
    board.apply(result.changes);
    seq = result.seq;
    game = { ...result.game, board: null };
    setClock(game.elapsed_ms, game.state === "playing");
    drawHud();
  } else if (result.game.seq >= seq) {
    setGame(result.game); // a gap, or the end: draw the whole board (only changed cells move)
  }
}

function moveFailed(err) {
  if (!(err instanceof ApiError)) throw err;
  if (err.status === 401) return (location.href = signInUrl());
  if (["game_paused", "game_over", "not_found", "game_not_started"].includes(err.code)) refetch();
  say(err.message);
}

// --- live updates --------------------------------------------------------------------------

function resolvePending() {
  const p = pending.shift();
  if (p) clearTimeout(p.timer);
}

function onSocketMessage(msg) {
  switch (msg.type) {
    case "state":
      wsReady = true;
      root.dataset.live = "socket"; // moves now travel over the socket
      stopPolling();
      if (!game || msg.game.seq >= seq) setGame(msg.game);
      break;
    case "move":
      if (msg.seq <= seq) return resolvePending(); // already applied from a REST answer
      if (msg.seq !== seq + 1) return refetch(); // a gap: re-read the game (API.md)
      resolvePending();
      board.apply(msg.changes || []);
      seq = msg.seq;
      game = { ...game, state: msg.state, mines_left: msg.mines_left, elapsed_ms: msg.elapsed_ms, seq: msg.seq };
      if (ENDED.has(msg.state)) {
        // The layout comes with the "ended" message; if it gets lost, read the game.
        clock.running = false;
        setClock(msg.elapsed_ms, false);
        endTimer = setTimeout(refetch, 1500);
      } else setClock(msg.elapsed_ms, msg.state === "playing");
      drawHud();
      break;
    case "paused":
      if (msg.seq <= seq) return;
      if (msg.seq !== seq + 1) return refetch();
      seq = msg.seq;
      // A pause after the first tap unranks the game (RULES.md, Fair play); the next full
      // Game (resumed, ended) says so too.
      game = { ...game, state: "paused", elapsed_ms: msg.elapsed_ms, seq: msg.seq, board: null, ranked: false, unranked_reason: game.unranked_reason || "paused" };
      setClock(msg.elapsed_ms, false);
      drawHud();
      if (!isPlayer()) say(fmt(gettext("%(player)s paused the game."), { player: game.player }));
      break;
    case "resumed":
      if (msg.seq < seq) return;
      if (msg.game) setGame(msg.game);
      else refetch();
      break;
    case "ended":
      if (msg.game && msg.game.seq >= seq) setGame(msg.game);
      break;
    case "error": {
      const i = pending.findIndex((p) => p.id === msg.client_move_id);
      if (i >= 0) {
        clearTimeout(pending[i].timer);
        pending.splice(i, 1);
      }
      const e = msg.error || {};
      moveFailed(new ApiError(409, e.code || "error", e.message || gettext("The move was refused.")));
      break;
    }
    default:
      break;
  }
}

function connect() {
  if (!("WebSocket" in window)) return startPolling();
  try {
    ws = new WebSocket(wsUrl(`/ws/games/${gameId}`));
  } catch (err) {
    return startPolling();
  }
  ws.addEventListener("open", () => (wsRetry = 0));
  ws.addEventListener("message", (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch (err) {
      return;
    }
    onSocketMessage(msg);
  });
  ws.addEventListener("close", () => {
    wsReady = false;
    root.dataset.live = "rest";
    ws = null;
    // Moves still waiting for an answer go over REST now, with their ids.
    while (pending.length) viaRestAgain(pending[0]);
    if (game && ENDED.has(game.state)) return;
    startPolling();
    wsRetry = Math.min(wsRetry + 1, 6);
    setTimeout(connect, 1000 * wsRetry);
  });
}

// Without a socket a watcher still follows the game by reading it every few seconds.
function startPolling() {
  if (pollTimer || (game && ENDED.has(game.state))) return;
  pollTimer = setInterval(() => {
    if (!isPlayer()) refetch();
  }, POLL_MS);
}

function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
}

async function refetch() {
  try {
    const g = await api("GET", `/api/games/${gameId}`);
    if (g.seq >= seq || ENDED.has(g.state)) setGame(g);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) notFound();
  }
}

function notFound() {
  $("game-title").textContent = gettext("This game does not exist (a game never tapped is discarded).");
  $("board-wrap").hidden = true;
  stopPolling();
}

// --- pause, resign, new game ---------------------------------------------------------------

// Pausing a ranked game unranks it (RULES.md, Fair play), so the Pause button and the P key
// ask first, in the page's own dialog. The automatic pause cannot ask: the note says it.
const pauseAsk = $("pause-ask");

function askBeforePause() {
  if (pauseAsk.open) return;
  pauseAsk.returnValue = "";
  pauseAsk.showModal(); // focus goes to "Keep playing"; Escape keeps playing too
}

pauseAsk.addEventListener("close", () => {
  if (pauseAsk.returnValue === "pause") pause(false, true);
  else if (pauseAsk.returnValue !== "auto" && canPlay() && game.state === "playing") say(gettext("The game goes on, still ranked."));
});

async function pause(auto = false, confirmed = false) {
  if (!canPlay() || game.state !== "playing") return;
  if (!auto && !confirmed && game.ranked) return askBeforePause();
  if (pauseAsk.open) pauseAsk.close("auto"); // the page is being hidden: pause at once
  try {
    // keepalive: the request still leaves when the page is being hidden or closed
    const g = await api("POST", `/api/games/${gameId}/pause`, undefined, { keepalive: auto });
    setGame(g);
    say(auto ? gettext("The game paused itself.") : gettext("Paused."));
  } catch (err) {
    moveFailed(err);
  }
}

async function resume() {
  if (!canPlay() || game.state !== "paused") return;
  try {
    setGame(await api("POST", `/api/games/${gameId}/resume`));
    say(gettext("Resumed."));
    board.setFocus(board.focusIndex);
  } catch (err) {
    moveFailed(err);
  }
}

$("pause").addEventListener("click", () => (game.state === "paused" ? resume() : pause()));
$("resume").addEventListener("click", resume);
$("resign").addEventListener("click", async () => {
  if (!canPlay() || !confirm(gettext("Give up this game? It counts as a loss."))) return;
  try {
    setGame(await api("POST", `/api/games/${gameId}/resign`));
  } catch (err) {
    moveFailed(err);
  }
});

async function newGame() {
  if (!me()) return (location.href = signInUrl());
  if (isPlayer() && ["playing", "paused"].includes(game.state)) {
    if (!confirm(gettext("Start a new game? The current one will count as a loss."))) return;
  }
  const body = game && game.level !== "custom" ? { level: game.level } : { width: game.width, height: game.height, mines: game.mines };
  try {
    const g = await api("POST", "/api/games", body);
    location.href = `/games/${g.id}`;
  } catch (err) {
    say(err.message);
  }
}
$("new-game").addEventListener("click", newGame);

// The game pauses itself when the page is hidden or a menu opens (RULES.md, Time).
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") pause(true);
});
window.addEventListener("menuopen", () => pause(true));
$("keys-help").addEventListener("toggle", (e) => e.target.open && pause(true));

document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey || pauseAsk.open) return; // the dialog has its own keys
  const tag = (e.target.tagName || "").toLowerCase();
  if (["input", "select", "textarea"].includes(tag)) return;
  const key = e.key.toLowerCase();
  if (key === "m" && canPlay()) setFlagMode(!flagMode);
  else if (key === "p" && canPlay()) game.state === "paused" ? resume() : pause();
  else if (key === "n" && game) newGame();
});

// --- start ---------------------------------------------------------------------------------

(async function start() {
  try {
    setGame(await api("GET", `/api/games/${gameId}`));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return notFound();
    say(err.message);
  }
  if (!game || !ENDED.has(game.state)) connect();
  // Keyboard players start on the board; on touch screens a focus ring would only distract.
  if (game && canPlay() && window.matchMedia("(pointer: fine)").matches) board.setFocus(board.focusIndex);
})();
