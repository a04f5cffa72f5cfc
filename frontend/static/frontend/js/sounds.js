// @ts-check
// Short sounds for the game (settings: sounds, off by default), made with the Web Audio API:
// no audio files. Each is a few tones with a quick fade, quiet.
import { getSettings } from "./settings.js";

/** [frequency Hz, start s, length s, wave] @type {Record<string, [number, number, number, OscillatorType][]>} */
const TONES = {
  open: [[620, 0, 0.05, "triangle"]],
  flag: [[880, 0, 0.05, "square"], [1320, 0.05, 0.06, "square"]],
  win: [[523, 0, 0.12, "triangle"], [659, 0.11, 0.12, "triangle"], [784, 0.22, 0.12, "triangle"], [1047, 0.33, 0.3, "triangle"]],
  loss: [[330, 0, 0.18, "sawtooth"], [247, 0.16, 0.2, "sawtooth"], [165, 0.34, 0.4, "sawtooth"]],
};

/** @type {AudioContext | null} */
let context = null;

/** Play `name` (open, flag, win, loss) if the player turned sounds on; true when played.
 * @param {string} name  @param {boolean} [force]  play even with sounds off (the settings' try) */
export function playSound(name, force = false) {
  if (!force && !getSettings().sounds) return false;
  const Context = window.AudioContext || /** @type {{ webkitAudioContext?: typeof AudioContext }} */ (window).webkitAudioContext;
  if (!Context || !TONES[name]) return false;
  try {
    if (!context) context = new Context();
    if (context.state === "suspended") context.resume();
    const t0 = context.currentTime + 0.01;
    for (const [freq, at, length, wave] of TONES[name]) {
      const osc = context.createOscillator();
      const gain = context.createGain();
      osc.type = wave;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + at);
      gain.gain.exponentialRampToValueAtTime(0.12, t0 + at + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + at + length);
      osc.connect(gain);
      gain.connect(context.destination);
      osc.start(t0 + at);
      osc.stop(t0 + at + length + 0.02);
    }
    return true;
  } catch (err) {
    return false; // a browser without sound output: the game goes on silently
  }
}
