// @ts-check
// One arena (API.md and RULES.md, Arenas; docs/ARENAS.md, The site): the countdown to its start
// and then to its end, Join and Leave, the player's race as soon as the server pairs them (the
// page goes to the race page, where the race is played; coming back shows the standings), the
// live standings from /ws/arenas/{id} (`state`, `standings`, `race`, `ended`) with the
// player's own row and the fire of a streak, and the podium once it is over, which stays.
// The frames carry the Arena with `me: null`: the player's own part is read over REST
// (GET /api/arenas/{id}) each time the standings change, and each time the socket comes up.
// While the socket is down the arena and its standings are read over REST every 3 s (live.js
// reconnects).
import { api, clockText, gettext, ngettext, fmt, me, isGuest, playerLabel, fmtDate } from "./api.js";
import { $, el, labelCells } from "./dom.js";
import { SITE } from "./constants.js";
import { followSocket } from "./live.js";
import { arenaMessage, arenaKind, arenaName, arenaStateText, spanText } from "./arena_common.js";
import { raceCall, racePath } from "./race_common.js";

/** @typedef {import("./arena_common.js").Arena} Arena */
/** @typedef {import("./arena_common.js").ArenaMe} ArenaMe */
/** @typedef {import("./arena_common.js").Standing} Standing */
/** @typedef {import("./race_common.js").Race} Race */
/** @typedef {import("./live.js").Frame} Frame */

const root = $("arena");
const arenaId = root.dataset.arenaId || "";
const path = (tail = "") => `/api/arenas/${arenaId}${tail}`;
const POLL_MS = 3000;
const PAGE = 50; // the rows a frame carries (the first page of the standings)

/** @type {Arena | null} */
let arena = null;
/** @type {ArenaMe | null} the viewer's own part, read over REST */
let mine = null;
/** @type {Standing[]} */
let rows = [];
/** @type {Standing | null} the viewer's row when it is not among `rows` */
let myRow = null;
/** Races of the viewer this page already knows of: a race the page sees form is followed. */
const knownRaces = new Set();
let leaving = false; // the page is on its way to a race

const shown = () => /** @type {Arena} */ (arena);

/** @param {string} [text] */
function say(text) {
  $("arena-error").textContent = text || "";
}

// --- what the page knows -------------------------------------------------------------------------

/** A whole Arena (REST with `me`, or a frame's with `me: null`) and, from a frame, the rows.
 * Nothing older than what is shown replaces it.
 * @param {Arena} a  @param {Standing[] | null} standings  @param {boolean} withMe */
function take(a, standings, withMe) {
  if (arena && a.seq < arena.seq) return;
  arena = a;
  if (withMe) mine = a.me;
  if (standings) rows = standings;
  draw();
}

function draw() {
  const a = shown();
  root.dataset.state = a.state;
  $("arena-title").textContent = arenaName(a);
  document.title = `${arenaName(a)} · Démineur`;
  const by = a.created_by ? fmt(gettext("by %(name)s"), { name: playerLabel(a.created_by) }) : gettext("by the server");
  const bits = [arenaKind(a), arenaStateText(a.state), fmt(ngettext("%(n)s player", "%(n)s players", a.joined), { n: a.joined }), by];
  if (a.private) bits.push(gettext("private"));
  $("arena-sub").textContent = bits.join(" · ");
  $("arena-code").textContent = a.code;
  drawClock();
  drawActions();
  drawYou();
  drawStandings();
  drawPodium();
}

// --- the clock -------------------------------------------------------------------------------------

function drawClock() {
  const a = shown();
  const now = Date.now();
  const times = spanText(a.starts_at, a.ends_at);
  let when = "";
  let clock = "";
  if (a.state === "scheduled") {
    when = gettext("Starts in");
    clock = clockText(Date.parse(a.starts_at) - now);
  } else if (a.state === "running" && Date.parse(a.ends_at) > now) {
    when = gettext("Ends in");
    clock = clockText(Date.parse(a.ends_at) - now);
  } else if (a.state === "running") {
    when = gettext("The time is up: the last races are finishing.");
  } else {
    when = gettext("Finished");
    clock = "";
  }
  $("arena-when").textContent = when;
  const box = $("arena-clock");
  box.textContent = clock;
  box.hidden = !clock;
  $("arena-times").textContent = a.state === "finished" && a.ended_at ? fmt(gettext("%(times)s · ended %(when)s"), { times, when: fmtDate(a.ended_at) }) : times;
  drawHint();
}

