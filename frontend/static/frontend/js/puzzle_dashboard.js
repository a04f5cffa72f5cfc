// @ts-check
// The puzzle dashboard (API.md, GET /api/puzzles/dashboard; docs/FRONTEND.md, The puzzle pages):
// the player's puzzle rating (provisional or held said so), bests, attempts, solves and accuracy
// per theme, the rating after each rated attempt as a chart (chart.js, as the profile's: no
// library, no outside host), then the puzzle boards: rating, streak and storm (a day's or all
// time), humans or bots, by pages with the player's own row.
import { api, gettext, fmt, fmtNum, fmtDate, me, messageOf } from "./api.js";
import { drawPager, wirePager } from "./pager.js";
import { $, $$, byId, el, labelCells } from "./dom.js";
import { drawLineChart } from "./chart.js";
import { boardHead, boardRows, readBoard, showCurrentTab, themeLabel } from "./puzzle_common.js";

/** @typedef {import("./puzzle_common.js").BoardKind} BoardKind */
/** @typedef {{ theme: string, attempts: number, solved: number, accuracy: number | null }} ThemeStats */
/** @typedef {{ rating: number, provisional: boolean, held: boolean, rated_attempts: number, solved: number, best_streak: number, best_storm: number, themes: ThemeStats[], history: { at: string, rating: number }[] }} Dashboard */

const PAGE_SIZE = 20;
const KINDS = /** @type {BoardKind[]} */ (["rating", "streak", "storm"]);
const params = new URLSearchParams(location.search);
const view = {
  kind: KINDS.find((k) => k === params.get("board")) || /** @type {BoardKind} */ ("rating"),
  players: params.get("players") === "bots" ? "bots" : "humans",
  period: params.get("period") === "day" ? "day" : "all",
  page: 1,
};
let loads = 0; // only the newest board answer is drawn

// --- the player's own -------------------------------------------------------------------------------

async function loadMine() {
  if (!byId("dash-stats")) return; // a visitor: the boards only
  /** @type {Dashboard} */
  let d;
  try {
    d = await api("GET", "/api/puzzles/dashboard");
  } catch (err) {
    $("dash-error").textContent = messageOf(err);
    return;
  }
  /** @type {Record<string, number>} */
  const stats = { rating: d.rating, rated_attempts: d.rated_attempts, solved: d.solved, best_streak: d.best_streak, best_storm: d.best_storm };
  for (const box of $$("#dash-stats [data-stat]")) {
    const b = box.querySelector("b");
    if (b) b.textContent = String(stats[box.dataset.stat || ""] ?? "–");
  }
  $("dash-provisional").hidden = !d.provisional;
  $("dash-held").hidden = !d.held;
  const table = $("dash-themes", HTMLTableElement);
  table.tBodies[0].replaceChildren(
    ...d.themes.map((t) =>
      el(
        "tr",
        { "data-theme": t.theme },
        el("th", { scope: "row", text: themeLabel(t.theme) }),
        el("td", { class: "num", text: String(t.attempts) }),
        el("td", { class: "num", text: String(t.solved) }),
        el("td", { class: "num", text: t.accuracy === null ? "—" : fmtNum(t.accuracy * 100, 0) + " %" }),
      ),
    ),
  );
  labelCells(table);
  drawChart(d.history);
  $("puzzle-dashboard").dataset.state = "ready";
}

/** The chart's grid: round steps of 50, 100, 200 or 500 around the ratings shown (one at least).
 * @param {number[]} values */
function ratingGrid(values) {
  const spread = Math.max(...values) - Math.min(...values);
  const step = [50, 100, 200, 500, 1000].find((s) => s * 4 >= spread * 1.1) || 1000;
  const low = Math.floor(Math.min(...values) / step) * step;
  const high = Math.max(low + step * 2, Math.ceil(Math.max(...values) / step) * step);
  /** @type {number[]} */
  const grid = [];
  for (let v = low; v <= high; v += step) grid.push(v);
  return grid;
}

