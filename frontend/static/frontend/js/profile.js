// @ts-check
// A player's profile (API.md, profiles): stats per level, a chart of recent winning times
// (chart.js: inline SVG, no library) and the newest ended games with links to their replays.
import { api, ApiError, gettext, ngettext, fmt, fmtTime, fmtNum, fmtDate, messageOf } from "./api.js";
import { $, el, labelCells } from "./dom.js";
import { levelLabel, modeLabel, SITE } from "./constants.js";
import { fmtDay, rowResult } from "./daily_common.js";
import { placeText, ratingText, seasonLabel } from "./race_common.js";
import { drawLineChart } from "./chart.js";

const username = $("profile").dataset.username || "";
// The levels as the server lists them, easiest first, then custom boards.
const ORDER = [...SITE.levels.map((l) => l.name), "custom"];
/** @type {any} the profile read (API.md, GET /api/users/{name}) */
let profile = null;

/** @param {number | null | undefined} x */
function pct(x) {
  return x === null || x === undefined ? "—" : Math.round(x * 100) + " %";
}

/** The mark beside a best that no leaderboard holds: a guest's bests, and every custom
 * board's (docs/FAIRPLAY.md: they set the profile's bests but never rank).
 * @param {string} level */
function unrankedMark(level) {
  const guest = profile.kind === "guest";
  if (!guest && level !== "custom") return null;
  const why = guest ? gettext("Played as a guest: a guest's games never rank.") : gettext("Custom boards never rank.");
  return el("span", { class: "badge badge-unranked", title: why, text: gettext("unranked") });
}

/** @param {Record<string, any>} stats  per level (API.md, profile `stats`) */
function statsRows(stats) {
  return ORDER.filter((lv) => stats[lv]).map((lv) => {
    const s = stats[lv];
    const time = s.best_time_game_id ? el("a", { href: `/games/${s.best_time_game_id}/replay`, text: fmtTime(s.best_time_ms) }) : fmtTime(s.best_time_ms);
    const best = el("span", { class: "best" }, time, s.best_time_ms !== null && s.best_time_ms !== undefined ? unrankedMark(lv) : null);
    return el(
      "tr",
      { "data-level": lv, class: s.played ? null : "unplayed" },
      el("th", { scope: "row", text: levelLabel(lv) }),
      el("td", { class: "num", text: String(s.played) }),
      el("td", { class: "num", text: String(s.won) }),
      el("td", { class: "num", text: pct(s.win_rate) }),
      el("td", { class: "num" }, best),
      el("td", { class: "num", text: fmtTime(s.average_win_ms) }),
      el("td", { class: "num" }, s.best_bbbv_per_s ? fmtNum(Number(s.best_bbbv_per_s), 2) : "—", s.best_bbbv_per_s ? unrankedMark(lv) : null),
      el("td", { class: "num", text: `${s.current_streak} / ${s.best_streak}` }),
    );
  });
}

/** The no-flag (NF) bests (docs/STATS.md, No-flag records): a row per bucket that has one,
 * classic then no-guess, each best linked to its replay.
 * @param {Record<string, any>} stats  @param {boolean} noGuess */
function nfRows(stats, noGuess) {
  const link = (/** @type {string | null} */ id, /** @type {string} */ text) => (id ? el("a", { href: `/games/${id}/replay`, text }) : text);
  return ORDER.filter((lv) => stats[lv] && stats[lv].nf_best_time_ms !== null && stats[lv].nf_best_time_ms !== undefined).map((lv) => {
    const s = stats[lv];
    const speed = s.nf_best_bbbv_per_s ? fmtNum(Number(s.nf_best_bbbv_per_s), 2) : "—";
    return el(
      "tr",
      { "data-level": lv, "data-no-guess": String(noGuess) },
      el("th", { scope: "row", text: modeLabel(lv, noGuess) }),
      el("td", { class: "num" }, link(s.nf_best_time_game_id, fmtTime(s.nf_best_time_ms)), unrankedMark(lv)),
      el("td", { class: "num" }, link(s.nf_best_bbbv_per_s_game_id, speed)),
    );
  });
}

// The chart shows up to this many of the player's newest solo wins at the chosen level.
const CHART_GAMES = 100;
/** @type {Record<string, any[]>} the chart's games per level, read once */
const chartCache = {};

