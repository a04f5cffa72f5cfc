// @ts-check
// What the player does on a game page: the board's intentions (RULES.md: tap, flag, chord),
// the keys, the buttons, the pause dialog, new game and resign. Each becomes a request of the
// feed (game_feed.js); nothing here draws the game.
import { api, fmt, gettext, messageOf, playAsGuest } from "./api.js";
import { $ } from "./dom.js";
import { AWAY_GRACE_MS, canPlay, isPlayer } from "./game_state.js";
import { getSettings } from "./settings.js";
import { ask, askNewGame, askWith } from "./dialog.js";


/** @typedef {import("./game_state.js").GameState} GameState */
/** @typedef {import("./game_state.js").Game} Game */
/** @typedef {import("./board.js").BoardView} BoardView */

/** The controls of the page's state `s`. The returned intentions are the board's input
 * (game_view.js bindInput).
 * @param {GameState} s
 * @param {ReturnType<typeof import("./game_view.js").createView>} view
 * @param {ReturnType<typeof import("./game_feed.js").createFeed>} feed
 * @returns {import("./game_state.js").Controls} */
export function createControls(s, view, feed) {
  const say = view.say;
  // Intentions come from the board, so there is a game and a board when they do.
  const game = () => /** @type {Game} */ (s.game);
  const board = () => /** @type {BoardView} */ (s.board);

  // --- intentions (RULES.md: tap, flag, chord) ----------------------------------------------

  /** `how`: "pointer" (a click or a tap) or "key" (Enter, Space).
   * @param {number} x  @param {number} y  @param {string} [how] */
  function tap(x, y, how = "key") {
    if (!canPlay(s) || game().state === "paused") return;
    const v = board().get(x, y);
    if (v === "#") return s.flagMode && !noFlags() ? flag(x, y, "flag-mode") : feed.send("reveal", x, y);
    if (v === "F") {
      if (s.flagMode) return flag(x, y, "flag-mode");
      return say(gettext("A flagged cell does not open: remove the flag first."));
    }
    // Tapping an opened number chords, in both modes; a click or a tap only if the player's
    // settings say so (Enter always does; D, left + right and the middle button too).
    if (v >= "1" && v <= "8" && (how !== "pointer" || getSettings().click_chords)) return chord(x, y);
  }

  /** @param {number} x  @param {number} y  @param {string} [how] */
  function flag(x, y, how) {
    if (!canPlay(s) || game().state === "paused") return;
    // Playing without flags (the settings): a flag stays off the board, and the game NF.
    if (noFlags()) return say(gettext("Flags are off: you play without flags (Settings)."));
    // The hint goes as soon as it no longer applies (game_view.js drawHud).
    if (game().state === "new") return say(gettext("Flags can be placed once the game has started: open a cell first."), "until-start");
    const v = board().get(x, y);
    if (v === "#" || v === "F") feed.send("flag", x, y);
  }

  /** @param {number} x  @param {number} y */
  function chord(x, y) {
    if (!canPlay(s) || game().state !== "playing") return;
    const v = board().get(x, y);
    if (!(v >= "1" && v <= "8")) return;
    // The chord's condition (RULES.md): exactly as many flags around as the number, else nothing.
    if (board().flagsAround(x, y) !== Number(v) || board().closedAround(x, y) === 0) return;
    feed.send("chord", x, y);
  }

  const noFlags = () => getSettings().no_flags;
  const canLongPress = () => canPlay(s) && game().state !== "new" && !noFlags();
  const canPress = () => canPlay(s) && game().state !== "paused";
  const longPressMs = () => getSettings().long_press_ms;
  const clickChords = () => getSettings().click_chords;

  /** @param {boolean} on */
  function setFlagMode(on) {
    if (on && noFlags()) return; // no flag mode while playing without flags (its button is hidden)
    s.flagMode = on;
    view.drawFlagMode();
    say(on ? gettext("Flag mode: each tap places or removes a flag.") : gettext("Number mode: each tap opens a cell."));
  }

  // --- pause, resign, new game ---------------------------------------------------------------

  // Pausing a ranked game unranks it (RULES.md, Fair play), so the Pause button and the P key
  // ask first, in the site's dialog (dialog.js; its words are in the template). The automatic
  // pause cannot ask: the note says it.
  const pauseAsk = $("pause-ask", HTMLDialogElement);

  async function askBeforePause() {
    if (pauseAsk.open) return;
    const answer = await askWith(pauseAsk); // focus on "Keep playing"; Escape keeps playing too
    if (answer === "pause") pause(false, true);
    else if (answer !== "auto" && canPlay(s) && game().state === "playing") say(gettext("The game goes on, still ranked."));
  }

  /** `auto`: the page pauses by itself ("away": hidden past the grace period; "menu": a
   * menu opened); otherwise the player asked, and a ranked game asks first.
   * @param {false | "away" | "menu"} [auto]  @param {boolean} [confirmed] */
  async function pause(auto = false, confirmed = false) {
    if (!canPlay(s) || game().state !== "playing" || game().race) return; // a race game never pauses
    if (!auto && !confirmed && game().ranked) return askBeforePause();
    if (pauseAsk.open) pauseAsk.close("auto"); // the page is being hidden: pause at once
    if (!(await feed.act("pause", { keepalive: !!auto }))) return;
    if (auto === "away") say(fmt(gettext("The game paused itself: the page was hidden for more than %(s)s s."), { s: AWAY_GRACE_MS / 1000 }));
    else say(auto ? gettext("The game paused itself.") : gettext("Paused."));
    if (!auto) $("resume").focus(); // the board is hidden: the next thing to do is Resume
  }

  async function resume() {
    if (!canPlay(s) || game().state !== "paused") return;
    if (!(await feed.act("resume"))) return;
    say(gettext("Resumed."));
    board().setFocus(board().focusIndex);
  }

  async function resign() {
    if (!canPlay(s)) return;
    const sure = await ask({
      title: gettext("Give up this game?"),
      text: gettext("It counts as a loss."),
      yes: gettext("Give up"),
      no: gettext("Keep playing"),
    });
    if (sure && canPlay(s)) await feed.act("resign");
  }

  async function newGame() {
    try {
      await playAsGuest(); // a visitor plays at once, as a guest (docs/GUESTS.md)
    } catch (err) {
      return say(messageOf(err));
    }
    const g = s.game;
    if (!g || g.race) return; // a race game is not replaced: the race page offers what comes next
    if (g.daily) {
      location.href = `/daily/${g.daily}`; // a daily has one attempt: its day's page says what is next
      return;
    }
    if (g && isPlayer(s) && ["playing", "paused"].includes(g.state) && !(await askNewGame())) return;
    const size = g && g.level !== "custom" ? { level: g.level } : { width: g.width, height: g.height, mines: g.mines };
    const body = { ...size, no_guess: Boolean(g.no_guess) }; // the same mode again
    try {
      const created = await api("POST", "/api/games", body);
      location.href = `/games/${created.id}`;
    } catch (err) {
      say(messageOf(err));
    }
  }

  // --- buttons and keys ----------------------------------------------------------------------

  $("zoom-in").addEventListener("click", () => view.zoom(4));
  $("zoom-out").addEventListener("click", () => view.zoom(-4));
  $("zoom-fit").addEventListener("click", () => view.zoomToFit());
  $("flag-mode").addEventListener("click", () => setFlagMode(!s.flagMode));
  $("pause").addEventListener("click", () => (game().state === "paused" ? resume() : pause()));
  $("resume").addEventListener("click", resume);
  $("resign").addEventListener("click", resign);
  $("new-game").addEventListener("click", newGame);

  // The game pauses itself when a menu opens, or when the page has been hidden for longer
  // than the grace period (RULES.md, Time). Never when the page unloads: a reload hides the
  // page, and this timer dies with it, so the game goes on ranked; the clock ran meanwhile.
  // A hidden page's timers are slowed to about one a second, enough for a few seconds' grace.
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let awayTimer;
  document.addEventListener("visibilitychange", () => {
    clearTimeout(awayTimer);
    if (document.visibilityState !== "hidden") return;
    awayTimer = setTimeout(() => document.visibilityState === "hidden" && pause("away"), AWAY_GRACE_MS);
  });
  window.addEventListener("menuopen", () => pause("menu"));
  const keysHelp = $("keys-help", HTMLDetailsElement);
  keysHelp.addEventListener("toggle", () => keysHelp.open && pause("menu"));

  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey || document.querySelector("dialog.ask[open]")) return; // a dialog has its own keys
    const tag = e.target instanceof Element ? e.target.tagName.toLowerCase() : "";
    if (["input", "select", "textarea"].includes(tag)) return;
    const key = e.key.toLowerCase();
    if (key === "m" && canPlay(s)) setFlagMode(!s.flagMode);
    else if (key === "p" && canPlay(s)) game().state === "paused" ? resume() : pause();
    else if (key === "n" && s.game) newGame();
  });

  return { tap, flag, chord, canLongPress, canPress, longPressMs, clickChords, newGame };
}
