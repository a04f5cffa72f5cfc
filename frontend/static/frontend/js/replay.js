// @ts-check
// Replay a finished game move by move. The layout is public once the game has ended, so the
// page rebuilds every step locally from the final board and GET /api/games/{id}/moves.
import { api, ApiError, gettext, fmt, fmtNum, fmtTime, messageOf, playerLabel } from "./api.js";
import { $, $$, el } from "./dom.js";
import { modeLabel, SITE } from "./constants.js";
import { BoardView, cellPlace, flagAllMines } from "./board.js";
import { LocalBoard, minesFromFinalBoard } from "./engine.js";

const gameId = $("replay").dataset.gameId;
/** @returns {Record<string, string>} */
const ACTION_NAMES = () => ({
  reveal: gettext("open"), flag: gettext("flag"), chord: gettext("chord"), pause: gettext("pause"),
  resume: gettext("resume"), resign: gettext("give up"), abandon: gettext("abandoned"),
});

/** @type {any} the finished Game */
let game;
/** @type {any[]} its moves (API.md, GET /api/games/{id}/moves), pauses left out */
let moves = [];
/** @type {string[][]} the board after each move: frames[k] after k moves */
let frames = [];
/** @type {BoardView} */
let view;
let step = 0;
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
/** @type {Map<number, any>} the analysis of each reveal and chord, by its seq (API.md) */
let judged = new Map();
const scrub = $("scrub", HTMLInputElement);

async function allMoves() {
  const out = [];
  /** @type {string | null} the largest page the API gives (API.md, Lists) */
  let url = `/api/games/${gameId}/moves?page_size=${SITE.max_page_size}`;
  while (url) {
    const page = await api("GET", url);
    out.push(...page.results);
    url = page.next ? new URL(page.next, location.href).pathname + new URL(page.next, location.href).search : null;
  }
  return out;
}

/** The last picture: the server's final board; a won one with every mine flagged. */
const endPicture = () => (game.state === "won" ? flagAllMines(game.board) : game.board);

function simulate() {
  const local = new LocalBoard(game.width, game.height, minesFromFinalBoard(game.board));
  frames = [local.rows()];
  for (const m of moves) {
    if (m.action === "reveal") local.reveal(m.x, m.y);
    else if (m.action === "chord") local.chord(m.x, m.y);
    else if (m.action === "flag") {
      // `flagged` (true/false) is what the move asked for; null was a toggle (API.md, flag).
      const before = local.view[m.y * game.width + m.x];
      local.flag(m.x, m.y, m.flagged === undefined ? null : m.flagged);
      m.unflag = before === "F" && local.view[m.y * game.width + m.x] === "#";
    }
    frames.push(local.rows());
  }
  frames[frames.length - 1] = endPicture(); // the server's own end picture: mines, wrong flags
}

/** The badge of a judged move. An avoidable guess is one of two things a player reads
 * differently: a provably safe cell was there (no guess was needed), or every cell was a guess
 * and a less likely one was there. A cell is provably safe exactly when its chance is 0
 * (docs/ANALYSIS.md, Labels), so `safest_p_mine` tells them apart.
 * @param {{ label: string, safest_p_mine: number }} a */
function badgeText(a) {
  if (a.label === "deduced") return gettext("Deduced");
  if (a.label === "forced_guess") return gettext("Forced guess");
  if (a.label !== "avoidable_guess") return a.label;
  return a.safest_p_mine === 0 ? gettext("Needless guess: a provably safe cell was there") : gettext("Riskier guess: a safer one was there");
}

/** @type {Intl.NumberFormat | null} */
let percent = null;

/** A chance as a percentage in the page's language ("15.9%", "15,9 %" in French), to a tenth
 * where it matters. @param {number} p */
function pct(p) {
  if (!percent) {
    /** @type {Intl.NumberFormatOptions} */
    const opts = { style: "percent", maximumFractionDigits: 1 };
    try {
      percent = new Intl.NumberFormat(document.documentElement.lang || undefined, opts);
    } catch (err) {
      percent = new Intl.NumberFormat(undefined, opts);
    }
  }
  return percent.format(p);
}

/** The analysis of the move just shown: its badge, its odds, the safest cell there was.
 * @param {any} m the move (undefined before the first) @returns {Record<number, string>} marks */
