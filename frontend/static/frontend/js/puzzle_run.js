// @ts-check
// A puzzle streak or a puzzle storm (RULES.md, Puzzles, Modes; docs/PUZZLES.md; docs/FRONTEND.md,
// The puzzle pages). GET /api/puzzles/{kind} is the player's running run or their last one,
// POST starts a new one with its first puzzle; each opening's answer carries the run, whose
// `puzzle` is the one in play: a puzzle played out hands over to the next at once. A streak
// has no clock and ends at its first failure; a storm lasts three minutes from its first
// opening, less a penalty per failure. The storm's time is the server's: the page counts down
// locally from the `time_left_ms` of the newest answer and never sends a time; at zero it asks
// the server, which ends the storm.
import { api, ApiError, clockText, gettext, ngettext, fmt, me, messageOf, playAsGuest } from "./api.js";
import { $, $$, el, labelCells } from "./dom.js";
import { cellPlace } from "./board.js";
import { boardHead, boardRows, createPuzzleBoard, endHeadline, isOver, readBoard, showCurrentTab, solutionText } from "./puzzle_common.js";

/** @typedef {import("./puzzle_common.js").Run} Run */
/** @typedef {import("./puzzle_common.js").Puzzle} Puzzle */
/** @typedef {import("./puzzle_common.js").OpenAnswer} OpenAnswer */

const root = $("puzzle-run");
const kind = root.dataset.kind === "storm" ? "storm" : "streak";
const storm = kind === "storm";
const BOARD_ROWS = 10;
/** @type {Run | null} */
let run = null;
// The storm's clock: the time left the server gave, and when the page received it.
const clock = { left: 0, at: 0, ticking: false };
let asking = false; // a read of the run at the clock's zero is on its way
let period = "all";

const panel = createPuzzleBoard({ root, onAnswer, onRefused });
const say = panel.say;

/** @param {string} [text] */
function error(text) {
  $("run-error").textContent = text || "";
}

// --- the run -------------------------------------------------------------------------------------

async function load() {
  if (!me()) return showStart(null);
  try {
    run = await api("GET", `/api/puzzles/${kind}`);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return showStart(null); // none yet
    error(messageOf(err));
    return showStart(null);
  }
  const r = /** @type {Run} */ (run);
  if (r.state === "running" && r.puzzle) drawRun(r);
  else showStart(r);
}

/** Before a run, or after the last one (read on load): its score, the best, Start.
 * @param {Run | null} last */
function showStart(last) {
  root.dataset.state = last ? "ended" : "none";
  $("run-play").hidden = true;
  $("run-start").hidden = false;
  $("run-last").textContent = last ? endText(last) + " " + bestText(last) : "";
  $("run-line").textContent = "";
}

async function start() {
  error("");
  try {
    await playAsGuest(); // a visitor plays at once, as a guest (docs/GUESTS.md)
    run = await api("POST", `/api/puzzles/${kind}`);
  } catch (err) {
    error(err instanceof ApiError && err.status === 404 ? gettext("There is no puzzle yet.") : messageOf(err));
    return;
  }
  $("result").hidden = true;
  say("");
  drawRun(/** @type {Run} */ (run));
  panel.focus();
}

/** A running run: its puzzle in play, its score and (a storm) its clock. @param {Run} r */
function drawRun(r) {
  root.dataset.state = "running";
  $("run-start").hidden = true;
  $("run-play").hidden = false;
  $("result").hidden = true;
  if (r.puzzle) panel.show(r.puzzle);
  drawScore(r);
}

/** @param {Run} r */
function drawScore(r) {
  $("run-score").textContent = String(r.score);
  const parts = [fmt(gettext("Your best: %(n)s"), { n: r.best })];
  if (storm && r.failures) parts.push(fmt(ngettext("%(n)s failed puzzle", "%(n)s failed puzzles", r.failures), { n: r.failures }));
  if (storm && r.state === "running" && !r.started_at) parts.push(gettext("The clock starts at your first opening."));
  $("run-line").textContent = parts.join(" · ");
  setClock(r);
}

// --- the storm's clock ------------------------------------------------------------------------------

/** @param {Run} r */
function setClock(r) {
  if (!storm) return;
  clock.left = r.time_left_ms ?? 0;
  clock.at = performance.now();
  clock.ticking = r.state === "running" && !!r.started_at;
  drawClock();
}

function drawClock() {
  if (!storm) return;
  const left = clock.ticking ? clock.left - (performance.now() - clock.at) : clock.left;
  $("storm-clock").textContent = clockText(left);
  if (clock.ticking && left <= 0) timeUp();
}
if (storm) setInterval(drawClock, 200);

/** The local count reached zero: the server says whether the storm is over (it ends it then). */
async function timeUp() {
  if (asking) return;
  asking = true;
  clock.ticking = false;
  try {
    const r = /** @type {Run} */ (await api("GET", `/api/puzzles/${kind}`));
    run = r;
    if (r.state === "running" && r.puzzle) return drawRun(r);
    // The puzzle that was in play when the time ran out, now ended: its solution.
    const lastId = r.puzzles.length ? r.puzzles[r.puzzles.length - 1].id : null;
    /** @type {Puzzle | null} */
    let last = null;
    if (lastId) {
      try {
        last = await api("GET", `/api/puzzles/${lastId}`);
        if (last && isOver(last)) panel.show(last);
      } catch (err) {
        last = null; // the end is shown without it
      }
    }
    showEnd(r, last);
  } catch (err) {
    say(messageOf(err));
  } finally {
    asking = false;
  }
}