setInterval(() => arena && drawClock(), 250);

// --- join, leave, the hint ----------------------------------------------------------------------

function drawActions() {
  const a = shown();
  const open = a.state !== "finished";
  const member = !!me() && !isGuest();
  const inside = !!mine && mine.active !== false;
  const join = $("arena-join");
  join.hidden = !open || !member || inside;
  join.textContent = mine ? gettext("Join again") : gettext("Join the arena");
  $("arena-leave").hidden = !open || !inside;
  const signin = document.getElementById("arena-signin");
  if (signin) signin.hidden = !open;
}

function drawHint() {
  const a = shown();
  const now = Date.now();
  let hint = "";
  const inside = !!mine && mine.active !== false;
  const waitsFor = a.min_players && a.min_players > SITE.race.min_racers && !rows.some((r) => r.races > 0) ? a.min_players : 0;
  if (a.state === "finished") hint = gettext("The arena is over: these are the final standings.");
  else if (!me()) hint = gettext("Sign in to race in the arena. Anyone can watch.");
  else if (isGuest()) hint = gettext("Arenas are for signed-up players: sign up first (your games are kept).");
  else if (mine && !inside) hint = gettext("You left the arena: your points are kept. Join again to race (after a short wait).");
  else if (!inside) hint = gettext("Join, and the server pairs you with the players waiting, race after race.");
  else if (racingNow()) hint = ""; // the card of the player's race says where they are
  else if (a.state === "scheduled") hint = gettext("You are in: your first race forms at the start.");
  else if (Date.parse(a.ends_at) - now < SITE.arena.pairing_stop_ms) hint = gettext("No new race forms now: the arena is about to end.");
  else if (mine && mine.eligible_at && Date.parse(mine.eligible_at) > now) {
    const s = Math.ceil((Date.parse(mine.eligible_at) - now) / 1000);
    hint = fmt(ngettext("Back in the pool: you can be paired again in %(s)s second.", "Back in the pool: you can be paired again in %(s)s seconds.", s), { s });
  } else hint = gettext("You are in the pool: your next race forms as soon as another player waits.");
  if (waitsFor && a.state !== "finished") hint += " " + fmt(ngettext("The first races form once %(n)s player waits.", "The first races form once %(n)s players wait.", waitsFor), { n: waitsFor });
  $("arena-hint").textContent = hint;
}

/** Join or leave. @param {"join" | "leave"} action */
async function act(action) {
  say("");
  try {
    take(await raceCall("POST", path(`/${action}`)), null, true);
  } catch (err) {
    say(arenaMessage(err));
  }
}

$("arena-join").addEventListener("click", () => act("join"));
$("arena-leave").addEventListener("click", () => act("leave"));

$("arena-copy").addEventListener("click", async () => {
  const link = new URL(`/arenas/${arenaId}`, location.href).href;
  const done = $("arena-copied");
  try {
    await navigator.clipboard.writeText(link);
    done.textContent = gettext("Link copied.");
  } catch (err) {
    done.textContent = link; // the visitor can still select it
  }
});

// --- the player's race --------------------------------------------------------------------------

/** Whether the card of the player's race shows a race they are in ("new" or "on"): then it is
 * the page's one line about the player's state, and the hint says nothing. */
function racingNow() {
  const card = $("arena-mine");
  return !card.hidden && (card.dataset.how === "new" || card.dataset.how === "on");
}

/** The card of the player's race, or none (`how` null); the hint follows it.
 * @param {string} raceId  @param {"new" | "on" | "over" | null} how */
function drawMine(raceId, how) {
  const card = $("arena-mine");
  card.hidden = how === null;
  card.dataset.how = how || "";
  drawHint();
  if (how === null) return;
  card.dataset.race = raceId;
  const link = $("arena-race-link", HTMLAnchorElement);
  link.href = racePath({ id: raceId });
  link.className = how === "over" ? "btn" : "btn btn-primary btn-big";
  if (how === "new") {
    $("arena-mine-title").textContent = gettext("Your race is starting");
    $("arena-mine-text").textContent = gettext("You are paired: the race starts in a few seconds.");
    link.textContent = gettext("Go to your race");
  } else if (how === "on") {
    $("arena-mine-title").textContent = gettext("Your race is on");
    $("arena-mine-text").textContent = gettext("Your race is running: your board is on the race page.");
    link.textContent = gettext("Go to your race");
  } else {
    $("arena-mine-title").textContent = gettext("Your last race");
    $("arena-mine-text").textContent = gettext("Your game is over; the others may still be racing. Its points come when the race ends.");
    link.textContent = gettext("See the race");
  }
}

