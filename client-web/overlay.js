// client-web/overlay.js: a broadcast overlay for OBS (overlay.html): one
// game watched as a spectator (PROTOCOL.md §5.2), drawn in large type on a
// transparent page: the title, both sides (the players' names when the
// game is a tournament's), the turn and phase in words, whose move it is,
// both clocks counting down (§11.2), and the last melee's result.
//
//   /overlay.html#game=GAME&spectator=ID    one game, by its spectator id
//   /overlay.html#t=ID&table=N              table N of tournament ID, followed
//                                           from round to round (§11.4)
//
// Nothing on it is interactive: no controls, no scrollbars.
import { h } from './dom.js';
import { rolledBackIndexes } from './log.js';
import { capital } from './names.js';
import { clockText, clocksNow, latestTable, playerName } from './tournament-words.js';
import { awaitingList, holdReason, phaseWords, sideName } from './view.js';
import { serverUrl, Session, TournamentWatch } from './wire.js';

const $ = (id) => document.getElementById(id);
const SIDES = ['A', 'B'];
const text = (value) => (typeof value === 'string' ? value : '');

let state = null;
let clockNow = null;
let meta = null; // {event, players: {A, B}} from the tournament, or null
let session = null;
let sessionGame = '';

// Side `side`'s part of the band ("Side A", its name, army and clock), as
// overlay.html leaves it to be built: <section id="ov-side-A"> with
// ov-name-A, ov-army-A and ov-clock-A, filled in by render.
function sideBand(side) {
  return h('section', { id: `ov-side-${side}`, class: `ov-side side-${side}`, dataset: { side }, 'aria-labelledby': `ov-name-${side}` },
    h('p', { class: 'ov-seat' }, `Side ${side}`),
    h('h2', { id: `ov-name-${side}`, class: 'ov-name' }),
    h('p', { id: `ov-army-${side}`, class: 'ov-army' }),
    h('p', { id: `ov-clock-${side}`, class: 'ov-clock', hidden: true }));
}

function status(words) {
  $('ov-status').textContent = words;
  $('ov-status').hidden = !words;
}

// The newest melee's outcome in the log (melee_resolved, or the umpire's
// melee_overruled), not rolled back.
export function lastMelee(game) {
  const log = Array.isArray(game.log) ? game.log : [];
  const gone = rolledBackIndexes(game);
  for (let index = log.length - 1; index >= 0; index -= 1) {
    const entry = log[index];
    if (!entry || gone.has(index)) continue;
    if (entry.kind === 'melee_resolved' || entry.kind === 'melee_overruled') return text(entry.text);
  }
  return '';
}

function armyName(side) {
  const name = state && state.sides && state.sides[side] && state.sides[side].name;
  return typeof name === 'string' ? name : '';
}

// Who is to move: "To move: Anna Lefèvre (French)", "Both sides to move".
function moveWords() {
  if (state.phase === 'ended') {
    const end = state.end && typeof state.end === 'object' ? state.end : null;
    const result = end && (end.result === 'A' || end.result === 'B') ? `${whoIs(end.result)} wins`
      : end && end.result === 'draw' ? 'A draw' : '';
    const reason = end && typeof end.reason === 'string' ? end.reason : '';
    return [result, reason].filter(Boolean).join(': ') || 'The battle has ended';
  }
  const hold = holdReason(state);
  if (hold) return `Held by the umpire: ${hold}`;
  if (state.turn === 0) return 'Waiting for the players to join';
  const awaiting = awaitingList(state);
  if (awaiting.length === 2) return 'Both sides to move';
  if (awaiting.length === 1) return `To move: ${whoIs(awaiting[0])}`;
  if (state.step === 'settle') return "Waiting for the umpire's ruling";
  return 'Waiting for the umpire';
}

// A side as the audience knows it: the player and the army.
function whoIs(side) {
  const player = meta && meta.players ? meta.players[side] : '';
  const army = armyName(side);
  if (player) return army ? `${player} (${army})` : player;
  return capital(sideName(state, side));
}

function renderClocks() {
  const clocks = state ? clocksNow(state, clockNow) : null;
  for (const side of SIDES) {
    const node = $(`ov-clock-${side}`);
    if (!clocks) { node.hidden = true; continue; }
    const clock = clocks[side];
    node.hidden = false;
    node.dataset.running = String(clock.running);
    node.dataset.flag = String(clock.flag);
    node.textContent = clock.flag ? 'time is up' : clockText(clock.ms);
    $(`ov-side-${side}`).classList.toggle('running', clock.running && !clock.flag);
  }
}

