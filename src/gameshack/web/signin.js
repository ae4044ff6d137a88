// The Sign In screen (issue 8): email → one-time code → (first sign-in) pick a name.
import { h, clear, toast } from './dom.js';
import { api } from './net.js';
import { createScope } from './scope.js';
import { settings } from './settings.js';
import { adoptName, ensureAccountsCss, loadAccount, setAccount } from './account.js';

// The screen; returns its dispose().
export function openSignIn(root, navigate) {
  ensureAccountsCss();
  clear(root);
  document.title = 'Sign In · GameShack';
  const panel = h('section', { class: 'panel signin-panel', 'aria-labelledby': 'signin-h' });
  root.append(h('div', { class: 'signin-screen' }, panel));
  let email = '';
  const scope = createScope();

  const shell = (...children) => {
    clear(panel);
    panel.append(h('h1', { id: 'signin-h' }, 'Sign In'), ...children,
      h('p', { class: 'back-link' }, h('a', { href: '/', 'data-link': true }, '← Back to the lobby')));
    const first = panel.querySelector('input');
    if (first) first.focus();
  };

  const stepEmail = () => {
    const input = h('input', { type: 'email', id: 'signin-email', required: true, maxlength: 254, autocomplete: 'email', inputmode: 'email', placeholder: 'you@example.com', value: email, 'aria-label': 'Email address' });
    const err = h('p', { class: 'error-text', role: 'alert' });
    const btn = h('button', { type: 'submit', class: 'btn primary', id: 'signin-send' }, 'Email me a code');
    const form = h('form', { class: 'signin-form' },
      h('label', { for: 'signin-email', class: 'field-label' }, 'Email address'), input, btn, err);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      err.textContent = '';
      btn.disabled = true;
      try {
        const r = await api('/api/account/request-code', { method: 'POST', body: { email: input.value } });
        email = r.email;
        stepCode(r.digits || 6);
      } catch (ex) {
        if (ex.status === 429 && ex.code === 'rate_limited' && input.validity.valid) {
          // A code went out not long ago (or too many were asked for): the one in the inbox
          // still works, so go on to typing it, with the reason shown.
          email = input.value.trim().toLowerCase();
          stepCode(6, ex.message);
          return;
        }
        err.textContent = ex.message;
        btn.disabled = false;
      }
    });
    shell(h('p', { class: 'lead' }, 'Sign in to resume your games on any device and keep a real record of your stats. Playing without signing in still works fine — this is optional.'),
      form,
      h('p', { class: 'muted small' }, 'No password: we email you a one-time code.'));
  };

  const stepCode = (digits, notice = '') => {
    const input = h('input', { type: 'text', id: 'signin-code', class: 'code-input otp', required: true, maxlength: digits + 2, autocomplete: 'one-time-code', inputmode: 'numeric', pattern: '[0-9 ]*', placeholder: '•'.repeat(digits), 'aria-label': 'Code from the email' });
    const err = h('p', { class: 'error-text', role: 'alert' }, notice);
    const btn = h('button', { type: 'submit', class: 'btn primary', id: 'signin-verify' }, 'Sign In');
    const again = h('button', { type: 'button', class: 'btn ghost small', id: 'signin-resend' }, 'Send a new code');
    const other = h('button', { type: 'button', class: 'btn ghost small' }, 'Use another address');
    const form = h('form', { class: 'signin-form' }, input, btn, err);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      err.textContent = '';
      btn.disabled = true;
      try {
        const a = await api('/api/account/verify', { method: 'POST', body: { email, code: input.value } });
        setAccount(a);
        if (a.needs_name) stepName(); else { adoptName(a); done(a); }
      } catch (ex) {
        err.textContent = ex.message;
        btn.disabled = false;
        input.select();
      }
    });
    again.addEventListener('click', async () => {
      err.textContent = '';
      try {
        await api('/api/account/request-code', { method: 'POST', body: { email } });
        toast('A new code is on its way. Earlier codes keep working until they expire.');
      } catch (ex) { err.textContent = ex.message; }
    });
    other.addEventListener('click', stepEmail);
    shell(h('p', { class: 'lead', id: 'signin-sent' }, 'Enter the code emailed to ', h('b', {}, email), '.'),
      form,
      h('p', { class: 'muted small' }, 'The code works once, for 10 minutes. Check your spam folder if it hasn\'t arrived.'),
      h('div', { class: 'row' }, again, other));
  };

  const stepName = () => {
    const input = h('input', { type: 'text', id: 'signin-name', required: true, maxlength: 24, autocomplete: 'nickname', placeholder: 'Your name', value: settings().name || '', 'aria-label': 'Your name' });
    const err = h('p', { class: 'error-text', role: 'alert' });
    const btn = h('button', { type: 'submit', class: 'btn primary', id: 'signin-name-save' }, 'Continue');
    const form = h('form', { class: 'signin-form' }, input, btn, err);
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      err.textContent = '';
      btn.disabled = true;
      try {
        const a = await api('/api/account/name', { method: 'POST', body: { name: input.value } });
        setAccount(a);
        adoptName(a);
        done(a);
      } catch (ex) {
        err.textContent = ex.message;
        btn.disabled = false;
      }
    });
    shell(h('p', { class: 'lead' }, 'Pick the name that\'ll show for you in-game (you can change it later in Settings).'), form);
  };

  const done = (a) => {
    if (!scope.alive) return;
    toast(`Signed in as ${a.name || a.email}. Your games now follow you to any device.`);
    navigate('/');
  };

  const signedIn = (a) => {
    const out = h('button', { type: 'button', class: 'btn', id: 'signin-sign-out' }, 'Sign out');
    out.addEventListener('click', async () => {
      setAccount(await api('/api/account/sign-out', { method: 'POST', body: {} }));
      stepEmail();
    });
    shell(h('p', { class: 'lead' }, 'You\'re signed in as ', h('b', {}, a.name || ''), ` (${a.email}).`), h('div', { class: 'row' }, out));
  };

  stepEmail();
  loadAccount().then((a) => {
    if (!scope.alive || !a || !a.signed_in) return;
    if (a.needs_name) stepName(); else signedIn(a);
  });
  return { dispose: () => scope.dispose() };
}
