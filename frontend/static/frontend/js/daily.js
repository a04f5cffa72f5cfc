// @ts-check
// The daily page of one day (API.md and RULES.md, The daily challenge; docs/FRONTEND.md, The
// daily pages): the six levels with their counts, the player's own game (Play, Continue, the
// result and the share line), the countdown to the day's end, and the day's board per level.
// While the day runs the board holds times and cells opened only, never a board: this page
// links no other player's game until the day is over; then every row has its replay and
// anyone may practise the day's boards (unranked). A daily is played on the game page
// (docs/FRONTEND.md says why): Play makes the game and goes there.
import { api, ApiError, gettext, fmt, ngettext, me, messageOf, playerLabel, isGuestName } from "./api.js";
import { drawPager, wirePager } from "./pager.js";
import { $, $$, el, labelCells } from "./dom.js";
import { SITE, levelLabel } from "./constants.js";
import { ENDED } from "./game_state.js";
import { readDay, startDaily, practise, fmtDay, countdownText, countsText, resultText, rowResult, shareBox } from "./daily_common.js";

/** @typedef {import("./daily_common.js").DailyDay} DailyDay */
/** @typedef {import("./daily_common.js").DailyLevel} DailyLevel */
/** @typedef {import("./daily_common.js").DailyRow} DailyRow */

const root = $("daily");
const dayParam = root.dataset.day || ""; // empty: today, whichever day that is
const params = new URLSearchParams(location.search);
// While the day runs, the counts and the board are read again this often (the page is shown).
const REFRESH_MS = 15000;
const PAGE_SIZE = 20;

/** @type {DailyDay | null} */
let day = null;
const view = {
  level: SITE.levels.some((l) => l.name === params.get("level")) ? String(params.get("level")) : "",
  players: params.get("players") === "bots" ? "bots" : "humans",
  page: 1,
};
let loads = 0; // only the newest board answer is drawn

const shown = () => /** @type {DailyDay} */ (day);
/** The day still runs: its dailies may be played. The server says when it is over (its own
 * clock, never this browser's); a past day's page whose end is still being counted offers no
 * Play, since Play is always today's daily. */
const running = () => !!day && !day.over && (!dayParam || dayParam === root.dataset.today);

/** @param {string} [text] */
function say(text) {
  $("daily-error").textContent = text || "";
}

// --- the day ---------------------------------------------------------------------------------

async function load() {
  try {
    day = await readDay(dayParam);
  } catch (err) {
    root.dataset.state = "none";
    $("board-section").hidden = true;
    if (err instanceof ApiError && err.status === 404) say(gettext("No daily was dealt on this day."));
    else say(messageOf(err));
    return;
  }
  say("");
  if (!view.level) {
    // The board opens on the level the player played last, else the easiest.
    const mine = shown().levels.filter((l) => l.game);
    view.level = mine.length ? mine[mine.length - 1].level : shown().levels[0].level;
  }
  draw();
  await loadBoard();
}

function draw() {
  const d = shown();
  root.dataset.state = d.over ? "over" : running() ? "running" : "ending";
  root.dataset.date = d.date;
  $("daily-date").textContent = fmtDay(d.date);
  document.title = `${gettext("Daily challenge")} · ${fmtDay(d.date)} · Démineur`;
  drawClock();
  $("daily-levels").replaceChildren(...d.levels.map(levelCard));
}

function drawClock() {
  const d = shown();
  let text;
  if (d.over) text = gettext("This day is over: its boards, replays and practice are open to everyone.");
  else if (Date.now() < Date.parse(d.ends_at)) text = fmt(gettext("Ends in %(time)s (00:00 UTC)"), { time: countdownText(d.ends_at) });
  else text = gettext("The day has ended: its results are being counted.");
  $("daily-clock").textContent = text;
}

