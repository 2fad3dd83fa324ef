// client-web/app.js: the page. Reads the link's fragment
// (#game=ID&token=TOKEN[&watch=1]: a fragment, never a query string, so the
// token stays out of every server log), then either offers to join or
// create a game, or joins and shows the battle (view.js, log.js, plot.js)
// with a player's orders (controls.js) over one Session (wire.js).
//
// View modes: 'play' (a seat's orders) and 'watch' (read-only: no
// controls at all). `&watch=1` selects watch; so will a seat that is not A
// or B (the spectator seat of a later protocol version). setMode() switches.
import { snapshotHash } from './delta.js';
import { Controls } from './controls.js';
import { h, replace } from './dom.js';
import { LogView } from './log.js';
import { errorWords } from './names.js';
import { StrengthPlot } from './plot.js';
import { awaitingList, phaseWords, renderForces, renderStatus } from './view.js';
import { createGame, serverUrl, Session } from './wire.js';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = (game) => `brigade.token.${game}`;

// ------------------------------------------------------------- the link

function readLink() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const game = params.get('game') || '';
  const watch = params.get('watch') === '1';
  let token = params.get('token') || '';
  if (game && token) {
    // Keep the token for a reload of this tab, and take it out of the
    // address bar (screen sharing); "Copy my join link" gives it back.
    try { window.sessionStorage.setItem(TOKEN_KEY(game), token); } catch { /* storage off */ }
    const shown = `#game=${encodeURIComponent(game)}${watch ? '&watch=1' : ''}`;
    window.history.replaceState(null, '', shown);
  } else if (game) {
    try { token = window.sessionStorage.getItem(TOKEN_KEY(game)) || ''; } catch { token = ''; }
  }
  return { game, token, watch };
}

function joinLink(game, token, watch) {
  const base = `${window.location.origin}/`;
  return `${base}#game=${encodeURIComponent(game)}&token=${encodeURIComponent(token)}${watch ? '&watch=1' : ''}`;
}

async function copyText(text, input) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch { /* fall back below */ }
  if (!input) return false;
  input.select();
  try { return document.execCommand('copy'); } catch { return false; }
}

// ------------------------------------------------------------ start page

function showStart(message) {
  $('start').hidden = false;
  if (message) { $('join-error').hidden = false; $('join-error').textContent = message; }
  $('join-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = $('join-link').value.trim();
    const fragment = value.includes('#') ? value.slice(value.indexOf('#') + 1) : value;
    const params = new URLSearchParams(fragment);
    if (!params.get('game') || !params.get('token')) {
      $('join-error').hidden = false;
      $('join-error').textContent = 'That is not a join link: it needs #game=…&token=… at its end.';
      $('join-link').focus();
      return;
    }
    window.location.hash = fragment;
  });
  $('create-form').addEventListener('submit', (event) => {
    event.preventDefault();
    create();
  });
}

async function create() {
  const error = $('create-error');
  const button = $('create-submit');
  error.hidden = true;
  const file = $('scenario-file').files[0];
  const text = file ? await file.text() : $('scenario-text').value;
  if (!text.trim()) {
    error.hidden = false;
    error.textContent = 'Choose a scenario file or paste a scenario first.';
    $('scenario-file').focus();
    return;
  }
  let sides = {};
  try { sides = JSON.parse(text).sides || {}; } catch { /* the server says what is wrong */ }
  button.disabled = true;
  button.textContent = 'Creating…';
  try {
    const created = await createGame(serverUrl(), text);
    showCreated(created, sides);
  } catch (failure) {
    error.hidden = false;
    const code = failure.code || 'error';
    replace(error, h('strong', {}, 'Not created: '), failure.message, ' ',
      h('span', { class: 'code' }, `(${code}: ${errorWords(code)})`));
  } finally {
    button.disabled = false;
    button.textContent = 'Create game';
  }
}

function showCreated({ game, seats }, sides) {
  $('created').hidden = false;
  $('created-game').textContent = game;
  replace($('created-links'), ['A', 'B'].map((side) => {
    const link = joinLink(game, String(seats[side]), false);
    const name = sides[side] && typeof sides[side].name === 'string' ? ` (${sides[side].name})` : '';
    const input = h('textarea', { id: `link-${side}`, rows: 3, readOnly: true, value: link, class: 'link', spellcheck: 'false' });
    const status = h('span', { class: 'hint', role: 'status' });
    return h('div', { class: 'field created-link' },
      h('label', { for: `link-${side}` }, `Side ${side}${name}: join link`),
      input,
      h('div', { class: 'buttons' },
        h('button', { type: 'button', id: `copy-${side}`, onclick: async () => {
          status.textContent = (await copyText(link, input)) ? 'Copied.' : 'Select the link and copy it.';
        } }, `Copy side ${side}'s link`),
        h('a', { href: link, id: `open-${side}` }, `Play side ${side} here`)),
      status);
  }));
  $('link-A').focus();
}

