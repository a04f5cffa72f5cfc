// @ts-check
// A small local copy of the rules, for boards whose layout is already public: the replay
// of a finished game and the examples of "How to play". Live games never use it: there
// the server alone knows the layout (RULES.md, Win and loss).

/** @typedef {{ x: number, y: number, v: string }} Change */

export class LocalBoard {
  /** @param {number} width @param {number} height @param {Set<number>} mines cell indexes */
  constructor(width, height, mines) {
    this.width = width;
    this.height = height;
    this.mines = mines;
    this.view = new Array(width * height).fill("#");
    this.state = "playing";
    this.numbers = new Array(width * height).fill(0);
    for (let i = 0; i < width * height; i++) {
      this.numbers[i] = this.around(i).filter((j) => mines.has(j)).length;
    }
  }

  /** The indexes of the cells around cell `i`. @param {number} i @returns {number[]} */
  around(i) {
    const x = i % this.width, y = Math.floor(i / this.width), out = [];
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) {
        const nx = x + dx, ny = y + dy;
        if ((dx || dy) && nx >= 0 && ny >= 0 && nx < this.width && ny < this.height) out.push(ny * this.width + nx);
      }
    return out;
  }

  /** Open a cell and cascade from zeros; returns the changes [{x, y, v}] in order.
   * @param {number} x  @param {number} y  @returns {Change[]} */
  reveal(x, y) {
    /** @type {Change[]} */
    const changes = [];
    const start = y * this.width + x;
    if (this.state !== "playing" || this.view[start] !== "#") return changes;
    this.open(start, changes);
    this.settle();
    return changes;
  }

  /** @param {number} start  @param {Change[]} changes  what opens is added to it */
  open(start, changes) {
    const stack = [start];
    while (stack.length) {
      const i = /** @type {number} */ (stack.pop());
      if (this.view[i] !== "#") continue; // flags are never opened by a cascade
      if (this.mines.has(i)) {
        this.view[i] = "X";
        changes.push(this.change(i));
        this.state = "lost";
        continue;
      }
      this.view[i] = String(this.numbers[i]);
      changes.push(this.change(i));
      if (this.numbers[i] === 0) for (const j of this.around(i)) if (this.view[j] === "#") stack.push(j);
    }
  }

  /** Place or remove a flag; `flagged` true or false sets it (API.md), null or omitted toggles.
   * @param {number} x  @param {number} y  @param {boolean | null} [flagged]  @returns {Change[]} */
  flag(x, y, flagged = null) {
    const i = y * this.width + x;
    if (this.state !== "playing") return [];
    const v = this.view[i];
    if (v !== "#" && v !== "F") return [];
    const next = flagged === null || flagged === undefined ? (v === "#" ? "F" : "#") : flagged ? "F" : "#";
    if (next === v) return []; // an accepted no-op: the flag was already as asked
    this.view[i] = next;
    return [this.change(i)];
  }

  /** Open the closed, unflagged neighbours of a number whose flags match it (RULES.md, Chord).
   * @param {number} x  @param {number} y  @returns {Change[]} */
  chord(x, y) {
    const i = y * this.width + x;
    const v = this.view[i];
    /** @type {Change[]} */
    const changes = [];
    if (this.state !== "playing" || !(v >= "1" && v <= "8")) return changes;
    const around = this.around(i);
    if (around.filter((j) => this.view[j] === "F").length !== Number(v)) return changes;
    for (const j of around) if (this.view[j] === "#") this.open(j, changes);
    this.settle();
    return changes;
  }

  settle() {
    if (this.state !== "playing") return;
    for (let i = 0; i < this.view.length; i++) if (!this.mines.has(i) && !(this.view[i] >= "0" && this.view[i] <= "8")) return;
    this.state = "won";
  }

  /** @param {number} i  @returns {Change} */
  change(i) {
    return { x: i % this.width, y: Math.floor(i / this.width), v: this.view[i] };
  }

  /** The end-of-game picture of API.md: `*` unflagged mines, `!` wrong flags. */
  finalRows() {
    const out = this.view.slice();
    if (this.state !== "playing") {
      for (let i = 0; i < out.length; i++) {
        if (this.mines.has(i) && out[i] === "#") out[i] = "*";
        else if (!this.mines.has(i) && out[i] === "F") out[i] = "!";
      }
    }
    return this.rows(out);
  }

  /** @param {string[]} [view]  @returns {string[]} */
  rows(view = this.view) {
    const rows = [];
    for (let y = 0; y < this.height; y++) rows.push(view.slice(y * this.width, (y + 1) * this.width).join(""));
    return rows;
  }
}

/** The mines of a finished game, read from its final board (API.md: `*`, `X` and `F` hold mines). */
/** @param {string[]} rows  @returns {Set<number>} */
export function minesFromFinalBoard(rows) {
  const mines = new Set();
  const width = rows[0].length;
  rows.forEach((row, y) => {
    for (let x = 0; x < width; x++) if ("*XF".includes(row[x])) mines.add(y * width + x);
  });
  return mines;
}
