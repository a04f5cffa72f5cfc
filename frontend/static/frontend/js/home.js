// @ts-check
// Home: today's daily challenge (its card), start a game (a level or a custom board), find
// your current game, watch live games.
// Live games come from the lobby socket /ws/live (followed with live.js, reconnecting as the
// game and race pages do); without it, from GET /api/games?state=playing.
import { api, ApiError, gettext, ngettext, fmt, me, playAsGuest, messageOf, playerLabel } from "./api.js";
import { $, $$, el } from "./dom.js";
import { levelLabel, modeLabel, SITE } from "./constants.js";
import { followSocket } from "./live.js";
import { askNewGame } from "./dialog.js";
import { readDay, startDaily, countdownText, resultText } from "./daily_common.js";

/** A game of the lobby (`/ws/live`) or of GET /api/games.
 * @typedef {{ id: string, player: string, player_kind?: string, level: string, no_guess?: boolean, width: number, height: number, state: string, unranked_reason?: string | null, daily?: string | null }} LiveGame */

/** @type {Map<string, LiveGame>} id -> lobby game */
const live = new Map();

// A link to /?play=<level> (a sign-in's `next`, say) starts that game at once. A session
// that lost its player meanwhile goes through the sign-in and comes back the same way.
/** @typedef {{ level?: string, width?: number, height?: number, mines?: number, no_guess?: boolean }} NewGame */

// The mode picked for every new game here (RULES.md, No-guess boards), kept for the next visit.
const NO_GUESS_KEY = "new-game-no-guess";
const noGuess = $("no-guess", HTMLInputElement);
noGuess.checked = localStorage.getItem(NO_GUESS_KEY) === "1";
noGuess.addEventListener("change", () => localStorage.setItem(NO_GUESS_KEY, noGuess.checked ? "1" : "0"));

/** @param {NewGame} body */
function signInThenPlay(body) {
  const back = body.level ? `/?play=${encodeURIComponent(body.level)}` : "/";
  location.href = "/signin?next=" + encodeURIComponent(back);
}

/** @param {NewGame} size */
async function start(size) {
  const body = { ...size, no_guess: noGuess.checked };
  if (!me()) {
    // Play first, sign up later (docs/GUESTS.md): a visitor plays at once as a guest.
    try {
      await playAsGuest();
    } catch (err) {
      $("home-error").textContent = messageOf(err);
      return;
    }
  }
  // A new game of the same level ends a started one as a loss (RULES.md, Statistics): ask,
  // as the game page does, instead of losing a streak to a click on the wrong card.
  const level = body.level || "custom";
  // Classic and no-guess games of a level are separate slots (their own statistics).
  // A daily game is a slot of its own (API.md, Daily challenge): a new game never ends it.
  const started = (await current).find((g) => !g.daily && g.level === level && Boolean(g.no_guess) === body.no_guess && ["playing", "paused"].includes(g.state));
  if (started && !(await askNewGame())) return;
  $("home-error").textContent = "";
  try {
    const g = await api("POST", "/api/games", body);
    location.href = `/games/${g.id}`;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return signInThenPlay(body);
    $("home-error").textContent = messageOf(err);
  }
}

for (const card of $$(".level-card")) card.addEventListener("click", () => start({ level: card.dataset.level }));
// At most width × height − 9 mines (RULES.md, Levels; the server's `kept_free`): the browser
// then explains a wrong count itself, in its own language, before anything is sent.
const customForm = $("custom", HTMLFormElement);
/** @param {string} name */
const field = (name) => /** @type {HTMLInputElement} */ (customForm.elements.namedItem(name));
function limitMines() {
  const { min_side: least, kept_free: free } = SITE.custom;
  const w = Number(field("width").value), h = Number(field("height").value);
  if (w >= least && h >= least) field("mines").max = String(w * h - free);
}
customForm.addEventListener("input", limitMines);
limitMines();
customForm.addEventListener("submit", (e) => {
  e.preventDefault();
  const f = new FormData(customForm);
  start({ width: Number(f.get("width")), height: Number(f.get("height")), mines: Number(f.get("mines")) });
});

/** @param {LiveGame} g  @param {string} linkText */
function gameLine(g, linkText) {
  return el(
    "li",
    {},
    el(
      "span",
      { class: "grow" },
      el("strong", { text: playerLabel(g.player) }),
      // A declared bot (RULES.md, Fair play); the lobby socket says who is one (player_kind).
      g.player_kind === "bot" ? el("span", { class: "badge badge-bot", title: gettext("A bot account: it plays through the API."), text: gettext("bot") }) : null,
      " · ",
      g.daily ? fmt(gettext("Daily · %(level)s"), { level: levelLabel(g.level) }) : modeLabel(g.level, g.no_guess),
      ` ${g.width} × ${g.height}`,
    ),
    el("span", { class: "pill " + g.state, text: stateLabel(g.state) }),
    el("a", { class: "btn", href: `/games/${g.id}`, text: linkText }),
  );
}

/** @param {string} state */
function stateLabel(state) {
  /** @type {Record<string, string>} */
  const names = { new: gettext("ready"), playing: gettext("playing"), paused: gettext("paused"), won: gettext("won"), lost: gettext("lost") };
  return names[state] || state;
}

