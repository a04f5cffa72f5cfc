// @ts-check
// One race (API.md and RULES.md, Races): the room before the start, the 3-2-1 countdown to
// the server's `starts_at`, then the racer's own board (the game page's modules, mounted on
// the racer's own Game) and every racer's progress bar from the race socket, and at the end
// the results and every board. No rival cell ever reaches this page before the end: the
// race socket carries counts only, and a rival's Game has `board: null` until then.
// The socket, its reconnection and the seq order are live.js's, as on the game page.
import { api, gettext, ngettext, fmt, me, fmtTime, fmtClock, isGuest, playerLabel } from "./api.js";
import { $, el } from "./dom.js";
import { SITE } from "./constants.js";
import { followSocket, SeqOrder } from "./live.js";
import { BoardView, flagAllMines } from "./board.js";
import { mountGame } from "./game.js";
import { raceMessage, raceCall, myRacer, isRacer, inRoom, racerStateText, raceStateText, raceSize, roomRacers, copyLink, placeText, asRacer, ratingText } from "./race_common.js";

/** @typedef {import("./race_common.js").Race} Race */
/** @typedef {import("./race_common.js").Racer} Racer */
/** @typedef {import("./live.js").Frame} Frame */

const root = $("race");
const raceId = root.dataset.raceId || "";
const path = (tail = "") => `/api/races/${raceId}${tail}`;

/** @type {Race | null} */
let race = null;
const order = new SeqOrder(reread); // a gap re-reads the race (the server sends a fresh `state` too)
/** @type {ReturnType<typeof mountGame> | null} the racer's own board, mounted once started */
let mine = null;
let finalDrawn = false;
/** @type {Map<string, { base: number, at: number }>} each racer's race clock, ticking locally */
const clocks = new Map();
/** @type {{ until: number, timer: ReturnType<typeof setInterval> | undefined } | null} */
let countdown = null; // until: the performance.now() deadline
const END_CHECK_MS = 5000; // checkForTheEnd

/** The race shown: the page draws nothing before the first Race is read. */
const shown = () => /** @type {Race} */ (race);

/** @param {string} [text] */
function say(text) {
  $("race-error").textContent = text || "";
}

// --- the whole race --------------------------------------------------------------------------

/** A whole Race (REST, or a socket message that carries it): it replaces what the page knew.
 * @param {Race} r */
function take(r) {
  if (!order.current(r.seq)) return; // older than what is shown
  const was = race ? race.state : null;
  race = r;
  order.seq = r.seq;
  for (const x of r.racers) clocks.set(x.player, { base: x.elapsed_ms, at: performance.now() });
  draw(was);
}

/** @param {string | null} was  the state shown before */
function draw(was) {
  const r = shown();
  root.dataset.state = r.state;
  $("race-title").textContent = fmt(gettext("Race · %(level)s"), { level: raceSize(r).split(" · ")[0] });
  document.title = $("race-title").textContent + " · Démineur";
  const bits = [raceSize(r).split(" · ")[1], raceStateText(r.state), r.rated ? gettext("rated") : gettext("not rated")];
  $("race-sub").textContent = bits.join(" · ");
  drawRoom();
  drawCountdown();
  drawProgress();
  drawMyGame();
  drawArena();
  if (r.state === "finished") drawResults(was !== "finished");
  if (r.state === "cancelled") say(gettext("This race was cancelled: everybody left before the start."));
}

// --- the room --------------------------------------------------------------------------------

function drawRoom() {
  const r = shown();
  const before = r.state === "open" || r.state === "countdown";
  $("race-room").hidden = !before;
  if (!before) return;
  $("race-code").textContent = r.code;
  $("room-racers").replaceChildren(...roomRacers(r));
  const you = myRacer(r);
  const inside = isRacer(r);
  const open = r.state === "open";
  const count = inRoom(r).length;
  // A visitor joins too: as a guest of this browser, unrated (asRacer, RULES.md).
  $("race-join").hidden = !open || inside || count >= r.max_players;
  const ready = $("race-ready");
  ready.hidden = !open || !inside;
  if (inside && you) {
    ready.setAttribute("aria-pressed", String(you.ready));
    ready.textContent = you.ready ? gettext("Ready ✓ (tap to wait)") : gettext("I am ready");
    ready.classList.toggle("btn-ready", you.ready);
  }
  $("race-start").hidden = !open || r.host !== me();
  $("race-start", HTMLButtonElement).disabled = count < SITE.race.min_racers;
  $("race-leave").hidden = !inside;
  let hint = "";
  if (open) {
    hint = fmt(ngettext("%(n)s of %(max)s racer. The race starts when everyone is ready, or when the host starts it.", "%(n)s of %(max)s racers. The race starts when everyone is ready, or when the host starts it.", r.max_players), { n: count, max: r.max_players });
    if (!me()) hint += " " + gettext("You join as a guest: a guest's races are not rated (sign in to race rated).");
    else if (isGuest() && inside) hint += " " + gettext("You race as a guest: your races are not rated. Sign up to keep them and race rated.");
  }
  $("room-hint").textContent = hint;
}

