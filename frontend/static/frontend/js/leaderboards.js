// @ts-check
// Leaderboards (API.md, Leaderboards): a tab per level, best times, 3BV/s, streaks and race
// ratings (API.md, Races) with a season's board beside the lasting one (?season=, docs/RACES.md,
// Seasons), rolling periods, the no-flag (NF) boards of times and 3BV/s (?style=nf), pages, and "jump to
// my row" (?around=me). Humans | Bots switches every
// board of the page to the bots' own boards (?players=bots; RULES.md, Fair play).
import { api, ApiError, gettext, fmt, me, fmtTime, fmtNum, fmtDate, signInUrl, messageOf } from "./api.js";
import { $, $$, byId, el, labelCells } from "./dom.js";
import { ratingText, seasonLabel } from "./race_common.js";

const level = $("board-section").dataset.level || "";
const KINDS = ["times", "speed", "streaks", "races"];
const params = new URLSearchParams(location.search);
const view = {
  kind: KINDS.find((k) => k === params.get("kind")) || "times",
  period: params.get("period") || "all",
  sort: params.get("sort") || "best",
  page: Number(params.get("page")) || 1,
  players: params.get("players") === "bots" ? "bots" : "humans",
  mode: params.get("mode") === "no_guess" ? "no_guess" : "classic",
  // Times and 3BV/s: every win, or only the wins without a flag (NF, ?style=nf).
  style: params.get("style") === "nf" ? "nf" : "all",
  // Race boards: "" the lasting ratings, else `current` or a season's name (`2026Q4`).
  season: /^(current|[0-9]{4}Q[1-4])$/.test(params.get("season") || "") ? params.get("season") || "" : "",
  around: false,
};
const emptyHumans = $("empty").textContent || "";
const ranking = $("ranking", HTMLTableElement);

/** Only the times and 3BV/s boards have an NF style. */
const hasStyle = () => view.kind === "times" || view.kind === "speed";

function url() {
  const q = new URLSearchParams();
  if (view.kind === "streaks") q.set("sort", view.sort);
  else if (view.kind !== "races") q.set("period", view.period); // a race rating has no period
  if (hasStyle() && view.style === "nf") q.set("style", "nf"); // all is the API's default
  if (view.around) q.set("around", "me");
  else q.set("page", String(view.page));
  if (view.players === "bots") q.set("players", "bots"); // humans is the API's default
  if (view.mode === "no_guess") q.set("mode", "no_guess"); // classic is the API's default
  if (view.kind === "races" && view.season) q.set("season", view.season);
  return `/api/leaderboards/${level}/${view.kind}?${q}`;
}

function remember() {
  const q = new URLSearchParams({ kind: view.kind });
  if (view.kind === "streaks") q.set("sort", view.sort);
  else if (view.kind !== "races") q.set("period", view.period);
  if (hasStyle() && view.style === "nf") q.set("style", "nf");
  if (view.page > 1) q.set("page", String(view.page));
  if (view.players === "bots") q.set("players", "bots");
  if (view.mode === "no_guess") q.set("mode", "no_guess");
  if (view.kind === "races" && view.season) q.set("season", view.season);
  history.replaceState(null, "", `${location.pathname}?${q}`);
}

function head() {
  const cols = [gettext("Rank"), gettext("Player")];
  if (view.kind === "times") cols.push(gettext("Time"), gettext("When"));
  else if (view.kind === "speed") cols.push(gettext("3BV/s"), gettext("When"));
  else if (view.kind === "streaks") cols.push(gettext("Best streak"), gettext("Current streak"));
  else cols.push(gettext("Rating"), gettext("Races"), gettext("Wins"), gettext("Podiums"));
  const num = (/** @type {number} */ i) => i === 0 || i === 2 || (view.kind === "streaks" && i === 3) || (view.kind === "races" && i >= 2);
  return el("tr", {}, ...cols.map((c, i) => el("th", { scope: "col", class: num(i) ? "num" : null, text: c })));
}

/** A row of a board (API.md, Leaderboards): rank and player, and the fields of its kind.
 * @typedef {{ rank: number, player: string, game_id?: string | null, achieved_at?: string, time_ms?: number, bbbv_per_s?: string | number,
 *   best_streak?: number, current_streak?: number, rating?: number, provisional?: boolean, races?: number, wins?: number, podiums?: number }} BoardRow */
/** A page of a board: the list's fields, and the visitor's own row (`me`); a race board's
 * also names the season shown (null: the lasting ratings) and the seasons it can show.
 * @typedef {{ count: number, next: string | null, previous: string | null, results: BoardRow[], me?: BoardRow | null,
 *   season?: string | null, seasons?: string[] }} BoardPage */

