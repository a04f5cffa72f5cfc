// @ts-check
// The site's one way to ask before something that counts (a new game over a started one,
// giving up, pausing a ranked game, revoking a token): a styled modal <dialog class="ask">,
// never the browser's confirm(). The safe answer has the focus, and Escape, a click on the
// backdrop's close or any other way out keeps things as they are.
import { gettext } from "./api.js";
import { el } from "./dom.js";

/** Show the <dialog> `dialog` (a `form method=dialog` whose buttons carry a `value`) and
 * resolve its answer: the value of the button pressed, "" for Escape. A dialog already open
 * is not opened twice; its answer is the one of the first opening.
 * @param {HTMLDialogElement} dialog
 * @returns {Promise<string>} */
export function askWith(dialog) {
  return new Promise((resolve) => {
    const done = () => resolve(dialog.returnValue);
    dialog.addEventListener("close", done, { once: true });
    if (dialog.open) return;
    dialog.returnValue = "";
    dialog.showModal();
    const safe = dialog.querySelector("[autofocus]");
    if (safe instanceof HTMLElement) safe.focus();
  });
}

/**
 * Ask a question in the site's dialog; true when the player chose `yes`. The dialog is made
 * once per page (`#ask`, with `#ask-yes` and `#ask-no`) and filled each time. A `danger`
 * question (what cannot be taken back, such as closing the account) shows `yes` in the danger
 * style and the safe `no` in a calm one: the red primary style would make the safe answer look
 * like the risky one.
 * @param {{ title: string, text: string, yes: string, no: string, danger?: boolean }} question
 * @returns {Promise<boolean>}
 */
export async function ask({ title, text, yes, no, danger = false }) {
  let dialog = document.getElementById("ask");
  if (!(dialog instanceof HTMLDialogElement)) {
    dialog = el(
      "dialog",
      { id: "ask", class: "ask", "aria-labelledby": "ask-title", "aria-describedby": "ask-text" },
      el("h2", { id: "ask-title" }),
      el("p", { id: "ask-text" }),
      el(
        "form",
        { method: "dialog", class: "ask-actions" },
        el("button", { type: "submit", value: "yes", class: "btn", id: "ask-yes" }),
        el("button", { type: "submit", value: "no", class: "btn btn-primary", id: "ask-no", autofocus: true }),
      ),
    );
    document.body.append(dialog);
  }
  const d = /** @type {HTMLDialogElement} */ (dialog);
  if (d.open) return false; // one question at a time
  /** @param {string} id  @param {string} value */
  const put = (id, value) => {
    const node = d.querySelector("#" + id);
    if (node) node.textContent = value;
  };
  put("ask-title", title);
  put("ask-text", text);
  put("ask-yes", yes);
  put("ask-no", no);
  d.querySelector("#ask-yes")?.setAttribute("class", danger ? "btn btn-danger" : "btn");
  d.querySelector("#ask-no")?.setAttribute("class", danger ? "btn btn-calm" : "btn btn-primary");
  return (await askWith(d)) === "yes";
}

/** Replacing a started game counts it as a loss (RULES.md, Statistics): what the game page's
 * New game and the home page's level cards ask first. */
export const askNewGame = () =>
  ask({
    title: gettext("Start a new game?"),
    text: gettext("The current one will count as a loss."),
    yes: gettext("Start a new game"),
    no: gettext("Keep playing"),
  });