/** A race formed with the player in it while the page is shown: go and race it. @param {string} raceId */
function paired(raceId) {
  if (knownRaces.has(raceId) || leaving) return;
  knownRaces.add(raceId);
  drawMine(raceId, "new");
  leaving = true;
  location.assign(racePath({ id: raceId }));
}

/** The race `me.race` names, as it is now: on the page's first read, the card says where it
 * is; a race the page had not seen is one that just formed. @param {boolean} first */
async function checkMyRace(first) {
  const raceId = mine && mine.race;
  if (!raceId) {
    drawMine("", null);
    return;
  }
  if (!first && !knownRaces.has(raceId)) return paired(raceId);
  knownRaces.add(raceId);
  /** @type {Race} */
  let race;
  try {
    race = await api("GET", `/api/races/${raceId}`);
  } catch (err) {
    return;
  }
  const you = race.racers.find((r) => r.player === me());
  const racing = !!you && ["waiting", "racing"].includes(you.state);
  if ((race.state === "countdown" || race.state === "running") && racing) drawMine(raceId, "on");
  else if (race.state === "countdown" || race.state === "running") drawMine(raceId, "over");
  else drawMine(raceId, null);
}

/** @type {Promise<void> | null} */
let reading = null;
let readAgain = false;

/** The viewer's own part again (REST), after the standings changed. */
function refreshMe() {
  if (!me() || isGuest()) return;
  if (reading) {
    readAgain = true;
    return;
  }
  reading = (async () => {
    try {
      const a = await api("GET", path());
      take(a, null, true);
      await readMyRow();
      await checkMyRace(false);
    } catch (err) {
      /* the next frame or poll reads it again */
    }
  })().finally(() => {
    reading = null;
    if (readAgain) {
      readAgain = false;
      refreshMe();
    }
  });
}

/** The viewer's row when the first page does not hold it. */
async function readMyRow() {
  myRow = null;
  if (!mine || rows.some((r) => r.player === me()) || rows.length < PAGE) return;
  const page = await api("GET", path(`/standings?page_size=1`));
  myRow = page.me || null;
  drawStandings();
}

// --- you, the standings, the podium ----------------------------------------------------------------

function drawYou() {
  const card = $("arena-you");
  card.hidden = !mine;
  if (!mine) return;
  /** @type {Record<string, string>} */
  const values = { rank: mine.rank ? `#${mine.rank}` : "—", score: String(mine.score), streak: String(mine.streak ?? 0) };
  for (const box of card.querySelectorAll("[data-me]")) {
    const b = box.querySelector("b");
    if (b) b.textContent = values[/** @type {HTMLElement} */ (box).dataset.me || ""] ?? "—";
  }
  $("arena-you-fire").hidden = !mine.fire || shown().state === "finished";
}

const FIRE = () => gettext("On fire: the next win scores double");
const SVG = "http://www.w3.org/2000/svg";
// A flame, drawn (an emoji needs a colour font the device may not have).
const FLAME = "M12 1.5c.6 3.6-3.8 5.9-3.8 10.1 0 1.3.5 2.4 1.2 3.2-.1-2.3 1.3-3.8 2.6-5 .2 2.2 2.9 3.3 2.9 6 0 1.4-.7 2.6-1.7 3.4 3.3-.6 5.8-3.4 5.8-6.9 0-4.9-4.3-6.6-7-10.8zM7.3 13.6c-.9 1.1-1.5 2.5-1.5 4 0 3 2.4 5.4 5.4 5.5-1.9-.8-3.2-2.7-3.2-4.8 0-1.6.4-3.1-.7-4.7z";

/** The fire mark: the next win scores double. */
function fire() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  const p = document.createElementNS(SVG, "path");
  p.setAttribute("d", FLAME);
  svg.append(p);
  return el("span", { class: "fire", role: "img", title: FIRE(), "aria-label": FIRE() }, svg);
}