$("copy-link").addEventListener("click", () => race && copyLink(race, $("copy-done")));

/** A request of the room (join, ready, start, leave); true once its Race is drawn.
 * @param {string} action  @param {unknown} [body] */
async function act(action, body) {
  say("");
  try {
    take(await raceCall("POST", path(`/${action}`), body));
    return true;
  } catch (err) {
    say(raceMessage(err));
    return false;
  }
}

$("race-join").addEventListener("click", async () => {
  if (await asRacer(say)) act("join");
});
$("race-ready").addEventListener("click", () => {
  const you = myRacer(race);
  if (you) act("ready", { ready: !you.ready });
});
$("race-start").addEventListener("click", () => act("start"));
$("race-leave").addEventListener("click", async () => {
  if (await act("leave")) location.href = "/races";
});

// --- the countdown ---------------------------------------------------------------------------

function drawCountdown() {
  const race = shown();
  const box = $("race-countdown");
  if (race.state !== "countdown") {
    if (countdown) clearInterval(countdown.timer);
    countdown = null;
    // The racer's board appears in this same draw (drawMyGame): the box goes with it, never
    // after, so nothing above the board moves under a racer's first tap (a "Go!" left on
    // screen for a moment pushed the board 150 px down, and a tap then hit another cell). Its
    // "Go!" was said already, from the end of the countdown to the server's `started`.
    box.hidden = true;
    return;
  }
  if (countdown) return;
  // The server's instant, as given: how long until it, by this device's clock, but never
  // more than a countdown lasts (the server's, 3 s; a clock set wrong cannot stretch it). The
  // race itself starts when the server says `started`; this page never sends a time.
  const left = Math.max(0, Math.min(SITE.race.countdown_ms, Date.parse(race.starts_at || "") - Date.now()));
  countdown = { until: performance.now() + left, timer: undefined };
  box.hidden = false;
  const tick = () => {
    const ms = countdown ? countdown.until - performance.now() : 0;
    box.textContent = ms > 0 ? String(Math.ceil(ms / 1000)) : gettext("Go!");
  };
  tick();
  countdown.timer = setInterval(tick, 100);
}

// --- progress: every racer's counts ----------------------------------------------------------

/** @param {Racer} x */
function elapsedOf(x) {
  const race = shown();
  const c = clocks.get(x.player);
  if (!c) return x.elapsed_ms;
  if (x.state !== "racing" || race.state !== "running") return c.base;
  return Math.min(race.time_limit_ms, c.base + (performance.now() - c.at));
}

/** My place, once it is decided: a winner's is (RULES.md: winners by time, and a racer still
 * racing can only win later); anyone else's comes at the end.
 * @param {Racer} you */
function decidedPlace(you) {
  const race = shown();
  if (race.state === "finished") return you.place;
  if (you.state !== "won") return null;
  return 1 + race.racers.filter((x) => x.state === "won" && x.player !== you.player && x.elapsed_ms < you.elapsed_ms).length;
}

/** @param {Racer} x */
function bar(x) {
  const pct = x.safe_cells ? Math.round((100 * x.opened) / x.safe_cells) : 0;
  const you = x.player === me();
  return el(
    "li",
    { class: "bar-row state-" + x.state + (you ? " me" : ""), "data-player": x.player, "data-state": x.state, "data-opened": String(x.opened) },
    el("span", { class: "bar-name" }, you ? fmt(gettext("%(player)s (you)"), { player: playerLabel(x.player) }) : playerLabel(x.player)),
    el(
      "span",
      { class: "bar", role: "progressbar", "aria-label": fmt(gettext("%(player)s: safe cells opened"), { player: x.player }), "aria-valuemin": "0", "aria-valuemax": String(x.safe_cells), "aria-valuenow": String(x.opened) },
      el("span", { class: "bar-fill", style: `width: ${pct}%` }),
    ),
    el(
      "span",
      { class: "bar-facts" },
      el("span", { class: "bar-cells", text: `${x.opened}/${x.safe_cells}` }),
      el("span", { class: "bar-flags", title: gettext("Flags"), text: `⚑ ${x.flags}` }),
      el("span", { class: "pill " + x.state, text: racerStateText(x.state) }),
      el("span", { class: "bar-time", "data-player": x.player, text: fmtClock(elapsedOf(x)) }),
    ),
  );
}