/** The size of a level as the home page says it. @param {string} level */
function sizeText(level) {
  const l = SITE.levels.find((x) => x.name === level);
  if (!l) return "";
  return `${l.width} × ${l.height} · ` + fmt(ngettext("%(n)s mine", "%(n)s mines", l.mines), { n: l.mines });
}

/** One level of the day: its counts, the player's game, what the player may do.
 * @param {DailyLevel} l */
function levelCard(l) {
  const g = l.game;
  const d = shown();
  const actions = [];
  if (g && !ENDED.has(g.state)) {
    actions.push(el("a", { class: "btn btn-primary", href: `/games/${g.id}`, text: gettext("Continue") }));
  } else if (!g && running()) {
    actions.push(el("button", { type: "button", class: "btn btn-primary daily-play", "data-level": l.level, text: gettext("Play"), onclick: () => play(l.level) }));
  }
  if (g && ENDED.has(g.state)) {
    // After the day the whole game is public: its replay. Before, the player's own page of it
    // (the cells they opened, nothing more).
    const href = d.over ? `/games/${g.id}/replay` : `/games/${g.id}`;
    actions.push(el("a", { class: "btn", href, text: d.over ? gettext("Replay") : gettext("Your game") }));
  }
  // A level dealt that day (its start cell is public once the day is over) may be practised.
  if (d.over && l.start_cell) actions.push(el("button", { type: "button", class: "btn daily-practise", "data-level": l.level, text: gettext("Practise"), onclick: () => practiseLevel(l.level) }));
  actions.push(el("button", { type: "button", class: "btn btn-quiet", "aria-controls": "board-section", text: gettext("Standings"), onclick: () => pick(l.level, true) }));
  let result = null;
  if (g) result = el("p", { class: "daily-result " + g.state, text: resultText(g) });
  else if (!running()) result = el("p", { class: "daily-result muted", text: gettext("Not played") });
  return el(
    "article",
    { class: "card daily-level", "data-level": l.level, "data-state": g ? g.state : "none" },
    el("h2", { text: levelLabel(l.level) }),
    el("p", { class: "muted", text: sizeText(l.level) }),
    el("p", { class: "daily-counts", text: countsText(l) }),
    result,
    l.share ? shareBox(l) : null,
    el("p", { class: "result-actions" }, ...actions),
  );
}

/** @param {string} level */
async function play(level) {
  say("");
  try {
    const g = await startDaily(level);
    location.href = `/games/${g.id}`;
  } catch (err) {
    say(messageOf(err));
  }
}

/** @param {string} level */
async function practiseLevel(level) {
  say("");
  try {
    const g = await practise(shown().date, level);
    location.href = `/games/${g.id}`;
  } catch (err) {
    say(messageOf(err));
  }
}

// --- the day's board -------------------------------------------------------------------------

/** @param {string} level  @param {boolean} [scroll] */
function pick(level, scroll = false) {
  view.level = level;
  view.page = 1;
  loadBoard();
  const q = new URLSearchParams(location.search);
  q.set("level", level);
  history.replaceState(null, "", `${location.pathname}?${q}`);
  if (scroll) $("board-section").scrollIntoView({ block: "start" });
}

function drawTabs() {
  for (const tab of $$("#board-tabs [role=tab]")) tab.setAttribute("aria-selected", String(tab.dataset.level === view.level));
  for (const b of $$("[data-players]")) b.setAttribute("aria-pressed", String(b.dataset.players === view.players));
}

/** @param {DailyRow} r  @param {boolean} [gap]  a row shown apart, below a gap */
function boardRow(r, gap = false) {
  const mine = r.player === me();
  const name = playerLabel(r.player);
  const who = isGuestName(r.player) ? name : el("a", { href: `/players/${encodeURIComponent(r.player)}`, text: name });
  const ended = ENDED.has(r.state);
  // A game's replay only once the day is over (RULES.md: nothing of a board before midnight).
  const replay = shown().over && ended ? el("a", { href: `/games/${r.game_id}/replay`, text: gettext("Replay") }) : "—";
  return el(
    "tr",
    { class: [mine ? "me" : "", gap ? "apart" : ""].join(" ").trim() || null, "aria-current": mine ? "true" : null, "data-state": r.state },
    el("td", { class: "num", text: String(r.rank) }),
    el("td", {}, who),
    el("td", { class: "num" }, el("span", { class: "pill " + r.state, text: rowResult(r) })),
    el("td", {}, replay),
  );
}

