// tests/browser/wire_test.mjs: the web client's wire layer under node's test
// runner (ctest: browser_wire): deltas applied all or nothing
// (PROTOCOL.md §7.2), the snapshot hash of §8's test vector, and a Session
// against a fake websocket: welcome, deltas in seq order, a seq gap or a
// delta that does not apply => a fresh join on a new connection, a dropped
// connection => reconnection with backoff and last_seq, `resumed` => the
// action in flight sent again with its request id, `welcome` => reported
// lost, a refused join => stopped; a spectator's password in its join, a
// delayed spectator's deltas whose seq skips (§6.5), the watchers count; the
// players' words of names.js for roll names, melee ids and error codes; a
// game's clock_now (§11.2), a watched tournament (§11.4: its get, views,
// reconnection, a refused token) and tournament-words.js; `moved` (§6.4):
// the same join, create, tournament request or get at the url, reconnections
// there, at most 5 in a row, a moved without a usable url; the house rules
// (rules.js): a ruleset file put into the scenario as its `ruleset`, a bad
// one refused, and the snapshot's rules that differ (§7.1 state.ruleset).
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { test } from 'node:test';
import { decode, encode } from '../../client-web/vendor/msgpack/index.mjs';
import { DeltaError, applyOps, canonical, snapshotHash } from '../../client-web/delta.js';
import { errorWords, meleeWords, rollWords } from '../../client-web/names.js';
import { rulesDiffers, RulesetError, withRuleset } from '../../client-web/rules.js';

if (!globalThis.crypto) globalThis.crypto = webcrypto; // node 18

test('set and remove in maps and arrays', () => {
  const state = { turn: 1, units: { a: { figures: 8 } }, log: [{ n: 0 }] };
  const next = applyOps(state, [
    { op: 'set', path: ['units', 'a', 'figures'], value: 5 },
    { op: 'set', path: ['units', 'b'], value: { figures: 3 } },
    { op: 'set', path: ['log', 1], value: { n: 1 } },
    { op: 'set', path: ['log', 0, 'n'], value: 9 },
    { op: 'remove', path: ['units', 'b'] },
    { op: 'set', path: ['log', 2], value: 2 },
    { op: 'remove', path: ['log', 2] },
    { op: 'set', path: ['turn'], value: 2, extra: 'ignored' },
  ]);
  assert.deepEqual(next, { turn: 2, units: { a: { figures: 5 } }, log: [{ n: 9 }, { n: 1 }] });
  assert.deepEqual(state, { turn: 1, units: { a: { figures: 8 } }, log: [{ n: 0 }] }, 'the old state is kept');
});

test('the example delta of §7.2', () => {
  const state = { units: { hussars: { figures: 12, formed: true } }, log: new Array(41).fill({}) };
  const next = applyOps(state, [
    { op: 'set', path: ['units', 'hussars', 'figures'], value: 9 },
    { op: 'set', path: ['units', 'hussars', 'formed'], value: false },
    { op: 'set', path: ['log', 41], value: { turn: 2, phase: 'melee', kind: 'roll', text: '…' } },
  ]);
  assert.equal(next.units.hussars.figures, 9);
  assert.equal(next.log.length, 42);
});

test('every error of §7.2 refuses the whole delta', () => {
  const state = { a: { b: 1 }, list: [1, 2, 3], n: 4 };
  const bad = [
    [{ op: 'set', path: ['missing', 'x'], value: 1 }],
    [{ op: 'set', path: ['list', 4], value: 1 }],
    [{ op: 'set', path: ['list', '0'], value: 1 }],
    [{ op: 'set', path: ['a', 0], value: 1 }],
    [{ op: 'set', path: ['n', 'x'], value: 1 }],
    [{ op: 'remove', path: ['list', 0] }],
    [{ op: 'remove', path: ['a', 'c'] }],
    [{ op: 'set', path: ['a', 'c'] }],
    [{ op: 'move', path: ['a'] }],
    [{ op: 'set', path: [], value: 1 }],
    [{ op: 'set', path: ['__proto__'], value: { polluted: true } }],
    [{ op: 'set', path: ['a', 'b'], value: 2 }, { op: 'remove', path: ['list', 1] }],
  ];
  for (const ops of bad) {
    assert.throws(() => applyOps(state, ops), DeltaError, JSON.stringify(ops));
  }
  assert.deepEqual(state, { a: { b: 1 }, list: [1, 2, 3], n: 4 });
  assert.equal({}.polluted, undefined);
});

test('the snapshot hash test vector of §8', async () => {
  const state = { turn: 1, game: 'g1', phase: 'charge', awaiting: ['A'],
    sides: { B: { done: false }, A: { done: true } }, phasing: null, score: -40 };
  assert.equal(Buffer.from(canonical(state)).toString('hex'),
    '87a8617761697469' + '6e6791a141a46761' + '6d65a26731a57068' + '617365a663686172' + '6765a7706861736' +
    '96e67c0a573636f' + '7265d0d8a5736964' + '657382a14181a464' + '6f6e65c3a14281a4' + '646f6e65c2a47475' + '726e01');
  assert.equal(await snapshotHash(state), '2aaa2a31828c2619d0ab3d49aa08ec047fbc7297b5683a67cadb3c1ad2133776');
});