/** The player's newest won solo games at `level` (GET /api/games), oldest first. */
/** @param {string} level */
async function chartGames(level) {
  if (!chartCache[level]) {
    const user = encodeURIComponent(username);
    /** @type {any[]} */
    let games = [];
    try {
      const page = await api("GET", `/api/games?user=${user}&level=${level}&state=won&page_size=${CHART_GAMES}`);
      games = page.results.filter((/** @type {any} */ g) => g.race === null && g.elapsed_ms !== null);
    } catch (err) {
      games = (profile.recent_games || []).filter((/** @type {any} */ g) => g.level === level && g.state === "won");
    }
    chartCache[level] = games.sort((a, b) => (a.ended_at < b.ended_at ? -1 : 1));
  }
  return chartCache[level];
}

/** A line chart of the winning times at one level, oldest to newest. @param {string} level */
async function drawChart(level) {
  const games = await chartGames(level);
  const times = games.map((g) => g.elapsed_ms / 1000);
  // Round steps for the grid (1, 2 or 5 times a power of ten): 0 s, 10 s, 20 s…
  const raw = (Math.max(...times) * 1.05) / 4 || 1;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw) || 10 * mag;
  drawLineChart(
    $("chart"),
    {
      values: times,
      grid: [0, 1, 2, 3, 4].map((k) => step * k),
      gridLabel: (v) => fmtNum(v, step < 1 ? 1 : 0) + "\u00a0s",
      dotTitle: (i) => `${fmtTime(games[i].elapsed_ms)} · ${fmtDate(games[i].ended_at)}`,
      label: fmt(gettext("Winning times at %(level)s, oldest to newest"), { level: levelLabel(level) }),
    },
    gettext("No won game at this level among the recent games."),
  );
}

// --- luck (docs/STATS.md, Luck, measured): forced guesses as coin flips ---------------------

/** A signed number: +0.50, -1.25. @param {number} v */
const signed = (v) => (v > 0 ? "+" : "") + fmtNum(v, 2);

/** A row per bucket with a coin flip or an unlucky loss, classic then no-guess: the flips, their
 * expected survivals, the luck against expectation and the luck-adjusted record.
 * @param {Record<string, any>} stats  @param {boolean} noGuess */
function luckRows(stats, noGuess) {
  return ORDER.filter((lv) => stats[lv] && stats[lv].coin_flips_won + stats[lv].coin_flips_lost + stats[lv].unlucky_losses > 0).map((lv) => {
    const s = stats[lv];
    return el(
      "tr",
      { "data-level": lv, "data-no-guess": String(noGuess) },
      el("th", { scope: "row", text: modeLabel(lv, noGuess) }),
      el("td", { class: "num", text: `${s.coin_flips_won} / ${s.coin_flips_lost}` }),
      el("td", { class: "num", text: fmtNum(s.expected_survivals, 2) }),
      el("td", { class: "num", "data-luck": String(s.luck), text: signed(s.luck) }),
      // Had every forced guess gone their way, each unlucky loss would have been a win.
      el("td", { class: "num", text: `${s.won + s.unlucky_losses} / ${s.played}` }),
      el("td", { class: "num", text: `${s.adjusted_streak} / ${s.best_adjusted_streak}` }),
    );
  });
}

/** @type {Promise<any> | null} GET /api/users/{name}/luck, read once */
let luckRead = null;
const readLuck = () => (luckRead ||= api("GET", `/api/users/${encodeURIComponent(username)}/luck`).catch(() => ({ levels: {} })));

/** A month "2026-11" in the page's language. @param {string} month */
function fmtMonth(month) {
  const opts = /** @type {const} */ ({ year: "numeric", month: "long", timeZone: "UTC" });
  return new Date(`${month}-01T00:00:00Z`).toLocaleDateString(document.documentElement.lang || undefined, opts);
}

/** The luck against expectation summed month by month at one level, oldest to newest.
 * @param {string} level */
async function drawLuckChart(level) {
  const luck = await readLuck();
  /** @type {any[]} */
  const months = (luck.levels[level] || {}).months || [];
  const values = months.map((m) => m.cumulative_luck);
  // A grid even around 0, in round steps (1, 2 or 5 times a power of ten).
  const raw = Math.max(0.5, ...values.map(Math.abs)) / 2;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((v) => v >= raw) || 10 * mag;
  drawLineChart(
    $("luck-chart"),
    {
      values,
      grid: [-2, -1, 0, 1, 2].map((k) => step * k),
      gridLabel: (v) => signed(v),
      dotTitle: (i) => fmt(gettext("%(month)s: %(luck)s this month, %(total)s in all"), { month: fmtMonth(months[i].month), luck: signed(months[i].luck), total: signed(months[i].cumulative_luck) }),
      label: fmt(gettext("Luck against expectation at %(level)s, summed month by month"), { level: levelLabel(level) }),
    },
    gettext("No forced guess at this level yet."),
  );
}