async function loadBoard() {
  if (!day) return;
  drawTabs();
  const d = shown();
  const mine = ++loads;
  const q = new URLSearchParams({ date: d.date, page: String(view.page), page_size: String(PAGE_SIZE) });
  if (view.players === "bots") q.set("players", "bots");
  /** @type {{ count: number, next: string | null, previous: string | null, results: DailyRow[], me: DailyRow | null }} */
  let page;
  try {
    page = await api("GET", `/api/leaderboards/${view.level}/daily?${q}`);
  } catch (err) {
    if (mine === loads) $("board-error").textContent = messageOf(err);
    return;
  }
  if (mine !== loads) return;
  $("board-error").textContent = "";
  $("board-section").dataset.level = view.level;
  const rows = page.results.map((r) => boardRow(r));
  const onPage = page.results.some((r) => r.player === me());
  if (page.me && !onPage) rows.push(el("tr", { class: "gap", "aria-hidden": "true" }, el("td", { colspan: "4", text: "⋯" })), boardRow(page.me, true));
  const table = $("daily-board", HTMLTableElement);
  table.tBodies[0].replaceChildren(...rows);
  labelCells(table);
  const empty = !page.results.length;
  table.hidden = empty;
  $("board-empty").hidden = !empty;
  $("board-empty").textContent = running() ? gettext("Nobody has played this level today yet.") : gettext("Nobody played this level on this day.");
  $("board-note").textContent = d.over
    ? gettext("The final board. Every game's replay is open now.")
    : gettext("Live: times and cells opened, never a board. The boards and replays are shown after 00:00 UTC.");
  drawPager(page, view.page, PAGE_SIZE);
}

for (const tab of $$("#board-tabs [role=tab]")) tab.addEventListener("click", () => pick(tab.dataset.level || "beginner"));
$("board-tabs").addEventListener("keydown", (e) => {
  // The tabs follow the arrow keys, as the leaderboards' do.
  if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
  const tabs = $$("#board-tabs [role=tab]");
  const at = tabs.findIndex((t) => t.dataset.level === view.level);
  const next = tabs[(at + (e.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
  pick(next.dataset.level || "beginner");
  next.focus();
});
for (const b of $$("[data-players]")) {
  b.addEventListener("click", () => {
    view.players = b.dataset.players === "bots" ? "bots" : "humans";
    view.page = 1;
    loadBoard();
  });
}
wirePager(view, loadBoard);

// --- keeping it live -------------------------------------------------------------------------

/** Read the day and its board again (the counts, the player's games, the board's rows). */
async function refresh() {
  try {
    day = await readDay(dayParam);
  } catch (err) {
    return; // the next tick tries again; what is shown stays
  }
  draw();
  await loadBoard();
}

let endSeen = false;
setInterval(() => {
  if (!day) return;
  drawClock();
  // At the day's end the server closes it within seconds: read it again until it is over.
  if (Date.now() >= Date.parse(day.ends_at) && !day.over && !endSeen) {
    endSeen = true;
    setTimeout(() => {
      endSeen = false;
      refresh();
    }, 3000);
  }
}, 1000);
setInterval(() => {
  if (day && !day.over && document.visibilityState === "visible") refresh();
}, REFRESH_MS);
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible" && day && !day.over) refresh();
});
// Back from the game page (the browser's page cache): what changed meanwhile.
window.addEventListener("pageshow", (e) => {
  if (e.persisted) refresh();
});

load();