function drawProgress() {
  const r = shown();
  const show = r.state === "running";
  $("race-progress").hidden = !show;
  if (!show) return;
  $("bars").replaceChildren(...r.racers.filter((x) => x.state !== "left" || x.game).map(bar));
  $("spectator-note").hidden = isRacer(r) || !!myRacer(r);
  const you = myRacer(r);
  const place = you ? decidedPlace(you) : null;
  const p = $("my-place");
  p.hidden = !you || you.state === "racing";
  if (you && place) p.textContent = fmt(gettext("You cleared the board: %(place)s of %(n)s."), { place: placeText(place), n: r.racers.length });
  else if (you && you.state !== "racing") p.textContent = gettext("Your race is over: your place comes when the race ends.");
}

setInterval(() => {
  if (!race || race.state !== "running") return;
  for (const x of race.racers) {
    const t = document.querySelector(`.bar-time[data-player="${CSS.escape(x.player)}"]`);
    if (t) t.textContent = fmtClock(elapsedOf(x));
  }
}, 200);

/** `progress` / `finished`: one racer's counts (never a cell). They are the racer's newest,
 * so they are drawn even after a gap, while the race is read again.
 * @param {Frame} msg */
function onProgress(msg) {
  if (!race || order.step(msg.seq ?? -1) === "old") return;
  const x = race.racers.find((y) => y.player === msg.player);
  if (x) {
    x.opened = msg.opened ?? x.opened;
    x.flags = msg.flags ?? x.flags;
    x.state = msg.state;
    x.elapsed_ms = msg.elapsed_ms;
    clocks.set(x.player, { base: msg.elapsed_ms, at: performance.now() });
  }
  race.seq = order.seq;
  drawProgress();
  drawArena();
}

// --- a race of an arena (docs/ARENAS.md, The site) -----------------------------------------------
// The way back to the arena; and once the racer's own game is over they are back in the arena's
// pool, so the page follows the arena's feed and goes to their next race as soon as it forms.

/** @type {import("./live.js").Follow | null} */
let arenaFeed = null;

function drawArena() {
  const r = shown();
  if (!r.arena) return;
  const back = `/arenas/${r.arena}`;
  $("race-arena").hidden = false;
  $("race-arena-link", HTMLAnchorElement).href = back;
  const another = $("another-race", HTMLAnchorElement);
  another.href = back;
  another.textContent = gettext("Back to the arena");
  const you = myRacer(r);
  // First with no rival who moved: the arena scores it 1 point and no win (docs/ARENAS.md).
  const alone = r.state === "finished" && !!you && you.place === 1 && you.took_part && r.racers.every((x) => x === you || !x.took_part);
  $("race-arena-alone").hidden = !alone;
  const over = !!you && ["won", "lost", "left"].includes(you.state);
  if (!over || arenaFeed) return;
  const arenaId = r.arena;
  const note = $("race-arena-note");
  /** @param {string} next */
  const go = (next) => {
    if (next === raceId) return;
    note.textContent = gettext("Your next race in the arena is starting…");
    if (arenaFeed) arenaFeed.close();
    location.assign(`/races/${next}`);
  };
  const check = async () => {
    try {
      const a = await api("GET", `/api/arenas/${arenaId}`);
      if (a.state === "finished") {
        note.textContent = gettext("The arena is over: its podium is on the arena's page.");
        if (arenaFeed) arenaFeed.close();
      } else if (a.me && a.me.race && a.me.race !== raceId && a.me.active !== false) {
        const next = await api("GET", `/api/races/${a.me.race}`);
        if (next.state === "countdown" || next.state === "running") go(next.id);
      }
    } catch (err) {
      /* the feed says it next time */
    }
  };
  note.hidden = false;
  note.textContent = gettext("Your game is over: you are back in the arena's pool. Your next race opens here by itself.");
  arenaFeed = followSocket(`/ws/arenas/${arenaId}`, {
    onFrame: (f) => {
      if (f.type === "race" && (f.players || []).includes(me())) go(String(f.race));
      else if (f.type === "state" || f.type === "ended") check();
    },
    // A race that formed before the subscription sent its frame to nobody here: read again.
    onUp: check,
    poll: check,
    pollMs: 3000,
  });
}

// --- the racer's own board --------------------------------------------------------------------

function drawMyGame() {
  const race = shown();
  const you = myRacer(race);
  const started = race.state === "running" || race.state === "finished";
  if (!you || !you.game || !started) return;
  if (!mine) {
    const panel = $("game");
    panel.dataset.gameId = you.game;
    $("race-mygame").hidden = false;
    mine = mountGame(panel);
  }
}

// --- the end -----------------------------------------------------------------------------------

/** The rating before -> after and the change, the "?" of a provisional rating after it.
 * @param {Racer} x */