// ------------------------------------------------------- Session, faked

class FakeSocket {
  static all = [];
  constructor(url, protocols) {
    this.url = url;
    this.protocols = protocols;
    this.protocol = '';
    this.sent = [];
    this.closedWith = null;
    FakeSocket.all.push(this);
  }
  open(protocol = 'brigade.v1') { this.protocol = protocol; this.onopen(); }
  send(bytes) { this.sent.push(decode(bytes)); }
  receive(message) { this.onmessage({ data: encode(message).slice().buffer }); }
  close(code) { this.closedWith = code; }
  drop() { this.onclose({ code: 1006 }); }
}

globalThis.WebSocket = FakeSocket;
globalThis.window = { addEventListener() {}, removeEventListener() {} };
const { Session } = await import('../../client-web/wire.js');

function session() {
  FakeSocket.all = [];
  const seen = { states: [], statuses: [] };
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken',
    onState: (state, info) => seen.states.push([state, info]),
    onConnection: (status) => seen.statuses.push(status) });
  s.start();
  return { s, seen };
}

const STATE = { game: 'g1', turn: 1, units: { a: { figures: 8 } }, log: [] };

function welcome(socket, seq, state = STATE) {
  socket.open();
  const join = socket.sent.at(-1);
  socket.receive({ type: 'welcome', request: join.request, game: 'g1', seat: 'A', seq, state });
  return join;
}

test('a session joins, applies deltas in order and re-joins on a seq gap', () => {
  const { s, seen } = session();
  const join = welcome(FakeSocket.all[0], 7);
  assert.deepEqual(FakeSocket.all[0].protocols, ['brigade.v1']);
  assert.equal(join.type, 'join');
  assert.equal(join.token, 't0ken');
  assert.equal(join.last_seq, undefined);
  assert.equal(s.status, 'live');
  FakeSocket.all[0].receive({ type: 'delta', game: 'g1', seq: 8, ops: [{ op: 'set', path: ['turn'], value: 2 }] });
  assert.equal(s.seq, 8);
  assert.equal(s.state.turn, 2);
  FakeSocket.all[0].receive({ type: 'delta', game: 'g1', seq: 10, ops: [] });
  assert.equal(FakeSocket.all.length, 2, 'a new connection after the gap');
  assert.equal(FakeSocket.all[0].closedWith, 1000);
  const again = welcome(FakeSocket.all[1], 10, { ...STATE, turn: 3 });
  assert.equal(again.last_seq, undefined, 'out of date: a fresh snapshot, not a resume');
  assert.equal(s.state.turn, 3);
  assert.equal(seen.states.length, 3);
  s.stop();
});

test('a delta that does not apply keeps the state and re-joins', () => {
  const { s } = session();
  welcome(FakeSocket.all[0], 1);
  FakeSocket.all[0].receive({ type: 'delta', game: 'g1', seq: 2, ops: [{ op: 'remove', path: ['nothing'] }] });
  assert.equal(FakeSocket.all.length, 2);
  s.stop();
});

test('a dropped connection reconnects with backoff and last_seq, and resumes', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { s, seen } = session();
  welcome(FakeSocket.all[0], 4);
  const answer = s.act({ kind: 'done' });
  const act = FakeSocket.all[0].sent.at(-1);
  assert.deepEqual(act.action, { kind: 'done' });
  FakeSocket.all[0].drop();
  assert.equal(s.status, 'reconnecting');
  assert.equal(FakeSocket.all.length, 1, 'waits before reconnecting');
  t.mock.timers.tick(1000);
  assert.equal(FakeSocket.all.length, 2);
  const socket = FakeSocket.all[1];
  socket.open();
  const join = socket.sent.at(-1);
  assert.equal(join.last_seq, 4, 'resumes from its seq');
  socket.receive({ type: 'resumed', request: join.request, game: 'g1', seat: 'A', from: 4, seq: 5 });
  assert.deepEqual(seen.statuses.slice(-2), ['reconnecting', 'live']);
  // The action in flight goes again, under the same request id.
  assert.deepEqual(socket.sent.at(-1), act);
  socket.receive({ type: 'delta', game: 'g1', seq: 5, ops: [{ op: 'set', path: ['turn'], value: 5 }] });
  socket.receive({ type: 'ack', request: act.request, seq: 5 });
  assert.deepEqual(await answer, { ok: true, seq: 5 });
  assert.equal(s.state.turn, 5);
  assert.equal(seen.states.length, 2, 'no new snapshot: the delta applied to the state held');
  s.stop();
});

test('unavailable is not a refusal: the same request goes again after 1 s (PROTOCOL.md §6.4)', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { s } = session();
  welcome(FakeSocket.all[0], 4);
  const answer = s.act({ kind: 'done' });
  const socket = FakeSocket.all[0];
  const act = socket.sent.at(-1);
  socket.receive({ type: 'error', request: act.request, code: 'unavailable', message: 'the journal is busy' });
  const sentBefore = socket.sent.length;
  t.mock.timers.tick(999);
  assert.equal(socket.sent.length, sentBefore, 'not before the second');
  t.mock.timers.tick(1);
  assert.equal(socket.sent.length, sentBefore + 1);
  assert.deepEqual(socket.sent.at(-1), act, 'the same request id and action');
  socket.receive({ type: 'ack', request: act.request, seq: 5 });
  assert.deepEqual(await answer, { ok: true, seq: 5 });
  s.stop();
});

