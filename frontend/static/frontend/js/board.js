// @ts-check
// A board on screen: an ARIA grid of cells that can be updated one cell at a time.
//
// It knows nothing of the server. It draws the characters of API.md's `board` rows
// (`#` closed, `F` flag, `0`-`8` opened, and after the end `*`, `X`, `!`), turns pointer and
// keyboard input into three intentions (tap, flag, chord) and hands them to its owner.
//   tap:  click, tap, Enter or Space        flag: right-click, a touch's long press or F
//   chord: tapping an opened number (the owner decides), left + right buttons, the middle
//          button, or D
import { gettext, ngettext, fmt } from "./api.js";
import { SITE } from "./constants.js";

const DEFAULT_LONG_PRESS_MS = SITE.settings.defaults.long_press_ms; // when the owner sets none
const MOVE_TOLERANCE_PX = 10;
const TOUCH_MOUSE_GAP_MS = 800; // mouse events this soon after a touch are the touch's own

/** The end of a won game as every Minesweeper shows it: each mine flagged and the mine
 * counter at 0. API.md's final board marks a mine the player left unflagged `*`; a race game
 * whose race still runs keeps it closed (`#`), and since a win opened every safe cell, every
 * closed cell of a won board is a mine. (A won game has no mine hit and no wrong flag.)
 * @param {string[]} rows */
