// @ts-check
// What the puzzle pages share (RULES.md and API.md, Puzzles; docs/FRONTEND.md, The puzzle
// pages): the types of the API's answers, the themes' words, one puzzle on screen (the board
// drawn as on the game page, local flags, openings sent one at a time, the end drawn with its
// solution), the result box's words and the puzzle boards' rows. The training page
// (puzzle.js), the streak and the storm (puzzle_run.js) and the dashboard
// (puzzle_dashboard.js) use it.
//
// The server decides everything: the page sends an opening ({x, y}) and draws the answer.
// Flags are the solver's own notes (RULES.md, Puzzles: free and never checked): they live on
// this page only and never travel.
import { api, gettext, ngettext, fmt, me, playAsGuest, fmtDate } from "./api.js";
import { $, el } from "./dom.js";
import { BoardView, cellPlace } from "./board.js";
import { SITE } from "./constants.js";
import { getSettings } from "./settings.js";
import { playSound } from "./sounds.js";

/** @typedef {{ x: number, y: number, number: number }} OpenedCell */
/**
 * The caller's attempt at a puzzle (API.md, Puzzles).
 * @typedef {object} Attempt
 * @property {"playing" | "solved" | "failed"} state
 * @property {string} mode  rated, daily, practice, streak or storm
 * @property {boolean} rated  it moved the player's rating
 * @property {OpenedCell[]} opened
 * @property {{ x: number, y: number, mine: boolean } | null} wrong  the opening that failed it, once ended
 * @property {number | null} rating_before
 * @property {number | null} rating_after
 * @property {string | null} started_at
 * @property {string | null} ended_at
 */
/**
 * A puzzle (API.md, Puzzles): `board` in the Game's characters (`#` closed, `0`-`8`), no
 * flags; `solution`, `depth` and `source_game` are null until the caller's attempt has ended.
 * @typedef {object} Puzzle
 * @property {string} id
 * @property {string} level
 * @property {number} width
 * @property {number} height
 * @property {number} mines_left
 * @property {string[]} board
 * @property {number} rating
 * @property {boolean} provisional
 * @property {number} plays
 * @property {string[]} themes
 * @property {string | null} daily
 * @property {Attempt | null} attempt
 * @property {{ x: number, y: number }[] | null} solution
 * @property {number | null} depth
 * @property {string | null} source_game
 */
/**
 * A streak or a storm (docs/PUZZLES.md; GET/POST /api/puzzles/streak|storm).
 * @typedef {object} Run
 * @property {string} id
 * @property {"streak" | "storm"} kind
 * @property {"running" | "ended"} state
 * @property {number} score
 * @property {number} failures
 * @property {number} best  the player's best of this kind
 * @property {string | null} started_at  the first opening (a storm's clock starts there)
 * @property {string | null} ended_at
 * @property {number | null} time_left_ms  a running storm's time left, by the server's clock
 * @property {number | null} penalty_ms  what a failed puzzle costs a storm
 * @property {Puzzle | null} puzzle  the one in play, null once the run has ended
 * @property {{ id: string, state: string }[]} puzzles  the run's puzzles played out
 */
/** The answer to an opening. @typedef {{ correct: boolean, puzzle: Puzzle, run: Run | null }} OpenAnswer */

/** The puzzles' constants (constants.js `PuzzleConstants`). */
export const PUZZLES = SITE.puzzles;

/** A theme's words in the page's language, as the server says them. @param {string} name */
export function themeLabel(name) {
  const found = PUZZLES.themes.find((t) => t.name === name);
  return found ? found.label : name;
}

/** On a phone the pages' tabs are one row that scrolls inside itself: the current one in sight. */
export function showCurrentTab() {
  const current = document.querySelector(".puzzle-nav [aria-current]");
  const nav = current && current.parentElement;
  if (current instanceof HTMLElement && nav && nav.scrollWidth > nav.clientWidth) {
    nav.scrollLeft = current.offsetLeft - (nav.clientWidth - current.offsetWidth) / 2;
  }
}