function showAnalysis(m) {
  const line = $("move-analysis");
  const a = m && judged.get(m.seq);
  if (!a) {
    line.hidden = true;
    return {};
  }
  line.hidden = false;
  const badge = $("move-badge");
  badge.className = "badge badge-" + a.label;
  badge.textContent = badgeText(a);
  badge.dataset.kind = a.label === "avoidable_guess" ? (a.safest_p_mine === 0 ? "provable" : "safer") : a.label;
  $("move-odds").textContent =
    a.label === "deduced"
      ? gettext("Every cell it opened was provably safe.")
      : fmt(gettext("Chance of a mine: %(p)s · the safest cell then: %(safest)s"), { p: pct(a.p_mine), safest: pct(a.safest_p_mine) });
  return a.safest ? { [a.safest[1] * game.width + a.safest[0]]: "m-safest" } : {};
}

/** The page's summary of the analysis, or why it is not there yet. */
function showSummary() {
  const a = game.analysis;
  const parts = [];
  if (!a) parts.push(gettext("The analysis of this game is not ready yet."));
  else {
    parts.push(fmt(gettext("Forced guesses: %(n)s · avoidable guesses: %(m)s"), { n: a.forced_guesses, m: a.avoidable_guesses }));
    if (a.unlucky_loss) parts.push(gettext("Lost on a forced guess: an unlucky loss, which does not break the skill streak."));
  }
  $("analysis-summary").textContent = parts.join(" · ");
}

/** The game's counters (docs/STATS.md, "The counters of a game"), as result_stats has them;
 * nothing for a game that ended before they were counted. */
function showCounters() {
  const rs = game.result_stats;
  const box = $("replay-counters");
  if (!rs || rs.effective_clicks === null || rs.effective_clicks === undefined) return;
  const num = (/** @type {number | null} */ v, digits = 2) => (v === null ? "—" : fmtNum(v, digits));
  /** @type {[string, string][]} */
  const rows = [
    [gettext("Clicks"), fmt(gettext("%(n)s: %(reveals)s open, %(flags)s flag, %(chords)s chord"), { n: rs.clicks, reveals: rs.reveal_clicks, flags: rs.flag_clicks, chords: rs.chord_clicks })],
    [gettext("Wasted clicks"), String(rs.wasted_clicks)],
    ["IOE", num(rs.ioe)],
    [gettext("Correctness"), num(rs.correctness)],
    [gettext("Throughput"), num(rs.throughput)],
    ["RQP", num(rs.rqp, 1)],
    ["ZiNi", String(rs.zini)],
    [gettext("ZiNi efficiency"), num(rs.zini_efficiency)],
    [gettext("Flags used"), rs.no_flags ? gettext("none: a no-flag (NF) win") : String(rs.flags_used)],
  ];
  box.replaceChildren(...rows.flatMap(([term, value]) => [el("dt", { text: term }), el("dd", { text: value })]));
  box.hidden = false;
}

// --- luck (docs/STATS.md, Luck, measured): the game's forced guesses as coin flips ----------

/** The chance of having survived the forced guesses, their count won and lost, and the luck
 * against expectation; nothing until the analysis is there (or if it kept no luck). */
function showLuck() {
  const luck = game.analysis && game.analysis.luck;
  const box = $("replay-luck");
  box.hidden = !luck;
  if (!luck) return;
  const signed = (/** @type {number} */ v) => (v > 0 ? "+" : "") + fmtNum(v, 2);
  const chance = luck.survival_chance >= 0.001 || luck.survival_chance === 0 ? pct(luck.survival_chance) : "< 0.1%";
  /** @type {[string, string][]} */
  const rows = [
    [gettext("Chance of surviving its forced guesses"), chance],
    [gettext("Coin flips"), fmt(gettext("%(won)s won, %(lost)s lost"), { won: luck.coin_flips_won, lost: luck.coin_flips_lost })],
    [gettext("Luck against expectation"), fmt(gettext("%(luck)s (%(won)s survived, %(expected)s expected)"), { luck: signed(luck.luck), won: luck.coin_flips_won, expected: fmtNum(luck.expected_survivals, 2) })],
  ];
  box.replaceChildren(...rows.flatMap(([term, value]) => [el("dt", { text: term }), el("dd", { text: value })]));
}

// --- the probability overlay (docs/ANALYSIS.md, The probability overlay) -----------------
// After the end the server keeps every closed cell's chance of a mine at each step (GET
// /api/games/{id}/probabilities?step=N); a toggle draws them as a heat map in six bands, each
// cell's chance in its label (screen readers) and its tooltip, in the page's number format.

let overlayOn = false;
/** @type {Map<number, Promise<any>>} the steps asked for, by step */
const overlaySteps = new Map();
/** @type {Set<number>} the cells drawn with a chance */
let heated = new Set();

/** The band of a chance: 0 provably safe, 1-4 from low to high, 5 a certain mine.
 * @param {number} p */
const heatOf = (p) => (p === 0 ? 0 : p < 0.1 ? 1 : p < 0.3 ? 2 : p < 0.6 ? 3 : p < 1 ? 4 : 5);

