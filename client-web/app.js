// client-web/app.js: the page. Reads the link's fragment
// (#game=ID&token=TOKEN[&watch=1]: a fragment, never a query string, so the
// token stays out of every server log), then either offers to join or
// create a game, or joins and shows the battle (view.js, log.js, plot.js)
// over one Session (wire.js), with a player's orders (controls.js) or the
// umpire's panel (umpire.js).
//
// The seat comes from the server's welcome: "A" or "B" (a player: orders),
// "umpire" (the umpire's panel, no orders) or "spectator" (the game's
// spectator id as the token: no controls at all, delayed when the game
// delays its spectators). A spectator of a game with a spectators'
// password is asked for it when the join is refused (bad_token). A player's
// link with `&watch=1` shows the read-only view too.
import { Alerts } from './alerts.js';
import { snapshotHash } from './delta.js';
import { Controls } from './controls.js';
import { h, replace } from './dom.js';
import { LogView } from './log.js';
import { connectionWords, errorWords } from './names.js';
import { StrengthPlot } from './plot.js';
import { presenceNews, presenceParts } from './presence.js';
import { renderRules, RULESET_FILE_MAX, RulesetError, withRuleset } from './rules.js';
import { store, stored } from './storage.js';
import { UmpirePanel } from './umpire.js';
import {
  answersOwed, awaitingList, holdReason, pendingList, pendingWords, phaseWords, renderForces, renderStatus, reportsForUmpire,
} from './view.js';
import { createGame, serverUrl, Session } from './wire.js';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = (game) => `brigade.token.${game}`;
const PASSWORD_KEY = (game) => `brigade.password.${game}`;
const PASSWORD_MAX_BYTES = 127; // §5.1
const bytes = (text) => new TextEncoder().encode(text).length;

// ------------------------------------------- the games kept in this browser

// Each joined game's link ({game, token, seat, title, watch, at, password}),
// in localStorage so that a bookmark or a new tab of the bare page can join
// again. The token is kept there and in sessionStorage only: never in the
// page's text or the address bar. `password`: a spectator's, for a game
// with a spectators' password, kept the same way (the page says so) so that
// "Rejoin" does not ask for it again; "Forget" takes it out too.
const GAMES_KEY = 'brigade.games';
const GAMES_MAX = 20;

function rememberedGames() {
  try {
    const list = JSON.parse(window.localStorage.getItem(GAMES_KEY) || '[]');
    return Array.isArray(list) ? list.filter((item) => item && typeof item.game === 'string' && item.game &&
      typeof item.token === 'string' && item.token) : [];
  } catch { return []; }
}

function keepGames(list) {
  try {
    if (list.length) window.localStorage.setItem(GAMES_KEY, JSON.stringify(list.slice(0, GAMES_MAX)));
    else window.localStorage.removeItem(GAMES_KEY);
  } catch { /* storage off or full */ }
}

function rememberGame({ game, token, seat, title, watch, password }) {
  const others = rememberedGames().filter((item) => !(item.game === game && item.token === token));
  const kept = { game, token, seat: seat || '', title: title || '', watch: Boolean(watch), at: Date.now() };
  if (seat === 'spectator' && typeof password === 'string' && password) kept.password = password;
  keepGames([kept, ...others]);
}

function forgetGame(game, token) {
  keepGames(rememberedGames().filter((item) => !(item.game === game && (!token || item.token === token))));
}

function seatWords(item) {
  if (item.seat === 'A' || item.seat === 'B') return item.watch ? `side ${item.seat}, watching` : `side ${item.seat}`;
  if (item.seat === 'umpire') return 'umpire';
  if (item.seat === 'spectator') return item.password ? 'spectator, password kept in this browser' : 'spectator';
  return 'seat not known yet';
}