export const flagAllMines = (rows) => rows.map((r) => r.replace(/[*#]/g, "F"));

/** Where a cell is, said the way the board's cells are labelled (from 1, as people count).
 * @param {number} x  @param {number} y  from 0, as the API counts */
export const cellPlace = (x, y) => fmt(gettext("column %(x)s, row %(y)s"), { x: x + 1, y: y + 1 });

/** @param {string} v */
function cellLabel(v) {
  switch (v) {
    case "#": return gettext("closed");
    case "F": return gettext("flag");
    case "0": return gettext("empty");
    case "*": return gettext("mine");
    case "X": return gettext("exploded mine");
    case "!": return gettext("wrong flag");
    default: return v;
  }
}

/**
 * What the owner of a board tells it: its size and label, and what to do with the input.
 * @typedef {object} BoardOptions
 * @property {number} width
 * @property {number} height
 * @property {string} [label]  without one, the board says its size: "Minefield, 9 columns by 9 rows"
 * @property {boolean} [interactive]  false: a picture (replay, final boards), keys still move
 * @property {(x: number, y: number, how: string) => void} [onTap]  how: "pointer" or "key"
 * @property {(x: number, y: number, how: string) => void} [onFlag]  how: "right-click", "long-press", "key"
 * @property {(x: number, y: number) => void} [onChord]
 * @property {() => boolean} [canLongPress]  a long press would flag (a pulse says so)
 * @property {(what?: string) => boolean} [canPress]  a held press shows the pressed cells
 * @property {() => number} [longPressMs]
 * @property {() => boolean} [clickChords]  a click on a number chords (the settings)
 */

/** A mouse press in progress: the buttons held, what the release will do, where.
 * @typedef {{ held: Set<number>, kind: "open" | "flag" | "chord" | null, done: boolean, x: number, y: number }} MousePress */
/** A finger (or pen) on a cell, until it lifts or the long press flags.
 * @typedef {{ x: number, y: number, sx: number, sy: number, id: number, fired: boolean, timer?: ReturnType<typeof setTimeout> }} TouchPress */

export class BoardView {
  /**
   * @param {HTMLElement} root  an empty element that becomes the grid
   * @param {BoardOptions} opts
   */
  constructor(root, opts) {
    this.root = root;
    this.opts = opts;
    this.width = opts.width;
    this.height = opts.height;
    /** @type {(string | null)[]} each cell's character (null: to be drawn again) */
    this.values = new Array(this.width * this.height).fill("#");
    /** @type {HTMLElement[]} */
    this.cells = [];
    this.focusIndex = -1;
    /** @type {TouchPress | null} */
    this.press = null;
    /** @type {MousePress | null} */
    this.mouse = null;
    /** @type {Record<number, string> | undefined} extra classes per cell index */
    this.marks = undefined;
    /** @type {Set<number>} */
    this.pressedCells = new Set();
    this.lastTouch = -1e9;
    this.build();
  }

  build() {
    const { root, width, height } = this;
    root.replaceChildren();
    root.classList.add("board");
    root.setAttribute("role", "grid");
    root.setAttribute(
      "aria-label",
      this.opts.label ||
        fmt(gettext("Minefield, %(columns)s by %(rows)s"), {
          columns: fmt(ngettext("%(n)s column", "%(n)s columns", width), { n: width }),
          rows: fmt(ngettext("%(n)s row", "%(n)s rows", height), { n: height }),
        }),
    );
    root.setAttribute("aria-rowcount", String(height));
    root.setAttribute("aria-colcount", String(width));
    root.style.setProperty("--cols", String(width));
    const closed = gettext("closed");
    const frag = document.createDocumentFragment();
    for (let y = 0; y < height; y++) {
      const row = document.createElement("div");
      row.className = "row";
      row.setAttribute("role", "row");
      row.setAttribute("aria-rowindex", String(y + 1));
      for (let x = 0; x < width; x++) {
        const c = document.createElement("div");
        c.className = "cell c-closed";
        c.setAttribute("role", "gridcell");
        c.setAttribute("aria-colindex", String(x + 1));
        c.tabIndex = -1;
        c.dataset.x = String(x);
        c.dataset.y = String(y);
        c.dataset.v = "#";
        c.setAttribute("aria-label", fmt(gettext("%(state)s, column %(x)s, row %(y)s"), { state: closed, x: x + 1, y: y + 1 }));
        row.append(c);
        this.cells.push(c);
      }
      frag.append(row);
    }
    root.append(frag);
    this.setFocus(Math.floor(height / 2) * width + Math.floor(width / 2), false);
    if (this.opts.interactive !== false) this.listen();
    this.listenKeys();
  }

  /** Draw one cell, touching the DOM only when its character changed. */
  /** @param {number} x  @param {number} y  @param {string} v */
  set(x, y, v) {
    const i = y * this.width + x;
    if (this.values[i] === v) return;
    this.values[i] = v;
    const c = this.cells[i];
    c.dataset.v = v;
    let cls = "cell ";
    let text = "";
    if (v === "#") cls += "c-closed";
    else if (v === "F") { cls += "c-closed c-flag"; text = "⚑"; }
    else if (v === "*") { cls += "c-open c-mine"; text = "✹"; }
    else if (v === "X") { cls += "c-open c-mine c-boom"; text = "✹"; }
    else if (v === "!") { cls += "c-closed c-flag c-wrong"; text = "⚑"; }
    else { cls += "c-open n" + v; text = v === "0" ? "" : v; }
    if (this.marks && this.marks[i]) cls += " " + this.marks[i];
    c.className = cls;
    c.textContent = text;
    c.setAttribute("aria-label", fmt(gettext("%(state)s, column %(x)s, row %(y)s"), { state: cellLabel(v), x: x + 1, y: y + 1 }));
  }

  /** @param {number} x  @param {number} y  @returns {string} */
  get(x, y) {
    return /** @type {string} */ (this.values[y * this.width + x]);
  }

  /** Apply API.md `changes` ({x, y, v}) to the cells that changed. */
  /** @param {{ x: number, y: number, v: string }[]} changes */
  apply(changes) {
    for (const ch of changes) this.set(ch.x, ch.y, ch.v);
  }

  /** Bring the whole board to `rows` (API.md board rows), redrawing only differing cells. */
  /** @param {string[]} rows */
  setRows(rows) {
    for (let y = 0; y < this.height; y++) {
      const r = rows[y];
      for (let x = 0; x < this.width; x++) this.set(x, y, r[x]);
    }
  }

  /** Extra classes for some cells (how-to-play legend), e.g. {index: "m-used"}. */
  /** @param {Record<number, string>} marks */
  setMarks(marks) {
    const touched = new Set([...Object.keys(this.marks || {}), ...Object.keys(marks)].map(Number));
    this.marks = marks;
    for (const i of touched) {
      const c = this.cells[i];
      const v = this.values[i];
      this.values[i] = null; // force a redraw with (or without) the mark
      this.set(Number(c.dataset.x), Number(c.dataset.y), v || "#");
    }
  }

  /** How many neighbours of (x, y) show `v`.
   * @param {number} x  @param {number} y  @param {string} v */
  countAround(x, y, v) {
    let n = 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx, ny = y + dy;
        if ((dx || dy) && nx >= 0 && ny >= 0 && nx < this.width && ny < this.height && this.get(nx, ny) === v) n++;
      }
    return n;
  }

  /** How many flags surround (x, y): the chord's condition (RULES.md, Chord).
   * @param {number} x  @param {number} y */
  flagsAround(x, y) {
    return this.countAround(x, y, "F");
  }

  /** @param {number} x  @param {number} y */
  closedAround(x, y) {
    return this.countAround(x, y, "#");
  }

  /** @param {number} i  the cell's index  @param {boolean} [move]  move the focus (and scroll) too */
  setFocus(i, move = true) {
    if (i < 0 || i >= this.cells.length) return;
    if (this.focusIndex >= 0) this.cells[this.focusIndex].tabIndex = -1;
    this.focusIndex = i;
    const c = this.cells[i];
    c.tabIndex = 0; // roving tabindex: the grid is one Tab stop
    if (move) {
      c.focus({ preventScroll: true });
      c.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
  }

  /** The cell an event happened on, if it is one of this board's.
   * @param {EventTarget | null} target
   * @returns {{ x: number, y: number, el: HTMLElement } | null} */
  cellOf(target) {
    const c = target instanceof Element ? target.closest(".cell") : null;
    if (!(c instanceof HTMLElement) || !this.root.contains(c)) return null;
    return { x: Number(c.dataset.x), y: Number(c.dataset.y), el: c };
  }

  // --- pointer input (RULES.md; docs/FRONTEND.md, "Mouse and touch") ----------------------
  //   mouse: the left button opens on release (holding it never flags); the right button flags
  //          when pressed; left + right together (or the middle button) chord on release.
  //   touch: a tap opens; a long press (opts.longPressMs) flags.
  // While a press is held on a number (a chord to come), its closed neighbours show pressed;
  // on release the owner decides (a chord whose flags do not match does nothing).

  listen() {
    const root = this.root;
    // The mouse through mouse events: pointer events report a second button pressed during
    // the first one only as a pointermove.
    root.addEventListener("mousedown", (e) => this.mouseDown(e));
    root.addEventListener("mousemove", (e) => this.mouseMove(e));
    root.addEventListener("mouseup", (e) => this.mouseUp(e));
    root.addEventListener("mouseleave", () => this.endMouse());
    // Fingers and pens through pointer events.
    root.addEventListener("pointerdown", (e) => e.pointerType !== "mouse" && this.touchDown(e));
    root.addEventListener("pointermove", (e) => {
      const p = this.press;
      if (p && p.id === e.pointerId && Math.hypot(e.clientX - p.sx, e.clientY - p.sy) > MOVE_TOLERANCE_PX) this.cancelPress();
    });
    root.addEventListener("pointerup", (e) => e.pointerType !== "mouse" && this.touchUp(e));
    root.addEventListener("pointercancel", (e) => e.pointerType !== "mouse" && this.cancelPress());
    // No browser menu on the board, ever: the right button flags on mousedown, a long press
    // by its own timer.
    root.addEventListener("contextmenu", (e) => e.preventDefault());
  }

  /** A mouse event that a touch made up (the browser's compatibility events). */
  /** @param {MouseEvent & { sourceCapabilities?: { firesTouchEvents?: boolean } }} e */
  fromTouch(e) {
    if (e.sourceCapabilities && e.sourceCapabilities.firesTouchEvents) return true;
    return performance.now() - (this.lastTouch || -1e9) < TOUCH_MOUSE_GAP_MS;
  }

  /** @param {string} what */
  can(what) {
    return this.opts.interactive !== false && (!this.opts.canPress || this.opts.canPress(what));
  }

  /** @param {MouseEvent} e */
  mouseDown(e) {
    if (e.button === 1) e.preventDefault(); // the middle button never autoscrolls
    if (this.fromTouch(e)) return;
    const cell = this.cellOf(e.target);
    if (!cell) return;
    /** @type {MousePress} */
    const m = this.mouse || { held: new Set(), kind: null, done: false, x: cell.x, y: cell.y };
    m.held.add(e.button);
    m.x = cell.x;
    m.y = cell.y;
    this.mouse = m;
    if (m.held.has(0) && m.held.has(2)) m.kind = "chord"; // both buttons: a chord on release
    else if (e.button === 1) m.kind = "chord";
    else if (e.button === 0) m.kind = "open";
    else if (e.button === 2) {
      m.kind = "flag";
      if (this.opts.onFlag) this.opts.onFlag(cell.x, cell.y, "right-click");
    }
    this.showPressed();
  }

  /** @param {MouseEvent} e */
  mouseMove(e) {
    const m = this.mouse;
    if (!m || m.done) return;
    if (e.buttons === 0) return this.endMouse(); // released outside the board
    const cell = this.cellOf(e.target);
    if (!cell || (cell.x === m.x && cell.y === m.y)) return;
    m.x = cell.x; // the press follows the mouse, as on the classic game
    m.y = cell.y;
    this.showPressed();
  }

  /** @param {MouseEvent} e */
  mouseUp(e) {
    const m = this.mouse;
    if (!m || this.fromTouch(e)) return;
    m.held.delete(e.button);
    const cell = this.cellOf(e.target);
    if (!m.done && cell) {
      if (m.kind === "chord") {
        m.done = true; // the first button released makes the chord; the other does nothing
        this.showPressed();
        if (this.opts.onChord) this.opts.onChord(cell.x, cell.y);
      } else if (m.kind === "open" && e.button === 0) {
        m.done = true;
        this.showPressed();
        this.setFocus(cell.y * this.width + cell.x, false);
        if (this.opts.onTap) this.opts.onTap(cell.x, cell.y, "pointer");
      }
    }
    if (m.held.size === 0 || e.buttons === 0) this.endMouse();
  }

  endMouse() {
    this.mouse = null;
    this.showPressed();
  }

  /** @param {PointerEvent} e */
  touchDown(e) {
    this.lastTouch = performance.now();
    const cell = this.cellOf(e.target);
    if (!cell) return;
    e.preventDefault(); // no compatibility mouse events after it (they would open twice)
    this.cancelPress();
    /** @type {TouchPress} */
    const press = { x: cell.x, y: cell.y, sx: e.clientX, sy: e.clientY, id: e.pointerId, fired: false };
    const delay = this.opts.longPressMs ? this.opts.longPressMs() : DEFAULT_LONG_PRESS_MS;
    press.timer = setTimeout(() => {
      press.fired = true;
      this.showPressed();
      // Before the first tap the owner refuses with a hint (RULES.md, Flags), as for a
      // right-click: only a press that will flag pulses.
      if (!this.opts.canLongPress || this.opts.canLongPress()) {
        cell.el.classList.add("pressed-long");
        setTimeout(() => cell.el.classList.remove("pressed-long"), 250);
        if (navigator.vibrate) navigator.vibrate(15);
      }
      if (this.opts.onFlag) this.opts.onFlag(press.x, press.y, "long-press");
    }, delay);
    this.press = press;
    this.showPressed();
  }

  /** @param {PointerEvent} e */
  touchUp(e) {
    this.lastTouch = performance.now();
    const p = this.press;
    if (!p || p.id !== e.pointerId) return;
    clearTimeout(p.timer);
    this.press = null;
    this.showPressed();
    if (p.fired) return; // the long press already flagged
    const cell = this.cellOf(document.elementFromPoint(e.clientX, e.clientY) || e.target);
    if (!cell || cell.x !== p.x || cell.y !== p.y) return;
    this.setFocus(cell.y * this.width + cell.x, false);
    if (this.opts.onTap) this.opts.onTap(cell.x, cell.y, "pointer");
  }

  cancelPress() {
    if (this.press) clearTimeout(this.press.timer);
    this.press = null;
    this.showPressed();
  }

  /** The classic feedback: the closed cells a held press would open look pressed (the cell
   * itself; around a number, its closed neighbours), until the press ends. */
  showPressed() {
    const want = new Set();
    const m = this.mouse;
    const t = this.press;
    let at = null;
    if (m && !m.done && m.kind !== "flag") at = { x: m.x, y: m.y, chord: m.kind === "chord" };
    else if (t && !t.fired) at = { x: t.x, y: t.y, chord: false };
    if (at && this.can("press")) {
      const v = this.get(at.x, at.y);
      const number = v >= "1" && v <= "8";
      if (number && (at.chord || !this.opts.clickChords || this.opts.clickChords())) {
        for (let dy = -1; dy <= 1; dy++)
          for (let dx = -1; dx <= 1; dx++) {
            const nx = at.x + dx, ny = at.y + dy;
            if (nx >= 0 && ny >= 0 && nx < this.width && ny < this.height && this.get(nx, ny) === "#") want.add(ny * this.width + nx);
          }
      } else if (v === "#") want.add(at.y * this.width + at.x);
    }
    for (const i of this.pressedCells || []) if (!want.has(i)) this.cells[i].classList.remove("c-pressed");
    for (const i of want) this.cells[i].classList.add("c-pressed");
    this.pressedCells = want;
  }

  listenKeys() {
    this.root.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const i = this.focusIndex;
      const x = i % this.width, y = Math.floor(i / this.width);
      let nx = x, ny = y;
      switch (e.key) {
        case "ArrowLeft": nx = Math.max(0, x - 1); break;
        case "ArrowRight": nx = Math.min(this.width - 1, x + 1); break;
        case "ArrowUp": ny = Math.max(0, y - 1); break;
        case "ArrowDown": ny = Math.min(this.height - 1, y + 1); break;
        case "Home": nx = 0; if (e.ctrlKey) ny = 0; break;
        case "End": nx = this.width - 1; break;
        case "PageUp": ny = Math.max(0, y - 10); break;
        case "PageDown": ny = Math.min(this.height - 1, y + 10); break;
        case "Enter":
        case " ":
          e.preventDefault();
          if (this.opts.interactive !== false && this.opts.onTap) this.opts.onTap(x, y, "key");
          return;
        case "f":
        case "F":
          e.preventDefault();
          if (this.opts.interactive !== false && this.opts.onFlag) this.opts.onFlag(x, y, "key");
          return;
        case "d":
        case "D":
          e.preventDefault();
          if (this.opts.interactive !== false && this.opts.onChord) this.opts.onChord(x, y);
          return;
        default:
          return;
      }
      e.preventDefault();
      this.setFocus(ny * this.width + nx);
    });
    this.root.addEventListener("focusin", (e) => {
      const cell = this.cellOf(e.target);
      if (cell) this.setFocus(cell.y * this.width + cell.x, false);
    });
  }
}
