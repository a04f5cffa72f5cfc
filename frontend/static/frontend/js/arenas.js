// @ts-check
// The arenas (API.md, Arenas; docs/ARENAS.md, The site): the running, scheduled and finished
// arenas from GET /api/arenas, read again every 10 s while the page is shown; a signed-in
// player's form to create one (level, no-guess, now or later, minutes, private), which goes
// to the new arena's page; and a private arena found by its code.
import { api, gettext, ngettext, fmt, playerLabel, messageOf } from "./api.js";
import { $, $$, byId, el } from "./dom.js";
import { arenaMessage, arenaPath, arenaKind, arenaName, arenaStateText, arenaWhen } from "./arena_common.js";
import { onCodeForm } from "./race_common.js";

/** @typedef {import("./arena_common.js").Arena} Arena */

const LIST_MS = 10_000;
const FINISHED_SHOWN = 10; // the newest finished arenas shown

/** @param {string} [text] */
function say(text) {
  $("arenas-error").textContent = text || "";
}

// --- the lists ---------------------------------------------------------------------------------

/** @param {Arena} a */
function row(a) {
  const joined = !!a.me;
  return el(
    "li",
    { "data-arena": a.id, "data-state": a.state, class: joined ? "me" : null },
    el("span", { class: "pill " + a.state, text: arenaStateText(a.state) }),
    el(
      "span",
      { class: "grow" },
      el("a", { href: arenaPath(a), class: "arena-name", text: arenaName(a) }),
      a.private ? el("span", { class: "badge badge-guest", text: gettext("private") }) : null,
      joined ? el("span", { class: "badge badge-host", text: gettext("joined") }) : null,
      el("small", { class: "muted when", "data-when": a.id, text: arenaKind(a) + " · " + arenaWhen(a) }),
      el("small", { class: "muted when", text: fmt(ngettext("%(n)s player", "%(n)s players", a.joined), { n: a.joined }) + (a.created_by ? " · " + fmt(gettext("by %(name)s"), { name: playerLabel(a.created_by) }) : "") }),
    ),
    el("a", { class: a.state === "finished" ? "btn" : "btn btn-primary", href: arenaPath(a), text: a.state === "finished" ? gettext("Results") : joined ? gettext("Back to the arena") : gettext("Open") }),
  );
}

/** @type {Arena[]} every arena listed, for the clocks */
let listed = [];

/** @param {string} state  @param {Arena[]} rows */
function fill(state, rows) {
  $(`arenas-${state}`).replaceChildren(...rows.map(row));
  $(`${state}-empty`).hidden = rows.length > 0;
}

/** The newest finished arenas: the list is ordered by start, oldest first, so the last pages. */
async function newestFinished() {
  const first = await api("GET", `/api/arenas?state=finished&page_size=${FINISHED_SHOWN}`);
  const pages = Math.ceil((first.count || 0) / FINISHED_SHOWN);
  if (pages <= 1) return [...(first.results || [])].reverse();
  const last = await api("GET", `/api/arenas?state=finished&page_size=${FINISHED_SHOWN}&page=${pages}`);
  const before = await api("GET", `/api/arenas?state=finished&page_size=${FINISHED_SHOWN}&page=${pages - 1}`);
  return [...(before.results || []), ...(last.results || [])].reverse().slice(0, FINISHED_SHOWN);
}

async function load() {
  try {
    const [running, scheduled, finished] = await Promise.all([api("GET", "/api/arenas?state=running"), api("GET", "/api/arenas?state=scheduled"), newestFinished()]);
    fill("running", running.results || []);
    fill("scheduled", scheduled.results || []);
    fill("finished", finished);
    listed = [...(running.results || []), ...(scheduled.results || [])];
    say("");
  } catch (err) {
    say(arenaMessage(err));
  }
  $("arenas").dataset.state = "ready"; // the lists and the form are shown together (site.css)
}

// The lists' clocks tick between two reads.
setInterval(() => {
  for (const a of listed) {
    const when = document.querySelector(`[data-when="${CSS.escape(a.id)}"]`);
    if (when) when.textContent = arenaKind(a) + " · " + arenaWhen(a);
  }
}, 1000);

// --- create --------------------------------------------------------------------------------------

const form = byId("create-arena");
if (form instanceof HTMLFormElement) {
  const later = () => $$("input[name=start]", HTMLInputElement, form).some((r) => r.checked && r.value === "later");
  const startsAt = $$("input[name=starts_at]", HTMLInputElement, form)[0];
  const syncStart = () => {
    $("starts-at-label").hidden = !later();
    startsAt.required = later();
    if (later() && !startsAt.value) {
      // An hour from now, to the minute, in this device's time (what datetime-local shows).
      const d = new Date(Date.now() + 3_600_000);
      d.setSeconds(0, 0);
      startsAt.value = new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    }
  };
  for (const r of $$("input[name=start]", HTMLInputElement, form)) r.addEventListener("change", syncStart);
  syncStart();
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const f = new FormData(form);
    /** @type {Record<string, unknown>} */
    const body = {
      level: f.get("level"),
      no_guess: f.get("no_guess") === "on",
      minutes: Number(f.get("minutes")),
      private: f.get("private") === "on",
    };
    const name = String(f.get("name") || "").trim();
    if (name) body.name = name;
    if (later()) body.starts_at = new Date(String(f.get("starts_at"))).toISOString(); // the device's time, as the server's instant
    say("");
    try {
      const arena = await api("POST", "/api/arenas", body);
      location.href = arenaPath(arena);
    } catch (err) {
      say(arenaMessage(err));
    }
  });
}

// --- a private arena by its code ------------------------------------------------------------------

/** @param {Arena | undefined} arena */
function openByCode(arena) {
  if (!arena) return say(gettext("No arena has this code."));
  location.href = arenaPath(arena);
}
onCodeForm($("arena-code-form", HTMLFormElement), "/api/arenas", openByCode, say, messageOf);

load();
setInterval(() => {
  if (document.visibilityState === "visible") load();
}, LIST_MS);
