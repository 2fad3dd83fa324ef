// client-web/tournament.js: the public page of a tournament (PROTOCOL.md
// §11.4), /tournament.html#t=ID, or with a personal link's token
// (#t=ID&token=T: a player's, an umpire's or the organiser's, §11.1),
// which is kept in this tab's sessionStorage and taken out of the address
// bar, as the game page does with its links.
//
// One TournamentWatch (wire.js): tournament_get with watch, a whole view
// on each change, reconnection with backoff. The page shows the event
// (format, round n of N, time control), the standings with their
// tie-breaks, each round's pairings (tables, players and their sides, the
// status, the result with its reason and who gave it), links to watch a
// live game, its broadcast overlay, and an ended game's download; with a
// player's token the button to that player's game, with an umpire's or
// the organiser's their tables. Everything the server sends goes in as
// text (dom.js).
import { h, replace } from './dom.js';
import { connectionWords, errorWords } from './names.js';
import { store, stored } from './storage.js';
import {
  formatWords, halfPoints, playerName, quarterPoints, resultWords, roundsOf, roundWords, scoreWords, statusWords,
  timeControlWords,
} from './tournament-words.js';
import { serverUrl, TournamentWatch } from './wire.js';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = (id) => `brigade.tournament.token.${id}`;
const TOURNAMENT_ID = /^[0-9A-Za-z_-]{1,64}$/;

// #t=ID[&token=T]: the token is kept for a reload of this tab and taken out
// of the address bar (screen sharing, a photo of the screen).
function readLink() {
  const params = new URLSearchParams(window.location.hash.slice(1));
  const id = params.get('t') || '';
  let token = params.get('token') || '';
  if (id && token) {
    store(TOKEN_KEY(id), token);
    window.history.replaceState(null, '', `#t=${encodeURIComponent(id)}`);
  } else if (id) {
    token = stored(TOKEN_KEY(id));
  }
  return { id, token };
}

// The links of the game page (app.js readLink): #game=ID&token=T; a
// spectator's token is the game's spectator id.
const gameLink = (game, token) => `/#game=${encodeURIComponent(game)}&token=${encodeURIComponent(token)}`;
const overlayLink = (id, table) => `/overlay.html#t=${encodeURIComponent(id)}&table=${table}`;

// The shipped scenarios (client-web/scenarios/index.json, made by the
// build): a round's scenario's title and side names, when it is one.
let scenarios = {};
async function loadScenarios() {
  try {
    const response = await fetch('scenarios/index.json', { cache: 'no-cache' });
    const list = response.ok ? await response.json() : [];
    scenarios = Object.fromEntries((Array.isArray(list) ? list : [])
      .filter((item) => item && typeof item.file === 'string').map((item) => [item.file, item]));
  } catch { scenarios = {}; }
}

function scenarioTitle(file) {
  const item = scenarios[file];
  return item && typeof item.title === 'string' && item.title ? item.title : String(file || '');
}

// "Side A (French)", or "Side A" when the scenario is not a shipped one.
function sideWords(file, side) {
  const item = scenarios[file];
  const sides = item && item.sides && typeof item.sides === 'object' ? item.sides : {};
  const name = sides[side] && typeof sides[side].name === 'string' ? sides[side].name : '';
  return name ? `Side ${side} (${name})` : `Side ${side}`;
}

// A tournament's page is "not connected" when stopped: it has no game to leave.
const STOPPED_WORDS = 'Not connected';

function announce(text) { if (text) $('announce').textContent = text; }

function message(title, ...body) {
  $('t-loading').hidden = true;
  $('t-message').hidden = false;
  $('t-message-title').textContent = title;
  replace($('t-message-body'), body);
  for (const id of ['t-you', 't-summary', 't-standings', 't-rounds', 't-dice']) $(id).hidden = true;
}

// ------------------------------------------------------------ rendering

function tableLabel(table) { return `Table ${table.table}`; }

// "Anna Lefèvre – Ben Carter".
function pairWords(view, table) { return `${playerName(view, table.a)} – ${playerName(view, table.b)}`; }

