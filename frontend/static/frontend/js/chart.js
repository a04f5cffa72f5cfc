// @ts-check
// The site's one line chart, inline SVG with no library and no outside host: the profile's
// winning times (profile.js) and the puzzle dashboard's rating (puzzle_dashboard.js). The page
// says what the values are (the grid's steps and their words, each dot's title, the chart's
// label); this module draws them, oldest on the left, newest on the right.
import { gettext } from "./api.js";
import { el } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
/** An SVG element of the chart. @param {string} tag  @param {Record<string, string | number>} attrs  @param {string} [text] */
function svg(tag, attrs, text) {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  if (text !== undefined) n.textContent = text;
  return n;
}

/**
 * What a page charts.
 * @typedef {object} LineChart
 * @property {number[]} values  oldest first (at least one)
 * @property {number[]} grid  the grid lines' values, lowest first: the first and the last are
 *   the chart's bottom and top
 * @property {(v: number) => string} gridLabel  a grid line's words
 * @property {(i: number) => string} dotTitle  the words of the i-th value's dot
 * @property {string} label  the whole chart in words (its aria-label)
 */

/** Draw `chart` into `box`, or the muted `empty` line when there is no value.
 * @param {HTMLElement} box  @param {LineChart} chart  @param {string} empty */
export function drawLineChart(box, chart, empty) {
  const { values, grid } = chart;
  if (!values.length) {
    box.replaceChildren(el("p", { class: "muted", text: empty }));
    return;
  }
  // As wide as its box, so the labels keep their size on a phone (no shrunken text).
  const W = Math.max(300, Math.min(900, box.clientWidth || 640)), H = 240, L = 56, R = 16, T = 16, B = 34;
  const low = grid[0], high = grid[grid.length - 1];
  const x = (/** @type {number} */ i) => (values.length === 1 ? L + (W - L - R) / 2 : L + (i * (W - L - R)) / (values.length - 1));
  const y = (/** @type {number} */ v) => T + (H - T - B) * (1 - (v - low) / (high - low));
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": chart.label });
  for (const v of grid) {
    root.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }));
    root.append(svg("text", { x: L - 8, y: y(v) + 4, "text-anchor": "end" }, chart.gridLabel(v)));
  }
  root.append(svg("polyline", { points: values.map((v, i) => `${x(i)},${y(v)}`).join(" "), class: "line" }));
  values.forEach((v, i) => {
    const dot = svg("circle", { cx: x(i), cy: y(v), r: 4.5, class: "dot" });
    dot.append(svg("title", {}, chart.dotTitle(i)));
    root.append(dot);
  });
  root.append(svg("text", { x: L, y: H - 10 }, gettext("older")));
  root.append(svg("text", { x: W - R, y: H - 10, "text-anchor": "end" }, gettext("newer")));
  box.replaceChildren(root);
}
