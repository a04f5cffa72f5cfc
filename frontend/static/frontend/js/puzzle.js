// @ts-check
// One puzzle page, three ways in (API.md and RULES.md, Puzzles; docs/FRONTEND.md, The puzzle
// pages): `/puzzles` trains on rated puzzles near the player's puzzle rating, with a theme to
// filter by (GET /api/puzzles/next); `/puzzles/daily` is the puzzle of the day, the same for
// everyone; `/puzzles/<id>` one puzzle. The board, the flags and the openings are
// puzzle_common.js's; this module loads the puzzle, says what each answer means and, at the
// end, shows the solution, the themes, the rating's move and the game the puzzle came from.
import { api, ApiError, gettext, fmt, me, messageOf, playAsGuest } from "./api.js";
import { $, byId, el } from "./dom.js";
import { cellPlace } from "./board.js";
import { levelLabel } from "./constants.js";
import { fmtDay } from "./daily_common.js";
import { createPuzzleBoard, endHeadline, endLines, isOver, showCurrentTab, sizeText, sourceLink } from "./puzzle_common.js";

/** @typedef {import("./puzzle_common.js").Puzzle} Puzzle */
/** @typedef {import("./puzzle_common.js").OpenAnswer} OpenAnswer */

const root = $("puzzle");
const mode = root.dataset.mode || "next"; // next | daily | one
const themeSelect = /** @type {HTMLSelectElement | null} */ (byId("theme"));
let theme = themeSelect ? themeSelect.value : "";
/** @type {Puzzle | null} */
let shown = null;
let loads = 0; // only the newest load is drawn (a quick change of theme)

const panel = createPuzzleBoard({ root, onAnswer, onRefused, onNext: next });
const say = panel.say;

// --- loading --------------------------------------------------------------------------------------

function address() {
  if (mode === "daily") return "/api/puzzles/daily";
  if (mode === "one") return `/api/puzzles/${encodeURIComponent(root.dataset.puzzleId || "")}`;
  return "/api/puzzles/next" + (theme ? `?theme=${encodeURIComponent(theme)}` : "");
}

/** Why there is no puzzle to show. @param {unknown} err */
function missingText(err) {
  if (!(err instanceof ApiError) || err.status !== 404) return messageOf(err);
  if (mode === "daily") return gettext("There is no puzzle of the day yet.");
  if (mode === "one") return gettext("No puzzle has this address. It may be mistyped.");
  return theme ? gettext("No puzzle with this theme is left for you to try.") : gettext("No puzzle is left for you to try. Come back when more games have been played.");
}

async function load() {
  const mine = ++loads;
  root.dataset.state = "loading";
  $("result").hidden = true;
  say("");
  /** @type {Puzzle} */
  let p;
  try {
    p = await api("GET", address());
  } catch (err) {
    if (mine !== loads) return;
    // The training page needs a player (API.md: anyone signed in, guests too).
    if (err instanceof ApiError && err.status === 401 && mode === "next") return showStart();
    root.dataset.state = "none";
    $("board-wrap").hidden = true;
    $("puzzle-sub").textContent = missingText(err);
    return;
  }
  if (mine !== loads) return;
  $("board-wrap").hidden = false;
  draw(p);
}

/** A visitor on the training page: what puzzles are, and Start (as a guest) or Sign in. */
function showStart() {
  root.dataset.state = "visitor";
  $("board-wrap").hidden = true;
  $("puzzle-sub").textContent = "";
  $("puzzle-start").hidden = false;
}

/** Draw `p` (a new puzzle, the same one's newer answer, or `fresh`: a new attempt at it).
 * @param {Puzzle} p  @param {boolean} [fresh] */
function draw(p, fresh = false) {
  // The attempt ended with this answer: the player's rating has moved.
  const justEnded = shown !== null && shown.id === p.id && !isOver(shown) && isOver(p);
  shown = p;
  panel.show(p, fresh);
  root.dataset.state = p.attempt ? p.attempt.state : "playing";
  $("puzzle-title").textContent = p.daily && mode === "daily" ? fmt(gettext("Puzzle of the day · %(date)s"), { date: fmtDay(p.daily) }) : gettext("Puzzle");
  $("puzzle-sub").textContent = `${levelLabel(p.level)} · ${sizeText(p)}`;
  if (isOver(p)) {
    showResult(p);
    if (justEnded && p.attempt && p.attempt.rated) readRating();
  } else {
    $("result").hidden = true;
  }
}

