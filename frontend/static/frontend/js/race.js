// One race (API.md and RULES.md, Races): the room before the start, the 3-2-1 countdown to
// the server's `starts_at`, then the racer's own board (the game page's modules, mounted on
// the racer's own Game) and every racer's progress bar from the race socket, and at the end
// the results and every board. No rival cell ever reaches this page before the end: the
// race socket carries counts only, and a rival's Game has `board: null` until then.
import { api, gettext, fmt, el, me, fmtTime, fmtClock } from "./api.js";
import { BoardView } from "./board.js";
import { mountGame } from "./game.js";
import { raceMessage, raceCall, myRacer, isRacer, racerStateText, raceStateText, raceSize, roomRacers, copyLink, followRace, placeText } from "./race_common.js";

const $ = (id) => document.getElementById(id);
const root = $("race");
const raceId = root.dataset.raceId;
const path = (tail = "") => `/api/races/${raceId}${tail}`;
const COUNTDOWN_MS = 3000; // RULES.md, Races: the server starts the race 3 s after the countdown begins

let race = null;
let seq = -1;
let mine = null; // the mounted game of the racer's own board ({s, view, feed}), once started
let finalDrawn = false;
const clocks = new Map(); // player -> {base, at}: each racer's race clock, ticking locally
let countdown = null; // {until: performance.now() deadline, timer}

function say(text) {
  $("race-error").textContent = text || "";
}

// --- the whole race --------------------------------------------------------------------------

/** A whole Race (REST, or a socket message that carries it): it replaces what the page knew. */
function take(r) {
  if (race && r.seq < seq) return; // older than what is shown
  const was = race ? race.state : null;
  race = r;
  seq = r.seq;
  for (const x of r.racers) clocks.set(x.player, { base: x.elapsed_ms, at: performance.now() });
  draw(was);
}

function draw(was) {
  const r = race;
  root.dataset.state = r.state;
  $("race-title").textContent = fmt(gettext("Race · %(level)s"), { level: raceSize(r).split(" · ")[0] });
  document.title = $("race-title").textContent + " · Démineur";
  const bits = [raceSize(r).split(" · ")[1], raceStateText(r.state), r.rated ? gettext("rated") : gettext("not rated")];
  $("race-sub").textContent = bits.join(" · ");
  drawRoom();
  drawCountdown();
  drawProgress();
  drawMyGame();
  if (r.state === "finished") drawResults(was !== "finished");
  if (r.state === "cancelled") say(gettext("This race was cancelled: everybody left before the start."));
}

// --- the room --------------------------------------------------------------------------------

function drawRoom() {
  const r = race;
  const before = r.state === "open" || r.state === "countdown";
  $("race-room").hidden = !before;
  if (!before) return;
  $("race-code").textContent = r.code;
  $("room-racers").replaceChildren(...roomRacers(r));
  const you = myRacer(r);
  const inside = isRacer(r);
  const open = r.state === "open";
  const count = r.racers.filter((x) => x.state !== "left").length;
  $("race-join").hidden = !open || inside || !me() || count >= r.max_players;
  const ready = $("race-ready");
  ready.hidden = !open || !inside;
  if (inside) {
    ready.setAttribute("aria-pressed", String(you.ready));
    ready.textContent = you.ready ? gettext("Ready ✓ (tap to wait)") : gettext("I am ready");
    ready.classList.toggle("btn-ready", you.ready);
  }
  $("race-start").hidden = !open || r.host !== me();
  $("race-start").disabled = count < 2;
  $("race-leave").hidden = !inside;
  let hint = "";
  if (open) {
    hint = fmt(gettext("%(n)s of %(max)s racers. The race starts when everyone is ready, or when the host starts it."), { n: count, max: r.max_players });
    if (!me()) hint += " " + gettext("Sign in to join.");
  }
  $("room-hint").textContent = hint;
}

$("copy-link").addEventListener("click", () => race && copyLink(race, $("copy-done")));

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