/** The season selector of the race boards: the lasting ratings, then the seasons the board
 * can show (the current one first, as `current`), and a season named in the address that has
 * no rating yet.
 * @param {string[]} seasons */
function drawSeasons(seasons) {
  const select = $("season", HTMLSelectElement);
  const named = view.season && view.season !== "current" && !seasons.includes(view.season) ? [view.season] : [];
  const options = [...seasons, ...named].map((s, i) =>
    i === 0 ? el("option", { value: "current", text: fmt(gettext("This season (%(season)s)"), { season: seasonLabel(s) }) }) : el("option", { value: s, text: seasonLabel(s) }),
  );
  select.replaceChildren(select.options[0], ...options);
  select.value = view.season === seasons[0] ? "current" : view.season;
}

// The day fits a phone's width; the hour is in the tooltip.
const when = (/** @type {BoardRow} */ r) => el("td", { text: fmtDate(r.achieved_at, false), title: fmtDate(r.achieved_at) });

/** @param {BoardRow} r */
function row(r) {
  const mine = r.player === me();
  const player = el("td", {}, el("a", { href: `/players/${encodeURIComponent(r.player)}`, text: r.player }));
  const cells = [el("td", { class: "num", text: String(r.rank) }), player];
  const game = (/** @type {string} */ text) => (r.game_id ? el("a", { href: `/games/${r.game_id}/replay`, title: gettext("Replay"), text }) : text);
  if (view.kind === "times") cells.push(el("td", { class: "num" }, game(fmtTime(r.time_ms))), when(r));
  else if (view.kind === "speed") cells.push(el("td", { class: "num" }, game(fmtNum(Number(r.bbbv_per_s), 2))), when(r));
  else if (view.kind === "streaks") cells.push(el("td", { class: "num", text: String(r.best_streak) }), el("td", { class: "num", text: String(r.current_streak) }));
  else cells.push(el("td", { class: "num" }, ratingText(Number(r.rating), r.provisional)), ...[r.races, r.wins, r.podiums].map((v) => el("td", { class: "num", text: String(v) })));
  return el("tr", { class: mine ? "me" : null, "aria-current": mine ? "true" : null }, ...cells);
}

/** @type {BoardPage | null} the page shown */
let last = null;
let loads = 0; // only the answer of the newest request is drawn (a quick Humans → Bots → Humans)

// The page number of an answer, read from its neighbours' links (around=me picks the page).
/** @param {BoardPage} data */
function pageOf(data) {
  const num = (/** @type {string} */ link) => Number(new URL(link, location.href).searchParams.get("page") || 1);
  if (data.next) return num(data.next) - 1;
  if (data.previous) return num(data.previous) + 1;
  return 1;
}

// The switch, the label of the bot boards, and the level tabs, which keep the choice.
function drawPlayers() {
  const bots = view.players === "bots";
  for (const b of $$("[data-players]")) b.setAttribute("aria-pressed", String(b.dataset.players === view.players));
  $("players-label").hidden = !bots;
  if (bots) $("empty").textContent = gettext("No bot is on this board yet.");
  else $("empty").textContent = view.kind === "races" ? gettext("Nobody has a race rating at this level yet. Race to be the first!") : emptyHumans;
  for (const b of $$("[data-mode]")) b.setAttribute("aria-pressed", String(b.dataset.mode === view.mode));
  $("mode-label").hidden = view.mode !== "no_guess";
  for (const a of $$("#level-tabs a", HTMLAnchorElement)) {
    const u = new URL(a.href);
    if (bots) u.searchParams.set("players", "bots");
    else u.searchParams.delete("players");
    if (view.mode === "no_guess") u.searchParams.set("mode", "no_guess");
    else u.searchParams.delete("mode");
    a.href = u.pathname + u.search;
  }
}