// The result's cell: the score, who won, the reason, who gave it, a correction.
function resultCell(view, table) {
  if (!table.result) {
    return h('td', { class: 'result none', 'data-label': 'Result' },
      table.status === 'ended' ? "awaits the organiser's result" : '—');
  }
  const corrected = table.corrected && typeof table.corrected === 'object' ? table.corrected : null;
  const by = table.by === 'organiser' ? 'given by the organiser' : table.by === 'umpire' ? "the umpire's result" : '';
  return h('td', { class: 'result', 'data-label': 'Result' },
    h('strong', { class: 'score', dataset: { result: String(table.result) } }, scoreWords(table.result)),
    h('span', { class: 'result-words' }, ` ${resultWords(view, table)}`),
    typeof table.reason === 'string' && table.reason ? h('span', { class: 'reason' }, table.reason) : null,
    corrected ? h('span', { class: 'corrected' }, h('strong', {}, 'Corrected by the organiser'),
      corrected.result ? `: the umpire had given ${scoreWords(corrected.result)}` : ': the umpire had given no result',
      typeof corrected.reason === 'string' && corrected.reason ? ` (${corrected.reason})` : '')
      : by ? h('span', { class: 'by' }, by) : null);
}

function linksCell(view, table, { current }) {
  const links = [];
  const live = table.status === 'playing' || table.status === 'waiting';
  const label = `${tableLabel(table)}, ${pairWords(view, table)}`;
  if (typeof table.game === 'string' && typeof table.spectator === 'string' && table.spectator) {
    links.push(h('a', { href: gameLink(table.game, table.spectator), class: 'watch', dataset: { game: table.game } },
      live ? 'Watch' : 'See the game', h('span', { class: 'visually-hidden' }, `: ${label}`)));
  }
  if (current && live) {
    links.push(h('a', { href: overlayLink(view.id, table.table), class: 'overlay', target: '_blank', rel: 'noopener' },
      'Overlay', h('span', { class: 'visually-hidden' }, ` for streaming ${label} (follows table ${table.table} from round to round; opens a new tab)`)));
  }
  if (table.status === 'ended' && typeof table.export === 'string' && table.export) {
    links.push(h('a', { href: table.export, class: 'download', download: '' },
      'Download the game', h('span', { class: 'visually-hidden' }, `: ${label}`)));
  }
  return h('td', { class: 'links', 'data-label': 'Follow' },
    links.length ? h('span', { class: 'link-row' }, links) : '—',
    table.status === 'ended' && table.export ? h('span', { class: 'hint verify' }, 'Check the dice: ', h('code', {}, 'brigade verify FILE')) : null);
}

function renderRound(view, round, { current, highlight }) {
  const tables = round.tables.filter((table) => table && Number.isSafeInteger(table.table));
  const title = `Round ${round.round}`;
  const id = `round-${round.round}`;
  const bye = Number.isSafeInteger(round.bye) ? round.bye : null;
  const done = tables.filter((table) => table.result).length;
  return h('section', { class: `panel t-round${current ? ' current' : ''}`, id, 'aria-labelledby': `${id}-title`,
    dataset: { round: String(round.round) } },
  h('h3', { id: `${id}-title` }, h('span', {}, title), h('span', { class: 'round-scenario' }, scenarioTitle(round.scenario)),
    current ? h('span', { class: 'chip now' }, view.round_over ? 'last played' : 'under way') : null),
  h('p', { class: 'hint' }, `${done} of ${tables.length} result${tables.length === 1 ? '' : 's'} in.`,
    round.scenario && scenarioTitle(round.scenario) !== round.scenario ? ` Scenario file ${round.scenario}.` : ''),
  h('div', { class: 'table-scroll pairings-wrap' },
    h('table', { class: 't-table pairings', id: `${id}-pairings` },
      h('caption', { class: 'visually-hidden' }, `${title} pairings`),
      h('thead', {}, h('tr', {},
        h('th', { scope: 'col' }, 'Table'),
        h('th', { scope: 'col' }, sideWords(round.scenario, 'A')),
        h('th', { scope: 'col' }, sideWords(round.scenario, 'B')),
        h('th', { scope: 'col' }, 'Status'),
        h('th', { scope: 'col' }, 'Result'),
        h('th', { scope: 'col' }, 'Follow'))),
      h('tbody', {}, tables.map((table) => h('tr', {
        class: `table-row row-${String(table.status)}${highlight.has(table.game) ? ' yours' : ''}`,
        dataset: { table: String(table.table), game: String(table.game || ''), status: String(table.status || ''), result: String(table.result || '') },
      },
      h('th', { scope: 'row', class: 'table-number', 'data-label': 'Table' }, String(table.table),
        table.umpire ? h('span', { class: 'hint table-umpire' }, `umpire ${table.umpire}`) : null),
      h('td', { class: 'player seat-A', 'data-label': sideWords(round.scenario, 'A') }, playerName(view, table.a)),
      h('td', { class: 'player seat-B', 'data-label': sideWords(round.scenario, 'B') }, playerName(view, table.b)),
      h('td', { class: `table-status status-${String(table.status)}`, 'data-label': 'Status' }, statusWords(table)),
      resultCell(view, table),
      linksCell(view, table, { current })))))),
  bye !== null ? h('p', { class: 'bye' }, h('strong', {}, 'Bye: '), `${playerName(view, bye)} sits this round out (a win's point).`) : null);
}

