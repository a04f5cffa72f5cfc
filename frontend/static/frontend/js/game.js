// @ts-check
// Play or watch one game (RULES.md; API.md Games and Live updates).
//
// The server is the only judge: the page sends intentions (reveal, flag, chord) and draws
// what comes back. Three parts share one state object, made here and passed to each
// (docs/FRONTEND.md, "How a game page works"):
//   game_feed.js      the socket, `seq`, re-reads, the REST fallback (what the server says)
//   game_controls.js  board input, keys, buttons, the pause dialog, new game, resign
//   game_view.js      the board, the counters, the clock, the notes, the result box
import { $ } from "./dom.js";
import { gettext } from "./api.js";
import { canPlay, createState, ENDED, sealedDaily } from "./game_state.js";
import { createView } from "./game_view.js";
import { createFeed } from "./game_feed.js";
import { createControls } from "./game_controls.js";

/** Play or watch the game of the #game section `root` (its data-game-id). The race page
 * (race.js) mounts its racer's own game with it too. Returns the page's state and feed.
 * @param {HTMLElement} root */
export function mountGame(root) {
  const s = createState(root);
  const view = createView(s);
  const feed = createFeed(s, view);
  view.bindInput(createControls(s, view, feed));
  const ready = (async function start() {
    if (!(await feed.load())) return;
    if (sealedDaily(s)) return view.say(gettext("A daily game's board is shown to others once its day is over (00:00 UTC)."));
    if (!s.game || !ENDED.has(s.game.state)) feed.connect();
    // Keyboard players start on the board; on touch screens a focus ring would only distract.
    if (s.game && s.board && canPlay(s) && window.matchMedia("(pointer: fine)").matches) s.board.setFocus(s.board.focusIndex);
  })();
  return { s, view, feed, ready };
}

if (document.body.dataset.page === "game") mountGame($("game"));