/** @param {Puzzle} p */
export const isOver = (p) => !!p.attempt && p.attempt.state !== "playing";

/** "1 500" with its provisional mark, as words for a line of text.
 * @param {number} rating  @param {boolean} provisional */
export const ratingWords = (rating, provisional) => (provisional ? fmt(gettext("%(rating)s (provisional)"), { rating }) : String(rating));

/** The puzzle's size line: level, size and the mines left. @param {Puzzle} p */
export function sizeText(p) {
  return `${p.width} × ${p.height} · ` + fmt(ngettext("%(n)s mine left", "%(n)s mines left", p.mines_left), { n: p.mines_left });
}

/**
 * One puzzle on screen (the panel of _puzzle_panel.html). `show(p)` draws a Puzzle (a new one,
 * or the same one's newer answer); a tap on a closed cell becomes an opening, sent one at a
 * time in the order tapped, and each answer goes to `onAnswer`, which draws what it means.
 * @param {object} opts
 * @param {HTMLElement} opts.root  the page's section (its data-puzzle-id: the puzzle shown)
 * @param {(answer: OpenAnswer, cell: { x: number, y: number }) => void} opts.onAnswer
 * @param {(err: unknown) => void} opts.onRefused
 * @param {() => void} [opts.onNext]  N, once the puzzle has ended
 */
