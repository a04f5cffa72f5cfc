// @ts-check
// A player's insights (docs/STATS.md, Insights): GET /api/users/{name}/insights drawn as charts
// with uPlot (the npm package, copied into the static files by `make vendor`: served by the
// site, no outside host), one level and mode at a time. Each figure says its key numbers in
// its caption and keeps its values in a visually hidden table: the canvas is hidden from
// screen readers. The heat grid is plain elements, one per cell of the level's board.
import uPlot from "../vendor/uplot/uPlot.esm.js";
import { api, gettext, fmt, fmtNum, messageOf } from "./api.js";
import { $, el } from "./dom.js";
import { modeLabel } from "./constants.js";

const root = $("insights");
const username = root.dataset.username || "";
const levelSelect = $("insights-level", HTMLSelectElement);
const modeSelect = $("insights-mode", HTMLSelectElement);
const lang = document.documentElement.lang || undefined;
/** @type {Record<string, Promise<any>>} the answer of each mode, read once */
const reads = {};
/** @type {{ plot: uPlot, box: HTMLElement }[]} the charts on the page, resized with it */
let plots = [];

/** A CSS colour of the theme. @param {string} name @param {string} fallback */
function color(name, fallback) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

/** @param {number | null | undefined} v @param {number} digits */
const num = (v, digits) => (v === null || v === undefined ? "—" : fmtNum(v, digits));
/** A think time in seconds. @param {number | null | undefined} ms */
const secs = (ms) => (ms === null || ms === undefined ? "—" : fmtNum(ms / 1000, 1) + "\u00a0s");
/** @param {number | null | undefined} v */
const pct = (v) => (v === null || v === undefined ? "—" : new Intl.NumberFormat(lang, { style: "percent" }).format(v));
/** A signed number: +0.50, -1.25. @param {number} v */
const signed = (v) => (v > 0 ? "+" : "") + fmtNum(v, 2);
/** A month "2026-11" in the page's language, short. @param {string} month */
function monthLabel(month) {
  const opts = /** @type {const} */ ({ year: "numeric", month: "short", timeZone: "UTC" });
  return new Date(`${month}-01T00:00:00Z`).toLocaleDateString(lang, opts);
}

/** @param {string} mode */
function read(mode) {
  if (!reads[mode]) reads[mode] = api("GET", `/api/users/${encodeURIComponent(username)}/insights?mode=${mode}`);
  return reads[mode];
}

/**
 * One series of a chart: its words, its values per month, how a value is written, its scale.
 * @typedef {object} Line
 * @property {string} label
 * @property {(number | null)[]} values
 * @property {(v: number | null) => string} text
 * @property {string} stroke
 * @property {string} [scale]
 * @property {boolean} [dash]
 */

/** Draw `lines` over the months into `figure`'s plot, and their values into its hidden table.
 * @param {HTMLElement} figure @param {string[]} months @param {Line[]} lines */
