// Sounds are synthesized with Web Audio (no files to download). Browsers only allow audio
// after a user gesture, so the context is created on the first pointer or key press.
import { settings } from './settings.js';

let ctx = null;

function ensure() {
  if (ctx) return ctx;
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try { ctx = new AC(); } catch { ctx = null; }
  return ctx;
}

for (const ev of ['pointerdown', 'keydown']) {
  window.addEventListener(ev, () => { const c = ensure(); if (c && c.state === 'suspended') c.resume(); }, { once: true, capture: true });
}

function tone(freq, start, dur, { type = 'sine', gain = 0.14, slide = 0 } = {}) {
  const c = ctx;
  const t0 = c.currentTime + start;
  const osc = c.createOscillator();
  const g = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(freq * slide, t0 + dur);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain, t0 + 0.01);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + dur);
  osc.connect(g).connect(c.destination);
  osc.start(t0);
  osc.stop(t0 + dur + 0.02);
}

function noise(start, dur, gain = 0.08) {
  const c = ctx;
  const len = Math.floor(c.sampleRate * dur);
  const buf = c.createBuffer(1, len, c.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < len; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / len);
  const src = c.createBufferSource();
  const f = c.createBiquadFilter();
  f.type = 'bandpass';
  f.frequency.value = 2400;
  const g = c.createGain();
  g.gain.value = gain;
  src.buffer = buf;
  src.connect(f).connect(g).connect(c.destination);
  src.start(c.currentTime + start);
}

const SOUNDS = {
  turn: () => { tone(660, 0, 0.18); tone(880, 0.12, 0.28); },
  chat: () => { tone(1046, 0, 0.09, { type: 'triangle', gain: 0.1 }); tone(1318, 0.08, 0.12, { type: 'triangle', gain: 0.1 }); },
  draw: () => noise(0, 0.09),
  discard: () => { noise(0, 0.12, 0.1); tone(220, 0, 0.08, { type: 'triangle', gain: 0.05 }); },
  meld: () => { tone(523, 0, 0.12); tone(659, 0.07, 0.12); tone(784, 0.14, 0.2); },
  error: () => tone(200, 0, 0.2, { type: 'square', gain: 0.05, slide: 0.7 }),
  win: () => [523, 659, 784, 1046].forEach((f, i) => tone(f, i * 0.12, 0.3)),
};

// `always`: whatever the Sounds setting (alerts.js has its own for a tab in the background).
export function play(name, always = false) {
  if (!always && !settings().sounds) return;
  const c = ensure();
  if (!c || c.state !== 'running' || !SOUNDS[name]) return;
  try { SOUNDS[name](); } catch { /* audio is a nicety; never let it break play */ }
}
