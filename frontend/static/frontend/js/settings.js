// @ts-check
// The player's settings (docs/FRONTEND.md, "Settings"): long-press delay, click on a number
// chords, play without flags, animations, sounds, theme. A signed-in player's live on the account
// (GET/PATCH /api/me/settings; the page carries them in #account-settings, so they apply
// before the first paint); a visitor's in this browser's localStorage, which is also the
// cache of the signed-in player's. theme.js applies the theme and animations before the
// first paint; this module keeps them applied and answers the game page. The defaults, the
// long press's range and the themes are the server's (constants.js), as the account has them.
import { api, me } from "./api.js";
import { SITE } from "./constants.js";
import { byId } from "./dom.js";

/** @typedef {import("./constants.js").PlayerSettings} PlayerSettings */

/** What a player gets for a setting never set (accounts.services.SETTINGS_DEFAULTS). */
export const DEFAULTS = Object.freeze({ ...SITE.settings.defaults });
const RANGE = SITE.settings.long_press_ms;
const THEMES = SITE.settings.themes;
const KEY = "demineur:settings";

/** Only the known keys with values of the right kind.
 * @param {unknown} raw
 * @returns {Partial<PlayerSettings>} */
function clean(raw) {
  /** @type {Partial<PlayerSettings>} */
  const out = {};
  if (!raw || typeof raw !== "object") return out;
  const values = /** @type {Record<string, unknown>} */ (raw);
  const n = values.long_press_ms;
  if (typeof n === "number" && Number.isInteger(n) && n >= RANGE.min && n <= RANGE.max) out.long_press_ms = n;
  for (const k of /** @type {const} */ (["click_chords", "animations", "sounds", "no_flags"])) {
    const v = values[k];
    if (typeof v === "boolean") out[k] = v;
  }
  if (typeof values.theme === "string" && THEMES.includes(values.theme)) out.theme = values.theme;
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

/** @param {Partial<PlayerSettings>} values */
function writeLocal(values) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ values, player: me() }));
  } catch (err) {
    // Private browsing may refuse storage: the settings then last as long as the page.
  }
}

/** @returns {Partial<PlayerSettings> | null} */
function readAccount() {
  const node = byId("account-settings");
  if (!node) return null;
  try {
    return clean(JSON.parse(node.textContent || "null"));
  } catch (err) {
    return {};
  }
}

/** @type {Partial<PlayerSettings>} what the player set (defaults left out) */
let saved = {};

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

/** The settings in effect: what was set over the defaults.
 * @returns {PlayerSettings} */
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
 * @param {Partial<PlayerSettings>} changes
 * @returns {Promise<"account" | "browser">}
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