// --- answers --------------------------------------------------------------------------------------

/** @param {OpenAnswer} answer  @param {{ x: number, y: number }} cell */
function onAnswer(answer, cell) {
  draw(answer.puzzle);
  if (!isOver(answer.puzzle)) say(fmt(gettext("Correct: %(place)s is safe."), { place: cellPlace(cell.x, cell.y) }));
}

/** @param {unknown} err */
async function onRefused(err) {
  // The attempt ended elsewhere (another tab): the puzzle as it is now.
  if (err instanceof ApiError && err.code === "attempt_over" && shown) {
    const mine = ++loads;
    try {
      const now = await api("GET", `/api/puzzles/${shown.id}`);
      if (mine === loads) draw(now); // else another puzzle was asked for meanwhile
      return;
    } catch (again) {
      err = again;
    }
  }
  say(messageOf(err));
}

function showResult(/** @type {Puzzle} */ p) {
  const box = $("result");
  const nextButton = mode === "next"
    ? el("button", { type: "button", class: "btn btn-primary", id: "next-puzzle", onclick: next, text: gettext("Next puzzle") })
    : el("a", { class: "btn btn-primary", id: "next-puzzle", href: "/puzzles", text: gettext("Next puzzle") });
  box.replaceChildren(
    ...endLines(p),
    el(
      "p",
      { class: "result-actions" },
      sourceLink(p),
      el("button", { type: "button", class: "btn", id: "try-again", onclick: retry, text: gettext("Try again") }),
      nextButton,
    ),
  );
  box.hidden = false;
  box.dataset.state = p.attempt ? p.attempt.state : "";
  box.className = "result " + (p.attempt && p.attempt.state === "solved" ? "result-win" : "result-loss");
  say(endHeadline(p));
  const r = box.getBoundingClientRect();
  if (r.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
}

/** The next rated puzzle (the training page), else the training page. */
async function next() {
  if (mode !== "next") {
    location.href = "/puzzles";
    return;
  }
  const fromResult = $("result").contains(document.activeElement);
  await load();
  if (fromResult) panel.focus(); // the button is gone: the board is the next thing to use
}

/** A new attempt at the same puzzle: practice (API.md, POST /api/puzzles/{id}/retry). */
async function retry() {
  if (!shown) return;
  try {
    await playAsGuest();
    const mine = ++loads;
    const again = await api("POST", `/api/puzzles/${shown.id}/retry`);
    if (mine !== loads) return; // another puzzle was asked for meanwhile
    draw(again, true);
    panel.focus();
    say(gettext("Practice: a puzzle is rated at its first attempt only."));
  } catch (err) {
    say(messageOf(err));
  }
}

// --- the player's puzzle rating ---------------------------------------------------------------------

async function readRating() {
  const box = byId("my-rating");
  if (!box || !me()) return;
  try {
    const dash = await api("GET", "/api/puzzles/dashboard");
    $("my-rating-value").textContent = String(dash.rating);
    $("my-rating-provisional").hidden = !dash.provisional;
    box.hidden = false;
  } catch (err) {
    box.hidden = true; // the rating is out of reach: the puzzle goes on without it
  }
}

// --- the page ----------------------------------------------------------------------------------------

if (themeSelect) {
  themeSelect.addEventListener("change", () => {
    theme = themeSelect.value;
    const q = new URLSearchParams(location.search);
    if (theme) q.set("theme", theme);
    else q.delete("theme");
    history.replaceState(null, "", location.pathname + (q.toString() ? `?${q}` : ""));
    load();
  });
}
const start = byId("start-solving");
if (start) {
  start.addEventListener("click", async () => {
    try {
      await playAsGuest(); // a visitor plays at once, as a guest (docs/GUESTS.md)
    } catch (err) {
      return say(messageOf(err));
    }
    $("puzzle-start").hidden = true;
    await load();
    readRating();
    panel.focus();
  });
}

showCurrentTab();
load();
readRating();
