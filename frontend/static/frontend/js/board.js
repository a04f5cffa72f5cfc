// A board on screen: an ARIA grid of cells that can be updated one cell at a time.
//
// It knows nothing of the server. It draws the characters of API.md's `board` rows
// (`#` closed, `F` flag, `0`-`8` opened, and after the end `*`, `X`, `!`), turns pointer and
// keyboard input into three intentions (tap, flag, chord) and hands them to its owner.
//   tap:  click, tap, Enter or Space        flag: right-click, long press or F
//   chord: tapping an opened number (the owner decides), the middle button, or D
import { gettext, fmt } from "./api.js";

const LONG_PRESS_MS = 450;
const MOVE_TOLERANCE_PX = 10;

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

export class BoardView {
  /**
   * @param {HTMLElement} root  an empty element that becomes the grid
   * @param {object} opts  {width, height, label, interactive, onTap(x,y), onFlag(x,y), onChord(x,y), canLongPress()}
   */
  constructor(root, opts) {
    this.root = root;
    this.opts = opts;
    this.width = opts.width;
    this.height = opts.height;
    this.values = new Array(this.width * this.height).fill("#");
    this.cells = [];
    this.focusIndex = -1;
    this.press = null;
    this.build();
  }

  build() {
    const { root, width, height } = this;
    root.replaceChildren();
    root.classList.add("board");
    root.setAttribute("role", "grid");
    root.setAttribute("aria-label", this.opts.label || gettext("Board"));
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

  get(x, y) {
    return this.values[y * this.width + x];
  }

  /** Apply API.md `changes` ({x, y, v}) to the cells that changed. */
  apply(changes) {
    for (const ch of changes) this.set(ch.x, ch.y, ch.v);
  }

  /** Bring the whole board to `rows` (API.md board rows), redrawing only differing cells. */
  setRows(rows) {
    for (let y = 0; y < this.height; y++) {
      const r = rows[y];
      for (let x = 0; x < this.width; x++) this.set(x, y, r[x]);
    }
  }

  /** Extra classes for some cells (how-to-play legend), e.g. {index: "m-used"}. */
  setMarks(marks) {
    const touched = new Set([...Object.keys(this.marks || {}), ...Object.keys(marks)].map(Number));
    this.marks = marks;
    for (const i of touched) {
      const c = this.cells[i];
      const v = this.values[i];
      this.values[i] = null; // force a redraw with (or without) the mark
      this.set(Number(c.dataset.x), Number(c.dataset.y), v);
    }
  }

  /** How many flags surround (x, y): the chord's condition (RULES.md, Chord). */
  flagsAround(x, y) {
    let n = 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx, ny = y + dy;
        if ((dx || dy) && nx >= 0 && ny >= 0 && nx < this.width && ny < this.height && this.get(nx, ny) === "F") n++;
      }
    return n;
  }

  closedAround(x, y) {
    let n = 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx, ny = y + dy;
        if ((dx || dy) && nx >= 0 && ny >= 0 && nx < this.width && ny < this.height && this.get(nx, ny) === "#") n++;
      }
    return n;
  }

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

  cellOf(target) {
    const c = target && target.closest ? target.closest(".cell") : null;
    if (!c || !this.root.contains(c)) return null;
    return { x: Number(c.dataset.x), y: Number(c.dataset.y), el: c };
  }

  listen() {
    const root = this.root;
    root.addEventListener("pointerdown", (e) => {
      if (e.button === 1) {
        // The middle button chords, as on the classic desktop game (and never autoscrolls).
        e.preventDefault();
        const cell = this.cellOf(e.target);
        if (cell && this.opts.onChord) this.opts.onChord(cell.x, cell.y);
        return;
      }
      if (e.button !== 0) return; // right button: see contextmenu
      const cell = this.cellOf(e.target);
      if (!cell) return;
      this.cancelPress();
      const press = { x: cell.x, y: cell.y, sx: e.clientX, sy: e.clientY, id: e.pointerId, type: e.pointerType, fired: false };
      press.timer = setTimeout(() => {
        press.fired = true;
        if (!this.opts.canLongPress || this.opts.canLongPress()) {
          cell.el.classList.add("pressed-long");
          setTimeout(() => cell.el.classList.remove("pressed-long"), 250);
          if (navigator.vibrate) navigator.vibrate(15);
          this.opts.onFlag && this.opts.onFlag(press.x, press.y, "long-press");
        }
      }, LONG_PRESS_MS);
      this.press = press;
    });
    root.addEventListener("pointermove", (e) => {
      const p = this.press;
      if (p && p.id === e.pointerId && Math.hypot(e.clientX - p.sx, e.clientY - p.sy) > MOVE_TOLERANCE_PX) this.cancelPress();
    });
    root.addEventListener("pointerup", (e) => {
      const p = this.press;
      if (!p || p.id !== e.pointerId) return;
      clearTimeout(p.timer);
      this.press = null;
      if (p.fired) return; // the long press already flagged
      const cell = this.cellOf(document.elementFromPoint(e.clientX, e.clientY) || e.target);
      if (!cell || cell.x !== p.x || cell.y !== p.y) return;
      this.setFocus(cell.y * this.width + cell.x, false);
      this.opts.onTap && this.opts.onTap(cell.x, cell.y);
    });
    root.addEventListener("pointercancel", () => this.cancelPress());
    root.addEventListener("contextmenu", (e) => {
      e.preventDefault(); // no browser menu on the board, ever
      // A touch long press also fires contextmenu: the timer above handles that one.
      if (this.press && this.press.type !== "mouse") return;
      if (this.press && this.press.fired) return;
      this.cancelPress();
      const cell = this.cellOf(e.target);
      if (cell && this.opts.onFlag) this.opts.onFlag(cell.x, cell.y, "right-click");
    });
  }

  cancelPress() {
    if (this.press) clearTimeout(this.press.timer);
    this.press = null;
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
          if (this.opts.interactive !== false && this.opts.onTap) this.opts.onTap(x, y);
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