function render() {
  const root = $('ov');
  if (!state) {
    root.dataset.state = 'waiting';
    $('ov-top').hidden = !meta;
    if (meta) { $('ov-event').textContent = meta.event; $('ov-title').textContent = ''; }
    $('ov-band').hidden = true;
    $('ov-melee').hidden = true;
    return;
  }
  root.dataset.state = 'live';
  root.dataset.phase = String(state.phase);
  root.dataset.awaiting = awaitingList(state).join(',');
  $('ov-top').hidden = false;
  $('ov-event').textContent = meta ? meta.event : '';
  $('ov-event').hidden = !meta;
  $('ov-title').textContent = text(state.title);
  $('ov-band').hidden = false;
  const awaiting = awaitingList(state);
  for (const side of SIDES) {
    const player = meta && meta.players ? meta.players[side] : '';
    $(`ov-name-${side}`).textContent = player || armyName(side) || `Side ${side}`;
    $(`ov-army-${side}`).textContent = player ? armyName(side) : '';
    $(`ov-army-${side}`).hidden = !player || !armyName(side);
    $(`ov-side-${side}`).classList.toggle('to-move', awaiting.includes(side) && !holdReason(state) && state.phase !== 'ended');
  }
  $('ov-turn').textContent = state.phase === 'ended' ? `Ended after turn ${state.turn}` : state.turn > 0 ? `Turn ${state.turn}` : 'Before the battle';
  $('ov-phase').textContent = state.phase === 'ended' || state.turn === 0 ? '' : phaseWords(state);
  $('ov-phase').hidden = !$('ov-phase').textContent;
  $('ov-move').textContent = moveWords();
  const melee = lastMelee(state);
  $('ov-melee').hidden = !melee;
  $('ov-melee').textContent = melee ? `Last melee: ${melee}` : '';
  renderClocks();
}

// Joins `game` as a spectator (the spectator id as the token).
function follow(game, spectator) {
  if (session && sessionGame === game) return;
  if (session) session.stop();
  state = null;
  clockNow = null;
  sessionGame = game;
  render();
  session = new Session({
    url: serverUrl(),
    game,
    token: spectator,
    onState: (next) => { state = next; render(); },
    onClock: (now) => { clockNow = now; renderClocks(); },
    onConnection: (status_, detail) => {
      if (status_ === 'live') status('');
      else if (status_ === 'reconnecting') status('Reconnecting…');
      else if (status_ === 'stopped') status(`Not connected: ${detail.message || detail.code}`);
    },
  });
  session.start();
}

function main() {
  $('ov-middle').before(sideBand('A'));
  $('ov-middle').after(sideBand('B'));
  const params = new URLSearchParams(window.location.hash.slice(1));
  window.addEventListener('hashchange', () => window.location.reload());
  setInterval(() => { if (state) renderClocks(); }, 250);
  const game = params.get('game') || '';
  const spectator = params.get('spectator') || '';
  const tournament = params.get('t') || '';
  const number = Number(params.get('table'));
  if (game && spectator) {
    status('Connecting…');
    follow(game, spectator);
    return;
  }
  if (tournament && Number.isSafeInteger(number) && number > 0) {
    status('Connecting…');
    const watch = new TournamentWatch({
      url: serverUrl(),
      tournament,
      onView: (view) => {
        const found = latestTable(view, number);
        const event = `${text(view.name)}${found ? ` · Round ${found.round.round}, table ${number}` : ''}`;
        if (!found) {
          meta = { event: text(view.name), players: {} };
          if (session) { session.stop(); session = null; sessionGame = ''; state = null; }
          status(`Table ${number}: waiting for its game`);
          render();
          return;
        }
        meta = { event, players: { A: playerName(view, found.table.a), B: playerName(view, found.table.b) } };
        if (typeof found.table.game === 'string' && typeof found.table.spectator === 'string') {
          follow(found.table.game, found.table.spectator);
        }
        render();
      },
      onConnection: (status_, detail) => {
        if (status_ === 'reconnecting' && !state) status('Reconnecting…');
        else if (status_ === 'stopped') status(`Tournament not found: ${detail.message || detail.code}`);
      },
    });
    watch.start();
    return;
  }
  status('Overlay: add #game=GAME&spectator=ID, or #t=TOURNAMENT&table=N, to the address');
}

main();