test('no answer in 15 s is not a refusal: it reconnects and sends the same request again', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { s } = session();
  welcome(FakeSocket.all[0], 4);
  let settled = false;
  const answer = s.act({ kind: 'done' }).then((result) => { settled = true; return result; });
  const act = FakeSocket.all[0].sent.at(-1);
  t.mock.timers.tick(15000); // a frozen server: no ack, no error
  await Promise.resolve();
  assert.equal(settled, false, 'the action is neither refused nor lost yet');
  assert.equal(s.status, 'reconnecting');
  t.mock.timers.tick(1000);
  const socket = FakeSocket.all[1];
  socket.open();
  const join = socket.sent.at(-1);
  assert.equal(join.last_seq, 4);
  socket.receive({ type: 'resumed', request: join.request, game: 'g1', seat: 'A', from: 4, seq: 5 });
  // Sent again under its first request id: the server answers it once (§4.1).
  assert.deepEqual(socket.sent.at(-1), act);
  socket.receive({ type: 'delta', game: 'g1', seq: 5, ops: [{ op: 'set', path: ['turn'], value: 5 }] });
  socket.receive({ type: 'ack', request: act.request, seq: 5 });
  assert.deepEqual(await answer, { ok: true, seq: 5 });
  s.stop();
});

test('a whole snapshot after a drop reports the action in flight as lost', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { s } = session();
  welcome(FakeSocket.all[0], 4);
  const answer = s.act({ kind: 'done' });
  FakeSocket.all[0].drop();
  t.mock.timers.tick(1000);
  welcome(FakeSocket.all[1], 9);
  assert.equal((await answer).code, 'connection_lost');
  assert.equal(s.seq, 9);
  s.stop();
});

test('a server that comes back behind the seq seen is reported; a later one is not', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  FakeSocket.all = [];
  const behind = [];
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken', onState() {}, onConnection() {},
    onBehind: (now, seen) => behind.push([now, seen]) });
  s.start();
  welcome(FakeSocket.all[0], 9);
  FakeSocket.all[0].drop();
  t.mock.timers.tick(1000);
  welcome(FakeSocket.all[1], 6); // a journal restored from an older copy
  assert.deepEqual(behind, [[6, 9]]);
  assert.equal(s.seq, 6);
  FakeSocket.all[1].drop();
  t.mock.timers.tick(1000);
  welcome(FakeSocket.all[2], 8);
  assert.deepEqual(behind, [[6, 9]], 'a server ahead is no news');
  s.stop();
});

test('a resume from another seq than the one held joins afresh', () => {
  const { s } = session();
  welcome(FakeSocket.all[0], 4);
  FakeSocket.all[0].drop();
  s.reconnectNow();
  FakeSocket.all[1].open();
  FakeSocket.all[1].receive({ type: 'resumed', request: FakeSocket.all[1].sent.at(-1).request, game: 'g1', seat: 'A', from: 3, seq: 5 });
  assert.equal(FakeSocket.all.length, 3);
  FakeSocket.all[2].open();
  assert.equal(FakeSocket.all[2].sent.at(-1).last_seq, undefined);
  s.stop();
});

test('acts get their answers; a refused join stops', async () => {
  const { s } = session();
  welcome(FakeSocket.all[0], 1);
  const ok = s.act({ kind: 'done' });
  FakeSocket.all[0].receive({ type: 'ack', request: FakeSocket.all[0].sent.at(-1).request, seq: 2 });
  assert.deepEqual(await ok, { ok: true, seq: 2 });
  const refused = s.act({ kind: 'done' });
  FakeSocket.all[0].receive({ type: 'error', request: FakeSocket.all[0].sent.at(-1).request,
    code: 'wrong_phase', message: 'done has no place here' });
  assert.deepEqual(await refused, { ok: false, code: 'wrong_phase', message: 'done has no place here' });
  s.stop();

  const second = session();
  FakeSocket.all[0].open();
  FakeSocket.all[0].receive({ type: 'error', request: FakeSocket.all[0].sent.at(-1).request,
    code: 'bad_token', message: 'no seat has this token' });
  assert.equal(second.s.status, 'stopped');
  assert.equal(FakeSocket.all.length, 1, 'no retry after bad_token');
});

test('a server that does not speak brigade.v1 is refused', () => {
  const { s } = session();
  FakeSocket.all[0].open('');
  assert.equal(s.status, 'stopped');
  assert.equal(FakeSocket.all[0].sent.length, 0, 'nothing is sent, the token least of all');
});