function showYourGames() {
  const games = rememberedGames();
  $('your-games').hidden = games.length === 0;
  replace($('your-games-list'), games.map((item, index) => {
    const name = item.title || `game ${item.game}`;
    return h('li', { class: 'your-game', dataset: { game: item.game, seat: item.seat || '' } },
      h('span', { class: 'your-game-name' }, h('strong', {}, name), ' ',
        h('span', { class: 'hint' }, `(${seatWords(item)}${item.title ? `, game ${item.game}` : ''})`)),
      h('span', { class: 'buttons' },
        h('button', { type: 'button', id: `rejoin-${index}`, class: 'rejoin', onclick: () => {
          // The token goes by sessionStorage, never through the address bar.
          store(TOKEN_KEY(item.game), item.token);
          if (typeof item.password === 'string' && item.password) store(PASSWORD_KEY(item.game), item.password);
          window.location.hash = `game=${encodeURIComponent(item.game)}${item.watch ? '&watch=1' : ''}`;
        } }, 'Rejoin', h('span', { class: 'visually-hidden' }, ` ${name} as ${seatWords(item)}`)),
        h('button', { type: 'button', id: `forget-${index}`, class: 'quiet forget', onclick: () => {
          forgetGame(item.game, item.token);
          showYourGames();
          const first = document.querySelector('#your-games-list button') || $('join-link');
          first.focus();
          $('announce').textContent = `${name} is forgotten: its link is no longer kept in this browser.`;
        } }, 'Forget', h('span', { class: 'visually-hidden' }, ` ${name}`))));
  }));
}

// ------------------------------------------------------------- the link

function readLink() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const game = params.get('game') || '';
  const watch = params.get('watch') === '1';
  let token = params.get('token') || '';
  let password = params.get('password') || '';
  if (game && token) {
    // Keep the token (and a spectators' password) for a reload of this
    // tab, and take them out of the address bar (screen sharing); "Copy
    // my join link" gives the link back.
    store(TOKEN_KEY(game), token);
    if (password) store(PASSWORD_KEY(game), password);
    const shown = `#game=${encodeURIComponent(game)}${watch ? '&watch=1' : ''}`;
    window.history.replaceState(null, '', shown);
  } else if (game) {
    token = stored(TOKEN_KEY(game));
    // A bookmark or a new tab: the link this browser keeps for the game.
    if (!token) {
      const kept = rememberedGames().find((item) => item.game === game && Boolean(item.watch) === watch) ||
        rememberedGames().find((item) => item.game === game);
      if (kept) { token = kept.token; store(TOKEN_KEY(game), token); }
    }
  }
  if (game && !password) password = stored(PASSWORD_KEY(game));
  if (game && token && !password) {
    // A spectator's password this browser keeps with the link (Your games).
    const kept = rememberedGames().find((item) => item.game === game && item.token === token);
    if (kept && typeof kept.password === 'string' && kept.password) {
      password = kept.password;
      store(PASSWORD_KEY(game), password);
    }
  }
  return { game, token, password, watch };
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
  showYourGames();
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
    const password = $('join-password').value;
    if (password) store(PASSWORD_KEY(params.get('game')), password);
    window.location.hash = fragment;
  });
  $('create-form').addEventListener('submit', (event) => {
    event.preventDefault();
    create();
  });
  // Choosing a file or pasting picks "your own scenario".
  const own = () => { $('scenario-own').checked = true; };
  $('scenario-file').addEventListener('change', () => { if ($('scenario-file').files.length) own(); });
  $('scenario-text').addEventListener('input', () => { if ($('scenario-text').value.trim()) own(); });
  $('ruleset-file').addEventListener('change', () => { $('ruleset-error').hidden = true; });
  showScenarios();
}

// The scenarios shipped with the server: the build copies scenarios/*.json
// into client-web/scenarios/ with index.json ([{file, title, description,
// sides, units}]), served with the page.
let shipped = [];