$("race-join").addEventListener("click", () => act("join"));
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
  const box = $("race-countdown");
  if (race.state !== "countdown") {
    if (countdown) clearInterval(countdown.timer);
    countdown = null;
    box.hidden = !(race.state === "running" && !box.hidden && box.dataset.go === "1");
    if (race.state === "running" && box.dataset.shown === "1" && box.dataset.go !== "1") {
      // The start: "Go!" for a moment.
      box.dataset.go = "1";
      box.textContent = gettext("Go!");
      box.hidden = false;
      setTimeout(() => (box.hidden = true), 900);
    }
    return;
  }
  if (countdown) return;
  // The server's instant, as given: how long until it, by this device's clock, but never
  // more than the 3 s a countdown lasts (a clock set wrong cannot stretch it). The race
  // itself starts when the server says `started`; this page never sends a time.
  const left = Math.max(0, Math.min(COUNTDOWN_MS, Date.parse(race.starts_at) - Date.now()));
  countdown = { until: performance.now() + left, timer: 0 };
  box.hidden = false;
  box.dataset.shown = "1";
  const tick = () => {
    const ms = countdown ? countdown.until - performance.now() : 0;
    box.textContent = ms > 0 ? String(Math.ceil(ms / 1000)) : gettext("Go!");
  };
  tick();
  countdown.timer = setInterval(tick, 100);
}

// --- progress: every racer's counts ----------------------------------------------------------

function elapsedOf(x) {
  const c = clocks.get(x.player);
  if (!c) return x.elapsed_ms;
  if (x.state !== "racing" || race.state !== "running") return c.base;
  return Math.min(race.time_limit_ms, c.base + (performance.now() - c.at));
}

/** My place, once it is decided: a winner's is (RULES.md: winners by time, and a racer still
 * racing can only win later); anyone else's comes at the end. */
function decidedPlace(you) {
  if (race.state === "finished") return you.place;
  if (you.state !== "won") return null;
  return 1 + race.racers.filter((x) => x.state === "won" && x.player !== you.player && x.elapsed_ms < you.elapsed_ms).length;
}

function bar(x) {
  const pct = x.safe_cells ? Math.round((100 * x.opened) / x.safe_cells) : 0;
  const you = x.player === me();
  return el(
    "li",
    { class: "bar-row state-" + x.state + (you ? " me" : ""), "data-player": x.player, "data-state": x.state, "data-opened": String(x.opened) },
    el("span", { class: "bar-name" }, you ? fmt(gettext("%(player)s (you)"), { player: x.player }) : x.player),
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
  const r = race;
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

/** `progress` / `finished`: one racer's counts (never a cell). */
function onProgress(msg) {
  if (!race || msg.seq <= seq) return;
  const gap = msg.seq !== seq + 1;
  seq = msg.seq;
  const x = race.racers.find((y) => y.player === msg.player);
  if (x) {
    x.opened = msg.opened ?? x.opened;
    x.flags = msg.flags ?? x.flags;
    x.state = msg.state;
    x.elapsed_ms = msg.elapsed_ms;
    clocks.set(x.player, { base: msg.elapsed_ms, at: performance.now() });
  }
  race.seq = msg.seq;
  drawProgress();
  if (gap) reread(); // the server sends a fresh `state` too; REST makes sure
}

// --- the racer's own board --------------------------------------------------------------------

function drawMyGame() {
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

function ratingText(x) {
  if (x.rating_before === null || x.rating_after === null) return "—";
  const d = x.rating_after - x.rating_before;
  return `${x.rating_before} → ${x.rating_after} (${d >= 0 ? "+" : "−"}${Math.abs(d)})`;
}

function resultRow(x) {
  const you = x.player === me();
  return el(
    "tr",
    { class: you ? "me" : null, "data-player": x.player, "data-place": String(x.place ?? "") },
    el("td", { class: "num", text: x.place ? String(x.place) : "—" }),
    el("td", {}, el("a", { href: `/players/${encodeURIComponent(x.player)}`, text: x.player })),
    el("td", {}, el("span", { class: "pill " + x.state, text: racerStateText(x.state) })),
    el("td", { class: "num", text: x.state === "won" ? fmtTime(x.elapsed_ms) : fmtTime(x.elapsed_ms) }),
    el("td", { class: "num", text: `${x.opened}/${x.safe_cells}` }),
    el("td", { class: "num rating", text: ratingText(x) }),
    el("td", {}, x.game ? el("a", { href: `/games/${x.game}/replay`, text: gettext("Replay") }) : "—"),
  );
}

function drawResults(fresh) {
  const r = race;
  $("race-results").hidden = false;
  $("results").tBodies[0].replaceChildren(...r.racers.map(resultRow));
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
  const others = race.racers.filter((x) => x.game && x.player !== me());
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
    fig.append(el("figcaption", {}, el("a", { href: `/games/${x.game}`, text: x.player }), " · ", racerStateText(x.state)), wrap);
    const view = new BoardView(holder, { width: g.width, height: g.height, label: fmt(gettext("%(player)s's board"), { player: x.player }), interactive: false });
    view.setRows(g.board);
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
      if (msg.race && msg.seq > seq) take(msg.race);
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
  followRace(raceId, onMessage, reread);
})();