test('a spectator joins with its password; a delayed view takes deltas whose seq skips', () => {
  FakeSocket.all = [];
  const states = [];
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 'spectator-id', password: 'sesame',
    onState: (state, info) => states.push([state, info]) });
  s.start();
  const socket = FakeSocket.all[0];
  socket.open();
  const join = socket.sent.at(-1);
  assert.equal(join.password, 'sesame');
  socket.receive({ type: 'welcome', request: join.request, game: 'g1', seat: 'spectator', seq: 3, state: STATE, spectator_delay: 2 });
  assert.equal(s.seat, 'spectator');
  assert.equal(s.spectatorDelay, 2);
  // One delta per phase change of the game (§6.5): its seq skips, never back.
  socket.receive({ type: 'delta', game: 'g1', seq: 9, ops: [{ op: 'set', path: ['turn'], value: 2 }] });
  assert.equal(s.seq, 9);
  assert.equal(states.at(-1)[0].turn, 2);
  assert.equal(FakeSocket.all.length, 1, 'no re-join on a delayed view\'s skip');
  socket.receive({ type: 'delta', game: 'g1', seq: 9, ops: [] });
  assert.equal(FakeSocket.all.length, 2, 'a seq that does not move forward is out of date');
  s.stop();
});

test('a live spectator re-joins on a gap; a player hears how many watch', () => {
  FakeSocket.all = [];
  const counts = [];
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken', onWatchers: (count) => counts.push(count) });
  s.start();
  const socket = FakeSocket.all[0];
  socket.open();
  const join = socket.sent.at(-1);
  assert.equal(join.password, undefined, 'no password when none was given');
  socket.receive({ type: 'welcome', request: join.request, game: 'g1', seat: 'A', seq: 3, state: STATE, watchers: 2 });
  socket.receive({ type: 'watchers', game: 'g1', count: 3 });
  assert.deepEqual(counts, [2, 3]);
  assert.equal(s.watchers, 3);
  s.stop();

  FakeSocket.all = [];
  const live = new Session({ url: 'ws://test/', game: 'g1', token: 'spectator-id' });
  live.start();
  FakeSocket.all[0].open();
  FakeSocket.all[0].receive({ type: 'welcome', request: FakeSocket.all[0].sent.at(-1).request, game: 'g1', seat: 'spectator', seq: 3, state: STATE });
  FakeSocket.all[0].receive({ type: 'delta', game: 'g1', seq: 5, ops: [] });
  assert.equal(FakeSocket.all.length, 2, 'a live spectator treats a gap as missed deltas');
  live.stop();
});

test('a wait to reconnect says when it ends; reconnectNow goes at once, and does nothing while live', () => {
  FakeSocket.all = [];
  const details = [];
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken', onState() {},
    onConnection: (status, detail) => details.push([status, detail]) });
  s.start();
  welcome(FakeSocket.all[0], 3);
  s.reconnectNow();
  assert.equal(FakeSocket.all.length, 1, 'live: Retry now opens no connection');
  const before = Date.now();
  FakeSocket.all[0].drop();
  const [status, detail] = details.at(-1);
  assert.equal(status, 'reconnecting');
  assert.ok(detail.delay > 0 && detail.at >= before + detail.delay && detail.at <= Date.now() + detail.delay,
    `the attempt's time: ${JSON.stringify(detail)}`);
  s.reconnectNow();
  assert.equal(FakeSocket.all.length, 2, 'Retry now connects at once');
  assert.deepEqual(details.at(-1)[0], 'reconnecting');
  assert.equal(details.at(-1)[1].delay, undefined, 'no countdown while the attempt runs');
  s.stop();
});

test('presence (§6.8): the seats joined, a malformed one ignored, unknown while not live; the header\'s words', async () => {
  FakeSocket.all = [];
  const told = [];
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken', onPresence: (seats) => told.push(seats) });
  s.start();
  welcome(FakeSocket.all[0], 3);
  FakeSocket.all[0].receive({ type: 'presence', game: 'g1', seats: { A: 1, B: 0, umpire: 0 } });
  FakeSocket.all[0].receive({ type: 'presence', game: 'g1', seats: { A: 1, B: -1, umpire: 0 } }); // malformed
  FakeSocket.all[0].receive({ type: 'presence', game: 'g2', seats: { A: 1, B: 1, umpire: 1 } }); // another game
  FakeSocket.all[0].receive({ type: 'presence', game: 'g1', seats: { A: 2, B: 1, umpire: 0, later: 5 } });
  assert.deepEqual(told, [{ A: 1, B: 0, umpire: 0 }, { A: 2, B: 1, umpire: 0 }]);
  FakeSocket.all[0].drop();
  assert.equal(told.at(-1), null, 'a dropped page still says who is connected');
  assert.equal(s.presence, null);
  s.stop();

  const { presenceNews, presenceParts } = await import('../../client-web/presence.js');
  const state = { sides: { A: { name: 'French' }, B: { name: 'British' } }, umpire: false };
  const words = (presence, options) => presenceParts(state, presence, options).map((part) => part.text).join(' · ');
  assert.equal(words({ A: 1, B: 1, umpire: 0 }, { seat: 'A', mode: 'play', watchers: 2 }),
    'French (you) · British: connected · Umpire: not seated · 2 watching');
  assert.equal(words({ A: 2, B: 0, umpire: 0 }, { seat: 'A', mode: 'play' }),
    'French (you, open in 2 places) · British: not connected · Umpire: not seated');
  assert.equal(presenceParts({ ...state, umpire: true }, { A: 1, B: 1, umpire: 0 }, { seat: 'B', mode: 'play' })[2].text,
    'Umpire: not connected', 'a seated umpire away is not "not seated"');
  assert.equal(words({ A: 0, B: 1, umpire: 1 }, { seat: 'umpire', mode: 'umpire' }),
    'French: not connected · British: connected · Umpire (you)');
  assert.equal(words(null, { seat: 'A', mode: 'play' }), 'French (you)');
  assert.deepEqual(presenceParts(state, { A: 1, B: 1, umpire: 0 }, { seat: 'spectator', mode: 'watch' }), []);
  assert.deepEqual(presenceNews(state, { A: 1, B: 1, umpire: 0 }, { A: 1, B: 0, umpire: 0 }, { seat: 'A', mode: 'play' }),
    ['British: disconnected.']);
  assert.deepEqual(presenceNews(state, { A: 1, B: 0, umpire: 1 }, { A: 1, B: 1, umpire: 0 }, { seat: 'A', mode: 'play' }),
    ['British: connected again.', 'The umpire: disconnected.']);
  assert.deepEqual(presenceNews(state, { A: 1, B: 1, umpire: 1 }, { A: 2, B: 1, umpire: 1 }, { seat: 'A', mode: 'play' }), [],
    'a second tab of one\'s own seat is news');
  assert.deepEqual(presenceNews(state, null, { A: 1, B: 0, umpire: 0 }, { seat: 'A', mode: 'play' }), [],
    'a page joining announces who is absent');
  assert.deepEqual(presenceNews(state, { A: 1, B: 1, umpire: 1 }, { A: 0, B: 1, umpire: 1 }, { seat: 'umpire', mode: 'umpire' }),
    ['French: disconnected.']);
});