function renderStandings(view) {
  const rows = (Array.isArray(view.standings) ? view.standings : []).filter((row) => row && typeof row === 'object');
  const after = view.round > 0 ? `after round ${view.round}${view.round_over ? '' : ' (results so far)'}` : 'before the first round';
  replace($('t-standings-table'),
    h('caption', {}, `Standings ${after}`),
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col', class: 'num' }, 'Rank'),
      h('th', { scope: 'col' }, 'Player'),
      h('th', { scope: 'col', class: 'num' }, 'Points'),
      h('th', { scope: 'col', class: 'num' }, 'Buchholz', h('span', { class: 'th-note' }, "opponents' points")),
      h('th', { scope: 'col', class: 'num' }, 'Sonneborn–Berger', h('span', { class: 'th-note' }, 'beaten, ½ drawn')),
      h('th', { scope: 'col', class: 'num' }, 'Won', h('span', { class: 'th-note' }, '/ drawn / lost')),
      h('th', { scope: 'col', class: 'num' }, 'Byes'))),
    h('tbody', {}, rows.map((row) => h('tr', { class: row.rank === 1 && row.half_points > 0 ? 'leader' : null, dataset: { player: String(row.player), rank: String(row.rank) } },
      h('td', { class: 'num rank' }, String(row.rank)),
      h('th', { scope: 'row', class: 'name' }, playerName(view, row.player),
        // On a phone the tie-break columns fold into this line.
        h('span', { class: 'standing-more' },
          `Buchholz ${halfPoints(row.buchholz)} · Sonneborn–Berger ${quarterPoints(row.sonneborn_berger)} · `,
          `won ${row.wins}, drawn ${row.draws}, lost ${row.losses}${row.byes ? `, ${row.byes} bye${row.byes === 1 ? '' : 's'}` : ''}`)),
      h('td', { class: 'num points' }, typeof row.points === 'string' && row.points ? row.points : halfPoints(row.half_points)),
      h('td', { class: 'num buchholz' }, halfPoints(row.buchholz)),
      h('td', { class: 'num sonneborn' }, quarterPoints(row.sonneborn_berger)),
      h('td', { class: 'num wdl' }, `${row.wins} / ${row.draws} / ${row.losses}`),
      h('td', { class: 'num byes' }, String(row.byes))))));
}