export function createPuzzleBoard(opts) {
  /** @type {Puzzle | null} */
  let puzzle = null;
  /** @type {BoardView | null} */
  let board = null;
  /** @type {Set<number>} the solver's flags, by cell index: never sent */
  const flags = new Set();
  let flagMode = false;
  let generation = 0; // a new puzzle (or attempt) drops the openings queued for the last one
  /** @type {Promise<void>} */
  let queue = Promise.resolve();

  /** @param {string} text */
  const say = (text) => {
    $("status").textContent = text;
  };
  const over = () => !puzzle || isOver(puzzle);
  const current = () => /** @type {Puzzle} */ (puzzle);
  const view = () => /** @type {BoardView} */ (board);

  // --- the board ------------------------------------------------------------------------------

  function build() {
    const p = current();
    // A new element each time: a BoardView listens on its root, and an old one's listeners
    // must not answer the new puzzle's cells.
    const fresh = el("div", { id: "board" });
    $("board").replaceWith(fresh);
    board = new BoardView(fresh, {
      width: p.width,
      height: p.height,
      interactive: true,
      onTap: tap,
      onFlag: flag,
      canLongPress: () => !over(),
      canPress: () => !over(),
      longPressMs: () => getSettings().long_press_ms,
      clickChords: () => false, // a puzzle opens cells one at a time: no chord
    });
    fit();
  }

  // As on the game page: a finger needs about 30 px a cell, a mouse reads 16; a board wider
  // than its frame scrolls inside it, never the page.
  function fit() {
    if (!puzzle) return;
    const wrap = $("board-wrap");
    const room = (wrap.parentElement || wrap).clientWidth;
    const coarse = window.matchMedia("(pointer: coarse)").matches;
    const size = Math.max(coarse ? 28 : 16, Math.min(36, Math.floor((room - 18) / current().width)));
    wrap.style.setProperty("--cell", size + "px");
    wrap.classList.toggle("board-big", current().width * current().height > 900);
  }
  window.addEventListener("resize", fit);

  function draw() {
    const p = current();
    const b = view();
    for (let y = 0; y < p.height; y++) {
      for (let x = 0; x < p.width; x++) {
        const i = y * p.width + x;
        let v = p.board[y][x];
        if (v !== "#") flags.delete(i); // opened since: its flag goes
        else if (flags.has(i)) v = "F";
        b.set(x, y, v);
      }
    }
    if (isOver(p)) drawEnd();
    drawCounter();
    $("flag-mode").hidden = isOver(p); // nothing left to flag (and it would float over the result)
    opts.root.dataset.puzzleId = p.id;
  }

  function drawCounter() {
    // As in a game: the mines minus the flags placed (it may go below zero).
    $("mines-left").textContent = String(current().mines_left - flags.size);
  }

  // The end: the cells the numbers proved safe at the start and still closed are framed (the
  // solution), the opening that failed is shown for what it was (a mine, or a cell the numbers
  // did not prove), and each says so to a screen reader.
  function drawEnd() {
    const p = current();
    const b = view();
    const w = p.width;
    const a = /** @type {Attempt} */ (p.attempt);
    /** @type {Record<number, string>} */
    const marks = {};
    if (a.wrong && a.wrong.mine) b.set(a.wrong.x, a.wrong.y, "X");
    const safe = (p.solution || []).filter((c) => "#F".includes(b.get(c.x, c.y)));
    for (const c of safe) marks[c.y * w + c.x] = "m-safe";
    if (a.wrong && !a.wrong.mine) marks[a.wrong.y * w + a.wrong.x] = "m-wrong";
    b.setMarks(marks);
    const label = (/** @type {string} */ state, /** @type {number} */ x, /** @type {number} */ y) =>
      b.cells[y * w + x].setAttribute("aria-label", fmt(gettext("%(state)s, column %(x)s, row %(y)s"), { state, x: x + 1, y: y + 1 }));
    for (const c of safe) label(gettext("safe: the numbers proved it"), c.x, c.y);
    if (a.wrong && !a.wrong.mine) label(gettext("not proved safe: the opening that failed"), a.wrong.x, a.wrong.y);
  }

  /** Draw `p`: a new puzzle (or `fresh`: a new attempt at the same one) builds the board
   * again; a newer answer of the same attempt redraws only the cells that changed.
   * @param {Puzzle} p  @param {boolean} [fresh] */
  function show(p, fresh = false) {
    const rebuild = !puzzle || !board || fresh || p.id !== puzzle.id || p.width !== puzzle.width || p.height !== puzzle.height;
    puzzle = p;
    if (rebuild) {
      generation++;
      flags.clear();
      build();
    }
    draw();
  }

  // --- input -----------------------------------------------------------------------------------

  /** @param {number} x  @param {number} y */
  function toggleFlag(x, y) {
    const i = y * current().width + x;
    if (flags.has(i)) flags.delete(i);
    else flags.add(i);
    view().set(x, y, flags.has(i) ? "F" : "#");
    drawCounter();
    playSound("flag");
  }

  /** @param {number} x  @param {number} y */
  function tap(x, y) {
    if (over()) return;
    const v = view().get(x, y);
    if (flagMode && (v === "#" || v === "F")) return toggleFlag(x, y);
    if (v === "F") return say(gettext("A flagged cell does not open: remove the flag first."));
    if (v === "#") send(x, y);
  }

  /** Right-click, a long press or F: a flag of the solver's own. @param {number} x  @param {number} y */
  function flag(x, y) {
    if (over()) return;
    const v = view().get(x, y);
    if (v === "#" || v === "F") toggleFlag(x, y);
  }

  /** Open (x, y): queued behind the openings not answered yet, so that each is sent after the
   * answer to the one before (the server takes them in that order anyway).
   * @param {number} x  @param {number} y */
  function send(x, y) {
    const gen = generation;
    const id = current().id;
    view().cells[y * current().width + x].classList.add("c-pressed"); // sent: it looks pressed until answered
    queue = queue.then(async () => {
      if (gen !== generation || over() || view().get(x, y) !== "#") return;
      opts.root.setAttribute("aria-busy", "true");
      try {
        await playAsGuest(); // a visitor solves at once, as a guest (docs/GUESTS.md)
        /** @type {OpenAnswer} */
        const answer = await api("POST", `/api/puzzles/${id}/open`, { x, y });
        if (gen !== generation) return;
        const solved = answer.puzzle.attempt && answer.puzzle.attempt.state === "solved";
        playSound(!answer.correct ? "loss" : solved ? "win" : "open");
        opts.onAnswer(answer, { x, y });
      } catch (err) {
        if (gen === generation) opts.onRefused(err);
      } finally {
        opts.root.removeAttribute("aria-busy");
        if (gen === generation && board) view().cells[y * current().width + x].classList.remove("c-pressed");
      }
    });
  }

  /** @param {boolean} on */
  function setFlagMode(on) {
    flagMode = on;
    const b = $("flag-mode");
    b.setAttribute("aria-pressed", String(on));
    b.classList.toggle("on", on);
    opts.root.classList.toggle("flag-mode", on);
    say(on ? gettext("Flag mode: each tap places or removes a flag.") : gettext("Number mode: each tap opens a cell."));
  }
  $("flag-mode").addEventListener("click", () => setFlagMode(!flagMode));

  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const tag = e.target instanceof Element ? e.target.tagName.toLowerCase() : "";
    if (["input", "select", "textarea"].includes(tag)) return;
    const key = e.key.toLowerCase();
    if (key === "m" && puzzle && !over()) setFlagMode(!flagMode);
    else if (key === "n" && puzzle && over() && opts.onNext) opts.onNext();
  });

  return {
    show,
    say,
    /** The board's focus, back on a cell (after a new puzzle from a button that is gone). */
    focus() {
      if (board) board.setFocus(board.focusIndex);
    },
  };
}