function drawLuck() {
  const rows = [...luckRows(profile.stats || {}, false), ...luckRows(profile.stats_no_guess || {}, true)];
  const table = $("luck-stats", HTMLTableElement);
  table.tBodies[0].replaceChildren(...rows);
  labelCells(table);
  table.hidden = !rows.length;
  $("luck-empty").hidden = rows.length > 0;
  const select = $("luck-level", HTMLSelectElement);
  // Start on the classic level with the most coin flips.
  const flips = (/** @type {string} */ lv) => { const s = (profile.stats || {})[lv]; return s ? s.coin_flips_won + s.coin_flips_lost : 0; };
  const top = [...select.options].map((o) => o.value).sort((a, b) => flips(b) - flips(a))[0];
  if (top && flips(top) > 0) select.value = top;
  select.addEventListener("change", () => drawLuckChart(select.value));
  return drawLuckChart(select.value);
}

/** @param {any} g  a recent game of the profile */
function recentRow(g) {
  const outcome = g.state === "won" ? gettext("won") : gettext("lost");
  return el(
    "li",
    {},
    el("span", { class: "pill " + g.state, text: outcome }),
    el("span", { class: "grow" }, modeLabel(g.level, g.no_guess), " · ", g.elapsed_ms !== null ? fmtTime(g.elapsed_ms) : "—", el("small", { class: "muted when", text: fmtDate(g.ended_at) })),
    el("a", { class: "btn", href: `/games/${g.id}/replay`, text: gettext("Replay") }),
  );
}

// --- races (GET /api/users/{name}/races, docs/RACES.md) ---------------------------------------

/** @param {Record<string, any>} levels  the race statistics per level */
function raceStatsRows(levels) {
  return ORDER.filter((lv) => levels[lv]).map((lv) => {
    const r = levels[lv];
    return el(
      "tr",
      { "data-level": lv, class: r.races ? null : "unplayed" },
      el("th", { scope: "row", text: levelLabel(lv) }),
      r.rating === null || r.rating === undefined ? el("td", { class: "num", text: "—" }) : el("td", { class: "num" }, ratingText(r.rating, r.provisional)),
      el("td", { class: "num", text: String(r.races) }),
      el("td", { class: "num", text: String(r.wins) }),
      el("td", { class: "num", text: String(r.podiums) }),
    );
  });
}

/** @param {any} h  a race of the player's history */
function raceRow(h) {
  const place = h.place ? fmt(gettext("place %(n)s of %(total)s"), { n: h.place, total: h.racers }) : "—";
  const rating = h.rated && h.rating_before !== null && h.rating_after !== null ? el("span", {}, `${h.rating_before} → `, ratingText(h.rating_after, h.provisional)) : gettext("not rated");
  return el(
    "li",
    { "data-race": h.race },
    el("span", { class: "pill " + (h.place === 1 ? "won" : h.state === "won" ? "won" : "lost"), text: place }),
    el("span", { class: "grow" }, levelLabel(h.level), " · ", h.elapsed_ms !== null ? fmtTime(h.elapsed_ms) : "—", " · ", rating, el("small", { class: "muted when", text: fmtDate(h.ended_at) })),
    el("a", { class: "btn", href: `/races/${h.race}`, text: gettext("Results") }),
    h.game ? el("a", { class: "btn", href: `/games/${h.game}/replay`, text: gettext("Replay") }) : null,
  );
}

/** A podium of a season that has ended: the season, the board (level and mode), the rank.
 * @param {{ season: string, level: string, no_guess: boolean, rank: number, rating: number }} p */
function seasonPodium(p) {
  return el(
    "li",
    { "data-season": p.season },
    el("span", { class: "pill won", text: placeText(p.rank) }),
    el("span", { class: "grow" }, seasonLabel(p.season), " · ", modeLabel(p.level, p.no_guess), " · ", fmt(gettext("rating %(rating)s"), { rating: p.rating })),
  );
}

