// "Your turn" and new messages while the tab is in the background: a count in the title and
// a dot on the favicon until the tab is back in front; a chime (its own setting while in the
// background); a system notification when the player has turned those on (notify.js, loaded
// only then).
import { settings } from './settings.js';
import { play } from './sound.js';

const icon = document.querySelector('link[rel~="icon"]');
const plainIcon = icon ? icon.href : '';
let dotIcon = null; // the favicon with its dot, drawn once
let base = document.title; // the title without the count
let count = 0; // turns and messages since the tab went to the background
let shown = false; // whether the title and favicon show a count now

const away = () => document.visibilityState === 'hidden';

function drawDot() {
  const img = new Image();
  img.src = plainIcon;
  return img.decode().then(() => {
    const c = document.createElement('canvas');
    c.width = c.height = 64;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0, 64, 64);
    g.beginPath();
    g.arc(48, 16, 15, 0, 2 * Math.PI);
    g.fillStyle = '#ef4444';
    g.fill();
    g.lineWidth = 4;
    g.strokeStyle = '#ffffff';
    g.stroke();
    dotIcon = c.toDataURL('image/png');
  }).catch(() => { dotIcon = plainIcon; });
}

function paint() {
  if (count > 0) {
    document.title = `(${count}) ${base}`;
    if (icon && dotIcon) icon.href = dotIcon;
    else if (icon) drawDot().then(() => { if (count > 0) icon.href = dotIcon; });
    shown = true;
  } else if (shown) {
    document.title = base;
    if (icon) icon.href = plainIcon;
    shown = false;
  }
}

// The page's title without the count: the game sets it on every view.
export function setTitle(text) {
  base = text;
  if (count > 0) paint(); else document.title = text;
}

// Something the player should know of: 'turn' (it has become their turn) or 'chat' (a message
// from someone else). `text` and `body` are the notification's, `path` the page it reopens.
export function notice(kind, text, body, path = location.pathname) {
  if (!away()) { play(kind); return; }
  count += 1;
  paint();
  if (settings().alertSound) play(kind, true);
  if (settings().notify) import('./notify.js').then((m) => m.show(text, body, `gameshack-${kind}`, path));
}

document.addEventListener('visibilitychange', () => {
  if (away()) return;
  count = 0;
  paint();
});
