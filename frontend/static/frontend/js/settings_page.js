// The settings page (/settings): every change is saved at once (settings.js), on the account
// for a signed-in player, in this browser for a visitor.
import { gettext, fmt } from "./api.js";
import { getSettings, saveSettings } from "./settings.js";
import { playSound } from "./sounds.js";

const $ = (id) => document.getElementById(id);
const form = $("settings-form");

function msText(ms) {
  return fmt(gettext("%(n)s ms"), { n: ms });
}

function draw() {
  const s = getSettings();
  $("long-press-ms").value = String(s.long_press_ms);
  $("long-press-out").textContent = msText(s.long_press_ms);
  $("click-chords").checked = s.click_chords;
  $("animations").checked = s.animations;
  $("sounds").checked = s.sounds;
  for (const radio of form.elements.theme) radio.checked = radio.value === s.theme;
}

async function save(changes) {
  const status = $("settings-status");
  try {
    const where = await saveSettings(changes);
    status.textContent = where === "account" ? gettext("Saved on your account.") : gettext("Saved in this browser.");
    form.dataset.saved = String(Date.now());
  } catch (err) {
    status.textContent = fmt(gettext("Not saved on your account: %(why)s"), { why: err.message });
  }
}

$("long-press-ms").addEventListener("input", (e) => {
  $("long-press-out").textContent = msText(Number(e.target.value));
});
$("long-press-ms").addEventListener("change", (e) => save({ long_press_ms: Number(e.target.value) }));
$("click-chords").addEventListener("change", (e) => save({ click_chords: e.target.checked }));
$("animations").addEventListener("change", (e) => save({ animations: e.target.checked }));
$("sounds").addEventListener("change", (e) => {
  save({ sounds: e.target.checked });
  if (e.target.checked) playSound("flag", true); // what it sounds like (and the browser lets sound start on a click)
});
for (const radio of form.elements.theme) radio.addEventListener("change", (e) => e.target.checked && save({ theme: e.target.value }));
form.addEventListener("submit", (e) => e.preventDefault());

draw();
form.dataset.ready = "true";
