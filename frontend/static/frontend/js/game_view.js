// @ts-check
// What a game page shows: the board, the counters, the clock ticking, the notes, the result
// box. It draws the state (game_state.js) it is given and never talks to the server.
import { api, gettext, ngettext, fmt, fmtClock, fmtNum, fmtTime, playerLabel } from "./api.js";
import { $, $$, el } from "./dom.js";
import { levelLabel, modeLabel } from "./constants.js";
import { readDay, fmtDay, shareBox } from "./daily_common.js";
import { BoardView, flagAllMines } from "./board.js";
import { AWAY_GRACE_MS, ENDED, isPlayer, canPlay } from "./game_state.js";
import { playSound } from "./sounds.js";
import { getSettings } from "./settings.js";

/** @typedef {import("./game_state.js").GameState} GameState */
/** @typedef {import("./game_state.js").Game} Game */
/** @typedef {import("./game_state.js").Change} Change */
/** @typedef {import("./game_state.js").Controls} Controls */


// --- fair play (RULES.md, Fair play) ------------------------------------------------------------

// One sentence per reason a game does not rank (API.md: Game.unranked_reason).
/** @param {string | null} reason */
function unrankedText(reason) {
  switch (reason) {
    case "custom": return gettext("Not ranked: custom boards never rank.");
    case "paused": return gettext("Not ranked: the game was paused after its first tap.");
    case "review": return gettext("Not ranked for now: held for review by staff.");
    case "flagged": return gettext("Not ranked: the account is flagged.");
    case "race": return gettext("Not ranked: race games count in race ratings only.");
    case "guest": return gettext("Not ranked: games played as a guest never rank.");
    case "practice": return gettext("Not ranked: practice of a past day's daily.");
    default: return gettext("Not ranked.");
  }
}

/** What the page says about ranking: while the game runs (the note above the board) and
 * at the end (the result box). */
/** @param {GameState} s  @param {Game} g */
function fairText(s, g) {
  if (!g.ranked) return unrankedText(g.unranked_reason);
  if (ENDED.has(g.state) && g.daily) return gettext("Ranked on the day's board.");
  if (ENDED.has(g.state)) return g.state === "won" ? gettext("Ranked: this win counts on the leaderboards.") : gettext("This game was ranked.");
  // The automatic pause (page hidden past the grace period, a menu opened) cannot ask first:
  // the player is told now.
  if (isPlayer(s)) return fmt(gettext("Ranked game: pausing unranks it, and so does leaving this page for more than %(s)s s (a reload does not)."), { s: AWAY_GRACE_MS / 1000 });
  return gettext("Ranked game.");
}

/** @param {GameState} s  @param {Game} g */
function titleFor(s, g) {
  const size = `${g.width} × ${g.height}, ` + fmt(ngettext("%(n)s mine", "%(n)s mines", g.mines), { n: g.mines });
  if (g.daily) {
    // A daily (RULES.md, The daily challenge): every one is no-guess; its day says which.
    const what = g.unranked_reason === "practice" ? gettext("Daily practice · %(level)s") : gettext("Daily · %(level)s");
    const title = fmt(what, { level: levelLabel(g.level) });
    const sub = `${fmtDay(g.daily)} · ${size}`;
    if (isPlayer(s)) return [title, sub];
    return [fmt(gettext("%(player)s · %(level)s"), { player: playerLabel(g.player), level: title }), sub];
  }
  const level = modeLabel(g.level, g.no_guess);
  if (isPlayer(s)) return [level, size];
  return [fmt(gettext("%(player)s · %(level)s"), { player: playerLabel(g.player), level }), size];
}

/** @param {Game} g  @param {boolean} mine  the player is the one reading */
function lostText(g, mine) {
  const player = playerLabel(g.player);
  /** @type {Record<string, string>} */
  const reasons = {
    mine: mine ? gettext("Boom! You opened a mine.") : fmt(gettext("%(player)s opened a mine."), { player }),
    resigned: mine ? gettext("You gave up.") : fmt(gettext("%(player)s gave up."), { player }),
    abandoned: mine ? gettext("This game was abandoned.") : fmt(gettext("%(player)s abandoned this game."), { player }),
  };
  return reasons[g.end_reason || ""] || gettext("Game over.");
}

/**
 * The view of the page's state `s`. `bindInput` must be called before the first drawGame:
 * it gives the board its intentions (tap, flag, chord, canLongPress) and the result box its
 * New game.
 * @param {GameState} s
 */
