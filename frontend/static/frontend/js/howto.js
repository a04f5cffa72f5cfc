// @ts-check
// The three small live boards of "How to play" (RULES.md, The "How to play" page).
// Their layouts are fixed here, so they play locally with the same rules as the server.
import { gettext, fmt } from "./api.js";
import { $$ } from "./dom.js";
import { BoardView } from "./board.js";
import { LocalBoard } from "./engine.js";

/** An example board: its mines, the first tap it waits for, or (the chord) the cells left
 * closed, the flags placed and the cells the legend marks.
 * @typedef {{ width: number, height: number, mines: number[][], start?: number[], flags?: number[][], closed?: number[][], used?: number[], safe?: number[] }} Demo */

/** @type {Record<string, Demo>} */
const DEMOS = {
  // A first tap whose protected square is ringed by numbers: it opens exactly 9 cells.
  square: { width: 7, height: 7, mines: [[2, 1], [4, 1], [1, 3], [5, 3], [3, 5], [1, 5], [6, 0], [0, 6]], start: [3, 3] },
  // A first tap in a corner: the clipped square opens 4 cells.
  corner: { width: 6, height: 6, mines: [[2, 1], [0, 2], [4, 4], [5, 1], [1, 5]], start: [0, 0] },
  // A chord: the 2 in column 4, row 3 has its 2 flags; its last closed neighbour is safe.
  chord: {
    width: 6, height: 5, mines: [[2, 1], [4, 3], [5, 0]],
    flags: [[2, 1], [4, 3]], closed: [[4, 1], [5, 0]], used: [3, 2], safe: [4, 1],
  },
};

/** @param {HTMLElement} section */
function setUp(section) {
  const spec = DEMOS[section.dataset.demo || ""];
  /** @param {number[]} cell  [x, y] */
  const idx = ([x, y]) => y * spec.width + x;
  const out = $$(".demo-out", HTMLElement, section)[0];
  /** @type {LocalBoard} */
  let local;
  /** @type {BoardView} */
  let view;
  let started = false;
  const { start, closed, flags = [], used, safe } = spec;

  // The page opens on the picture the rules describe (the first tap made, its square open);
  // "Start again" closes the board so the reader can make that tap.
  /** @param {boolean} tapped  open on the picture after the first tap */
  const reset = (tapped) => {
    local = new LocalBoard(spec.width, spec.height, new Set(spec.mines.map(idx)));
    started = !start;
    const fresh = document.createElement("div"); // a new element: no listeners left from before
    fresh.className = "demo-board";
    $$(".demo-board", HTMLElement, section)[0].replaceWith(fresh);
    view = new BoardView(fresh, {
      width: spec.width,
      height: spec.height,
      label: gettext("Example board"),
      onTap: (x, y) => {
        if (!started && start && (x !== start[0] || y !== start[1])) return (out.textContent = gettext("Tap the framed cell."));
        started = true;
        const v = local.view[y * spec.width + x];
        const changes = v >= "1" && v <= "8" ? local.chord(x, y) : local.reveal(x, y);
        show(changes);
      },
      onFlag: (x, y) => started && show(local.flag(x, y), true),
      onChord: (x, y) => show(local.chord(x, y)),
      canLongPress: () => started,
    });
    if (closed && used && safe) {
      // The chord example starts mid-game: everything open but a few cells, two flags placed.
      const keepClosed = new Set([...closed, ...flags].map(idx));
      for (let i = 0; i < local.view.length; i++) if (!keepClosed.has(i)) local.view[i] = String(local.numbers[i]);
      for (const f of flags) local.view[idx(f)] = "F";
      /** @type {Record<number, string>} */
      const marks = { [idx(used)]: "m-used", [idx(safe)]: "m-safe" };
      for (const f of flags) marks[idx(f)] = "m-mine";
      view.setRows(local.rows());
      view.setMarks(marks);
    } else if (start) {
      view.setMarks({ [idx(start)]: "m-start" });
    }
    out.textContent = start ? gettext("Tap the framed cell.") : "";
    if (tapped && start) {
      started = true;
      show(local.reveal(start[0], start[1]));
    }
  };

  /** @param {import("./engine.js").Change[]} changes  @param {boolean} [flagOnly] */
  const show = (changes, flagOnly = false) => {
    view.apply(changes);
    if (flagOnly) return;
    const opened = changes.filter((c) => c.v >= "0" && c.v <= "8").length;
    let text = fmt(gettext("Opened: %(n)s"), { n: opened });
    if (local.state === "lost") text = gettext("A mine: the game is lost.");
    else if (local.state === "won") text += " · " + gettext("Every safe cell is open: won!");
    out.textContent = text;
  };

  $$(".demo-reset", HTMLElement, section)[0].addEventListener("click", () => reset(false));
  reset(true);
}

$$(".demo").forEach(setUp);