/** @param {Standing} r */
function standingRow(r) {
  const you = r.player === me();
  const away = r.active === false && shown().state !== "finished";
  return el(
    "tr",
    { class: [you ? "me" : "", away ? "away" : ""].join(" ").trim() || null, "data-player": r.player, "data-rank": String(r.rank), "data-score": String(r.score), "data-fire": String(r.fire) },
    el("td", { class: "num", text: String(r.rank) }),
    el(
      "td",
      {},
      // One child beside the phone's label (site.css: a card's cell is label | value).
      el(
        "span",
        { class: "who" },
        el("a", { href: `/players/${encodeURIComponent(r.player)}`, text: playerLabel(r.player) }),
        you ? el("span", { class: "muted", text: " " + gettext("(you)") }) : null,
        r.fire ? fire() : null,
        away ? el("span", { class: "muted away-note", text: " " + gettext("left") }) : null,
      ),
    ),
    el("td", { class: "num points", text: String(r.score) }),
    el("td", { class: "num", text: String(r.races) }),
    el("td", { class: "num", text: String(r.wins) }),
    el("td", { class: "num", text: String(r.streak) }),
  );
}

function drawStandings() {
  const table = $("standings", HTMLTableElement);
  const body = [...rows.map(standingRow)];
  if (myRow && !rows.some((r) => r.player === myRow?.player)) {
    body.push(el("tr", { class: "gap", "aria-hidden": "true" }, el("td", { colspan: "6", "data-label": "", text: "…" })), standingRow(myRow));
  }
  table.tBodies[0].replaceChildren(...body);
  labelCells(table);
  $("standings-empty").hidden = rows.length > 0;
}

function drawPodium() {
  const a = shown();
  const box = $("arena-podium");
  const top = rows.filter((r) => r.races > 0).slice(0, 3);
  box.hidden = a.state !== "finished";
  if (box.hidden) return;
  if (!top.length) {
    $("podium").replaceChildren(el("li", { class: "muted", text: gettext("Nobody raced in this arena.") }));
    return;
  }
  $("podium").replaceChildren(
    ...top.map((r, i) =>
      el(
        "li",
        { class: `podium-${i + 1}` + (r.player === me() ? " me" : ""), "data-player": r.player, "data-rank": String(r.rank) },
        el("span", { class: "medal", "aria-hidden": "true", text: String(i + 1) }),
        el("a", { class: "podium-name", href: `/players/${encodeURIComponent(r.player)}`, text: playerLabel(r.player) }),
        el("span", { class: "podium-points", text: fmt(ngettext("%(n)s point", "%(n)s points", r.score), { n: r.score }) }),
        el("span", { class: "muted", text: fmt(ngettext("%(n)s win", "%(n)s wins", r.wins), { n: r.wins }) + " · " + fmt(ngettext("%(n)s race", "%(n)s races", r.races), { n: r.races }) }),
      ),
    ),
  );
}

// --- the feed --------------------------------------------------------------------------------------

/** @param {Frame} msg */
function onFrame(msg) {
  switch (msg.type) {
    case "state":
    case "standings":
    case "ended":
      if (msg.arena) {
        take({ ...msg.arena, me: mine }, msg.standings || [], false);
        refreshMe();
      }
      break;
    case "race":
      if (me() && (msg.players || []).includes(me())) paired(String(msg.race));
      break;
    default:
      break;
  }
}

/** The arena and its first page over REST (the socket is down). */
async function reread() {
  try {
    const [a, page] = await Promise.all([api("GET", path()), api("GET", path(`/standings?page_size=${PAGE}`))]);
    take(a, page.results || [], true);
    await checkMyRace(false);
  } catch (err) {
    say(arenaMessage(err));
  }
}

(async function start() {
  try {
    const [a, page] = await Promise.all([api("GET", path()), api("GET", path(`/standings?page_size=${PAGE}`))]);
    take(a, page.results || [], true);
    myRow = page.me && !rows.some((r) => r.player === page.me.player) ? page.me : null;
    drawStandings();
  } catch (err) {
    $("arena-title").textContent = gettext("No such arena.");
    root.dataset.state = "none";
    say(arenaMessage(err));
    return;
  }
  await checkMyRace(true);
  const live = $("standings-live");
  followSocket(`/ws/arenas/${arenaId}`, {
    onFrame,
    // A race that formed between the first read and the subscription (or while the socket
    // was down) sent its frame to nobody here: the player's own part is read again.
    onUp: () => {
      live.hidden = false;
      refreshMe();
    },
    onDown: () => (live.hidden = true),
    poll: reread,
    pollMs: POLL_MS,
  });
})();
