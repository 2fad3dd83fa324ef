// client-web/storage.js: what a page keeps for a reload of its tab
// (window.sessionStorage: a seat's or an organiser's token, a password),
// never for another tab or after the tab is closed. A browser with storage
// off keeps nothing and the page still works.

// The text kept under `key`, or '' when none (or storage is off).
export function stored(key) {
  try { return window.sessionStorage.getItem(key) || ''; } catch { return ''; }
}

// Keeps `value` under `key`; an empty value removes it.
export function store(key, value) {
  try {
    if (value) window.sessionStorage.setItem(key, value);
    else window.sessionStorage.removeItem(key);
  } catch { /* storage off */ }
}