async function showScenarios() {
  const root = $('scenario-choices');
  let list = [];
  try {
    const response = await fetch('scenarios/index.json', { cache: 'no-cache' });
    if (response.ok) list = await response.json();
  } catch { /* none offered */ }
  shipped = (Array.isArray(list) ? list : []).filter((item) => item && typeof item.file === 'string' &&
    /^[A-Za-z0-9_.-]+\.json$/.test(item.file) && typeof item.title === 'string');
  if (!shipped.length) {
    replace(root, h('p', { id: 'scenario-none', class: 'hint' },
      'This server offers no scenario of its own: choose or paste yours.'));
    if (!$('scenario-own').checked) $('scenario-own').checked = true;
    return;
  }
  // What the user already chose (a file, a paste) keeps its choice.
  const mine = $('scenario-own').checked || $('scenario-file').files.length > 0 || $('scenario-text').value.trim() !== '';
  replace(root, shipped.map((item, index) => {
    const id = `scenario-${item.file.replace(/\.json$/, '').replace(/[^A-Za-z0-9_-]/g, '_')}`;
    const sides = item.sides && typeof item.sides === 'object' ? item.sides : {};
    const name = (side) => (sides[side] && typeof sides[side].name === 'string' ? sides[side].name : `side ${side}`);
    const units = Number.isInteger(item.units) ? ` · ${item.units} unit${item.units === 1 ? '' : 's'}` : '';
    return h('div', { class: 'scenario-choice', dataset: { file: item.file } },
      h('input', { type: 'radio', name: 'scenario', id, value: item.file, checked: !mine && index === 0 }),
      h('label', { for: id },
        h('strong', { class: 'scenario-title' }, item.title),
        h('span', { class: 'scenario-sides' }, `Side A: ${name('A')}; side B: ${name('B')}${units}`),
        typeof item.description === 'string' && item.description
          ? h('span', { class: 'hint scenario-description' }, item.description) : null,
        h('a', { href: `scenarios/${encodeURIComponent(item.file)}`, target: '_blank', rel: 'noopener', class: 'scenario-file' },
          item.file, h('span', { class: 'visually-hidden' }, ' (the scenario file, opens a new tab)'))));
  }));
}

// The chosen scenario's text, or throws an Error saying what is missing.
async function scenarioText() {
  const picked = document.querySelector('input[name="scenario"]:checked');
  if (picked && picked.value) {
    const response = await fetch(`scenarios/${encodeURIComponent(picked.value)}`, { cache: 'no-cache' });
    if (!response.ok) throw new Error(`The server did not give the scenario ${picked.value} (HTTP ${response.status}).`);
    return response.text();
  }
  const file = $('scenario-file').files[0];
  const text = file ? await file.text() : $('scenario-text').value;
  if (!text.trim()) throw new Error('Choose a scenario file or paste a scenario first.');
  return text;
}

// The scenario `text` with the house rules file's object as its `ruleset`
// (rules.js withRuleset), or `text` itself without one; null after saying
// what is wrong: the file's fault next to its field, the scenario's in the
// form's error line. Nothing is sent then.
async function houseRules(text) {
  const file = $('ruleset-file').files[0];
  const fieldError = $('ruleset-error');
  fieldError.hidden = true;
  if (!file) return text;
  const fail = (where, message) => {
    where.hidden = false;
    where.textContent = message;
    $('ruleset-file').focus();
    return null;
  };
  if (file.size > RULESET_FILE_MAX) return fail(fieldError, `${file.name} is too large for a ruleset (at most ${RULESET_FILE_MAX} bytes).`);
  try {
    return withRuleset(text, await file.text(), file.name);
  } catch (failure) {
    return fail(failure instanceof RulesetError ? fieldError : $('create-error'), failure.message);
  }
}

async function create() {
  const error = $('create-error');
  const button = $('create-submit');
  error.hidden = true;
  let text;
  try {
    text = await scenarioText();
  } catch (failure) {
    error.hidden = false;
    error.textContent = failure.message;
    $('scenario-file').focus();
    return;
  }
  text = await houseRules(text);
  if (text === null) return;
  const spectatorPassword = $('create-spectator-password').value;
  const delayText = $('create-spectator-delay').value.trim();
  const spectatorDelay = delayText === '' ? 0 : Number(delayText);
  if (!Number.isInteger(spectatorDelay) || spectatorDelay < 0 || spectatorDelay > 64) {
    error.hidden = false;
    error.textContent = "The spectators' delay is a whole number of phase changes, from 0 to 64.";
    $('create-spectator-delay').closest('details').open = true;
    $('create-spectator-delay').focus();
    return;
  }
  if (bytes(spectatorPassword) > PASSWORD_MAX_BYTES) {
    error.hidden = false;
    error.textContent = `The spectators' password is too long (at most ${PASSWORD_MAX_BYTES} bytes).`;
    $('create-spectator-password').focus();
    return;
  }
  let sides = {};
  try { sides = JSON.parse(text).sides || {}; } catch { /* the server says what is wrong */ }
  button.disabled = true;
  button.textContent = 'Creating…';
  try {
    const created = await createGame(serverUrl(), text, { spectatorPassword, spectatorDelay });
    showCreated(created, sides, { password: Boolean(spectatorPassword), delay: spectatorDelay });
  } catch (failure) {
    error.hidden = false;
    const code = failure.code || 'error';
    replace(error, h('strong', {}, 'Not created: '), failure.message, ' ',
      h('span', { class: 'code' }, `(${errorWords(code)}) [${code}]`));
  } finally {
    button.disabled = false;
    button.textContent = 'Create game';
  }
}