// --- the words of an end ------------------------------------------------------------------------

/** The headline of an ended attempt. @param {Puzzle} p */
export function endHeadline(p) {
  const a = /** @type {Attempt} */ (p.attempt);
  if (a.state === "solved") return gettext("Solved!");
  if (a.wrong && a.wrong.mine) return gettext("Failed: that cell was a mine.");
  if (a.wrong) return gettext("Failed: the numbers did not prove that cell safe.");
  return gettext("Failed: the time ran out.");
}

/** The cells of the solution still closed, said the way the cells are labelled.
 * @param {Puzzle} p */
export function solutionText(p) {
  const closed = (p.solution || []).filter((c) => p.board[c.y][c.x] === "#");
  if (!closed.length) return "";
  return fmt(gettext("The cells the numbers proved safe are framed in green: %(cells)s."), { cells: closed.map((c) => cellPlace(c.x, c.y)).join("; ") });
}

/** What the attempt did to the player's rating. @param {Attempt} a */
export function ratingChangeText(a) {
  if (a.rated && a.rating_before !== null && a.rating_after !== null) {
    const d = a.rating_after - a.rating_before;
    const change = (d >= 0 ? "+" : "−") + Math.abs(d);
    return fmt(gettext("Your puzzle rating: %(before)s → %(after)s (%(change)s)."), { before: a.rating_before, after: a.rating_after, change });
  }
  if (a.mode === "practice") return gettext("Practice: a puzzle is rated at its first attempt only.");
  if (a.mode === "streak" || a.mode === "storm") return "";
  return gettext("Not rated.");
}

/** The lines of an ended attempt's result box (without its buttons): the headline, the
 * solution, the rating, the themes and the puzzle's own rating (shown only now: RULES.md,
 * Puzzles, Nothing leaks), the game it came from.
 * @param {Puzzle} p */
export function endLines(p) {
  const a = /** @type {Attempt} */ (p.attempt);
  const solved = a.state === "solved";
  const lines = [el("p", { class: "result-head " + (solved ? "win" : "loss"), id: "result-head", text: endHeadline(p) })];
  const solution = solved ? "" : solutionText(p);
  if (solution) lines.push(el("p", { class: "puzzle-solution", text: solution }));
  const rating = ratingChangeText(a);
  if (rating) lines.push(el("p", { class: "puzzle-rating-change", text: rating }));
  lines.push(
    el(
      "p",
      { class: "puzzle-themes" },
      fmt(ngettext("Theme: %(themes)s", "Themes: %(themes)s", p.themes.length), { themes: p.themes.map(themeLabel).join(", ") }),
      " · ",
      fmt(gettext("puzzle rating %(rating)s"), { rating: ratingWords(p.rating, p.provisional) }),
    ),
  );
  return lines;
}