/** @param {number} k */
function overlayStep(k) {
  let asked = overlaySteps.get(k);
  if (!asked) {
    asked = api("GET", `/api/games/${gameId}/probabilities?step=${k}`);
    overlaySteps.set(k, asked);
    asked.catch(() => overlaySteps.delete(k)); // asked again next time
  }
  return asked;
}

/** A cell back as the board draws it, without its chance. @param {number} i */
function unheat(i) {
  const c = view.cells[i];
  delete c.dataset.heat;
  c.removeAttribute("title");
  const v = view.values[i];
  view.values[i] = null; // the board draws it again, its label too
  view.set(i % game.width, Math.floor(i / game.width), v || "#");
}

function showLegend() {
  const bands = [
    fmt(gettext("%(p)s: provably safe"), { p: pct(0) }),
    fmt(gettext("under %(p)s"), { p: pct(0.1) }),
    fmt(gettext("%(from)s to %(to)s"), { from: pct(0.1), to: pct(0.3) }),
    fmt(gettext("%(from)s to %(to)s"), { from: pct(0.3), to: pct(0.6) }),
    fmt(gettext("%(from)s to %(to)s"), { from: pct(0.6), to: pct(0.995) }),
    fmt(gettext("%(p)s: a certain mine"), { p: pct(1) }),
  ];
  const legend = $("overlay-legend");
  legend.setAttribute("aria-label", gettext("Mine probabilities"));
  legend.replaceChildren(...bands.map((text, band) => el("li", {}, el("span", { class: "swatch", "data-heat": String(band), "aria-hidden": "true" }), text)));
}

/** Draw the overlay of the step shown (or take it off). */
async function drawOverlay() {
  const k = step;
  const status = $("overlay-status");
  $("overlay-legend").hidden = !overlayOn;
  if (!overlayOn) {
    for (const i of heated) unheat(i);
    heated = new Set();
    status.textContent = "";
    return;
  }
  // A cell this step opened loses its colour at once, not when the step's chances come.
  for (const i of heated) {
    if (view.values[i] !== "#" && view.values[i] !== "F") {
      unheat(i);
      heated.delete(i);
    }
  }
  /** @type {any} */
  let body;
  try {
    if (!overlaySteps.has(k)) status.textContent = gettext("Loading the probabilities…");
    body = await overlayStep(k);
  } catch (err) {
    status.textContent =
      err instanceof ApiError && err.status === 404
        ? gettext("No probabilities for this game: its analysis is not ready, or it was analysed before they were kept.")
        : messageOf(err);
    return;
  }
  if (!overlayOn || k !== step) return; // taken off, or another step shown meanwhile
  status.textContent = "";
  const next = new Set();
  for (let y = 0; y < game.height; y++) {
    const row = body.p_mine[y];
    for (let x = 0; x < game.width; x++) {
      const p = row[x];
      const i = y * game.width + x;
      if (p === null) continue;
      next.add(i);
      unheat(i); // its label as the board writes it, to add the chance to
      const c = view.cells[i];
      c.dataset.heat = String(heatOf(p));
      c.title = pct(p);
      c.setAttribute("aria-label", fmt(gettext("%(cell)s, chance of a mine: %(p)s"), { cell: c.getAttribute("aria-label") || "", p: pct(p) }));
    }
  }
  for (const i of heated) if (!next.has(i)) unheat(i);
  heated = next;
  if (k + 1 < frames.length) overlayStep(k + 1).catch(() => null); // the next step, ahead
}

/** @param {number} k */
function show(k) {
  step = Math.max(0, Math.min(frames.length - 1, k));
  view.setRows(frames[step]);
  scrub.value = String(step);
  const m = moves[step - 1];
  const names = ACTION_NAMES();
  // The cell of the move just shown is framed, so each step is easy to follow; the safest
  // cell there was before it (its analysis) is outlined.
  const marks = showAnalysis(m);
  view.setMarks(m && m.x !== null ? { ...marks, [m.y * game.width + m.x]: "m-last" } : marks);
  $("step-info").textContent =
    step === 0
      ? fmt(gettext("Move 0 of %(n)s"), { n: moves.length })
      : fmt(gettext("Move %(k)s of %(n)s: %(action)s %(cell)s at %(time)s"), {
          k: step,
          n: moves.length,
          action: m.unflag ? gettext("remove the flag") : names[m.action] || m.action,
          cell: m.x === null ? "" : cellPlace(m.x, m.y), // as the board's cells are labelled
          time: fmtTime(m.at_ms),
        });
  if (m && m.x !== null) view.setFocus(m.y * game.width + m.x, false);
  if (overlayOn || heated.size) drawOverlay();
}

