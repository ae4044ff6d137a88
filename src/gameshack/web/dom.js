// Tiny DOM helpers shared by every screen: h() builds elements, never from HTML strings,
// so chat text and player names can never be interpreted as markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') el.className = v;
    else if (k === 'style' && typeof v === 'object') {
      for (const [p, x] of Object.entries(v)) if (p.startsWith('--')) el.style.setProperty(p, x); else el.style[p] = x;
    }
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// One region of a screen (a hand, the piles, the score bar…). `show(data)` redraws the
// region's element from `draw(data, el)` only when `data` — plain JSON naming everything the
// region shows — differs from what it shows now: comparing its JSON text is cheap at the size
// of a hand or a table, and needs no keys and no diffing. Returns whether it redrew.
export function region(el, draw) {
  let shown = null;
  return (data) => {
    const key = JSON.stringify(data);
    if (key === shown) return false;
    shown = key;
    clear(el);
    append(el, [draw(data, el)]);
    return true;
  };
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function $(sel, root = document) {
  return root.querySelector(sel);
}

let toastTimer = 0;
export function toast(text, ms = 3200) {
  const t = document.getElementById('toast');
  if (!t) return;
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, ms);
}

export const reducedMotion = () => window.matchMedia('(prefers-reduced-motion: reduce)').matches;

// A modal dialog built on <dialog>; resolves with the button value the user chose.
export function modal(title, body, buttons = [{ label: 'Close', value: 'close' }], opts = {}) {
  return new Promise((resolve) => {
    const dlg = h('dialog', { class: `modal ${opts.class || ''}`, 'aria-label': title });
    const form = h('form', { method: 'dialog' },
      h('h2', {}, title),
      h('div', { class: 'modal-body' }, body),
      h('div', { class: 'modal-actions' }, buttons.map((b) =>
        h('button', { value: b.value, class: b.class || 'btn', type: 'submit' }, b.label))));
    dlg.append(form);
    dlg.addEventListener('close', () => { resolve(dlg.returnValue || 'close'); dlg.remove(); });
    document.body.append(dlg);
    dlg.showModal();
  });
}

export function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    return navigator.clipboard.writeText(text).then(() => true, () => fallbackCopy(text));
  }
  return Promise.resolve(fallbackCopy(text));
}

function fallbackCopy(text) {
  const ta = h('textarea', { style: { position: 'fixed', opacity: '0' } });
  ta.value = text;
  document.body.append(ta);
  ta.select();
  let ok = false;
  try { ok = document.execCommand('copy'); } catch { ok = false; }
  ta.remove();
  return ok;
}