// Players' words (issue 14 point 3): roll names, melee ids and error codes
// in words (client-web/names.js), as the CLI's game_display_roll_words.
const wordsState = {
  sides: { A: { name: 'French' }, B: { name: 'British' } },
  units: { hussars: { name: '5e Hussards' }, dragoons: { name: '1st (Royal) Dragoons' }, anon: {} },
};

test('roll names in words', () => {
  const cases = [
    ['T1.initiative.A', 'Turn 1 initiative, side A (French)'],
    ['T1.initiative.B.2', 'Turn 1 initiative, side B (British), roll 2 after a tie'],
    ['T3.hussars.morale', "Turn 3, 5e Hussards' morale test"],
    ['T2.dragoons.pursuit', "Turn 2, 1st (Royal) Dragoons' pursuit test"],
    ['T2.anon.reform', "Turn 2, anon's reform test"],
    ['T1.M1.dragoons', "Turn 1, melee 1, 1st (Royal) Dragoons' dice"],
    ['T2.M1.hussars.reroll', "Turn 2, melee 1, 5e Hussards' sappers' re-roll"],
    ['T2.M4.dragoons.pursuit', "Turn 2, melee 4, 1st (Royal) Dragoons' pursuit test"],
    ['T2.M4.hussars.reform', "Turn 2, melee 4, 5e Hussards' reform test"],
    ['T2.hussars.reroll', 'T2.hussars.reroll'],
    ['T1.initiative.C', 'T1.initiative.C'],
    ['dragoons', 'dragoons'],
    ['T1.M1.a.b.c', 'T1.M1.a.b.c'],
  ];
  for (const [name, words] of cases) assert.equal(rollWords(wordsState, name), words, name);
  assert.equal(rollWords({}, 'T1.initiative.A'), 'Turn 1 initiative, side A');
  assert.equal(rollWords(null, 'T1.M2.x'), "Turn 1, melee 2, x's dice");
  assert.equal(rollWords(wordsState, undefined), '');
});

test('melee ids in words', () => {
  assert.equal(meleeWords('T1.M2'), 'melee 2 (turn 1)');
  assert.equal(meleeWords('T12.M30'), 'melee 30 (turn 12)');
  assert.equal(meleeWords('M2'), 'M2');
});

test('error codes in words, never the code', () => {
  assert.equal(errorWords('bad_token'), 'wrong password, or this link is not for this game');
  for (const code of ['bad_frame', 'too_large', 'bad_message', 'unknown_type', 'not_joined', 'unknown_game',
    'bad_token', 'wrong_seat', 'wrong_phase', 'invalid_action', 'unknown_unit', 'internal', 'read_only',
    'held', 'unavailable', 'rate_limited']) {
    const words = errorWords(code);
    assert.notEqual(words, 'refused by the server', code);
    assert.ok(!words.includes('_'), `${code}: ${words}`);
  }
  assert.equal(errorWords('no_such_code'), 'refused by the server');
});

// ------------------------------------------- tournaments and clocks (§11)

const { TournamentWatch } = await import('../../client-web/wire.js');
const words = await import('../../client-web/tournament-words.js');