function stop() {
  if (timer) clearTimeout(timer);
  timer = null;
  $("play").textContent = gettext("Play");
}

function play() {
  if (timer) return stop();
  if (step >= frames.length - 1) show(0);
  $("play").textContent = gettext("Pause");
  const tick = () => {
    if (step >= frames.length - 1) return stop();
    const here = step === 0 ? 0 : moves[step - 1].at_ms;
    const wait = Math.min(1500, Math.max(60, (moves[step].at_ms - here) / Number($("speed", HTMLSelectElement).value)));
    timer = setTimeout(() => {
      show(step + 1);
      tick();
    }, wait);
  };
  tick();
}

(async function start() {
  try {
    game = await api("GET", `/api/games/${gameId}`);
  } catch (err) {
    $("replay-error").textContent = err instanceof ApiError && err.status === 404 ? gettext("This game does not exist.") : messageOf(err);
    return;
  }
  $("replay-title").textContent = fmt(gettext("Replay: %(player)s · %(level)s"), { player: playerLabel(game.player), level: modeLabel(game.level, game.no_guess) });
  if (!["won", "lost"].includes(game.state)) {
    $("replay-sub").replaceChildren(gettext("The replay opens once the game has ended. "), el("a", { href: `/games/${gameId}`, text: gettext("Watch it live") }));
    return;
  }
  $("replay-sub").textContent =
    (game.state === "won" ? fmt(gettext("Won in %(time)s"), { time: fmtTime(game.elapsed_ms) }) : gettext("Lost")) +
    (game.result_stats ? " · 3BV " + game.result_stats.bbbv : "");
  showCounters();
  moves = (await allMoves()).filter((m) => m.action !== "pause" && m.action !== "resume");
  const setAnalysis = () => {
    judged = new Map((game.analysis ? game.analysis.moves : []).map((/** @type {any} */ a) => [a.seq, a]));
    showSummary();
    showLuck();
  };
  setAnalysis();
  if (!game.analysis) {
    // Made by the server within seconds of the end (docs/ANALYSIS.md): look again a few times.
    let tries = 0;
    const again = async () => {
      const fresh = await api("GET", `/api/games/${gameId}`).catch(() => null);
      if (fresh && fresh.analysis) {
        game.analysis = fresh.analysis;
        setAnalysis();
        if (moves.length) show(step);
      } else if (++tries < 10) setTimeout(again, 3000);
    };
    setTimeout(again, 2000);
  }
  // The controls and the board appear only for a game that can be replayed.
  for (const node of [...$$(".replay-controls"), scrub, $("board-wrap")]) node.hidden = false;
  simulate();
  view = new BoardView($("board"), {
    width: game.width,
    height: game.height,
    label: gettext("Replayed board"),
    interactive: false,
  });
  const cell = Math.max(18, Math.min(34, Math.floor(($("board-wrap").clientWidth - 16) / game.width)));
  $("board-wrap").style.setProperty("--cell", cell + "px");
  scrub.max = String(frames.length - 1);
  scrub.addEventListener("input", () => (stop(), show(Number(scrub.value))));
  $("first").addEventListener("click", () => (stop(), show(0)));
  $("back").addEventListener("click", () => (stop(), show(step - 1)));
  $("forward").addEventListener("click", () => (stop(), show(step + 1)));
  $("last").addEventListener("click", () => (stop(), show(frames.length - 1)));
  $("play").addEventListener("click", play);
  $("overlay-label").textContent = gettext("Show mine probabilities");
  showLegend();
  $("overlay-toggle", HTMLInputElement).addEventListener("change", (e) => {
    overlayOn = /** @type {HTMLInputElement} */ (e.target).checked;
    drawOverlay();
  });
  // Arrow keys step through the moves when the focus is not on a control that uses them.
  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || (e.target instanceof Element && e.target.closest("select, input, [role=grid]"))) return;
    if (e.key === "ArrowLeft") (stop(), show(step - 1));
    else if (e.key === "ArrowRight") (stop(), show(step + 1));
    else return;
    e.preventDefault();
  });
  if (!moves.length) {
    // Games imported without their moves (demo data) can still show how they ended.
    for (const id of ["first", "back", "play", "forward", "last"]) $(id, HTMLButtonElement).disabled = true;
    $("overlay-toggle", HTMLInputElement).disabled = true;
    scrub.disabled = true;
    $("speed", HTMLSelectElement).disabled = true;
    view.setRows(endPicture());
    $("step-info").textContent = gettext("No moves were recorded for this game: here is how it ended.");
    return;
  }
  show(0);
})();
