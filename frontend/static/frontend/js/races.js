// @ts-check
// The race lobby (API.md, Races): create a race, join one by its code or from the list of
// open races, quick match per level (the queue, polled every second until matched), and the
// visitor's own race with its code, link, ready toggle and the host's Start.
import { api, ApiError, gettext, ngettext, fmt, me, isGuest, playerLabel } from "./api.js";
import { $, $$, el } from "./dom.js";
import { modeLabel } from "./constants.js";
import { SITE } from "./constants.js";
import { raceMessage, raceCall, racePath, onCodeForm, myRacer, isRacer, inRoom, raceSize, raceStateText, roomRacers, copyLink, asRacer } from "./race_common.js";

/** @typedef {import("./race_common.js").Race} Race */

const QUEUE_POLL_MS = 1000;
const LIST_MS = 5000;

/** @param {string} [text] */
function say(text) {
  $("races-error").textContent = text || "";
}

// A visitor races at once as a guest, unrated (RULES.md: guests play, unranked; asRacer).
// Quick match is the one thing a guest is not offered: it pairs racers by their race rating,
// and a rival matched with a guest would lose a rated race (docs/FRONTEND.md, Races).
const quickNeedsAccount = () => !me() || isGuest();

// --- create, join by code ------------------------------------------------------------------

const createForm = $("create-race", HTMLFormElement);
createForm.addEventListener("submit", async (e) => {
  e.preventDefault();
  if (!(await asRacer(say))) return;
  const f = new FormData(createForm);
  say("");
  try {
    const race = await raceCall("POST", "/api/races", { level: f.get("level"), max_players: Number(f.get("max_players")), no_guess: f.get("no_guess") === "on" });
    location.href = racePath(race);
  } catch (err) {
    say(raceMessage(err));
  }
});

/** @param {Race | undefined} race */
async function joinByCode(race) {
  if (!race) return say(gettext("No race has this code."));
  if (!(await asRacer(say))) return;
  await join(race);
}
onCodeForm($("join-code", HTMLFormElement), "/api/races", joinByCode, say, raceMessage);

/** @param {Race} race */
async function join(race) {
  if (!(await asRacer(say))) return;
  if (!isRacer(race)) await raceCall("POST", `/api/races/${race.id}/join`);
  location.href = racePath(race);
}

// --- quick match -----------------------------------------------------------------------------

/** A place in the quick-match queue (API.md, Races: GET /api/races/queue).
 * @typedef {{ level: string, no_guess?: boolean, state: string, waited_ms?: number, race?: Race | null }} QueueEntry */

/** @type {ReturnType<typeof setInterval> | null} */
let queueTimer = null;
// This browser waits for a quick match (set on joining the queue, cleared when the wait ends),
// so a page that knows there is no place never asks for it (GET /api/races/queue would be a
// 404, which the browser logs as an error).
const QUEUED = "race-queued";

/** @param {QueueEntry} q */
function showWaiting(q) {
  const box = $("queue-wait");
  box.hidden = false;
  box.dataset.level = q.level;
  $("queue-text").textContent = fmt(gettext("Looking for rivals on %(level)s… %(s)s s"), { level: modeLabel(q.level, q.no_guess), s: Math.floor((q.waited_ms || 0) / 1000) });
  for (const b of $$("[data-quick]")) b.setAttribute("aria-pressed", String(b.dataset.quick === q.level));
}

function stopWaiting() {
  localStorage.removeItem(QUEUED);
  if (queueTimer) clearInterval(queueTimer);
  queueTimer = null;
  $("queue-wait").hidden = true;
  for (const b of $$("[data-quick]")) b.setAttribute("aria-pressed", "false");
}

// The queue's answer and the list of the visitor's races can both find the race this browser
// was put in; a second assignment to location.href would abort the navigation the first began.
let leaving = false;

/** @param {Race} race */
function goToRace(race) {
  if (leaving) return;
  leaving = true;
  stopWaiting();
  location.href = racePath(race);
}

/** @param {QueueEntry} q */
function onQueue(q) {
  if (leaving) return;
  if (q.state === "matched" && q.race) return goToRace(q.race);
  showWaiting(q);
  localStorage.setItem(QUEUED, q.level);
  if (!queueTimer) queueTimer = setInterval(pollQueue, QUEUE_POLL_MS);
}

async function pollQueue() {
  try {
    onQueue(await api("GET", "/api/races/queue"));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) stopWaiting(); // not queued any more
  }
}