function drawChart(figure, months, lines) {
  const box = /** @type {HTMLElement} */ (figure.querySelector(".plot"));
  const ink = color("--muted", "#666"), grid = color("--table-line", "#ddd");
  const scales = [...new Set(lines.map((l) => l.scale || "y"))];
  /** @type {uPlot.Axis[]} */
  const axes = [
    {
      stroke: ink,
      grid: { show: false },
      ticks: { stroke: grid },
      incrs: [1, 2, 3, 6, 12, 24],
      values: (_u, splits) => splits.map((i) => (Number.isInteger(i) && months[i] ? monthLabel(months[i]) : "")),
    },
    ...scales.map((scale, k) => {
      const line = /** @type {Line} */ (lines.find((l) => (l.scale || "y") === scale));
      return /** @type {uPlot.Axis} */ ({
        scale,
        side: k ? 1 : 3,
        stroke: ink,
        grid: { show: k === 0, stroke: grid },
        ticks: { stroke: grid },
        size: 56,
        values: (_u, splits) => splits.map((v) => line.text(v)),
      });
    }),
  ];
  /** @type {uPlot.Options} */
  const opts = {
    width: Math.max(280, box.clientWidth || 600),
    height: 220,
    scales: {
      x: { time: false, range: () => [-0.5, Math.max(0.5, months.length - 0.5)] },
      ...Object.fromEntries(scales.map((s) => [s, { range: (_u, lo, hi) => [Math.min(0, lo), hi > lo ? hi * 1.1 : lo + 1] }])),
    },
    axes,
    cursor: { y: false },
    legend: { show: true },
    series: [
      { label: gettext("Month"), value: (_u, i) => (i === null || !months[i] ? "—" : monthLabel(months[i])) },
      ...lines.map((l) => ({
        label: l.label,
        scale: l.scale || "y",
        stroke: l.stroke,
        width: 2.5,
        dash: l.dash ? [6, 4] : undefined,
        points: { show: true, size: 7, fill: l.stroke },
        value: (/** @type {uPlot} */ _u, /** @type {number | null} */ v) => l.text(v),
      })),
    ],
  };
  const data = /** @type {uPlot.AlignedData} */ ([months.map((_, i) => i), ...lines.map((l) => l.values)]);
  box.replaceChildren();
  plots.push({ plot: new uPlot(opts, data, box), box });
  // The same values in words, for screen readers (the canvas is aria-hidden).
  // (in a hidden box: a table is as wide as its cells whatever width it is given)
  const table = el(
    "table",
    {},
    el("caption", { text: /** @type {HTMLElement} */ (figure.querySelector("h2")).textContent || "" }),
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: gettext("Month") }), ...lines.map((l) => el("th", { scope: "col", text: l.label })))),
    el("tbody", {}, ...months.map((m, i) => el("tr", {}, el("th", { scope: "row", text: monthLabel(m) }), ...lines.map((l) => el("td", { text: l.text(l.values[i]) }))))),
  );
  figure.querySelector(".values")?.remove();
  figure.append(el("div", { class: "visually-hidden values" }, table));
}

/** @param {HTMLElement} figure @param {string} text */
function summary(figure, text) {
  /** @type {HTMLElement} */ (figure.querySelector("[data-summary]")).textContent = text;
}

/** The heat grid: each cell of the board shaded by its share of the level's guesses.
 * @param {HTMLElement} figure @param {any} heat */
function drawHeat(figure, heat) {
  const box = /** @type {HTMLElement} */ (figure.querySelector(".heat"));
  /** @type {number[][]} */
  const rows = heat.cells;
  const most = Math.max(1, ...rows.flat());
  const grid = el("div", { class: "heat-grid" });
  grid.style.setProperty("--cols", String(heat.width));
  grid.style.setProperty("--rows", String(heat.height));
  for (const row of rows) {
    for (const n of row) {
      const cell = el("span", { class: n ? "heat-cell hot" : "heat-cell" });
      if (n) cell.style.setProperty("--heat", String(0.15 + (0.85 * n) / most));
      grid.append(cell);
    }
  }
  box.replaceChildren(grid);
  const total = heat.guesses;
  if (!total) {
    summary(figure, gettext("No guess yet."));
    return;
  }
  const w = heat.width, h = heat.height;
  let edge = 0, corner = 0;
  rows.forEach((row, y) => row.forEach((n, x) => {
    const ex = x === 0 || x === w - 1, ey = y === 0 || y === h - 1;
    if (ex || ey) edge += n;
    if (ex && ey) corner += n;
  }));
  summary(
    figure,
    fmt(gettext("Guesses: %(n)s; %(edge)s on the edge of the board, %(corner)s in a corner; the most in one cell: %(most)s."), {
      n: String(total),
      edge: pct(edge / total),
      corner: pct(corner / total),
      most: String(most),
    }),
  );
}

/** The totals above the charts. @param {any} s */
function drawTotals(s) {
  /** @type {Record<string, string>} */
  const text = {
    games: String(s.games),
    avoidable_per_game: num(s.avoidable_per_game, 2),
    think_deduced_ms: secs(s.think_deduced_ms),
    think_guess_ms: secs(s.think_guess_ms),
    bbbv_per_s: num(s.bbbv_per_s, 2),
    ioe: num(s.ioe, 2),
    luck: s.coin_flips_won + s.coin_flips_lost ? signed(s.luck) : "—",
  };
  for (const [key, value] of Object.entries(text)) {
    const b = root.querySelector(`[data-total="${key}"] b`);
    if (b) b.textContent = value;
  }
}

