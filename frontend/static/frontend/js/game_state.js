// The one state of a game page. game.js makes it and passes it to the feed, the controls and
// the view; none of them keeps a copy of its own, so whatever the page knows is here.
import { me } from "./api.js";

export const ENDED = new Set(["won", "lost"]);

export function createState(root) {
  return {
    root, // the #game section
    gameId: root.dataset.gameId,
    game: null, // the last Game read; after a move patches it, `board` is null (the cells hold it)
    seq: -1, // the seq of the last message applied (API.md, Live updates)
    board: null, // the BoardView on screen
    flagMode: false,
    clock: { base: 0, at: 0, running: false }, // the server's elapsed_ms and when it came
    endTimer: null, // re-reads the game if the "ended" message after a last move is lost
    feed: {
      ws: null, // the game's WebSocket, while one is open or opening
      ready: false, // it sent its `state`: moves may travel over it
      retry: 0, // reconnections since the last open (the wait grows with it)
      pollTimer: null, // a watcher without a socket re-reads the game
      pending: [], // moves sent on the socket, oldest first: {id, action, x, y, timer}
    },
  };
}

/** The signed-in visitor is this game's player. */
export const isPlayer = (s) => !!s.game && me() !== "" && me() === s.game.player;

/** The player, and the game has not ended. */
export const canPlay = (s) => isPlayer(s) && !ENDED.has(s.game.state);
