// HTTP for the lobby and one WebSocket per open game, reconnecting with back-off and
// resyncing on a version gap (docs/protocol.md).

export async function api(path, { method = 'GET', body } = {}) {
  const res = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body ? { 'Content-Type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error && data.error.message) || `Request failed (${res.status})`);
    err.code = data && data.error && data.error.code;
    err.status = res.status;
    throw err;
  }
  return data;
}

// A live connection to one game. `on(type, fn)` subscribes to server messages;
// `onStatus(fn)` hears 'open' / 'reconnecting' / 'missing' / 'forbidden'. close() ends it for
// good: no message, status or timer of it runs afterwards.
export class GameSocket {
  constructor(code) {
    this.code = code;
    this.handlers = new Map();
    this.statusFns = new Set();
    this.v = 0;
    this.seq = 0;
    this.pending = new Map();
    this.retry = 0;
    this.closed = false;
    this.ws = null;
    this.retryTimer = 0;
    this.connect();
    this.pingTimer = setInterval(() => this.send({ type: 'ping' }), 25000);
  }

  on(type, fn) {
    if (!this.handlers.has(type)) this.handlers.set(type, new Set());
    this.handlers.get(type).add(fn);
  }

  onStatus(fn) { this.statusFns.add(fn); }

  status(s) { for (const fn of this.statusFns) fn(s); }

  connect() {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(this.code)}`);
    this.ws = ws;
    this.log = null; // the log of the last view on this socket: its first view brings it whole
    this.syncing = false; // a `sync` was sent for a view that went missing
    ws.addEventListener('open', () => { this.retry = 0; this.status('open'); });
    ws.addEventListener('message', (e) => {
      if (this.closed || ws !== this.ws) return;
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === 'view' && !this.takeView(msg)) return;
      if (msg.type === 'view' && typeof msg.v === 'number') this.v = msg.v;
      if (msg.id && this.pending.has(msg.id)) {
        // ack, error, or a direct answer such as `hint`
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.type === 'error') p.reject(msg); else p.resolve(msg);
      }
      const fns = this.handlers.get(msg.type);
      if (fns) for (const fn of fns) fn(msg);
    });
    ws.addEventListener('close', (e) => {
      for (const p of this.pending.values()) p.reject({ code: 'disconnected', message: 'Connection lost.' });
      this.pending.clear();
      if (this.closed) return;
      if (e.code === 4403 || e.code === 4404) {
        this.closed = true;
        this.status(e.code === 4404 ? 'missing' : 'forbidden');
        return;
      }
      this.status('reconnecting');
      const delay = Math.min(5000, 300 * 2 ** this.retry++) + Math.random() * 200;
      this.retryTimer = setTimeout(() => { if (!this.closed) this.connect(); }, delay);
    });
  }

  // A view carries only the log's events after the first `log_from`, which this socket was sent
  // with the view just before it (`v` one lower, or the same when it is sent again): put the
  // whole log back into `state.log`. False when that view is not the one this socket has.
  joinLog(msg) {
    const from = msg.log_from || 0;
    const events = msg.log || [];
    delete msg.log;
    delete msg.log_from;
    if (from === 0) this.syncing = false;
    if (!msg.state) { this.log = null; return true; }
    if (from > 0) {
      const next = msg.v === this.v + 1 || msg.v === this.v;
      if (!this.log || !next || this.log.length < from) { this.log = null; return false; }
    }
    msg.state.log = from > 0 ? this.log.slice(0, from).concat(events) : events;
    this.log = msg.state.log;
    return true;
  }

  // A view to hand on, or refused (false) when one before it went missing: then the whole
  // view is asked for (`sync`), once — the views already on their way are refused until it comes.
  takeView(msg) {
    if (this.joinLog(msg)) return true;
    if (!this.syncing) this.syncing = this.send({ type: 'sync' });
    return false;
  }

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  // Send a message that the server answers with ack/error; resolves or rejects with it.
  request(msg) {
    const id = `c${++this.seq}`;
    return new Promise((resolve, reject) => {
      if (!this.send({ ...msg, id })) {
        reject({ code: 'disconnected', message: 'Not connected — reconnecting…' });
        return;
      }
      this.pending.set(id, { resolve, reject });
    });
  }

  act(action) { return this.request({ type: 'act', v: this.v, action }); }

  close() {
    this.closed = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    this.handlers.clear();
    this.statusFns.clear();
    if (this.ws) this.ws.close();
  }
}