function drawLive() {
  const list = $("live-list");
  // Your own running games are under "Games in progress", not among the games to watch.
  const rows = [...live.values()].filter((g) => g.player !== me());
  list.replaceChildren(...rows.slice(0, 30).map((g) => gameLine(g, gettext("Watch"))));
  $("live-empty").hidden = rows.length > 0;
}

async function loadLiveByRest() {
  try {
    const page = await api("GET", "/api/games?state=playing&page_size=30");
    live.clear();
    // Guests' games stay out of the lobby's list, as on the lobby socket (docs/GUESTS.md).
    for (const g of page.results) if (g.unranked_reason !== "guest") live.set(g.id, g);
    drawLive();
  } catch (err) {
    /* the list stays as it is */
  }
}

/** @param {import("./live.js").Frame} msg */
function onLobby(msg) {
  if (msg.type === "live" && Array.isArray(msg.games)) {
    live.clear();
    for (const g of msg.games) live.set(g.id, g);
  } else if (msg.type === "game_started" && msg.id) {
    live.set(msg.id, /** @type {LiveGame} */ ({ ...msg, state: msg.state || "new" }));
  } else if (msg.type === "game_ended" && msg.id) {
    live.delete(msg.id);
  } else {
    return;
  }
  drawLive();
}

// The lobby socket keeps the list fresh (its first frame is the whole list, `live`); while it
// is down the list is read again now and then.
function connectLobby() {
  followSocket("/ws/live", {
    onFrame: onLobby,
    upOn: "live",
    onUp: () => ($("live-on").hidden = false),
    onDown: () => ($("live-on").hidden = true),
    poll: loadLiveByRest,
    pollMs: 10000,
  });
}

/** The player's unfinished games (at most one per level), however old they are. */
async function loadCurrent() {
  if (!me()) return [];
  try {
    const user = encodeURIComponent(me());
    // One request, one snapshot: three (one per state) could each miss a game that was
    // pausing itself meanwhile (the page just left pauses it), as playing and as paused.
    const page = await api("GET", `/api/games?user=${user}&state=playing,paused,new&page_size=20`);
    /** @type {LiveGame[]} */
    const running = page.results;
    if (running.length) {
      $("current-list").replaceChildren(...running.map((g) => gameLine(g, gettext("Continue"))));
      $("current").hidden = false;
    }
    return running;
  } catch (err) {
    return []; // nothing to show, nothing to warn about
  }
}
const current = loadCurrent();

const wanted = new URLSearchParams(location.search).get("play");
if (wanted && document.querySelector(`.level-card[data-level="${CSS.escape(wanted)}"]`)) {
  history.replaceState(null, "", "/"); // a reload must not start another game
  start({ level: wanted });
}

// --- the daily card: today's six levels (API.md, GET /api/daily) ---------------------------

/** @type {import("./daily_common.js").DailyDay | null} */
let today = null;
let dailyReadAt = 0; // when the card was read (a clock wrong by hours reads it every 10 s at most)

/** One level of today: its name, its players and winners, and one button: Play, Continue,
 * or the player's result (a link to the day's standings). Every row has exactly these three
 * parts, as the rows the page is served with, so drawing them moves nothing below.
 * @param {import("./daily_common.js").DailyLevel} l */
function dailyLine(l) {
  const g = l.game;
  let action;
  if (!g) action = el("button", { type: "button", class: "btn btn-primary daily-play", "data-level": l.level, text: gettext("Play"), onclick: () => playDaily(l.level) });
  else if (["won", "lost"].includes(g.state)) action = el("a", { class: "btn daily-result " + g.state, href: `/daily?level=${l.level}`, title: gettext("Standings"), text: resultText(g) });
  else action = el("a", { class: "btn btn-primary", href: `/games/${g.id}`, text: gettext("Continue") });
  const players = fmt(ngettext("%(n)s player", "%(n)s players", l.players), { n: l.players });
  const won = fmt(ngettext("%(n)s won", "%(n)s won", l.winners), { n: l.winners });
  return el(
    "li",
    { "data-daily": l.level, "data-state": g ? g.state : "none" },
    el("span", { class: "grow" }, el("strong", { text: levelLabel(l.level) }), el("small", { class: "muted when" }, el("span", { text: players }), el("span", { class: "sep", text: " · " }), el("span", { text: won }))),
    action,
  );
}

/** @param {string} level */
async function playDaily(level) {
  $("daily-card-error").textContent = "";
  try {
    const g = await startDaily(level);
    location.href = `/games/${g.id}`;
  } catch (err) {
    $("daily-card-error").textContent = messageOf(err);
  }
}

function drawDailyClock() {
  if (!today) return;
  const left = Date.parse(today.ends_at) - Date.now();
  $("daily-card-clock").textContent = left > 0 ? fmt(gettext("Ends in %(time)s (00:00 UTC)"), { time: countdownText(today.ends_at) }) : gettext("The day has ended: its results are being counted.");
  if (left <= -3000 && Date.now() - dailyReadAt > 10000) loadDaily(); // the next day's card, once the server has moved on
}

async function loadDaily() {
  dailyReadAt = Date.now();
  try {
    today = await readDay();
  } catch (err) {
    $("daily-card-error").textContent = messageOf(err);
    return;
  }
  $("daily-card").dataset.state = "ready";
  $("daily-card").dataset.date = today.date;
  $("daily-card-levels").replaceChildren(...today.levels.map(dailyLine));
  drawDailyClock();
}
setInterval(drawDailyClock, 1000);
loadDaily();

loadLiveByRest().then(connectLobby);