for (const b of $$("[data-quick]")) {
  b.setAttribute("aria-pressed", "false");
  b.addEventListener("click", async () => {
    if (quickNeedsAccount()) return say(gettext("Quick match is for signed-up players: it pairs racers by their race rating, and a guest's races are not rated. Create a race or join one by its code, or sign up."));
    say("");
    try {
      const noGuess = $("quick-no-guess", HTMLInputElement).checked; // its own queue per level
      onQueue(await raceCall("POST", "/api/races/queue", { level: b.dataset.quick, no_guess: noGuess }));
    } catch (err) {
      say(raceMessage(err));
    }
  });
}

$("queue-cancel").addEventListener("click", async () => {
  try {
    await api("DELETE", "/api/races/queue");
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) return say(raceMessage(err));
  }
  stopWaiting();
});

// --- open races and my race -----------------------------------------------------------------

/** @param {Race} race */
function openRow(race) {
  const n = inRoom(race).length;
  const inside = isRacer(race);
  const full = n >= race.max_players;
  const action = inside
    ? el("a", { class: "btn btn-primary", href: racePath(race), text: gettext("Back to the room") })
    : el("button", { type: "button", class: "btn btn-primary", disabled: full, text: full ? gettext("Full") : gettext("Join"), onclick: () => join(race).catch((err) => say(raceMessage(err))) });
  return el(
    "li",
    { "data-race": race.id, "data-code": race.code },
    el("span", { class: "pill", text: race.code }),
    el(
      "span",
      { class: "grow" },
      raceSize(race),
      el("small", { class: "muted when", text: fmt(ngettext("host %(host)s · %(n)s of %(max)s racer", "host %(host)s · %(n)s of %(max)s racers", race.max_players), { host: race.host ? playerLabel(race.host) : "—", n, max: race.max_players }) + (race.rated ? " · " + gettext("rated") : "") }),
    ),
    el("a", { class: "btn", href: racePath(race), text: gettext("Watch") }),
    action,
  );
}

/** @param {Race | null} race */
async function drawMine(race) {
  const card = $("my-race");
  card.hidden = !race;
  if (!race) return;
  const you = myRacer(race);
  if (!you) return; // only the visitor's own race is shown here
  const body = $("my-race-body");
  const copied = el("span", { class: "muted", role: "status" });
  const buttons = [];
  if (race.state === "open") {
    buttons.push(
      el("button", {
        type: "button",
        class: "btn" + (you.ready ? " btn-ready" : ""),
        id: "my-race-ready",
        "aria-pressed": String(you.ready),
        text: you.ready ? gettext("Ready ✓ (tap to wait)") : gettext("I am ready"),
        onclick: () => roomAction(race, "ready", { ready: !you.ready }),
      }),
    );
    if (race.host === me()) {
      const n = inRoom(race).length;
      buttons.push(el("button", { type: "button", class: "btn btn-primary", id: "my-race-start", disabled: n < SITE.race.min_racers, text: gettext("Start"), onclick: () => roomAction(race, "start") }));
    }
  }
  body.replaceChildren(
    el("p", {}, raceSize(race), " · ", raceStateText(race.state), " · ", gettext("Code"), " ", el("strong", { class: "code", text: race.code })),
    el("ul", { class: "racers" }, ...roomRacers(race)),
    el(
      "p",
      { class: "race-actions" },
      el("a", { class: "btn btn-primary", href: racePath(race), text: gettext("Go to the race") }),
      el("button", { type: "button", class: "btn", text: gettext("Copy the link"), onclick: () => copyLink(race, copied) }),
      ...buttons,
      copied,
    ),
  );
  if (race.state === "countdown" || race.state === "running") goToRace(race);
}

/** @param {Race} race  @param {string} action  @param {unknown} [body] */
async function roomAction(race, action, body) {
  try {
    await raceCall("POST", `/api/races/${race.id}/${action}`, body);
  } catch (err) {
    say(raceMessage(err));
  }
  loadLists();
}

async function loadLists() {
  try {
    const open = await api("GET", "/api/races?state=open");
    const rows = open.results || [];
    $("open-races").replaceChildren(...rows.map(openRow));
    $("open-empty").hidden = rows.length > 0;
    let mineRace = rows.find(isRacer) || null;
    if (!mineRace && me()) {
      const active = await api("GET", "/api/races?state=countdown,running");
      mineRace = (active.results || []).find((/** @type {Race} */ r) => isRacer(r) && ["racing", "waiting"].includes(myRacer(r)?.state || "")) || null;
    }
    drawMine(mineRace);
  } catch (err) {
    say(raceMessage(err));
  }
}

loadLists();
setInterval(loadLists, LIST_MS);
// Waiting already (another tab, a reload): show it and keep polling.
if (me() && localStorage.getItem(QUEUED)) pollQueue();