function showCreated({ game, seats, spectator }, sides, { password, delay }) {
  $('created').hidden = false;
  $('created-game').textContent = game;
  const rows = ['A', 'B'].map((side) => {
    const name = sides[side] && typeof sides[side].name === 'string' ? ` (${sides[side].name})` : '';
    return { key: side, token: seats[side], label: `Side ${side}${name}: join link`, copy: `Copy side ${side}'s link`,
      open: `Play side ${side} here`, hint: 'Secret: only this side\'s player.' };
  });
  if (typeof seats.umpire === 'string' && seats.umpire) {
    rows.push({ key: 'umpire', token: seats.umpire, label: "The umpire's link", copy: "Copy the umpire's link",
      open: 'Umpire here', hint: 'Secret: only the umpire. A game needs no umpire; once one joins, double sixes and generals at risk wait for the umpire\'s ruling, and so does a report a player contests.' });
  }
  if (spectator) {
    const notes = [password ? 'They also need the spectators\' password you chose (not in the link).' : 'Anyone with it can watch.',
      delay ? `They see the battle ${delay} phase change${delay === 1 ? '' : 's'} late.` : 'They see the battle live.'];
    rows.push({ key: 'spectator', token: spectator, label: "Spectators' link (read-only)", copy: "Copy the spectators' link",
      open: 'Watch here', hint: notes.join(' ') });
  }
  replace($('created-links'), rows.map(({ key, token, label, copy, open, hint }) => {
    const link = joinLink(game, String(token), false);
    const input = h('textarea', { id: `link-${key}`, rows: 3, readOnly: true, value: link, class: 'link', spellcheck: 'false' });
    const status = h('span', { class: 'hint', role: 'status' });
    return h('div', { class: `field created-link link-${key}` },
      h('label', { for: `link-${key}` }, label),
      h('span', { class: 'hint' }, hint),
      input,
      h('div', { class: 'buttons' },
        h('button', { type: 'button', id: `copy-${key}`, onclick: async () => {
          status.textContent = (await copyText(link, input)) ? 'Copied.' : 'Select the link and copy it.';
        } }, copy),
        // A new tab: this page keeps the other links.
        h('a', { href: link, id: `open-${key}`, target: '_blank', rel: 'noopener' }, open,
          h('span', { class: 'visually-hidden' }, ' (opens a new tab)'))),
      status);
  }));
  $('link-A').focus();
}

// ------------------------------------------------------------- the game

// A spectator's join refused (bad_token): the game may want the
// spectators' password. Asks for it, and joins again with it.
function askPassword(game, tried) {
  $('joining').hidden = true;
  $('password').hidden = false;
  const error = $('password-error');
  error.hidden = !tried;
  error.textContent = tried ? 'The server refused that password (or the link): try again, or ask the game\'s creator.' : '';
  const input = $('password-input');
  input.focus();
  $('password-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const password = input.value;
    if (!password) { error.hidden = false; error.textContent = 'Type the password first.'; input.focus(); return; }
    if (bytes(password) > PASSWORD_MAX_BYTES) { error.hidden = false; error.textContent = 'That is too long for a password (at most 127 bytes).'; return; }
    store(PASSWORD_KEY(game), password);
    window.location.reload();
  });
}

// Says `text` to a screen reader (the page's live region).
function announce(text) { $('announce').textContent = text; }

