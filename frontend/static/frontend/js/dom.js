// @ts-check
// The pages' tiny DOM helpers, written once and imported: `$` finds an element of the page by
// its id, `byId` one that may be missing, `el` makes one, `labelCells` labels a table's cells
// for the phone's card layout.

/**
 * The element with this `id`, which the page's template must have: a missing one is said at
 * once, by name, rather than as a null much later. `kind` (HTMLInputElement, ...) checks what
 * it is and types it.
 * @template {Element} [T=HTMLElement]
 * @param {string} id
 * @param {{ new (...args: any[]): T }} [kind]
 * @returns {T}
 */
export function $(id, kind) {
  const node = document.getElementById(id);
  if (!node) throw new Error(`#${id} is not on this page`);
  if (kind && !(node instanceof kind)) throw new Error(`#${id} is not a ${kind.name}`);
  return /** @type {T} */ (/** @type {unknown} */ (node));
}

/**
 * The element with this `id`, or null when this page has none (an optional part).
 * @param {string} id
 * @returns {HTMLElement | null}
 */
export const byId = (id) => document.getElementById(id);

/** @typedef {Node | string | null | undefined} Child */
/** @typedef {Record<string, string | number | boolean | null | undefined | EventListener>} Attrs */

/**
 * A new element: `class` and `text` set className and textContent, `on<event>` adds a
 * listener, any other key is an attribute (`true` is an empty one; null, undefined and
 * false are left out). Children that are null or undefined are skipped.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = String(v);
    else if (k === "text") node.textContent = String(v);
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

/**
 * On a phone a `table.data.cards` shows each row as a card (site.css): every cell is labelled
 * with its column's heading, which this copies from the table's head.
 * @param {HTMLTableElement} table
 */
export function labelCells(table) {
  const head = table.tHead;
  if (!head) return;
  const heads = [...head.rows[0].cells].map((th) => (th.textContent || "").trim());
  for (const row of table.tBodies[0].rows) {
    [...row.cells].forEach((c, i) => {
      if (heads[i] && !c.hasAttribute("data-label")) c.setAttribute("data-label", heads[i]);
    });
  }
}

/**
 * The elements matching `selector` under `root` (the document), typed: only those that are a
 * `kind` (HTMLElement unless said).
 * @template {Element} [T=HTMLElement]
 * @param {string} selector
 * @param {{ new (...args: any[]): T }} [kind]
 * @param {ParentNode} [root]
 * @returns {T[]}
 */
export function $$(selector, kind, root = document) {
  const want = kind || /** @type {{ new (...args: any[]): T }} */ (/** @type {unknown} */ (HTMLElement));
  return [...root.querySelectorAll(selector)].filter((n) => n instanceof want).map((n) => /** @type {T} */ (n));
}