function ratingCell(x) {
  if (x.rating_before === null || x.rating_after === null) return el("td", { class: "num rating", text: "—" });
  const d = x.rating_after - x.rating_before;
  return el("td", { class: "num rating" }, `${x.rating_before} → `, ratingText(x.rating_after, x.provisional), ` (${d >= 0 ? "+" : "−"}${Math.abs(d)})`);
}

/** @param {Racer} x */
function resultRow(x) {
  const you = x.player === me();
  return el(
    "tr",
    { class: you ? "me" : null, "data-player": x.player, "data-place": String(x.place ?? "") },
    el("td", { class: "num", text: x.place ? String(x.place) : "—" }),
    el("td", {}, el("a", { href: `/players/${encodeURIComponent(x.player)}`, text: playerLabel(x.player) })),
    el("td", {}, el("span", { class: "pill " + x.state, text: racerStateText(x.state) })),
    el("td", { class: "num", text: fmtTime(x.elapsed_ms) }),
    el("td", { class: "num", text: `${x.opened}/${x.safe_cells}` }),
    ratingCell(x),
    el("td", {}, x.game ? el("a", { href: `/games/${x.game}/replay`, text: gettext("Replay") }) : "—"),
  );
}

/** @param {boolean} fresh  the race has just ended on this page */
function drawResults(fresh) {
  const r = shown();
  $("race-results").hidden = false;
  $("results", HTMLTableElement).tBodies[0].replaceChildren(...r.racers.map(resultRow));
  const you = myRacer(r);
  if (you && you.place) say("");
  if (fresh && mine) mine.feed.refetch(); // the layout of my own game is public now
  if (!finalDrawn) {
    finalDrawn = true;
    drawFinalBoards();
  }
}

/** Every rival's board, now that the race is over (RULES.md: then every board is public). */
async function drawFinalBoards() {
  const box = $("final-boards");
  const others = shown().racers.filter((x) => x.game && x.player !== me());
  box.replaceChildren();
  for (const x of others) {
    const fig = el("figure", { class: "final-board", "data-player": x.player });
    box.append(fig);
    let g;
    try {
      g = await api("GET", `/api/games/${x.game}`);
    } catch (err) {
      fig.append(el("figcaption", { text: x.player + " · " + raceMessage(err) }));
      continue;
    }
    if (!g.board) continue;
    const wrap = el("div", { class: "board-wrap board-mini" });
    const holder = el("div");
    wrap.append(holder);
    fig.append(el("figcaption", {}, el("a", { href: `/games/${x.game}`, text: playerLabel(x.player) }), " · ", racerStateText(x.state)), wrap);
    const view = new BoardView(holder, { width: g.width, height: g.height, label: fmt(gettext("%(player)s's board"), { player: x.player }), interactive: false });
    view.setRows(g.state === "won" ? flagAllMines(g.board) : g.board);
  }
  if (!others.length) box.append(el("p", { class: "muted", text: gettext("Your board is above.") }));
}

// --- the feed ------------------------------------------------------------------------------------

async function reread() {
  try {
    take(await api("GET", path()));
  } catch (err) {
    say(raceMessage(err));
  }
}

/** @param {Frame} msg */
function onMessage(msg) {
  switch (msg.type) {
    case "state":
      if (msg.race) take({ ...msg.race, seq: Math.max(msg.race.seq, msg.seq || 0) });
      break;
    case "joined":
    case "left":
    case "ready":
    case "countdown":
    case "started":
    case "ended":
      if (msg.race && order.where(msg.seq ?? -1) !== "old") take(msg.race);
      break;
    case "progress":
    case "finished":
      onProgress(msg);
      break;
    default:
      break;
  }
}

(async function start() {
  try {
    take(await api("GET", path()));
  } catch (err) {
    $("race-title").textContent = gettext("No such race.");
    say(raceMessage(err));
    return;
  }
  // While the socket is down the race is read over REST every 2 s (live.js reconnects).
  const feed = followSocket(`/ws/races/${raceId}`, { onFrame: onMessage, poll: reread, pollMs: 2000 });
  const endCheck = setInterval(() => {
    if (race && (race.state === "finished" || race.state === "cancelled")) clearInterval(endCheck);
    else if (feed.isUp()) checkForTheEnd(); // while it is down, the feed's own poll reads the race
  }, END_CHECK_MS);
})();

/** A racer whose own game is over waits for the race's end, which comes as an event. A lost
 * event shows as a gap when the next one comes (SeqOrder), but the end is the last: should it
 * be lost on its way (a busy server whose Redis did not answer in time), nothing would ever
 * say so. So while the race runs and the racer's game is over, the race is read again now and
 * then. */
function checkForTheEnd() {
  const you = race ? myRacer(race) : null;
  if (race && race.state === "running" && you && you.state !== "racing") reread();
}