// The connection's status on the page (wire.js's onConnection): the pill,
// a countdown to the next attempt with "Retry now", the page's offline
// look and, once stopped, why; a spectator's join refused asks for the
// game's password. `page` holds the game's link, what the page has seen
// (joined, hasState) and its two panels.
function connectionChanged(page, status, detail) {
  const pill = $('connection');
  pill.dataset.status = status;
  pill.textContent = connectionWords(status, detail);
  // A real countdown to the next attempt, and "Retry now" meanwhile.
  // The status line is not read out every second: announced once.
  clearInterval(page.countdown);
  const waiting = status === 'reconnecting' && detail && detail.delay > 0;
  $('retry-now').hidden = !waiting;
  if (waiting) {
    pill.setAttribute('aria-live', 'off');
    announce(`Connection lost. ${connectionWords(status, detail)} Or press Retry now.`);
    page.countdown = setInterval(() => { pill.textContent = connectionWords(status, detail); }, 1000);
  } else {
    pill.removeAttribute('aria-live');
    if (document.activeElement === $('retry-now')) $('connection').focus();
  }
  if (status === 'stopped' && detail.code === 'unknown_game') forgetGame(page.game);
  // While not live, orders look unavailable (act() would refuse them).
  document.body.classList.toggle('offline', status !== 'live');
  if (status === 'live') {
    page.controls.connected();
    page.umpire.connected();
  }
  if (status === 'stopped') {
    $('joining').hidden = true;
    $('battle').hidden = !page.hasState;
    // A spectator of a game with a password (or a wrong link). Seat
    // tokens are 64 hex digits, spectator ids 32 (§6.1): only a refused
    // spectator id may be a missing password; anything else refused
    // (a seat token, a link cut short) is a wrong link.
    if (detail.code === 'bad_token' && !page.joined && /^[0-9a-f]{32}$/i.test(page.token)) {
      store(PASSWORD_KEY(page.game), '');
      // A kept password refused (changed, or a wrong one) is kept no more.
      keepGames(rememberedGames().map((item) => {
        if (item.game !== page.game || item.token !== page.token) return item;
        const { password: refused, ...rest } = item;
        return refused ? rest : item;
      }));
      pill.dataset.status = 'password';
      pill.textContent = page.password ? 'Password refused' : 'Password needed';
      askPassword(page.game, Boolean(page.password));
      return;
    }
    $('stopped').hidden = false;
    $('stopped-reason').textContent =
      `${detail.message || errorWords(detail.code)} (${errorWords(detail.code)}) [${detail.code}]`;
  }
}

