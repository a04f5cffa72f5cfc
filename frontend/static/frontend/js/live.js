// @ts-check
// The live feeds, written once for the game page, the race page and the home page's lobby
// (API.md, Live updates; docs/LIVE.md):
//   followSocket  a socket of this site whose JSON frames go to the page; when it closes it is
//                 opened again after a wait that grows (1 s, 2 s ... 6 s, reset once the socket
//                 says it is live), and while it is down the page may read over REST instead;
//   SeqOrder      the order of numbered messages (`seq`): one already applied is dropped, the
//                 next one is applied, and after a gap the whole is read again (one read at a
//                 time) instead of drawing a picture with holes in it.

/** A message of a socket: its `type`, usually a `seq`, and the fields of that type.
 * @typedef {{ type?: string, seq?: number } & Record<string, any>} Frame */

const RETRY_STEP_MS = 1000; // the wait before the n-th attempt in a row: n seconds...
const RETRY_MAX_STEPS = 6; // ...up to 6 s

/** The WebSocket address of a path of this site. */
export function wsUrl(/** @type {string} */ path) {
  return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
}

/**
 * @typedef {object} FollowHooks
 * @property {(frame: Frame) => void} onFrame  every JSON frame, in order (others are dropped)
 * @property {string} [upOn]  the type of the frame that says the socket is live ("state")
 * @property {() => void} [onUp]  that frame came: the socket may carry the page's requests
 * @property {() => void} [onDown]  the socket closed (each time), before the next attempt
 * @property {() => void} [poll]  called every `pollMs` from a close until the socket is live
 *   again (or from the start, when this browser opens no socket)
 * @property {number} [pollMs]
 * @property {() => boolean} [keepFollowing]  false once there is nothing more to hear (a game
 *   that ended): no new attempt, no more polling
 */

/**
 * @typedef {object} Follow
 * @property {() => boolean} isUp  the socket is open and said it is live
 * @property {(data: string) => boolean} send  send on it when it is up; false when not sent
 * @property {() => void} close  stop following: close the socket, no attempt, no polling
 */

/**
 * Follow the socket of this site's `path` (`/ws/games/<id>`, `/ws/races/<id>`, `/ws/live`).
 * @param {string} path
 * @param {FollowHooks} hooks
 * @returns {Follow}
 */
export function followSocket(path, hooks) {
  const upOn = hooks.upOn || "state";
  const going = () => !closed && (!hooks.keepFollowing || hooks.keepFollowing());
  /** @type {WebSocket | null} */
  let ws = null;
  let up = false;
  let attempts = 0; // attempts since the socket was last live
  let closed = false;
  /** @type {ReturnType<typeof setInterval> | null} */
  let pollTimer = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let retryTimer = null;

  function startPolling() {
    if (pollTimer || !hooks.poll || !going()) return;
    const poll = hooks.poll;
    pollTimer = setInterval(() => (going() ? poll() : stopPolling()), hooks.pollMs || 2000);
  }

  function stopPolling() {
    if (pollTimer) clearInterval(pollTimer);
    pollTimer = null;
  }

  /** @param {MessageEvent} e */
  function onMessage(e) {
    /** @type {Frame} */
    let frame;
    try {
      frame = JSON.parse(e.data);
    } catch (err) {
      return; // not JSON: not ours
    }
    if (!frame || typeof frame !== "object") return;
    if (frame.type === upOn && !up) {
      up = true;
      attempts = 0;
      stopPolling();
      if (hooks.onUp) hooks.onUp();
    }
    hooks.onFrame(frame);
  }

  function onClose() {
    ws = null;
    up = false;
    if (closed) return;
    if (hooks.onDown) hooks.onDown();
    if (!going()) return stopPolling();
    startPolling();
    attempts = Math.min(attempts + 1, RETRY_MAX_STEPS);
    retryTimer = setTimeout(connect, RETRY_STEP_MS * attempts);
  }

  function connect() {
    retryTimer = null;
    if (!going()) return;
    if (!("WebSocket" in window)) return startPolling(); // this browser opens no socket
    try {
      ws = new WebSocket(wsUrl(path));
    } catch (err) {
      return startPolling(); // the browser refused to open it: REST it is
    }
    ws.addEventListener("message", onMessage);
    ws.addEventListener("close", onClose);
  }

  connect();
  return {
    isUp: () => up && !!ws && ws.readyState === WebSocket.OPEN,
    send(data) {
      if (!ws || !up || ws.readyState !== WebSocket.OPEN) return false;
      ws.send(data);
      return true;
    },
    close() {
      closed = true;
      stopPolling();
      if (retryTimer) clearTimeout(retryTimer);
      if (ws) ws.close();
    },
  };
}

/** Where a numbered message falls: "old" (applied already), "next", or "gap" (some missed).
 * @typedef {"old" | "next" | "gap"} SeqStep */

/** The order of one feed's numbered messages (a game's, a race's: API.md, Live updates). */
export class SeqOrder {
  /** @param {(() => unknown) | null} [resync]  read the whole again (a Game, a Race) */
  constructor(resync = null) {
    /** The seq of the last message or whole applied; -1 before the first. */
    this.seq = -1;
    this.resync = resync;
    /** @type {Promise<unknown> | null} the re-read in flight, if any */
    this.resyncing = null;
  }

  /** @param {number} seq  @returns {SeqStep} */
  where(seq) {
    if (seq <= this.seq) return "old";
    return seq === this.seq + 1 ? "next" : "gap";
  }

  /**
   * A step numbered `seq`: "next" moves the order on (the caller applies it), "old" changes
   * nothing, "gap" re-reads the whole (once, however many gaps come meanwhile) and leaves the
   * order where it is, for the whole to set.
   * @param {number} seq
   * @returns {SeqStep}
   */
  step(seq) {
    const at = this.where(seq);
    if (at === "next") this.seq = seq;
    else if (at === "gap") this.catchUp();
    return at;
  }

  /** A whole (a Game, a Race) numbered `seq` is not older than what is shown. */
  current(/** @type {number} */ seq) {
    return seq >= this.seq;
  }

  /** Read the whole again, unless a read is already on its way. */
  catchUp() {
    if (this.resyncing || !this.resync) return;
    const done = () => (this.resyncing = null);
    this.resyncing = Promise.resolve()
      .then(this.resync)
      .then(done, done);
  }
}
