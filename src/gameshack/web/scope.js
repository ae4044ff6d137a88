// A screen's lifetime. Everything a screen adds beyond its own elements — listeners on
// window, document or a shared source (settings, account), timers, intervals, sockets — is
// registered here, so leaving the screen removes all of it with one dispose().

export function createScope() {
  const undos = new Map(); // cancel token -> how to undo what was added
  let alive = true;

  // Register how to undo something; returns a function that undoes it early (once).
  const add = (undo) => {
    if (!alive) { undo(); return () => {}; }
    const cancel = () => { if (undos.delete(cancel)) undo(); };
    undos.set(cancel, undo);
    return cancel;
  };

  return {
    get alive() { return alive; },
    add,
    listen(target, type, fn, opts) {
      target.addEventListener(type, fn, opts);
      return add(() => target.removeEventListener(type, fn, opts));
    },
    every(fn, ms) {
      const id = setInterval(fn, ms);
      return add(() => clearInterval(id));
    },
    after(fn, ms) {
      const id = setTimeout(() => { cancel(); fn(); }, ms);
      const cancel = add(() => clearTimeout(id));
      return cancel;
    },
    // A shorter lifetime inside this one (a table inside a game): disposed with it, or before.
    child() {
      const c = createScope();
      c.add(add(() => c.dispose()));
      return c;
    },
    dispose() {
      if (!alive) return;
      alive = false;
      const list = [...undos.values()].reverse();
      undos.clear();
      for (const undo of list) undo();
    },
  };
}