/** The link to the replay of the game the puzzle came from, once the attempt has ended.
 * @param {Puzzle} p */
export const sourceLink = (p) => (p.source_game ? el("a", { class: "btn", id: "source-game", href: `/games/${p.source_game}/replay`, text: gettext("The game it came from") }) : null);

// --- the puzzle boards (GET /api/leaderboards/puzzles[/streak|/storm]) ---------------------------

/** @typedef {"rating" | "streak" | "storm"} BoardKind */
/** @typedef {{ rank: number, player: string, rating?: number, solved?: number, provisional?: boolean, best_streak?: number, score?: number, achieved_at?: string | null }} PuzzleRow */
/** @typedef {{ count: number, next: string | null, previous: string | null, results: PuzzleRow[], me: PuzzleRow | null }} PuzzlePage */

/** A page of a puzzle board.
 * @param {BoardKind} kind  @param {{ page?: number, pageSize: number, players?: string, period?: string }} ask
 * @returns {Promise<PuzzlePage>} */
export function readBoard(kind, ask) {
  const q = new URLSearchParams({ page: String(ask.page || 1), page_size: String(ask.pageSize) });
  if (ask.players === "bots") q.set("players", "bots");
  if (kind === "storm" && ask.period === "day") q.set("period", "day");
  return api("GET", `/api/leaderboards/puzzles${kind === "rating" ? "" : "/" + kind}?${q}`);
}

/** The heading row of a board. @param {BoardKind} kind */
export function boardHead(kind) {
  const cols = [gettext("Rank"), gettext("Player")];
  if (kind === "rating") cols.push(gettext("Rating"), gettext("Solved"));
  else cols.push(kind === "streak" ? gettext("Best streak") : gettext("Score"), gettext("When"));
  return el("tr", {}, ...cols.map((c, i) => el("th", { scope: "col", class: i === 0 || i === 2 || (kind === "rating" && i === 3) ? "num" : null, text: c })));
}

/** One row of a board; the player's own is marked. @param {BoardKind} kind  @param {PuzzleRow} r */
export function boardRow(kind, r) {
  const mine = r.player === me();
  const cells = [el("td", { class: "num", text: String(r.rank) }), el("td", {}, el("a", { href: `/players/${encodeURIComponent(r.player)}`, text: r.player }))];
  if (kind === "rating") {
    const provisional = r.provisional ? el("span", { class: "badge badge-unranked", text: gettext("provisional") }) : null;
    cells.push(el("td", { class: "num" }, String(r.rating), provisional), el("td", { class: "num", text: String(r.solved) }));
  } else {
    const value = kind === "streak" ? r.best_streak : r.score;
    cells.push(el("td", { class: "num", text: String(value) }), el("td", { text: fmtDate(r.achieved_at, false), title: fmtDate(r.achieved_at) }));
  }
  return el("tr", { class: mine ? "me" : null, "aria-current": mine ? "true" : null }, ...cells);
}

/** The body rows of a page: its rows, then the player's own below a gap when it is elsewhere.
 * @param {BoardKind} kind  @param {PuzzlePage} page */
export function boardRows(kind, page) {
  const rows = page.results.map((r) => boardRow(kind, r));
  if (page.me && !page.results.some((r) => r.player === page.me?.player)) {
    rows.push(el("tr", { class: "gap", "aria-hidden": "true" }, el("td", { colspan: "4", text: "⋯" })), boardRow(kind, page.me));
  }
  return rows;
}
