// Settings live in this browser's localStorage, save as each choice is made, and apply at
// once in every open tab: other tabs hear the `storage` event and re-apply.
import { h } from './dom.js';

const KEY = 'gameshack.settings';
const FOCUS_KEY = 'gameshack.distractionFree';

export const CARD_BACKS = {
  blue: ['#1d4ed8', '#93c5fd'],
  red: ['#b91c1c', '#fca5a5'],
  green: ['#15803d', '#86efac'],
  purple: ['#7e22ce', '#d8b4fe'],
  black: ['#1f2937', '#9ca3af'],
};

export const EMOJIS = ['🙂', '😎', '🦊', '🐼', '🐸', '🦉', '🐙', '🦄', '🐯', '🌵', '🍀', '🎩', '🚀', '⭐', '🎲', '👑'];

const DEFAULTS = { name: '', emoji: '🙂', cardBack: 'blue', sounds: true, chatAutoOpen: false, meldPrompt: false, animations: true, alertSound: true, notify: false };

const listeners = new Set();
let current = load();

function load() {
  try {
    const raw = JSON.parse(localStorage.getItem(KEY) || '{}');
    return { ...DEFAULTS, ...(raw && typeof raw === 'object' ? raw : {}) };
  } catch {
    return { ...DEFAULTS };
  }
}

export function settings() {
  return current;
}

export function setSetting(key, value) {
  current = { ...current, [key]: value };
  localStorage.setItem(KEY, JSON.stringify(current));
  apply();
}

export function onSettings(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

export function distractionFree() {
  return localStorage.getItem(FOCUS_KEY) === '1';
}

export function setDistractionFree(on) {
  localStorage.setItem(FOCUS_KEY, on ? '1' : '0');
  apply();
}

function apply() {
  const [back, accent] = CARD_BACKS[current.cardBack] || CARD_BACKS.blue;
  const root = document.documentElement;
  root.style.setProperty('--card-back', back);
  root.style.setProperty('--card-back-accent', accent);
  root.dataset.cardBack = current.cardBack;
  root.classList.toggle('no-motion', current.animations === false); // as prefers-reduced-motion
  for (const fn of listeners) fn(current);
}

window.addEventListener('storage', (e) => {
  if (e.key === KEY || e.key === FOCUS_KEY || e.key === null) {
    current = load();
    apply();
  }
});

apply();

export function settingsPanel() {
  const s = current;
  const name = h('input', { id: 'set-name', type: 'text', maxlength: 24, value: s.name, autocomplete: 'nickname' });
  name.addEventListener('input', () => setSetting('name', name.value.trim()));
  const emoji = h('div', { class: 'emoji-pick', role: 'radiogroup', 'aria-label': 'Default emoji' },
    EMOJIS.map((e) => {
      const b = h('button', { type: 'button', class: 'emoji-opt', role: 'radio', 'aria-checked': String(e === s.emoji), 'aria-label': `Emoji ${e}` }, e);
      b.addEventListener('click', () => {
        setSetting('emoji', e);
        for (const o of emoji.children) o.setAttribute('aria-checked', String(o === b));
      });
      return b;
    }));
  const backs = h('div', { class: 'back-pick', role: 'radiogroup', 'aria-label': 'Card back colour' },
    Object.keys(CARD_BACKS).map((c) => {
      const b = h('button', { type: 'button', class: 'back-opt', role: 'radio', 'data-back': c, 'aria-checked': String(c === s.cardBack), 'aria-label': `${c} card back`, title: c },
        h('span', { class: 'card back mini', style: { '--card-back': CARD_BACKS[c][0], '--card-back-accent': CARD_BACKS[c][1] } }));
      b.addEventListener('click', () => {
        setSetting('cardBack', c);
        for (const o of backs.children) o.setAttribute('aria-checked', String(o === b));
      });
      return b;
    }));
  const check = (key, label) => {
    const box = h('input', { type: 'checkbox', id: `set-${key}`, checked: !!s[key] });
    box.addEventListener('change', () => setSetting(key, box.checked));
    return h('label', { class: 'check' }, box, ' ', label);
  };
  return h('div', { class: 'settings' },
    h('p', { class: 'muted' }, 'These apply on this device, across every tab and game — and save automatically as you make each choice, so there\'s nothing to remember to confirm before closing.'),
    h('label', { for: 'set-name' }, 'Default name'), name,
    h('div', { class: 'field-label' }, 'Default emoji'), emoji,
    h('div', { class: 'field-label' }, 'Card back color'), backs,
    check('sounds', 'Sounds'),
    check('chatAutoOpen', 'Open chat automatically on a new message'),
    check('meldPrompt', 'Show meld/lay-off/discard prompt'),
    check('animations', 'Animate moves (off: the table changes at once)'),
    backgroundSettings(check));
}

// "Your turn" while GameShack is in the background (alerts.js): its rows load with notify.js,
// which asks for permission only when "Show a notification" is ticked.
function backgroundSettings(check) {
  const rows = h('div', { class: 'alert-settings', style: { display: 'contents' } });
  import('./notify.js').then((m) => rows.append(...m.settingRows(check, current, setSetting)));
  return rows;
}