test('a game with a clock: clock_now of the welcome and of each delta goes to onClock', () => {
  FakeSocket.all = [];
  const clocks = [];
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken', onClock: (now) => clocks.push(now) });
  s.start();
  const socket = FakeSocket.all[0];
  socket.open();
  const join = socket.sent.at(-1);
  socket.receive({ type: 'welcome', request: join.request, game: 'g1', seat: 'spectator', seq: 3, state: STATE, clock_now: { A: 5000, B: 7000 } });
  socket.receive({ type: 'delta', game: 'g1', seq: 4, ops: [], clock_now: { A: 4000, B: 7000 } });
  socket.receive({ type: 'delta', game: 'g1', seq: 5, ops: [] }); // no clock: nothing
  assert.deepEqual(clocks.map(({ A, B }) => [A, B]), [[5000, 7000], [4000, 7000]]);
  assert.ok(clocks.every((now) => Number.isFinite(now.at)));
  s.stop();
});

test('a watched tournament: get with watch and token, every tournament_state, reconnection, a refused token', () => {
  FakeSocket.all = [];
  const views = [];
  const statuses = [];
  const watch = new TournamentWatch({ url: 'ws://test/', tournament: 't1', token: 'secret',
    onView: (view, you, info) => views.push([view.round, you && you.role, info.request]),
    onConnection: (status, detail) => statuses.push([status, detail.code]) });
  watch.start();
  let socket = FakeSocket.all[0];
  socket.open();
  let get = socket.sent.at(-1);
  assert.deepEqual({ ...get, request: 0 }, { type: 'tournament_get', request: 0, tournament: 't1', watch: true, token: 'secret' });
  socket.receive({ type: 'tournament_state', request: get.request, tournament: { round: 1 }, you: { role: 'player', name: 'Ann' } });
  socket.receive({ type: 'tournament_state', request: 0, tournament: { round: 2 } });
  socket.receive({ type: 'tournament_state', request: get.request + 99, tournament: { round: 9 } }); // not ours
  assert.deepEqual(views, [[1, 'player', get.request], [2, null, 0]]);
  assert.equal(watch.status, 'live');
  socket.drop();
  assert.equal(watch.status, 'reconnecting');
  watch.reconnectNow();
  socket = FakeSocket.all.at(-1);
  socket.open();
  get = socket.sent.at(-1);
  assert.equal(get.type, 'tournament_get');
  socket.receive({ type: 'error', request: get.request, code: 'bad_token', message: 'not a token of this tournament' });
  assert.deepEqual(statuses.at(-1), ['stopped', 'bad_token']);
  watch.stop();
});

test("a tournament's words: points, tie-breaks, results, clocks", () => {
  assert.deepEqual([0, 1, 2, 5].map(words.halfPoints), ['0', '½', '1', '2½']);
  assert.deepEqual([0, 1, 2, 3, 7, 8].map(words.quarterPoints), ['0', '¼', '½', '¾', '1¾', '2']);
  assert.deepEqual(['A', 'B', 'draw'].map(words.scoreWords), ['1–0', '0–1', '½–½']);
  const view = { players: ['Ann', 'Ben'], rounds: 3, round: 1, round_over: false,
    pairings: [{ round: 1, tables: [{ table: 1, a: 1, b: 0, game: 'g1' }] }, { round: 2, tables: [{ table: 1, a: 0, b: 1, game: 'g2' }] }] };
  assert.equal(words.resultWords(view, view.pairings[0].tables[0], 'A'), 'Ben wins');
  assert.equal(words.latestTable(view, 1).table.game, 'g2');
  assert.equal(words.tableOfGame(view, 'g1').round.round, 1);
  assert.equal(words.roundWords(view), 'Round 1 of 3');
  assert.equal(words.roundWords({ round: 0, rounds: 3 }), 'Not begun yet: 3 rounds');
  assert.equal(words.timeControlWords({ minutes_per_side: 90, increment_seconds: 30 }), '90 minutes a side, plus 30 seconds a move');
  assert.equal(words.timeControlWords(null), 'No clock');
  assert.deepEqual([5400000, 61000, 7000, 0, 1].map(words.clockText), ['1:30:00', '1:01', '0:07', '0:00', '0:01']);
  const state = { clock: { A: 60000, B: 30000, running: ['A'], flags: [] } };
  const now = words.clocksNow(state, { A: 50000, B: 30000, at: 1000 }, 11000);
  assert.deepEqual([now.A.ms, now.A.running, now.B.ms, now.B.running], [40000, true, 30000, false]);
  const fallen = words.clocksNow({ clock: { A: 0, B: 30000, running: [], flags: ['A'] } }, null);
  assert.deepEqual([fallen.A.flag, fallen.A.ms, fallen.B.flag], [true, 0, false]);
  assert.equal(words.clocksNow({}, null), null);
});

// ------------------------------------------------- moved (PROTOCOL.md §6.4)

const { createGame, movedUrl, tournamentRequest, MOVED_MAX } = await import('../../client-web/wire.js');