async function draw() {
  const level = levelSelect.value, mode = modeSelect.value;
  $("insights-error").textContent = "";
  let answer;
  try {
    answer = await read(mode);
  } catch (err) {
    $("insights-error").textContent = messageOf(err);
    return;
  }
  if (level !== levelSelect.value || mode !== modeSelect.value) return; // a newer choice draws
  const s = answer.levels[level];
  for (const { plot } of plots) plot.destroy();
  plots = [];
  drawTotals(s);
  $("insights-empty").hidden = s.games > 0;
  /** @type {any[]} */
  const ms = s.months;
  const months = ms.map((m) => m.month);
  const accent = color("--accent", "#c0392b"), second = color("--link", "#2a6fdb");
  const where = modeLabel(level, mode === "no_guess");

  const guesses = $("fig-avoidable");
  drawChart(guesses, months, [
    { label: gettext("Avoidable guesses per game"), values: ms.map((m) => m.avoidable_per_game), text: (v) => num(v, 2), stroke: second },
    { label: gettext("Forced guesses per game"), values: ms.map((m) => (m.games ? m.forced_guesses / m.games : null)), text: (v) => num(v, 2), stroke: accent, dash: true },
  ]);
  summary(guesses, fmt(gettext("%(where)s, games: %(games)s. Avoidable guesses: %(avoidable)s, forced: %(forced)s; %(per_game)s avoidable per game, and %(share)s of the guesses could have been avoided."), {
    where,
    avoidable: String(s.avoidable_guesses),
    forced: String(s.forced_guesses),
    games: String(s.games),
    per_game: num(s.avoidable_per_game, 2),
    share: pct(s.avoidable_share),
  }));

  const think = $("fig-think");
  drawChart(think, months, [
    { label: gettext("Deduced move"), values: ms.map((m) => m.think_deduced_ms), text: secs, stroke: accent },
    { label: gettext("Guess"), values: ms.map((m) => m.think_guess_ms), text: secs, stroke: second, dash: true },
  ]);
  summary(think, fmt(gettext("On average a deduced move took %(deduced)s and a guess %(guess)s (the game clock since the move before; a wait over a minute counts as a minute)."), {
    deduced: secs(s.think_deduced_ms),
    guess: secs(s.think_guess_ms),
  }));

  const speed = $("fig-speed");
  drawChart(speed, months, [
    { label: "3BV/s", values: ms.map((m) => m.bbbv_per_s), text: (v) => num(v, 2), stroke: accent },
    { label: "IOE", values: ms.map((m) => m.ioe), text: (v) => num(v, 2), stroke: second, scale: "ioe", dash: true },
  ]);
  summary(speed, fmt(gettext("Wins: %(wins)s; on average %(speed)s 3BV/s and an IOE of %(ioe)s."), {
    wins: String(s.wins),
    speed: num(s.bbbv_per_s, 2),
    ioe: num(s.ioe, 2),
  }));

  const luck = $("fig-luck");
  drawChart(luck, months, [
    { label: gettext("Luck this month"), values: ms.map((m) => m.luck), text: (v) => (v === null ? "—" : signed(v)), stroke: accent },
    { label: gettext("Luck summed"), values: ms.map((m) => m.cumulative_luck), text: (v) => (v === null ? "—" : signed(v)), stroke: second, dash: true },
  ]);
  summary(luck, fmt(gettext("Coin flips won: %(won)s of %(flips)s, %(expected)s expected from their odds: luck %(luck)s."), {
    won: String(s.coin_flips_won),
    flips: String(s.coin_flips_won + s.coin_flips_lost),
    expected: num(s.expected_survivals, 2),
    luck: signed(s.luck),
  }));

  drawHeat($("fig-heat"), s.heat);
  root.dataset.drawn = `${level}:${mode}`;
}

async function start() {
  // Open on the classic level with the most analysed games.
  try {
    const classic = await read("classic");
    const games = (/** @type {string} */ lv) => (classic.levels[lv] || { games: 0 }).games;
    const top = [...levelSelect.options].map((o) => o.value).sort((a, b) => games(b) - games(a))[0];
    if (top && games(top) > 0) levelSelect.value = top;
  } catch (err) {
    // draw() says why
  }
  levelSelect.addEventListener("change", draw);
  modeSelect.addEventListener("change", draw);
  // The charts follow the page's width (a phone turned, a window resized).
  new ResizeObserver(() => {
    for (const { plot, box } of plots) {
      const width = Math.max(280, box.clientWidth);
      if (width !== plot.width) plot.setSize({ width, height: plot.height });
    }
  }).observe(root);
  await draw();
}

start();