async function load() {
  $("lb-error").textContent = "";
  drawPlayers();
  for (const b of $$("[data-kind]")) {
    b.setAttribute("aria-selected", String(b.dataset.kind === view.kind));
    b.tabIndex = b.dataset.kind === view.kind ? 0 : -1; // a tab list is one Tab stop
  }
  $("ranking-panel").setAttribute("aria-labelledby", "tab-" + view.kind);
  $("period-label").hidden = view.kind === "streaks" || view.kind === "races";
  $("season-label").hidden = view.kind !== "races";
  $("race-note").hidden = view.kind !== "races";
  $("sort-label").hidden = view.kind !== "streaks";
  $("style-label").hidden = !hasStyle();
  $("style", HTMLSelectElement).value = view.style;
  $("period", HTMLSelectElement).value = view.period;
  $("sort", HTMLSelectElement).value = view.sort;
  /** @type {BoardPage} */
  let data;
  const ticket = ++loads;
  try {
    data = await api("GET", url());
    if (ticket !== loads) return;
  } catch (err) {
    if (ticket !== loads) return;
    if (err instanceof ApiError && err.status === 401) return (location.href = signInUrl());
    $("lb-error").textContent = err instanceof ApiError && err.status === 404 ? gettext("Leaderboards are not available yet.") : messageOf(err);
    ranking.tHead?.replaceChildren(head());
    ranking.tBodies[0].replaceChildren();
    return;
  }
  last = data;
  if (view.kind === "races" && data.seasons) drawSeasons(data.seasons);
  const results = data.results || [];
  if (view.around) view.page = pageOf(data);
  ranking.tHead?.replaceChildren(head());
  const rows = results.map(row);
  // Your own row stays in sight: after the page when you rank elsewhere (API.md: `me`).
  const own = data.me;
  if (own && !results.some((/** @type {BoardRow} */ r) => r.player === own.player)) {
    rows.push(el("tr", { class: "gap", "aria-hidden": "true" }, el("td", { colspan: String(view.kind === "races" ? 6 : 4), text: "⋯" })), row(own));
  }
  ranking.tBodies[0].replaceChildren(...rows);
  labelCells(ranking);
  $("empty").hidden = results.length > 0;
  $("prev", HTMLButtonElement).disabled = !data.previous;
  $("next", HTMLButtonElement).disabled = !data.next;
  $("page-no").textContent = results.length ? fmt(gettext("Ranks %(a)s–%(b)s of %(n)s"), { a: results[0].rank, b: results[results.length - 1].rank, n: data.count }) : "";
  if (view.around) {
    const mineRow = document.querySelector("#ranking tr.me");
    if (mineRow) mineRow.scrollIntoView({ block: "center" });
    else if (data.me === null) $("lb-error").textContent = gettext("You are not on this board yet.");
    view.around = false;
  }
  remember();
}

for (const b of $$("[data-kind]")) {
  b.addEventListener("click", () => {
    view.kind = b.dataset.kind || "times";
    view.page = 1;
    load();
  });
}
// Arrow keys move between the ranking tabs (the ARIA tabs pattern).
$$("[role=tablist]")[0].addEventListener("keydown", (e) => {
  const tabs = $$("[data-kind]");
  const i = tabs.findIndex((t) => t === document.activeElement);
  if (i < 0 || !["ArrowLeft", "ArrowRight", "Home", "End"].includes(e.key)) return;
  e.preventDefault();
  const j = e.key === "Home" ? 0 : e.key === "End" ? tabs.length - 1 : (i + (e.key === "ArrowRight" ? 1 : -1) + tabs.length) % tabs.length;
  tabs[j].focus();
  tabs[j].click();
});
/** The buttons of a two-way switch (Humans | Bots, Classic | No guess): another choice shows
 * its first page.
 * @param {"players" | "mode"} field  the view's field, and the buttons' data attribute
 * @param {string} other  the value that is not the API's default
 * @param {string} fallback  the API's default */
function onSwitch(field, other, fallback) {
  for (const b of $$(`[data-${field}]`)) {
    b.addEventListener("click", () => {
      if (view[field] === b.dataset[field]) return;
      view[field] = b.dataset[field] === other ? other : fallback;
      view.page = 1;
      load();
    });
  }
}
onSwitch("players", "bots", "humans");
onSwitch("mode", "no_guess", "classic");
const period = $("period", HTMLSelectElement);
const sort = $("sort", HTMLSelectElement);
const style = $("style", HTMLSelectElement);
style.addEventListener("change", () => ((view.style = style.value === "nf" ? "nf" : "all"), (view.page = 1), load()));
period.addEventListener("change", () => ((view.period = period.value), (view.page = 1), load()));
sort.addEventListener("change", () => ((view.sort = sort.value), (view.page = 1), load()));
const season = $("season", HTMLSelectElement);
season.addEventListener("change", () => ((view.season = season.value), (view.page = 1), load()));
$("prev").addEventListener("click", () => last && last.previous && ((view.page = Math.max(1, view.page - 1)), load()));
$("next").addEventListener("click", () => last && last.next && ((view.page += 1), load()));
const jump = byId("jump-me"); // only for a signed-in visitor
if (jump) jump.addEventListener("click", () => ((view.around = true), load()));
load();