// Each reconnect spelled out, tick by tick, with the url the schedule gives next.
test('moved: the same join, same request id, at the url; reconnections go there, then to the page\'s server in turn', async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  const { s, seen } = session();
  const first = FakeSocket.all[0];
  first.open();
  const join = first.sent.at(-1);
  first.receive({ type: 'error', request: join.request, code: 'moved', message: 'served by host 2', url: 'ws://host2:7682/' });
  assert.equal(FakeSocket.all.length, 2, 'a new connection at once');
  assert.equal(first.closedWith, 1000, 'the first one closed');
  const second = FakeSocket.all[1];
  assert.equal(second.url, 'ws://host2:7682/');
  second.open();
  assert.deepEqual(second.sent.at(-1), join, 'the same message, the same request id');
  second.receive({ type: 'welcome', request: join.request, game: 'g1', seat: 'A', seq: 12, state: STATE });
  assert.equal(s.status, 'live');
  assert.equal(s.seq, 12);
  assert.ok(!seen.statuses.includes('stopped'));
  // A dropped connection goes straight back to host 2, resuming.
  second.drop();
  t.mock.timers.tick(1000);
  const third = FakeSocket.all[2];
  assert.equal(third.url, 'ws://host2:7682/');
  // Host 2 is down (never opens): the next attempt is the page's server,
  // the one after host 2 again.
  third.drop();
  t.mock.timers.tick(2000);
  assert.equal(FakeSocket.all[3].url, 'ws://test/');
  FakeSocket.all[3].drop();
  t.mock.timers.tick(4000);
  assert.equal(FakeSocket.all[4].url, 'ws://host2:7682/');
  FakeSocket.all[4].drop();
  t.mock.timers.tick(7000);
  // The page's server moves it to host 2, still down: the next attempt is
  // host 2 again (this attempt began at the page's server), then in turn.
  const viaOrigin = FakeSocket.all[5];
  assert.equal(viaOrigin.url, 'ws://test/');
  viaOrigin.open();
  const again = viaOrigin.sent.at(-1);
  viaOrigin.receive({ type: 'error', request: again.request, code: 'moved', message: 'served by host 2', url: 'ws://host2:7682/' });
  assert.equal(FakeSocket.all[6].url, 'ws://host2:7682/');
  FakeSocket.all[6].drop();
  t.mock.timers.tick(7000);
  assert.equal(FakeSocket.all[7].url, 'ws://host2:7682/');
  FakeSocket.all[7].drop();
  t.mock.timers.tick(7000);
  assert.equal(FakeSocket.all[8].url, 'ws://test/');
  FakeSocket.all[8].drop();
  t.mock.timers.tick(7000);
  const back = FakeSocket.all[9];
  assert.equal(back.url, 'ws://host2:7682/');
  back.open();
  const rejoin = back.sent.at(-1);
  assert.equal(rejoin.last_seq, 12);
  assert.notEqual(rejoin.request, join.request, 'a new join after a drop: a new request');
  s.stop();
});

test(`moved: at most ${MOVED_MAX} in a row, then stopped with the last message`, () => {
  const statuses = [];
  FakeSocket.all = [];
  const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken',
    onConnection: (status, detail) => statuses.push([status, detail.code, detail.message]) });
  s.start();
  let request = 0;
  for (let i = 0; i <= MOVED_MAX; i++) {
    const socket = FakeSocket.all[i];
    assert.ok(socket, `connection ${i + 1}`);
    socket.open();
    const join = socket.sent.at(-1);
    if (i === 0) request = join.request;
    assert.equal(join.request, request, 'the same request id every time');
    socket.receive({ type: 'error', request, code: 'moved', message: `try host ${i + 2}`, url: 'ws://test/' });
  }
  assert.equal(FakeSocket.all.length, MOVED_MAX + 1, 'five moves followed, the sixth not');
  assert.equal(s.status, 'stopped');
  const [status, code, message] = statuses.at(-1);
  assert.equal(status, 'stopped');
  assert.equal(code, 'moved');
  assert.match(message, /5 times in a row/);
  assert.match(message, /try host 7$/);
  assert.equal(errorWords('moved'), 'the servers could not say where this is served');
});

test('moved without a usable url: stopped, no connection made', () => {
  for (const url of [undefined, 'http://host2/', 'ws://', 'ws:///x', 'ws://a b/', 42, 'ws://' + 'h'.repeat(300)]) {
    const statuses = [];
    FakeSocket.all = [];
    const s = new Session({ url: 'ws://test/', game: 'g1', token: 't0ken',
      onConnection: (status, detail) => statuses.push([status, detail.code, detail.message]) });
    s.start();
    FakeSocket.all[0].open();
    const join = FakeSocket.all[0].sent.at(-1);
    const error = { type: 'error', request: join.request, code: 'moved', message: 'elsewhere' };
    if (url !== undefined) error.url = url;
    FakeSocket.all[0].receive(error);
    assert.equal(FakeSocket.all.length, 1, String(url));
    assert.deepEqual(statuses.at(-1).slice(0, 2), ['stopped', 'moved'], String(url));
    assert.match(statuses.at(-1)[2], /no ws:\/\/ or wss:\/\/ address/);
  }
  assert.equal(movedUrl({ url: 'wss://a.example:443/' }), 'wss://a.example:443/');
  assert.equal(movedUrl({ url: 'ws://[::1]:7681/' }), 'ws://[::1]:7681/');
  assert.equal(movedUrl({ url: 'https://a.example/' }), null);
});