// --- answers ----------------------------------------------------------------------------------------

/** @param {OpenAnswer} answer  @param {{ x: number, y: number }} cell */
function onAnswer(answer, cell) {
  const played = answer.puzzle;
  const r = answer.run;
  if (!r) return panel.show(played);
  run = r;
  if (!isOver(played)) {
    panel.show(played);
    drawScore(r);
    say(fmt(gettext("Correct: %(place)s is safe."), { place: cellPlace(cell.x, cell.y) }));
    return;
  }
  const solved = played.attempt && played.attempt.state === "solved";
  if (r.state === "running" && r.puzzle) {
    // The next puzzle at once; the status line says how the last one went.
    drawRun(r);
    if (solved) say(fmt(gettext("Solved. Score: %(n)s. Here is the next puzzle."), { n: r.score }));
    else say(fmt(gettext("%(why)s %(s)s s off the clock. Here is the next puzzle."), { why: endHeadline(played), s: Math.round((r.penalty_ms || 0) / 1000) }));
    return;
  }
  panel.show(played); // the last puzzle stays, with its solution
  showEnd(r, played);
}

/** @param {unknown} err */
function onRefused(err) {
  // The attempt or the storm's time is over (409 attempt_over): the server says how the run stands.
  if (err instanceof ApiError && err.code === "attempt_over") return void timeUp();
  say(messageOf(err));
}

// --- the end ------------------------------------------------------------------------------------------

/** @param {Run} r */
function endText(r) {
  if (storm) return fmt(ngettext("Storm over: %(n)s puzzle solved.", "Storm over: %(n)s puzzles solved.", r.score), { n: r.score });
  return fmt(ngettext("Streak over: %(n)s puzzle solved.", "Streak over: %(n)s puzzles solved.", r.score), { n: r.score });
}

/** @param {Run} r */
function bestText(r) {
  if (r.score > 0 && r.score >= r.best) return gettext("A new best!");
  return fmt(gettext("Your best: %(n)s"), { n: r.best });
}

/** The run's end, below its last puzzle: the score, the best, what went wrong, the run's
 * puzzles to look at again, Start again. @param {Run} r  @param {Puzzle | null} last */
function showEnd(r, last) {
  root.dataset.state = "ended";
  clock.ticking = false;
  drawScore(r);
  /** @type {HTMLElement[]} */
  const lines = [el("p", { class: "result-head " + (r.score > 0 ? "win" : "loss"), id: "result-head", text: endText(r) })];
  if (last && last.attempt && last.attempt.state === "failed") {
    lines.push(el("p", { text: endHeadline(last) }));
    const solution = solutionText(last);
    if (solution) lines.push(el("p", { class: "puzzle-solution", text: solution }));
  }
  lines.push(el("p", { class: "muted", text: bestText(r) }));
  if (r.puzzles.length) {
    const items = r.puzzles.map((p, i) =>
      el("li", {}, el("a", { href: `/puzzles/${p.id}` }, fmt(gettext("Puzzle %(n)s"), { n: i + 1 })), " ", el("span", { class: "pill " + (p.state === "solved" ? "won" : "lost"), text: p.state === "solved" ? gettext("solved") : gettext("failed") })),
    );
    lines.push(el("p", { class: "muted", text: gettext("Look at this run's puzzles again:") }), el("ul", { class: "run-puzzles" }, ...items));
  }
  const box = $("result");
  box.replaceChildren(
    ...lines,
    el("p", { class: "result-actions" }, el("button", { type: "button", class: "btn btn-primary", id: "run-again", onclick: start, text: gettext("Start again") })),
  );
  box.hidden = false;
  box.dataset.state = "ended";
  box.className = "result " + (r.score > 0 ? "result-win" : "result-loss");
  $("run-play").hidden = false;
  $("run-start").hidden = true;
  say(endText(r));
  const rect = box.getBoundingClientRect();
  if (rect.bottom > window.innerHeight) box.scrollIntoView({ block: "nearest" });
  loadBoard();
}

// --- the best scores -------------------------------------------------------------------------------

async function loadBoard() {
  const table = $("run-table", HTMLTableElement);
  try {
    const page = await readBoard(kind, { pageSize: BOARD_ROWS, period });
    table.tHead?.replaceChildren(boardHead(kind));
    table.tBodies[0].replaceChildren(...boardRows(kind, page));
    labelCells(table);
    table.hidden = !page.results.length;
    $("run-table-empty").hidden = !!page.results.length;
  } catch (err) {
    $("run-table-empty").hidden = false;
    $("run-table-empty").textContent = messageOf(err);
  }
}

for (const b of $$("[data-period]", HTMLButtonElement, root)) {
  b.addEventListener("click", () => {
    period = b.dataset.period === "day" ? "day" : "all";
    for (const other of $$("[data-period]", HTMLButtonElement, root)) other.setAttribute("aria-pressed", String(other === b));
    loadBoard();
  });
}
$("run-begin").addEventListener("click", start);

showCurrentTab();
load();
loadBoard();