/** @param {any} races  GET /api/users/{name}/races, or null when it could not be read */
function drawRaces(races) {
  const r = races || { levels: {}, races: 0, wins: 0, podiums: 0, history: [] };
  const nRaces = r.races || 0, nWins = r.wins || 0, nPodiums = r.podiums || 0;
  $("race-totals").textContent = fmt(gettext("%(races)s, %(wins)s, %(podiums)s"), {
    races: fmt(ngettext("%(n)s race", "%(n)s races", nRaces), { n: nRaces }),
    wins: fmt(ngettext("%(n)s win", "%(n)s wins", nWins), { n: nWins }),
    podiums: fmt(ngettext("%(n)s podium", "%(n)s podiums", nPodiums), { n: nPodiums }),
  });
  const rows = raceStatsRows(r.levels || {});
  const table = $("race-stats", HTMLTableElement);
  table.hidden = !rows.length;
  table.tBodies[0].replaceChildren(...rows);
  labelCells(table);
  const podiums = (r.season_podiums || []).map(seasonPodium);
  $("season-podiums").replaceChildren(...podiums);
  $("season-podiums").hidden = $("season-podiums-heading").hidden = !podiums.length;
  const history = r.history || [];
  $("race-history").replaceChildren(...history.map(raceRow));
  if (!history.length) $("race-history").replaceChildren(el("li", { class: "muted", text: gettext("No finished race yet.") }));
}

// --- arenas: the record kept with the race statistics (docs/ARENAS.md, Profiles) ---------------

/** @param {{ played?: number, podiums?: number, best_rank?: number | null } | undefined} arenas */
function drawArenas(arenas) {
  /** @type {Record<string, unknown>} */
  const a = arenas || { played: 0, podiums: 0, best_rank: null };
  for (const box of document.querySelectorAll("#arena-stats [data-arena-stat]")) {
    const key = /** @type {HTMLElement} */ (box).dataset.arenaStat || "";
    const v = a[key];
    const b = box.querySelector("b");
    if (b) b.textContent = v === null || v === undefined ? "—" : key === "best_rank" ? `#${v}` : String(v);
  }
}

// --- the daily challenge: streaks and the calendar (API.md, GET /api/users/{name}/daily) -----

/** A calendar row: one daily of the player. @typedef {{ date: string, level: string, state: string, time_ms: number | null, opened: number, place: number | null, ranked: boolean, game_id: string }} DailyEntry */

/** @param {any} daily  the profile's `daily` */
function drawDailyStats(daily) {
  const d = daily || {};
  for (const box of document.querySelectorAll("#daily-stats [data-stat]")) {
    const key = /** @type {HTMLElement} */ (box).dataset.stat || "";
    const v = d[key];
    const b = box.querySelector("b");
    if (b) b.textContent = v === null || v === undefined ? "—" : key === "best_rank" ? `#${v}` : String(v);
  }
  // The same numbers per level, for the levels played.
  const levels = d.levels || {};
  const rows = SITE.levels.filter((l) => levels[l.name] && levels[l.name].played > 0).map((l) => {
    const x = levels[l.name];
    return el(
      "tr",
      { "data-level": l.name },
      el("th", { scope: "row", text: l.label }),
      el("td", { class: "num", text: String(x.played) }),
      el("td", { class: "num", text: String(x.won) }),
      el("td", { class: "num", text: `${x.current_streak} / ${x.best_streak}` }),
      el("td", { class: "num", text: x.best_rank ? `#${x.best_rank}` : "—" }),
    );
  });
  const table = $("daily-levels", HTMLTableElement);
  table.tBodies[0].replaceChildren(...rows);
  labelCells(table);
  table.hidden = !rows.length;
}

const calendar = { from: "", to: "", today: "", rows: /** @type {DailyEntry[]} */ ([]) };

/** One day of the calendar: a cell per level. @param {string} date  @param {DailyEntry[]} entries */
function calendarRow(date, entries) {
  const cells = SITE.levels.map((l) => {
    const e = entries.find((x) => x.level === l.name);
    if (!e) return el("td", { "data-level": l.name, class: "muted", text: "·" });
    // Another player's daily game of today shows nothing yet; its replay once the day is over.
    const href = date === calendar.today ? `/games/${e.game_id}` : `/games/${e.game_id}/replay`;
    const place = e.place ? ` #${e.place}` : "";
    const text = rowResult(e) + place;
    return el(
      "td",
      { "data-level": l.name, "data-state": e.state },
      el("a", { href, class: "pill " + e.state, text }),
      e.ranked ? null : el("span", { class: "badge badge-unranked", title: gettext("This daily did not rank."), text: gettext("unranked") }),
    );
  });
  return el("tr", { "data-date": date }, el("th", { scope: "row" }, el("a", { href: date === calendar.today ? "/daily" : `/daily/${date}`, text: fmtDay(date) })), ...cells);
}