// The panel of a personal link: whose it is, and what to open.
function renderYou(view, you, token) {
  const root = $('t-you');
  if (!you) { root.hidden = true; return new Set(); }
  root.hidden = false;
  const rounds = roundsOf(view);
  const current = rounds.length ? rounds[rounds.length - 1] : null;
  const tables = current ? current.tables : [];
  const name = typeof you.name === 'string' ? you.name : '';
  const mine = new Set();
  if (you.role === 'player') {
    const index = (Array.isArray(view.players) ? view.players : []).indexOf(name);
    const table = tables.find((item) => item && (item.a === index || item.b === index)) || null;
    const seat = table ? (table.a === index ? 'A' : 'B') : null;
    let body;
    if (table && typeof you.game === 'string' && you.game && table.game === you.game) {
      mine.add(table.game);
      const opponent = playerName(view, seat === 'A' ? table.b : table.a);
      body = [
        h('a', { href: gameLink(table.game, token), id: 't-play', class: 'play-button', dataset: { game: table.game, seat } },
          h('span', { class: 'play-what' }, `Your game: ${tableLabel(table)} vs ${opponent}, you play ${sideWords(current.scenario, seat)}`),
          h('span', { class: 'play-go' }, 'Play')),
        h('p', { class: 'hint' }, `Round ${current.round}, ${scenarioTitle(current.scenario)}. `,
          table.status === 'waiting' ? 'The battle begins once you have both joined. ' : '',
          'This link is yours alone: the same link joins your game in every round.'),
      ];
    } else if (table) {
      mine.add(table.game);
      body = [h('p', { id: 't-you-done', class: 'you-done' },
        `Your game of round ${current.round} (${tableLabel(table)} vs ${playerName(view, seat === 'A' ? table.b : table.a)}) has ended`,
        table.result ? `: ${scoreWords(table.result)}, ${resultWords(view, table)}.` : '; its result is awaited.',
        view.round < view.rounds ? ' Your next game shows here when the organiser starts the next round.' : '')];
    } else if (current && current.bye === index) {
      body = [h('p', { id: 't-you-bye', class: 'you-done' }, `You have the bye in round ${current.round}: you sit it out, and it counts as a win.`)];
    } else {
      body = [h('p', { id: 't-you-wait', class: 'you-done' }, view.round === 0
        ? 'The first round has not begun: your game shows here when the organiser starts it. Keep this page open, it updates by itself.'
        : 'No game of yours now: your next one shows here when the organiser starts the next round.')];
    }
    replace(root, h('h2', { id: 't-you-title' }, `${name}, player`), body);
    return mine;
  }
  // An umpire's tables, or the organiser's (the tables with no umpire named).
  const own = tables.filter((table) => table && (you.role === 'umpire' ? table.umpire === name : !table.umpire));
  for (const table of own) mine.add(table.game);
  const first = typeof you.game === 'string' ? you.game : '';
  const role = you.role === 'organiser' ? 'organiser' : 'umpire';
  replace(root,
    h('h2', { id: 't-you-title' }, `${name || 'You'}, ${role}`),
    you.role === 'organiser' ? h('p', { class: 'hint' }, 'You start the rounds and may correct any result (brigade tournament). ',
      own.length ? 'You umpire the tables below, which have no umpire of their own.' : '') : null,
    own.length ? h('ul', { class: 'umpire-tables', id: 't-umpire-tables' }, own.map((table) => h('li', { dataset: { table: String(table.table) } },
      h('a', { href: gameLink(table.game, token), class: table.game === first ? 'play-button' : 'umpire-link', dataset: { game: table.game } },
        `Umpire ${tableLabel(table)}: ${pairWords(view, table)}`),
      ` — ${statusWords(table)}${table.result ? `, ${scoreWords(table.result)}` : ''}`)))
      : h('p', { class: 'you-done' }, current ? `No table of round ${current.round} is yours to umpire.` : 'The first round has not begun: your tables show here once it has.'));
  return mine;
}

// What changed since the last view, for the live region.
function changes(before, view) {
  if (!before) return '';
  const said = [];
  const oldRounds = roundsOf(before);
  const rounds = roundsOf(view);
  if (rounds.length > oldRounds.length) {
    const round = rounds[rounds.length - 1];
    said.push(`Round ${round.round} has begun: ${round.tables.length} table${round.tables.length === 1 ? '' : 's'}.`);
  }
  for (const round of rounds.slice(0, oldRounds.length)) {
    const old = oldRounds.find((item) => item.round === round.round);
    for (const table of round.tables) {
      const was = old && old.tables.find((item) => item.table === table.table);
      if (!was) continue;
      const who = `${tableLabel(table)}, ${pairWords(view, table)}`;
      if (table.result && (table.result !== was.result || table.reason !== was.reason)) {
        said.push(`${who}: ${scoreWords(table.result)}, ${resultWords(view, table)}${table.corrected ? ' (corrected by the organiser)' : ''}.`);
      } else if (table.status !== was.status) {
        said.push(`${who}: ${statusWords(table)}.`);
      }
    }
  }
  return said.join(' ');
}

