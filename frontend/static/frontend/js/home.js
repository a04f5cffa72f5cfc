// Home: start a game (a level or a custom board), find your current game, watch live games.
// Live games come from the lobby socket /ws/live; without it, from GET /api/games?state=playing.
import { api, ApiError, gettext, fmt, me, el, levelLabel, wsUrl, signInUrl, fmtClock } from "./api.js";

const $ = (id) => document.getElementById(id);
const live = new Map(); // id -> lobby game

async function start(body) {
  if (!me()) return (location.href = signInUrl());
  $("home-error").textContent = "";
  try {
    const g = await api("POST", "/api/games", body);
    location.href = `/games/${g.id}`;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return (location.href = signInUrl());
    $("home-error").textContent = err.message;
  }
}

for (const card of document.querySelectorAll(".level-card")) {
  card.addEventListener("click", () => start({ level: card.dataset.level }));
}
$("custom").addEventListener("submit", (e) => {
  e.preventDefault();
  const f = new FormData(e.target);
  start({ width: Number(f.get("width")), height: Number(f.get("height")), mines: Number(f.get("mines")) });
});

function gameLine(g, linkText) {
  return el(
    "li",
    {},
    el("span", { class: "grow" }, el("strong", { text: g.player }), " · ", levelLabel(g.level), ` ${g.width} × ${g.height}`),
    el("span", { class: "pill " + g.state, text: stateLabel(g.state) }),
    el("a", { class: "btn", href: `/games/${g.id}`, text: linkText }),
  );
}

function stateLabel(state) {
  return { new: gettext("ready"), playing: gettext("playing"), paused: gettext("paused"), won: gettext("won"), lost: gettext("lost") }[state] || state;
}

function drawLive() {
  const list = $("live-list");
  const rows = [...live.values()].filter((g) => g.player !== me() || true);
  list.replaceChildren(...rows.slice(0, 30).map((g) => gameLine(g, gettext("Watch"))));
  $("live-empty").hidden = rows.length > 0;
}

async function loadLiveByRest() {
  try {
    const page = await api("GET", "/api/games?state=playing&page_size=30");
    live.clear();
    for (const g of page.results) live.set(g.id, g);
    drawLive();
  } catch (err) {
    /* the list stays as it is */
  }
}

function connectLobby() {
  let ws;
  try {
    ws = new WebSocket(wsUrl("/ws/live"));
  } catch (err) {
    return;
  }
  ws.addEventListener("message", (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch (err) {
      return;
    }
    if (msg.type === "live" && Array.isArray(msg.games)) {
      live.clear();
      for (const g of msg.games) live.set(g.id, g);
      $("live-on").hidden = false;
    } else if (msg.type === "game_started" && msg.id) {
      live.set(msg.id, { ...msg, state: msg.state || "new" });
    } else if (msg.type === "game_ended" && msg.id) {
      live.delete(msg.id);
    } else {
      return;
    }
    drawLive();
  });
  ws.addEventListener("close", () => {
    $("live-on").hidden = true;
    setTimeout(connectLobby, 5000);
  });
}

async function loadCurrent() {
  if (!me()) return;
  try {
    const page = await api("GET", `/api/games?user=${encodeURIComponent(me())}&page_size=20`);
    const running = page.results.filter((g) => ["new", "playing", "paused"].includes(g.state));
    if (!running.length) return;
    $("current-list").replaceChildren(...running.map((g) => gameLine(g, gettext("Continue"))));
    $("current").hidden = false;
  } catch (err) {
    /* nothing to show */
  }
}

loadCurrent();
loadLiveByRest().then(connectLobby);
setInterval(() => {
  // The lobby socket keeps the list fresh; without it, read it again now and then.
  if ($("live-on").hidden) loadLiveByRest();
}, 10000);