// ------------------------------------------------------------- the game

function connectionWords(status, detail) {
  switch (status) {
    case 'connecting': return 'Connecting…';
    case 'live': return 'Live';
    case 'reconnecting':
      return detail && detail.delay ? `Reconnecting in ${Math.ceil(detail.delay / 1000)} s…` : 'Reconnecting…';
    case 'stopped': return 'Disconnected';
    default: return status;
  }
}

function play({ game, token, watch }) {
  const battle = $('battle');
  const log = new LogView($('log'), $('log-scroll'));
  const plot = new StrengthPlot($('plot'));
  let mode = watch ? 'watch' : 'play';
  let seat = null;
  let state = null;
  let hashRun = 0;
  let wasMine = false;

  const session = new Session({
    url: serverUrl(),
    game,
    token,
    onConnection: (status, detail) => {
      const pill = $('connection');
      pill.dataset.status = status;
      pill.textContent = connectionWords(status, detail);
      if (status === 'stopped') {
        $('joining').hidden = true;
        battle.hidden = !state;
        $('stopped').hidden = false;
        $('stopped-reason').textContent =
          `${detail.message || errorWords(detail.code)} (${detail.code}: ${errorWords(detail.code)})`;
      }
    },
    onNotice: (text) => { $('announce').textContent = text; },
    onState: (next, info) => {
      const first = !state || info.snapshot;
      state = next;
      seat = session.seat;
      if (seat !== 'A' && seat !== 'B') mode = 'watch';
      if (first) { log.reset(state); plot.reset(state); } else { log.update(state); plot.update(state); }
      render();
      showSync(info.seq);
    },
  });

  const controls = new Controls($('controls'), { act: (action) => session.act(action) });

  function render() {
    if (!state) return;
    $('joining').hidden = true;
    battle.hidden = false;
    $('game-title').textContent = typeof state.title === 'string' ? state.title : 'Brigade';
    document.title = `${$('game-title').textContent} — Brigade`;
    battle.dataset.mode = mode;
    renderStatus($('status'), state, { seat, mode });
    renderForces($('forces'), state, { seat: mode === 'play' ? seat : null });
    controls.update(state, { seat, mode });
    const mine = mode === 'play' && awaitingList(state).includes(seat);
    if (mine && !wasMine) $('announce').textContent = `Your move: ${phaseWords(state)}`;
    wasMine = mine;
  }

  async function showSync(seq) {
    const run = ++hashRun;
    const sync = $('sync');
    sync.dataset.seq = String(seq);
    sync.textContent = `seq ${seq}`;
    const hash = await snapshotHash(state);
    if (run !== hashRun) return;
    sync.dataset.hash = hash || '';
    sync.textContent = hash ? `seq ${seq} · state hash ${hash.slice(0, 12)}…` : `seq ${seq}`;
    sync.title = hash ? `snapshot hash (PROTOCOL.md §8): ${hash}` : '';
  }

  // Switches between a seat's orders and the read-only view.
  function setMode(next) {
    mode = next === 'play' && (seat === 'A' || seat === 'B' || seat === null) ? 'play' : 'watch';
    render();
  }
  setMode(mode);

  const copy = $('copy-link');
  copy.hidden = false;
  copy.addEventListener('click', async () => {
    const ok = await copyText(joinLink(game, token, mode === 'watch'));
    $('announce').textContent = ok ? 'Your join link is copied.' : 'Copying needs https or localhost.';
    copy.textContent = ok ? 'Copied' : 'Copy not available';
    setTimeout(() => { copy.textContent = 'Copy my join link'; }, 2000);
  });

  $('joining').hidden = false;
  $('connection').dataset.status = 'connecting';
  $('connection').textContent = connectionWords('connecting');
  session.start();
}

function main() {
  window.addEventListener('hashchange', () => window.location.reload());
  const link = readLink();
  if (link.game && link.token) play(link);
  else showStart(link.game ? 'This tab has no seat token for that game: open your join link again.' : '');
}

main();
