// The player's settings (docs/FRONTEND.md, "Settings"): long-press delay, click on a number
// chords, animations, sounds, theme. A signed-in player's live on the account
// (GET/PATCH /api/me/settings; the page carries them in #account-settings, so they apply
// before the first paint); a visitor's in this browser's localStorage, which is also the
// cache of the signed-in player's. theme.js applies the theme and animations before the
// first paint; this module keeps them applied and answers the game page.
import { api, me } from "./api.js";

export const DEFAULTS = Object.freeze({
  long_press_ms: 450, // as accounts.services.SETTINGS_DEFAULTS
  click_chords: true,
  animations: true,
  sounds: false,
  theme: "system",
});
export const LONG_PRESS_RANGE = [200, 1500];
const KEY = "demineur:settings";
const THEMES = ["light", "dark", "system"];

/** Only the known keys with values of the right kind. */
function clean(values) {
  const out = {};
  if (!values || typeof values !== "object") return out;
  const n = values.long_press_ms;
  if (Number.isInteger(n) && n >= LONG_PRESS_RANGE[0] && n <= LONG_PRESS_RANGE[1]) out.long_press_ms = n;
  for (const k of ["click_chords", "animations", "sounds"]) if (typeof values[k] === "boolean") out[k] = values[k];
  if (THEMES.includes(values.theme)) out.theme = values.theme;
  return out;
}

// {values, player}: `player` is who wrote them ("" for a visitor).
function readLocal() {
  try {
    const stored = JSON.parse(localStorage.getItem(KEY) || "{}") || {};
    return { values: clean(stored.values), player: typeof stored.player === "string" ? stored.player : "" };
  } catch (err) {
    return { values: {}, player: "" };
  }
}

function writeLocal(values) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ values, player: me() }));
  } catch (err) {
    // Private browsing may refuse storage: the settings then last as long as the page.
  }
}

function readAccount() {
  const node = document.getElementById("account-settings");
  if (!node) return null;
  try {
    return clean(JSON.parse(node.textContent));
  } catch (err) {
    return {};
  }
}

let saved = {}; // what the player set (defaults left out)

function init() {
  const account = me() ? readAccount() : null;
  const local = readLocal();
  if (account === null) {
    saved = local.values;
    return;
  }
  saved = account;
  // A visitor who signs up keeps what they chose in this browser.
  if (!Object.keys(account).length && !local.player && Object.keys(local.values).length) {
    saved = local.values;
    api("PATCH", "/api/me/settings", saved).catch(() => {});
  }
  writeLocal(saved);
}

/** The settings in effect: what was set over the defaults. */
export function getSettings() {
  return { ...DEFAULTS, ...saved };
}

/** Put the theme and animations on <html> (site.css reads them). */
export function applySettings() {
  const s = getSettings();
  const root = document.documentElement;
  root.dataset.theme = s.theme;
  root.dataset.animations = s.animations ? "on" : "off";
}

/**
 * Change some settings: at once on the page and in this browser, then on the account for a
 * signed-in player. Resolves to where they were kept: "account" or "browser"; rejects with
 * the ApiError when the account refused them (they stay in this browser).
 */
export async function saveSettings(changes) {
  const values = clean(changes);
  saved = { ...saved, ...values };
  writeLocal(saved);
  applySettings();
  window.dispatchEvent(new CustomEvent("settingschange", { detail: getSettings() }));
  if (!me()) return "browser";
  const answer = await api("PATCH", "/api/me/settings", values);
  saved = { ...saved, ...clean(answer) };
  writeLocal(saved);
  return "account";
}

init();
applySettings();
// Another tab of this browser changed them.
window.addEventListener("storage", (e) => {
  if (e.key !== KEY) return;
  saved = { ...saved, ...readLocal().values };
  applySettings();
});
