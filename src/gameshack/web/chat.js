// The 💬 chat panel and its red unread badge. Message text is always inserted as text.
import { h } from './dom.js';
import { settings } from './settings.js';
import { notice } from './alerts.js';

export function createChat(sock, getYou) {
  let unread = 0;
  const badge = h('span', { class: 'badge', hidden: true, 'aria-hidden': 'true' });
  const button = h('button', { type: 'button', class: 'icon-btn', id: 'btn-chat', 'aria-label': 'Chat', title: 'Chat', 'aria-expanded': 'false' }, '💬', badge);
  const log = h('div', { class: 'chat-log', role: 'log', 'aria-live': 'polite' });
  const input = h('input', { type: 'text', maxlength: 500, placeholder: 'Say something…', 'aria-label': 'Chat message', id: 'chat-input' });
  const form = h('form', { class: 'chat-form' }, input, h('button', { type: 'submit', class: 'btn small primary' }, 'Send'));
  const close = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Close chat' }, '✕');
  const panel = h('aside', { class: 'chat-panel', id: 'chat-panel', hidden: true, 'aria-label': 'Chat' },
    h('header', {}, h('h2', {}, 'Chat'), close), log, form);
  const seen = new Set();

  const setUnread = (n) => {
    unread = n;
    badge.hidden = n <= 0;
    badge.textContent = n > 99 ? '99+' : String(n);
    button.setAttribute('aria-label', n > 0 ? `Chat, ${n} unread` : 'Chat');
  };
  const isOpen = () => !panel.hidden;
  const open = () => {
    panel.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    log.scrollTop = log.scrollHeight;
    if (unread > 0) { sock.send({ type: 'chat_read' }); setUnread(0); }
  };
  const hide = () => { panel.hidden = true; button.setAttribute('aria-expanded', 'false'); button.focus(); };
  button.addEventListener('click', () => (isOpen() ? hide() : (open(), input.focus())));
  close.addEventListener('click', hide);
  panel.addEventListener('keydown', (e) => { if (e.key === 'Escape') hide(); });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (sock.send({ type: 'chat', text })) input.value = '';
  });

  const add = (m) => {
    if (seen.has(m.id)) return false;
    seen.add(m.id);
    const mine = m.seat === getYou();
    log.append(h('div', { class: `chat-msg${mine ? ' mine' : ''}` },
      h('span', { class: 'who' }, `${m.emoji || ''} ${m.name || ''}`), m.text));
    log.scrollTop = log.scrollHeight;
    return !mine;
  };
  sock.on('chat_history', (msg) => {
    for (const m of msg.messages || []) add(m);
    setUnread(isOpen() ? 0 : msg.unread || 0);
  });
  sock.on('chat', (msg) => {
    const fromOther = add(msg.msg);
    if (!fromOther) return;
    notice('chat', `${msg.msg.emoji || ''} ${msg.msg.name || ''}`.trim(), msg.msg.text);
    if (isOpen()) sock.send({ type: 'chat_read' });
    else if (settings().chatAutoOpen) open();
  });
  return {
    button,
    panel,
    // room.chat_unread is the server's count for this seat; an open panel has read everything.
    syncUnread(n) {
      if (isOpen()) { if (n > 0) sock.send({ type: 'chat_read' }); setUnread(0); } else setUnread(n || 0);
    },
  };
}