function drawCalendar() {
  const days = [...new Set(calendar.rows.map((r) => r.date))].sort().reverse();
  const table = $("daily-calendar", HTMLTableElement);
  table.tBodies[0].replaceChildren(...days.map((d) => calendarRow(d, calendar.rows.filter((r) => r.date === d))));
  labelCells(table);
  table.hidden = !days.length;
  $("calendar-empty").hidden = days.length > 0;
  $("calendar-range").textContent = calendar.from ? `(${fmtDay(calendar.from)} – ${fmtDay(calendar.to)})` : "";
}

/** The calendar's next 30 days back: none given, the 30 days up to today. @param {string} [before] */
async function loadCalendar(before) {
  const q = new URLSearchParams();
  if (before) {
    const to = new Date(`${before}T00:00:00Z`);
    to.setUTCDate(to.getUTCDate() - 1);
    q.set("to", to.toISOString().slice(0, 10));
  }
  try {
    const answer = await api("GET", `/api/users/${encodeURIComponent(username)}/daily?${q}`);
    if (!before) calendar.today = calendar.to = answer.to;
    calendar.from = answer.from;
    calendar.rows.push(...answer.results);
  } catch (err) {
    $("profile-error").textContent = messageOf(err);
    return;
  }
  drawCalendar();
}
$("calendar-earlier").addEventListener("click", () => calendar.from && loadCalendar(calendar.from));

(async function start() {
  // What does not wait for the profile is asked for at once, beside it.
  readLuck();
  // The race statistics are served on their own (docs/RACES.md): GET /api/users/{name}/races.
  const races = api("GET", `/api/users/${encodeURIComponent(username)}/races`).catch(() => null); // none: the totals say zero
  const days = loadCalendar();
  try {
    profile = await api("GET", `/api/users/${encodeURIComponent(username)}`);
  } catch (err) {
    $("profile-error").textContent = err instanceof ApiError && err.status === 404 ? gettext("No such player.") : messageOf(err);
    $("profile").dataset.state = "ready";
    return;
  }
  $("bot-badge").hidden = profile.kind !== "bot"; // RULES.md, Fair play: bots are declared
  $("joined").textContent = fmt(gettext("Playing since %(date)s"), { date: fmtDate(profile.date_joined) });
  const stats = $("stats", HTMLTableElement);
  stats.tBodies[0].replaceChildren(...statsRows(profile.stats || {}));
  labelCells(stats);
  // No-guess games count apart (RULES.md, No-guess boards): their table once one was played.
  const noGuess = profile.stats_no_guess || {};
  const ngTable = $("stats-no-guess", HTMLTableElement);
  ngTable.tBodies[0].replaceChildren(...statsRows(Object.fromEntries(Object.entries(noGuess).filter(([, s]) => s.played > 0))));
  labelCells(ngTable);
  $("no-guess-stats").hidden = !Object.values(noGuess).some((s) => s.played > 0);
  const nf = [...nfRows(profile.stats || {}, false), ...nfRows(noGuess, true)];
  const nfTable = $("nf-bests", HTMLTableElement);
  nfTable.tBodies[0].replaceChildren(...nf);
  labelCells(nfTable);
  $("nf-section").hidden = nf.length === 0;
  const select = $("chart-level", HTMLSelectElement);
  // Start on the level the player has played most (their statistics, not the last games).
  const charted = new Set([...select.options].map((o) => o.value));
  const played = ORDER.filter((lv) => charted.has(lv))
    .map((lv) => [lv, ((profile.stats || {})[lv] || {}).played || 0])
    .filter(([, n]) => n > 0);
  const top = played.sort((a, b) => b[1] - a[1])[0];
  if (top) select.value = top[0];
  select.addEventListener("change", () => drawChart(select.value));
  $("recent").replaceChildren(...(profile.recent_games || []).map(recentRow));
  if (!(profile.recent_games || []).length) $("recent").replaceChildren(el("li", { class: "muted", text: gettext("No finished game yet.") }));
  drawDailyStats(profile.daily);
  // Below the first screen, the chart of recent times is drawn when its games are read; the
  // rest is shown at once when it is all drawn (data-state), so no part pushes another down.
  drawChart(select.value);
  await Promise.all([
    drawLuck(),
    races.then((r) => {
      drawRaces(r);
      drawArenas(r ? r.arenas : undefined);
    }),
    days,
  ]).finally(() => {
    $("profile").dataset.state = "ready";
  });
})();