/** The rating after each rated attempt, oldest to newest. @param {{ at: string, rating: number }[]} history */
function drawChart(history) {
  const values = history.map((h) => h.rating);
  drawLineChart(
    $("rating-chart"),
    {
      values,
      grid: values.length ? ratingGrid(values) : [],
      gridLabel: String,
      dotTitle: (i) => `${values[i]} · ${fmtDate(history[i].at)}`,
      label: fmt(gettext("Your puzzle rating after each rated puzzle, oldest to newest: from %(first)s to %(last)s"), { first: values[0], last: values[values.length - 1] }),
    },
    gettext("No rated puzzle yet: the chart starts with your first."),
  );
}

// --- the boards ------------------------------------------------------------------------------------

async function loadBoard() {
  const mine = ++loads;
  const table = $("puzzle-board", HTMLTableElement);
  let page;
  try {
    page = await readBoard(view.kind, { page: view.page, pageSize: PAGE_SIZE, players: view.players, period: view.period });
  } catch (err) {
    if (mine === loads) $("board-error").textContent = messageOf(err);
    return;
  }
  if (mine !== loads) return;
  $("board-error").textContent = "";
  table.tHead?.replaceChildren(boardHead(view.kind));
  table.tBodies[0].replaceChildren(...boardRows(view.kind, page));
  labelCells(table);
  const empty = !page.results.length;
  table.hidden = empty;
  $("board-empty").hidden = !empty;
  $("board-panel").dataset.board = view.kind;
  drawPager(page, view.page, PAGE_SIZE);
}

function drawControls() {
  for (const tab of $$("#board-tabs [role=tab]")) {
    const on = tab.dataset.board === view.kind;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
  }
  for (const b of $$("[data-players]")) b.setAttribute("aria-pressed", String(b.dataset.players === view.players));
  for (const b of $$("[data-period]")) b.setAttribute("aria-pressed", String(b.dataset.period === view.period));
  $("board-period").hidden = view.kind !== "storm"; // only the storm has a day's board
  const q = new URLSearchParams();
  if (view.kind !== "rating") q.set("board", view.kind);
  if (view.players === "bots") q.set("players", "bots");
  if (view.kind === "storm" && view.period === "day") q.set("period", "day");
  history.replaceState(null, "", location.pathname + (q.toString() ? `?${q}` : ""));
}

/** A board or a filter picked: its first page. @param {() => void} change  what is picked */
function refilter(change) {
  change();
  view.page = 1;
  drawControls();
  loadBoard();
}

/** @param {BoardKind} kind */
const pick = (kind) => refilter(() => (view.kind = kind));

for (const tab of $$("#board-tabs [role=tab]")) tab.addEventListener("click", () => pick(/** @type {BoardKind} */ (tab.dataset.board)));
$("board-tabs").addEventListener("keydown", (e) => {
  // The tabs follow the arrow keys (the ARIA tabs pattern), as the leaderboards' do.
  if (!["ArrowRight", "ArrowLeft", "Home", "End"].includes(e.key)) return;
  e.preventDefault();
  const at = KINDS.indexOf(view.kind);
  const to = e.key === "Home" ? 0 : e.key === "End" ? KINDS.length - 1 : (at + (e.key === "ArrowRight" ? 1 : KINDS.length - 1)) % KINDS.length;
  pick(KINDS[to]);
  $$("#board-tabs [role=tab]")[to].focus();
});
for (const b of $$("[data-players]")) b.addEventListener("click", () => refilter(() => (view.players = b.dataset.players === "bots" ? "bots" : "humans")));
for (const b of $$("[data-period]")) b.addEventListener("click", () => refilter(() => (view.period = b.dataset.period === "day" ? "day" : "all")));
wirePager(view, loadBoard);

if (!me()) $("puzzle-dashboard").dataset.state = "visitor";
drawControls();
showCurrentTab();
loadMine();
loadBoard();
