// @ts-check
// A board's pages under its table (the _board_foot.html include: #board-prev, #board-page,
// #board-next): the daily's board (daily.js) and the puzzle boards (puzzle_dashboard.js).
// The page keeps which page it shows (`view.page`) and reads it; this module moves it and
// says where it is.
import { gettext, fmt } from "./api.js";
import { $ } from "./dom.js";

/** Previous and Next move `view.page` by one, then `load` reads that page.
 * @param {{ page: number }} view  @param {() => unknown} load */
export function wirePager(view, load) {
  $("board-prev").addEventListener("click", () => {
    view.page = Math.max(1, view.page - 1);
    load();
  });
  $("board-next").addEventListener("click", () => {
    view.page += 1;
    load();
  });
}

/** "Page 2 of 5", and only the buttons that lead to a page.
 * @param {{ count: number, next: string | null, previous: string | null }} page  a list's page (API.md, Lists)
 * @param {number} at  its number  @param {number} size  rows a page */
export function drawPager(page, at, size) {
  const pages = Math.max(1, Math.ceil(page.count / size));
  $("board-page").textContent = fmt(gettext("Page %(page)s of %(pages)s"), { page: at, pages });
  $("board-prev", HTMLButtonElement).disabled = !page.previous;
  $("board-next", HTMLButtonElement).disabled = !page.next;
}