function render(view, you, token, before) {
  $('t-loading').hidden = true;
  $('t-message').hidden = true;
  const name = typeof view.name === 'string' && view.name ? view.name : 'Tournament';
  $('t-name').textContent = name;
  document.title = `${name} — Brigade tournament`;
  $('t-summary').hidden = false;
  $('t-format').textContent = formatWords(view);
  $('t-round').textContent = roundWords(view);
  $('t-clock').textContent = timeControlWords(view.time_control);
  const players = Array.isArray(view.players) ? view.players : [];
  const umpires = Array.isArray(view.umpires) ? view.umpires : [];
  $('t-players').textContent = String(players.length);
  $('t-umpires').textContent = umpires.length ? umpires.join(', ') : 'the organiser umpires every table';
  const delay = Number.isSafeInteger(view.spectator_delay) ? view.spectator_delay : 0;
  $('t-delay').textContent = delay ? `see the games ${delay} phase change${delay === 1 ? '' : 's'} late` : 'see the games live';
  const mine = renderYou(view, you, token);
  $('t-standings').hidden = false;
  renderStandings(view);
  const rounds = roundsOf(view);
  $('t-rounds').hidden = rounds.length === 0;
  // The round under way first, then the earlier ones, newest first.
  replace($('t-rounds-list'), rounds.slice().reverse().map((round, index) =>
    renderRound(view, round, { current: index === 0, highlight: mine })));
  $('t-dice').hidden = !rounds.some((round) => round.tables.some((table) => table.status === 'ended'));
  $('t-updated').textContent = `Updated ${new Date().toLocaleTimeString()}`;
  announce(changes(before, view));
}

// ------------------------------------------------------------- the page

function watch(id, token) {
  let view = null;
  let countdown = null;
  const pill = $('connection');
  const session = new TournamentWatch({
    url: serverUrl(),
    tournament: id,
    token,
    onConnection: (status, detail) => {
      pill.dataset.status = status;
      pill.textContent = connectionWords(status, detail, STOPPED_WORDS);
      clearInterval(countdown);
      const waiting = status === 'reconnecting' && detail && detail.delay > 0;
      $('retry-now').hidden = !waiting;
      document.body.classList.toggle('offline', status !== 'live');
      if (waiting) {
        pill.setAttribute('aria-live', 'off');
        announce(`Connection lost. ${connectionWords(status, detail, STOPPED_WORDS)} Or press Retry now.`);
        countdown = setInterval(() => { pill.textContent = connectionWords(status, detail, STOPPED_WORDS); }, 1000);
      } else {
        pill.removeAttribute('aria-live');
      }
      if (status !== 'stopped') return;
      const code = detail.code || '';
      if (code === 'bad_token' && token) {
        // The personal link's token is none of this tournament's: the
        // public view still shows, and the page says so.
        store(TOKEN_KEY(id), '');
        $('t-notice').hidden = false;
        $('t-notice').textContent = 'The personal link you opened is not one of this tournament\'s (its token is refused): '
          + 'this is the public page. Open your own link again, or ask the organiser.';
        watch(id, '');
        return;
      }
      if (code === 'unknown_game' || code === 'unknown_tournament' || (code === 'bad_message' && !view)) {
        message('No such tournament', h('p', {}, `This server has no tournament with the id ${id}. Check the address you were given: `,
          'it ends with ', h('code', {}, '#t='), ' and the tournament\'s id.'),
        h('p', { class: 'hint' }, `The server says: ${detail.message || errorWords(code)} [${code}]`));
      } else if (code === 'unknown_type') {
        message('This server runs no tournaments', h('p', {}, 'It is older than this page: ask its operator to update brigaded.'));
      } else {
        message('Not connected to the tournament', h('p', { class: 'error' },
          `${detail.message || errorWords(code)} (${errorWords(code)}) [${code}]`), h('p', {}, h('a', { href: window.location.href }, 'Try again')));
      }
    },
    onView: (next, you) => {
      const before = view;
      view = next;
      render(view, you, token, before);
    },
  });
  $('retry-now').onclick = () => { $('retry-now').hidden = true; pill.focus(); session.reconnectNow(); };
  pill.dataset.status = 'connecting';
  pill.textContent = connectionWords('connecting');
  $('t-loading').hidden = false;
  session.start();
  return session;
}

async function main() {
  window.addEventListener('hashchange', () => window.location.reload());
  const { id, token } = readLink();
  if (!id || !TOURNAMENT_ID.test(id)) {
    $('connection').textContent = 'Not connected';
    message(id ? 'That is not a tournament\'s address' : 'No tournament in the address',
      h('p', {}, 'A tournament\'s page has its id at the end of its address: ',
        h('code', {}, '/tournament.html#t=ID'), '. The organiser gives it out (brigade tournament), with a personal link to each player and umpire.'),
      h('p', {}, h('a', { href: '/' }, 'Brigade\'s start page'), ' joins or creates a single game.'));
    return;
  }
  await loadScenarios();
  watch(id, token);
}

main();