// A clock's time left in ms as "1:29:05", or "29:05" under an hour.
function clockTime(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (n) => String(n).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${two(Math.floor(s % 3600 / 60))}:${two(s % 60)}`
    : `${Math.floor(s / 60)}:${two(s % 60)}`;
}

// The game's clocks (PROTOCOL.md §11.2) in the header: "French 1:29:05 ▶ ·
// British 1:30:00", the running sides counted down each second from the
// server's last clock_now (state.clock's values without one: a delayed
// spectator's), "time is up" once a side's flag fell.
function renderClocks(state, clockNow) {
  const line = $('clocks');
  const clock = state && state.clock && typeof state.clock === 'object' ? state.clock : null;
  line.hidden = !clock;
  if (!clock) return;
  const running = Array.isArray(clock.running) ? clock.running : [];
  const flags = Array.isArray(clock.flags) ? clock.flags : [];
  const parts = ['A', 'B'].map((side, index) => {
    const name = (state.sides && state.sides[side] && state.sides[side].name) || `Side ${side}`;
    const runs = running.includes(side);
    const fallen = flags.includes(side);
    let left = clockNow && Number.isFinite(clockNow[side]) ? clockNow[side] : Number(clock[side]) || 0;
    if (runs && clockNow) left -= Date.now() - clockNow.at;
    const status = fallen ? 'flag' : runs ? 'running' : 'stopped';
    return [index ? h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · ') : null,
      h('span', { class: `clock clock-${status}`, dataset: { seat: side, status } },
        `${name} ${fallen ? 'time is up' : clockTime(left)}${runs && !fallen ? ' ▶' : ''}`)];
  });
  replace(line, parts);
}

// What changed since the last render, said once to a screen reader:
// your move, the umpire's hold or release, a ruling or an answer owed.
// `was` keeps what was said (updated here).
function announceChanges(was, state, { mode, seat, mine }) {
  if (mine && !was.mine) announce(`Your move: ${phaseWords(state)}`);
  was.mine = mine;
  const hold = holdReason(state);
  if (was.hold !== null && hold !== was.hold) {
    announce(hold ? `The umpire holds the game: ${hold}` : 'The umpire released the game.');
  }
  was.hold = hold;
  const pending = pendingList(state);
  if (mode === 'umpire' && pending.length > was.pending) {
    announce(`For your ruling: ${pending.map((item) => pendingWords(state, item)).join('; ')}`);
  }
  was.pending = pending.length;
  // A report that waits for this page's answer or ruling (D46).
  const asked = mode === 'play' ? answersOwed(state, seat).length : 0;
  if (asked > was.asked) announce('The other side reports a change to your units: accept it or contest it in your orders.');
  was.asked = asked;
  const contested = mode === 'umpire' ? reportsForUmpire(state).length : 0;
  if (contested > was.contested) announce('A contested report waits for your ruling.');
  was.contested = contested;
}

// The header's badge: the umpire, a side, or a spectator (live or late).
function seatBadgeRender(mode, seat, delay) {
  const badge = $('seat-badge');
  badge.hidden = false;
  badge.dataset.seat = mode === 'watch' ? (seat === 'spectator' ? 'spectator' : 'watch') : seat;
  badge.textContent = mode === 'umpire' ? 'Umpire'
    : mode === 'play' ? `Side ${seat}`
      : delay > 0 ? `Watching, ${delay} phase change${delay === 1 ? '' : 's'} late`
        : 'Watching live';
}

// The seq and the snapshot's hash (PROTOCOL.md §8) under the log, once the
// hash of `state` at `at` is computed; a later call (`runs` counts them)
// wins over one still computing.
async function syncShow(runs, at, state) {
  const run = ++runs.last;
  const sync = $('sync');
  sync.dataset.seq = String(at);
  sync.textContent = `seq ${at}`;
  const hash = await snapshotHash(state);
  if (run !== runs.last) return;
  sync.dataset.hash = hash || '';
  sync.textContent = hash ? `seq ${at} · state hash ${hash.slice(0, 12)}…` : `seq ${at}`;
  sync.title = hash ? `snapshot hash (PROTOCOL.md §8): ${hash}` : '';
}

// "Copy my join link" (the seat's own `link`) and "Retry now".
function buttonsWire(link, session) {
  const copy = $('copy-link');
  copy.hidden = false;
  copy.addEventListener('click', async () => {
    const ok = await copyText(link);
    announce(ok ? 'Your join link is copied.' : 'Copying needs https or localhost.');
    copy.textContent = ok ? 'Copied' : 'Copy not available';
    setTimeout(() => { copy.textContent = 'Copy my join link'; }, 2000);
  });
  $('retry-now').addEventListener('click', () => {
    $('retry-now').hidden = true;
    $('connection').focus();
    session.reconnectNow();
  });
}

function play({ game, token, password, watch }) {
  const battle = $('battle');
  let mode = watch ? 'watch' : 'play';
  let seat = null;
  let state = null;
  let seq = null;
  const hashRuns = { last: 0 }; // the latest syncShow's number
  const was = { mine: false, hold: null, pending: 0, asked: 0, contested: 0 }; // announced so far
  let watchers = 0;
  let presence = null; // {A, B, umpire} (PROTOCOL.md §6.8), null until told
  let clockNow = null; // the last clock_now (wire.js), null without one
  // What connectionChanged() reads and keeps of this game's page.
  const page = { game, token, password, joined: false, hasState: false, countdown: null };
  const log = new LogView($('log'), $('log-scroll'), { onRollback: (to) => umpire.pickRollback(to) });
  const plot = new StrengthPlot($('plot'));

  const session = new Session({
    url: serverUrl(),
    game,
    token,
    password,
    onBehind: (now, seen) => {
      const banner = $('server-behind');
      banner.hidden = false;
      banner.textContent = `Warning: the server came back at seq ${now}, behind seq ${seen} that this page had seen: ` +
        'actions it had accepted are lost (was its data restored from an older copy?). Tell the other players and the umpire.';
    },
    onConnection: (status, detail) => connectionChanged(page, status, detail),
    onNotice: (text) => { $('announce').textContent = text; },
    onWatchers: (count) => { watchers = count; render(); },
    onClock: (now) => { clockNow = now; renderClocks(state, clockNow); },
    onPresence: (seats) => {
      // The other side (or, for the umpire, either side) dropping or
      // coming back is said at once; the header shows who is joined.
      const news = state ? presenceNews(state, presence, seats, { seat, mode }) : [];
      presence = seats;
      render();
      if (news.length) announce(news.join(' '));
    },
    onState: (next, info) => {
      const first = !state || info.snapshot;
      page.joined = page.hasState = true;
      state = next;
      // Joined: this browser keeps the link (Your games, on the start page).
      // A spectator's password too, so that Rejoin asks for it no more.
      if (info.snapshot) rememberGame({ game, token, seat: session.seat, title: typeof next.title === 'string' ? next.title : '', watch, password });
      seq = info.seq;
      seat = session.seat;
      mode = seat === 'umpire' ? 'umpire' : (seat === 'A' || seat === 'B') && !watch ? 'play' : 'watch';
      log.umpire = mode === 'umpire';
      log.seq = seq;
      if (first) { log.reset(state); plot.reset(state); } else { log.update(state); plot.update(state); }
      render();
      syncShow(hashRuns, info.seq, state);
    },
  });

  const controls = new Controls($('controls'), { act: (action) => session.act(action) });
  const umpire = new UmpirePanel($('umpire'), { act: (action) => session.act(action) });
  page.controls = controls;
  page.umpire = umpire;

  setInterval(() => renderClocks(state, clockNow), 1000);

  const alerts = new Alerts({ icon: $('favicon'), sound: $('alert-sound'), notify: $('alert-notify'), say: announce });

  // "French (you) · British: connected · Umpire: not seated · 2 watching".
  function renderPresence() {
    const line = $('presence');
    const parts = presenceParts(state, presence, { seat, mode, watchers });
    line.hidden = parts.length === 0;
    replace(line, parts.map((part, index) => [index ? h('span', { class: 'sep', 'aria-hidden': 'true' }, ' · ') : null,
      h('span', { class: `presence-part presence-${part.status}`, dataset: { seat: part.seat, status: part.status } }, part.text)]));
  }

  function render() {
    renderClocks(state, clockNow);
    if (!state) {
      // Before the welcome: no controls of either kind.
      controls.update({}, { seat: null, mode: 'watch' });
      umpire.update({}, { mode: 'watch' });
      return;
    }
    $('joining').hidden = true;
    battle.hidden = false;
    $('game-title').textContent = typeof state.title === 'string' ? state.title : 'Brigade';
    battle.dataset.mode = mode;
    battle.dataset.seat = seat || '';
    seatBadgeRender(mode, seat, session.spectatorDelay);
    renderPresence();
    $('alerts').hidden = mode !== 'play' && mode !== 'umpire';
    renderStatus($('status'), state, { seat, mode, delay: session.spectatorDelay, watchers });
    renderForces($('forces'), state, { seat: mode === 'play' ? seat : null });
    renderRules($('rules-body'), state);
    controls.update(state, { seat, mode });
    umpire.update(state, { mode, seq });
    const mine = mode === 'play' && awaitingList(state).includes(seat) && !holdReason(state);
    // The tab says it too, for a player looking at another tab.
    const ruling = mode === 'umpire' && (pendingList(state).length > 0 || reportsForUmpire(state).length > 0);
    document.title = `${mine ? 'Your move · ' : ruling ? 'Your ruling · ' : ''}${$('game-title').textContent} — Brigade`;
    // The tab's icon gets a dot; a beep or a notification if asked for.
    alerts.update(mine || ruling, mine ? `Your move: ${phaseWords(state)}` : 'A ruling waits for you.');
    announceChanges(was, state, { mode, seat, mine });
  }

  render();
  buttonsWire(joinLink(game, token, watch), session);

  $('joining').hidden = false;
  $('connection').dataset.status = 'connecting';
  $('connection').textContent = connectionWords('connecting');
  session.start();
}

function main() {
  window.addEventListener('hashchange', () => window.location.reload());
  const link = readLink();
  if (link.game && link.token) play(link);
  else showStart(link.game ? 'This browser keeps no seat token for that game: open your join link again.' : '');
}

main();