test('moved: createGame and tournamentRequest send the same frame at the url', async () => {
  FakeSocket.all = [];
  const created = createGame('ws://test/', '{"scenario": 1}', { spectatorDelay: 2 });
  let socket = FakeSocket.all[0];
  socket.open();
  const create = socket.sent.at(-1);
  assert.equal(create.type, 'create');
  assert.equal(create.spectator_delay, 2);
  socket.receive({ type: 'error', request: create.request, code: 'moved', message: 'a relay', url: 'ws://node1:9000/' });
  socket = FakeSocket.all[1];
  assert.equal(socket.url, 'ws://node1:9000/');
  socket.open();
  assert.deepEqual(socket.sent.at(-1), create);
  socket.receive({ type: 'created', request: create.request, game: 'g9', seats: { A: 'ta', B: 'tb' } });
  assert.deepEqual(await created, { game: 'g9', seats: { A: 'ta', B: 'tb' }, spectator: '' });

  FakeSocket.all = [];
  const answered = tournamentRequest('ws://test/', { type: 'tournament_get', tournament: 't1' });
  for (let i = 0; i <= MOVED_MAX; i++) {
    socket = FakeSocket.all[i];
    socket.open();
    const get = socket.sent.at(-1);
    socket.receive({ type: 'error', request: get.request, code: 'moved', message: 'round and round', url: 'ws://test/' });
  }
  await assert.rejects(answered, (error) => error.code === 'moved' && /5 times in a row/.test(error.message) &&
    /round and round$/.test(error.message));
  assert.equal(FakeSocket.all.length, MOVED_MAX + 1);
});

test('moved: a watched tournament follows it, the same get, and reconnects there', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  FakeSocket.all = [];
  const views = [];
  const watch = new TournamentWatch({ url: 'ws://test/', tournament: 't1', onView: (view) => views.push(view.round) });
  watch.start();
  FakeSocket.all[0].open();
  const get = FakeSocket.all[0].sent.at(-1);
  FakeSocket.all[0].receive({ type: 'error', request: get.request, code: 'moved', message: 'the owner', url: 'wss://owner.example/' });
  const socket = FakeSocket.all[1];
  assert.equal(socket.url, 'wss://owner.example/');
  socket.open();
  assert.deepEqual(socket.sent.at(-1), get);
  socket.receive({ type: 'tournament_state', request: get.request, tournament: { round: 3 } });
  assert.deepEqual(views, [3]);
  assert.equal(watch.status, 'live');
  socket.drop();
  t.mock.timers.tick(1000);
  assert.equal(FakeSocket.all[2].url, 'wss://owner.example/');
  watch.stop();
});

test('house rules go into the scenario as its ruleset (rules.js)', () => {
  const scenario = JSON.stringify({ title: 'T', ruleset: 'club', sides: { A: { name: 'French' } }, units: [] });
  const house = '{"unit": "cm", "morale": {"pass": {"line": 6}}, "moves": {"half_charge": {"dragoons": 7.5}}}';
  const sent = JSON.parse(withRuleset(scenario, house, 'house.json'));
  assert.deepEqual(sent, { title: 'T', ruleset: { unit: 'cm', morale: { pass: { line: 6 } }, moves: { half_charge: { dragoons: 7.5 } } },
    sides: { A: { name: 'French' } }, units: [] });
  assert.deepEqual(Object.keys(sent), ['title', 'ruleset', 'sides', 'units'], 'the members keep their order');
  assert.deepEqual(Object.keys(JSON.parse(withRuleset('{"title": "T"}', '{}'))), ['title', 'ruleset']);
  assert.throws(() => withRuleset(scenario, '{"unit": ', 'house.json'),
    (e) => e instanceof RulesetError && e.message.startsWith('house.json is not JSON: '));
  for (const notObject of ['[1]', '"cm"', 'null', '7']) {
    assert.throws(() => withRuleset(scenario, notObject, 'house.json'),
      (e) => e instanceof RulesetError && e.message.startsWith('house.json is not a ruleset: a ruleset is one JSON object'), notObject);
  }
  assert.throws(() => withRuleset('{"title": ', '{}'), (e) => !(e instanceof RulesetError) && /scenario is not JSON/.test(e.message));
  assert.throws(() => withRuleset('[]', '{}'), (e) => !(e instanceof RulesetError) && /not a JSON object/.test(e.message));
});

test("the snapshot's rules that differ from the default (rules.js)", () => {
  assert.deepEqual(rulesDiffers({ turn: 1 }), []);
  assert.deepEqual(rulesDiffers(null), []);
  assert.deepEqual(rulesDiffers({ ruleset: { unit: 'cm', differs: [
    { member: 'morale.pass.line', rule: 'Charge phase, morale test', text: 'Morale test, Line: passes on 6+ (default 7+)' },
    { member: 'morale.fail_far', rule: 'x' },
    7,
    { member: 'unit', text: 'Distances are in centimetres (default inches)' },
  ] } }), [
    { rule: 'Charge phase, morale test', text: 'Morale test, Line: passes on 6+ (default 7+)' },
    { rule: '', text: 'Distances are in centimetres (default inches)' },
  ]);
  assert.deepEqual(rulesDiffers({ ruleset: { unit: 'cm', differs: 'no' } }), []);
});
