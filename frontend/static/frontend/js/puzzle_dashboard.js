// @ts-check
// The puzzle dashboard (API.md, GET /api/puzzles/dashboard; docs/FRONTEND.md, The puzzle pages):
// the player's puzzle rating (provisional or held said so), bests, attempts, solves and accuracy
// per theme, the rating after each rated attempt as a chart (inline SVG, as the profile's: no
// library, no outside host), then the puzzle boards: rating, streak and storm (a day's or all
// time), humans or bots, by pages with the player's own row.
import { api, gettext, fmt, fmtNum, fmtDate, me, messageOf } from "./api.js";
import { $, $$, byId, el, labelCells } from "./dom.js";
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

const SVG = "http://www.w3.org/2000/svg";
/** An SVG element of the chart. @param {string} tag  @param {Record<string, string | number>} attrs  @param {string} [text] */
function svg(tag, attrs, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

/** The rating after each rated attempt, oldest to newest. @param {{ at: string, rating: number }[]} history */
function drawChart(history) {
  const box = $("rating-chart");
  if (!history.length) {
    box.replaceChildren(el("p", { class: "muted", text: gettext("No rated puzzle yet: the chart starts with your first.") }));
    return;
  }
  // As wide as its box, so the labels keep their size on a phone.
  const W = Math.max(300, Math.min(900, box.clientWidth || 640)), H = 220, L = 52, R = 16, T = 14, B = 30;
  const values = history.map((h) => h.rating);
  // Round steps of 50, 100, 200 or 500 around the ratings shown.
  const spread = Math.max(...values) - Math.min(...values);
  const step = [50, 100, 200, 500, 1000].find((s) => s * 4 >= spread * 1.1) || 1000;
  const low = Math.floor(Math.min(...values) / step) * step;
  const high = Math.max(low + step * 2, Math.ceil(Math.max(...values) / step) * step);
  const x = (/** @type {number} */ i) => (history.length === 1 ? L + (W - L - R) / 2 : L + (i * (W - L - R)) / (history.length - 1));
  const y = (/** @type {number} */ v) => T + (H - T - B) * (1 - (v - low) / (high - low));
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": fmt(gettext("Your puzzle rating after each rated puzzle, oldest to newest: from %(first)s to %(last)s"), { first: values[0], last: values[values.length - 1] }) });
  for (let v = low; v <= high; v += step) {
    chart.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }));
    chart.append(svg("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, String(v)));
  }
  chart.append(svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
  values.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(v), r: 4, class: "dot" });
    dot.append(svg("title", {}, `${v} · ${fmtDate(history[i].at)}`));
    chart.append(dot);
  });
  chart.append(svg("text", { x: L, y: H - 8 }, gettext("older")));
  chart.append(svg("text", { x: W - R, y: H - 8, "text-anchor": "end" }, gettext("newer")));
  box.replaceChildren(chart);
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
  const pages = Math.max(1, Math.ceil(page.count / PAGE_SIZE));
  $("board-page").textContent = fmt(gettext("Page %(page)s of %(pages)s"), { page: view.page, pages });
  $("board-prev", HTMLButtonElement).disabled = !page.previous;
  $("board-next", HTMLButtonElement).disabled = !page.next;
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

/** @param {BoardKind} kind */
function pick(kind) {
  view.kind = kind;
  view.page = 1;
  drawControls();
  loadBoard();
}

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
for (const b of $$("[data-players]")) {
  b.addEventListener("click", () => {
    view.players = b.dataset.players === "bots" ? "bots" : "humans";
    view.page = 1;
    drawControls();
    loadBoard();
  });
}
for (const b of $$("[data-period]")) {
  b.addEventListener("click", () => {
    view.period = b.dataset.period === "day" ? "day" : "all";
    view.page = 1;
    drawControls();
    loadBoard();
  });
}
$("board-prev").addEventListener("click", () => {
  view.page = Math.max(1, view.page - 1);
  loadBoard();
});
$("board-next").addEventListener("click", () => {
  view.page += 1;
  loadBoard();
});

if (!me()) $("puzzle-dashboard").dataset.state = "visitor";
drawControls();
showCurrentTab();
loadMine();
loadBoard();
