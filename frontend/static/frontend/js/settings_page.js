// @ts-check
// The settings page (/settings): every change is saved at once (settings.js), on the account
// for a signed-in player, in this browser for a visitor.
import { gettext, fmt, messageOf } from "./api.js";
import { $, $$ } from "./dom.js";
import { getSettings, saveSettings } from "./settings.js";
import { playSound } from "./sounds.js";

const form = $("settings-form", HTMLFormElement);
const longPress = $("long-press-ms", HTMLInputElement);
/** @param {string} id */
const box = (id) => $(id, HTMLInputElement); // a checkbox
const themes = $$("input[name=theme]", HTMLInputElement, form);

/** @param {number} ms */
function msText(ms) {
  return fmt(gettext("%(n)s ms"), { n: ms });
}

function draw() {
  const s = getSettings();
  longPress.value = String(s.long_press_ms);
  $("long-press-out").textContent = msText(s.long_press_ms);
  box("click-chords").checked = s.click_chords;
  box("no-flags").checked = s.no_flags;
  box("animations").checked = s.animations;
  box("sounds").checked = s.sounds;
  for (const radio of themes) radio.checked = radio.value === s.theme;
}

/** @param {Partial<import("./constants.js").PlayerSettings>} changes */
async function save(changes) {
  const status = $("settings-status");
  try {
    const where = await saveSettings(changes);
    status.textContent = where === "account" ? gettext("Saved on your account.") : gettext("Saved in this browser.");
    form.dataset.saved = String(Date.now());
  } catch (err) {
    status.textContent = fmt(gettext("Not saved on your account: %(why)s"), { why: messageOf(err) });
  }
}

longPress.addEventListener("input", () => {
  $("long-press-out").textContent = msText(Number(longPress.value));
});
longPress.addEventListener("change", () => save({ long_press_ms: Number(longPress.value) }));
box("click-chords").addEventListener("change", () => save({ click_chords: box("click-chords").checked }));
box("no-flags").addEventListener("change", () => save({ no_flags: box("no-flags").checked }));
box("animations").addEventListener("change", () => save({ animations: box("animations").checked }));
box("sounds").addEventListener("change", () => {
  const on = box("sounds").checked;
  save({ sounds: on });
  if (on) playSound("flag", true); // what it sounds like (and the browser lets sound start on a click)
});
for (const radio of themes) radio.addEventListener("change", () => radio.checked && save({ theme: radio.value }));
form.addEventListener("submit", (e) => e.preventDefault());

draw();
form.dataset.ready = "true";
