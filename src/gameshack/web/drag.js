// Pointer-event drag and drop that works the same for mouse, pen and touch. A press that
// moves less than a few pixels stays a tap (the element's click handler runs); a real drag
// shows a ghost under the finger and asks `onDrop` what to do with the element under it.

const THRESHOLD = 6;

// The click that a browser fires right after the pointerup ending a drag is not a tap. It is
// dispatched before any timer runs, so a zero-delay timer removes the guard just after it: the
// guard is on the document only meanwhile (this module loads with a table, issue 31, and
// leaves nothing behind on the page when the table goes).
function swallowClick(e) { e.stopPropagation(); e.preventDefault(); }
function guardNextClick() {
  document.addEventListener('click', swallowClick, { capture: true, once: true });
  setTimeout(() => document.removeEventListener('click', swallowClick, true), 0);
}

// opts: ghost() -> Element to show while dragging; onDrop(dropEl, event) ; onMove(dropEl, e)
export function draggable(el, opts) {
  el.addEventListener('pointerdown', (down) => {
    if (down.button !== 0 || (opts.enabled && !opts.enabled())) return;
    const start = { x: down.clientX, y: down.clientY };
    let ghost = null;
    let hot = null;
    const pid = down.pointerId;
    const move = (e) => {
      if (e.pointerId !== pid) return;
      if (!ghost) {
        if (Math.hypot(e.clientX - start.x, e.clientY - start.y) < THRESHOLD) return;
        ghost = document.createElement('div');
        ghost.className = 'drag-ghost';
        ghost.append(opts.ghost ? opts.ghost() : el.cloneNode(true));
        document.body.append(ghost);
        el.classList.add('dragging');
        if (opts.onStart) opts.onStart();
      }
      e.preventDefault();
      ghost.style.left = `${e.clientX - 20}px`;
      ghost.style.top = `${e.clientY - 30}px`;
      const under = document.elementFromPoint(e.clientX, e.clientY);
      const target = under ? under.closest('[data-drop]') : null;
      if (target !== hot) {
        if (hot) hot.classList.remove('drop-hot');
        hot = target && (!opts.accepts || opts.accepts(target)) ? target : null;
        if (hot) hot.classList.add('drop-hot');
      }
      if (opts.onMove) opts.onMove(hot, e);
    };
    const up = (e) => {
      if (e.pointerId !== pid) return;
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      window.removeEventListener('pointercancel', up);
      if (!ghost) return;
      ghost.remove();
      el.classList.remove('dragging');
      if (hot) hot.classList.remove('drop-hot');
      guardNextClick();
      if (e.type === 'pointerup' && hot) opts.onDrop(hot, e);
      else if (opts.onCancel) opts.onCancel();
    };
    window.addEventListener('pointermove', move, { passive: false });
    window.addEventListener('pointerup', up);
    window.addEventListener('pointercancel', up);
  });
}