export function createView(s) {
  /** @type {Controls | null} set once by bindInput (the controls), never changed after */
  let input = null;
  /** @type {string | null} what the status line says only holds while the game is "new" */
  let saidUntil = null;
  let toolsShown = ""; // which of the bar's buttons show (drawHud)
  /** @type {string | null} the game whose end was sounded (or was over when the page opened) */
  let endHeard = null;
  /** @type {{ id: string, line: Promise<{ text: string, best: boolean } | null> } | null} the win's rank line, asked once a game */
  let rankAsked = null;
  // The view draws only once the feed has read a Game, and the board is built with it.
  const game = () => /** @type {Game} */ (s.game);
  const board = () => /** @type {BoardView} */ (s.board);
  const controls = () => /** @type {Controls} */ (input);
  /** What holds the board's frame: its width is the room a board has. */
  const frameBox = () => /** @type {HTMLElement} */ ($("board-wrap").parentElement);

  /** Say `text` in the status line; `until`: "until-start" for a hint that only holds before
   * the first tap (drawHud takes it away then), "until-online" for "the server cannot be
   * reached", which goes as soon as the server answers again (reached).
   * @param {string} text  @param {string | null} [until] */
  function say(text, until = null) {
    $("status").textContent = text;
    saidUntil = until;
  }

  /** The server answered (a request, or a frame of the socket): a "cannot be reached" said
   * before no longer holds. */
  function reached() {
    if (saidUntil === "until-online") say("");
  }

  // --- clock -------------------------------------------------------------------------------

  function drawClock() {
    const c = s.clock;
    const ms = c.running ? c.base + (performance.now() - c.at) : c.base;
    $("clock").textContent = fmtClock(ms);
  }

  /** @param {number} ms  @param {boolean} running */
  function setClock(ms, running) {
    s.clock.base = ms;
    s.clock.at = performance.now();
    s.clock.running = running;
    drawClock();
  }
  setInterval(() => s.clock.running && drawClock(), 100);

  // --- counters, tools, notes ----------------------------------------------------------------

  function drawFairNote() {
    const g = game();
    const note = $("fair-note");
    const text = ENDED.has(g.state) ? "" : fairText(s, g); // at the end the result box says it
    if (note.textContent === text && note.hidden === !text) return;
    note.textContent = text;
    note.hidden = !text;
    note.className = "fair-note " + (g.ranked ? "fair-ranked" : "fair-unranked");
    note.dataset.reason = g.ranked ? "ranked" : g.unranked_reason || "unknown";
    if (s.board) sizeFrame(); // the note's height moves the frame's top
  }

  function drawHud() {
    const g = game();
    drawFairNote();
    if (saidUntil === "until-start" && g.state !== "new") say("");
    // The counter may go below zero (RULES.md, Flags); a won game has flagged every mine.
    $("mines-left").textContent = g.state === "won" ? "0" : String(g.mines_left);
    s.root.dataset.state = g.state;
    const paused = g.state === "paused";
    $("paused-cover").hidden = !paused;
    $("board").hidden = paused;
    const player = canPlay(s);
    // A race game cannot be paused (API.md, Races: 409 race_game), nor replaced by a new game.
    $("pause").hidden = !player || g.state === "new" || !!g.race;
    $("new-game").hidden = !!g.race || !!g.daily; // a daily: one attempt (its result box links its day)
    $("pause").textContent = paused ? gettext("Resume") : gettext("Pause");
    $("resign").hidden = !player || g.state === "new";
    $("resume").hidden = !player;
    // Nothing to flag on a hidden board, nor for a player who plays without flags (settings.js).
    $("flag-mode").hidden = !player || paused || getSettings().no_flags;
    $("keys-help").hidden = !isPlayer(s); // a watcher has no keys to learn
    $("live-badge").hidden = isPlayer(s) || ENDED.has(g.state);
    // Pause and Give up appear with the first tap: the frame's room changes with the bar.
    const tools = [$("pause").hidden, $("resign").hidden, $("flag-mode").hidden].join();
    if (tools !== toolsShown && s.board) sizeFrame();
    toolsShown = tools;
  }

  function drawFlagMode() {
    const b = $("flag-mode");
    b.setAttribute("aria-pressed", String(s.flagMode));
    b.classList.toggle("on", s.flagMode);
    s.root.classList.toggle("flag-mode", s.flagMode);
  }

  // --- zoom and the frame --------------------------------------------------------------------

  const zoomKey = () => "zoom:" + game().width + "x" + game().height;

  // The height the board frame may take: from its top to the bottom of the screen, so the
  // counters, the tools and the whole frame are seen at once (no page scroll fighting the
  // board's own scroll on a phone). On a very short screen, the screen under the top bar.
  function frameRoom() {
    const wrap = $("board-wrap");
    const top = wrap.getBoundingClientRect().top + window.scrollY;
    const bar = $$(".topbar")[0].offsetHeight;
    // On a phone the flag toggle floats over the bottom corner: the frame stops above it, so
    // no cell can hide under the toggle.
    const toggle = $("flag-mode");
    // (It is hidden while paused, so its height is then taken as the CSS gives it: 52 px.)
    const floating = canPlay(s) && getComputedStyle(toggle).position === "fixed";
    const below = window.innerHeight - top - 12 - (floating ? (toggle.offsetHeight || 52) + 12 : 0);
    return below >= 240 ? below : window.innerHeight - bar - 16;
  }

  function sizeFrame() {
    const wrap = $("board-wrap");
    wrap.style.maxHeight = Math.round(frameRoom()) + "px"; // a board that fits is not affected
  }
  window.addEventListener("resize", () => {
    if (!s.game) return;
    sizeFrame();
    if ($("board-wrap").dataset.zoom === "fit") zoomToFit(false);
  });

  function defaultZoom() {
    const saved = Number(localStorage.getItem(zoomKey()));
    if (saved) return saved;
    const coarse = window.matchMedia("(pointer: coarse)").matches;
    const pad = 16;
    const fitW = Math.floor((Math.max(280, frameBox().clientWidth) - pad) / game().width);
    if (coarse) return Math.max(30, Math.min(36, fitW)); // a finger needs ~30 px; big boards scroll
    // With a mouse, fit the whole board on the screen when the cells stay readable (15 px:
    // Marathon on a laptop), else scroll.
    const fitH = Math.floor((frameRoom() - pad) / game().height);
    return Math.max(15, Math.min(36, fitW, fitH));
  }

  /** @param {number} px  @param {number} [min] */
  function applyZoom(px, min = 12) {
    const size = Math.max(min, Math.min(56, px));
    $("board-wrap").style.setProperty("--cell", size + "px");
    return size;
  }

  /** @param {number} step  pixels more (or fewer) per cell */
  function zoom(step) {
    if (!s.game) return;
    const wrap = $("board-wrap");
    const current = parseFloat(wrap.style.getPropertyValue("--cell")) || 28;
    delete wrap.dataset.zoom;
    // Keep the cell at the centre of the frame where it is, so zooming never loses your place.
    const cx = (wrap.scrollLeft + wrap.clientWidth / 2) / current;
    const cy = (wrap.scrollTop + wrap.clientHeight / 2) / current;
    const size = applyZoom(current + step);
    wrap.scrollLeft = cx * size - wrap.clientWidth / 2;
    wrap.scrollTop = cy * size - wrap.clientHeight / 2;
    localStorage.setItem(zoomKey(), String(size));
  }

  // "Fit to screen": the biggest cell (down to 6 px) that shows the whole board in its frame,
  // with no scroll in the frame nor in the page. Remembered per board size as "fit", so the
  // board fits again on the next visit and when the window is resized.
  const FIT_MIN = 6;
  function fitSize() {
    const g = game();
    const frame = 2 * 8 + 2; // the frame's padding, and a pixel of rounding each way
    const room = frameBox().clientWidth;
    const fitW = Math.floor((room - frame) / g.width);
    const fitH = Math.floor((frameRoom() - frame) / g.height);
    return Math.max(FIT_MIN, Math.min(56, fitW, fitH));
  }

  function zoomToFit(remember = true) {
    if (!s.game || !s.board) return;
    const wrap = $("board-wrap");
    sizeFrame();
    let size = applyZoom(fitSize(), FIT_MIN);
    // The arithmetic above assumes the layout; the layout has the last word.
    while (size > FIT_MIN && (wrap.scrollWidth > wrap.clientWidth || wrap.scrollHeight > wrap.clientHeight || document.documentElement.scrollWidth > window.innerWidth)) size = applyZoom(size - 1, FIT_MIN);
    wrap.scrollLeft = 0;
    wrap.scrollTop = 0;
    if (remember) localStorage.setItem(zoomKey(), "fit");
    wrap.dataset.zoom = "fit";
  }

  // --- the board and the whole game ----------------------------------------------------------

  function buildBoard() {
    const g = game();
    s.board = new BoardView($("board"), {
      width: g.width,
      height: g.height,
      interactive: true,
      onTap: controls().tap,
      onFlag: controls().flag,
      onChord: controls().chord,
      canLongPress: controls().canLongPress,
      canPress: controls().canPress,
      longPressMs: controls().longPressMs,
      clickChords: controls().clickChords,
    });
    $("board-wrap").classList.toggle("board-big", g.width * g.height > 900);
    sizeFrame();
    if (localStorage.getItem(zoomKey()) === "fit") zoomToFit(false);
    else applyZoom(defaultZoom());
  }

  /** Draw the whole of s.game (a full Game: on load, after a gap, at the end). Only the cells
   * that differ are touched. `first`: the page had no game before. */
  /** @param {boolean} first */
  function drawGame(first) {
    const g = game();
    drawFairNote(); // before the board is built: its first zoom fits the room under the note
    if (first || !s.board || board().width !== g.width || board().height !== g.height) buildBoard();
    if (first && ENDED.has(g.state)) endHeard = g.id; // an old end is not sounded
    if (!first) sound([]);
    if (g.board) board().setRows(g.state === "won" ? flagAllMines(g.board) : g.board);
    const [title, sub] = titleFor(s, g);
    $("game-title").textContent = title;
    $("game-sub").textContent = sub;
    document.title = title + " · Démineur";
    setClock(g.elapsed_ms, g.state === "playing");
    drawHud();
    if (first) sizeFrame(); // now that the toolbar shows what this visitor may use
    if (ENDED.has(g.state)) showResult();
    else $("result").hidden = true;
  }

  /** Draw a step the feed applied to s.game: the changed cells, the clock, the counters. */
  /** @param {Change[]} changes */
  function drawStep(changes) {
    sound(changes);
    board().apply(changes);
    setClock(game().elapsed_ms, game().state === "playing");
    drawHud();
  }

  // Short sounds for the player's own moves (settings: sounds, off by default): a flag, a
  // cell opened, the win, the loss. Watchers hear nothing.
  /** @param {Change[]} changes */
  function sound(changes) {
    if (!isPlayer(s) || !s.board) return;
    const g = game();
    if (ENDED.has(g.state)) {
      if (endHeard !== g.id) playSound(g.state === "won" ? "win" : "loss");
      endHeard = g.id;
      return;
    }
    let flagged = false;
    let opened = false;
    for (const ch of changes) {
      if (ch.v === "F" || (ch.v === "#" && board().get(ch.x, ch.y) === "F")) flagged = true;
      else if (ch.v !== "#") opened = true;
    }
    if (opened) playSound("open");
    else if (flagged) playSound("flag");
  }

  /** After the player's ranked win: whether it is a personal best, and where the player
   * ranks on the level's times board (GET /api/leaderboards/{level}/times?around=me). */
  /** @param {Game} g  @param {HTMLElement} box */
  async function showRank(g, box) {
    // The result is drawn again when a second message carries the same end (the move's answer,
    // the socket's end): the board is asked once per game, and each drawing shows its line.
    if (!rankAsked || rankAsked.id !== g.id) rankAsked = { id: g.id, line: rankLine(g) };
    const line = await rankAsked.line;
    if (!line || game().id !== g.id) return;
    box.querySelector("#rank-result")?.remove();
    box.querySelector("#fair-result")?.after(el("p", { class: "rank-result", id: "rank-result", "data-best": String(line.best), text: line.text }));
  }

  /** The line a ranked win earns: a personal best, or where the best time stays; null when the
   * board is out of reach, or has no row for the player (a bot's win ranks on the bot boards; a
   * held win waits for review).
   * @param {Game} g  @returns {Promise<{ text: string, best: boolean } | null>} */
  async function rankLine(g) {
    let me = null;
    try {
      const mode = g.no_guess ? "no_guess" : "classic"; // a no-guess win ranks on its own boards
      me = (await api("GET", `/api/leaderboards/${g.level}/times?around=me&page_size=1&mode=${mode}`)).me;
    } catch (err) {
      return null; // the result stands without it
    }
    if (!me) return null;
    const level = modeLabel(g.level, g.no_guess);
    const best = me.game_id === g.id;
    const text = best
      ? fmt(gettext("A personal best! #%(rank)s on the %(level)s times board."), { rank: me.rank, level })
      : fmt(gettext("Your best time stays %(time)s, #%(rank)s on the %(level)s times board."), { time: fmtTime(me.time_ms), rank: me.rank, level });
    return { text, best };
  }

  /** A daily game's end (API.md, GET /api/daily/{date}): the player's share line with its Copy
   * button, and the replay once the day is over. */
  /** @param {Game} g  @param {HTMLElement} box */
  async function showDaily(g, box) {
    const date = /** @type {string} */ (g.daily);
    let day;
    try {
      day = await readDay(date);
    } catch (err) {
      return; // the day is out of reach: the result stands without it
    }
    if (game().id !== g.id) return;
    const level = day.levels.find((l) => l.level === g.level);
    const actions = box.querySelector(".result-actions");
    if (day.over && actions && !box.querySelector(".daily-replay")) actions.prepend(el("a", { class: "btn daily-replay", href: `/games/${g.id}/replay`, text: gettext("Replay") }));
    // The share line is the day's ranked attempt's, not a practice's.
    if (isPlayer(s) && level && level.share && level.game && level.game.id === g.id && !box.querySelector(".share")) {
      box.querySelector("#fair-result")?.after(shareBox(level));
    }
  }

  function showResult() {
    const g = game();
    const rs = g.result_stats || {};
    const won = g.state === "won";
    let headline;
    // One rule for a time on the game page: the clock's (tenths, cut, not rounded), so the
    // win message says what the stopped clock shows. The leaderboards give the milliseconds.
    const time = fmtClock(g.elapsed_ms) + "\u00a0s";
    if (isPlayer(s)) headline = won ? fmt(gettext("You won in %(time)s!"), { time }) : lostText(g, true);
    else headline = won ? fmt(gettext("%(player)s won in %(time)s."), { player: playerLabel(g.player), time }) : lostText(g, false);
    const stats = [];
    if (rs.bbbv !== undefined && rs.bbbv !== null) stats.push(fmt(gettext("3BV %(n)s"), { n: rs.bbbv }));
    if (rs.bbbv_per_s) stats.push(fmt(gettext("%(n)s 3BV/s"), { n: fmtNum(rs.bbbv_per_s, 2) }));
    if (rs.efficiency) stats.push(fmt(gettext("efficiency %(n)s"), { n: Math.round(rs.efficiency * 100) + " %" }));
    // A race game's 3BV is the race's layout, so it is told once the race has ended (API.md,
    // result_stats); until then the box says so rather than showing empty figures.
    if (!g.result_stats && g.race) stats.push(gettext("Your 3BV, 3BV/s and efficiency are shown when the race ends."));
    const box = $("result");
    box.replaceChildren(
      el("p", { class: "result-head " + (won ? "win" : "loss"), text: headline }),
      ...(stats.length ? [el("p", { class: "muted", text: stats.join(" · ") })] : []),
      el("p", { class: "fair-result " + (g.ranked ? "fair-ranked" : "fair-unranked"), id: "fair-result", "data-reason": g.ranked ? "ranked" : g.unranked_reason || "unknown", text: fairText(s, g) }),
      el(
        "p",
        { class: "result-actions" },
        // A daily game's replay waits for its day's end (showDaily adds it then).
        g.daily ? null : el("a", { class: "btn", href: `/games/${g.id}/replay`, text: gettext("Replay") }),
        g.daily ? el("a", { class: "btn", href: `/daily/${g.daily}?level=${g.level}`, text: gettext("The day's board") }) : null,
        g.ranked && !g.daily ? el("a", { class: "btn", href: `/leaderboards/${g.level}${g.no_guess ? "?mode=no_guess" : ""}`, text: gettext("Leaderboard") }) : null,
        isPlayer(s) && !g.race && !g.daily ? el("button", { class: "btn btn-primary", type: "button", onclick: controls().newGame, text: gettext("New game") }) : null,
      ),
    );
    box.hidden = false;
    box.className = "result " + (won ? "result-win" : "result-loss");
    if (g.daily) showDaily(g, box);
    else if (won && g.ranked && isPlayer(s)) showRank(g, box);
    say(headline);
    // A big board fills the screen: bring the result (and New game) into sight below it.
    const r = box.getBoundingClientRect();
    if (r.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
  }

  function notFound() {
    $("game-title").textContent = gettext("This game does not exist (a game never tapped is discarded).");
    $("board-wrap").hidden = true;
  }

  return {
    /** @param {Controls} controls */
    bindInput(controls) {
      input = controls;
    },
    say,
    reached,
    drawGame,
    drawStep,
    drawFlagMode,
    zoom,
    zoomToFit,
    notFound,
  };
}
