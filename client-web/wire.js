// client-web/wire.js: the connection to brigaded (PROTOCOL.md): one
// websocket with the subprotocol brigade.v1, msgpack frames, requests and
// their answers, the state kept from `welcome` and its deltas with the seq
// checks of §4, and reconnection with backoff.
//
// The seat token lives in the Session object only: it is sent in `join`
// and never logged, shown or put in a URL's query string.
import { decode, encode } from './vendor/msgpack/index.mjs';
import { applyOps } from './delta.js';
import { errorWords } from './names.js';

export const SUBPROTOCOL = 'brigade.v1';
const CLIENT_FRAME_MAX = 65536; // §2
const ANSWER_TIMEOUT_MS = 15000;
// `unavailable` (PROTOCOL.md §6.4): the journal is busy and nothing was
// applied; the same request goes again after this long, this many times.
const UNAVAILABLE_RETRY_MS = 1000;
const UNAVAILABLE_RETRIES = 30;

// How long to wait before sending a refused request again: the error's
// retry_after (seconds, PROTOCOL.md §6.4) when it has one.
function retryDelay(message) {
  const seconds = Number(message.retry_after);
  return Number.isInteger(seconds) && seconds > 0 ? seconds * 1000 : UNAVAILABLE_RETRY_MS;
}
// Reconnection backoff: 0.5 s doubling to at most 5 s (each ±25%), so a
// page is back within about 6 s of a restarted server (10 s of waiting
// made club players think it had died; "Retry now" goes at once).
const BACKOFF_FIRST_MS = 500;
const BACKOFF_MAX_MS = 5000;
// A join refused with these will be refused again: stop trying.
const JOIN_FATAL = new Set(['unknown_game', 'bad_token', 'bad_message', 'unknown_type']);
// `moved` (PROTOCOL.md §6.4, a cluster): the same message again at the
// error's url, at most this many times in a row for one request.
export const MOVED_MAX = 5;
const URL_MAX = 255;

// Where a `moved` error sends its request (PROTOCOL.md §6.4): its url when
// it is a ws:// or wss:// URL of at most 255 printable ASCII bytes without
// spaces, else null (the request has then failed: there is nowhere to go).
export function movedUrl(message) {
  const url = message && message.url;
  if (typeof url !== 'string' || url.length > URL_MAX || !/^wss?:\/\/[!-~]+$/.test(url)) return null;
  if (/^wss?:\/\/\//.test(url)) return null; // no host
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'ws:' || parsed.protocol === 'wss:' ? url : null;
  } catch {
    return null;
  }
}

// Words for a `moved` that is not followed: `moves` followed already for
// this request, `message` the last answer. Returns {code, message}.
function movedFailure(message, moves) {
  if (moves >= MOVED_MAX) {
    return { code: 'moved', message: `the servers kept sending this on to another one (${moves} times in a row); ` +
      `giving up. The last one said: ${String(message.message || 'moved')}` };
  }
  return { code: 'moved', message: 'the server said another server serves this but gave no ws:// or wss:// address to go to' };
}

// The websocket URL of the server that served this page.
export function serverUrl(location = window.location) {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}/`;
}

// Request ids increase on every connection of this page, and start from
// the clock so that they keep increasing across reloads and differ between
// two tabs of one seat: the server recognises a request sent again after
// a reconnection by its id (see Session.resumed).
// A player's dice seed (PROTOCOL.md §10.3): 32 bytes from the browser's
// random source as 64 lower-case hex characters, or '' without
// crypto.getRandomValues.
function diceSeed() {
  const cryptoSource = globalThis.crypto;
  if (!cryptoSource || typeof cryptoSource.getRandomValues !== 'function') return '';
  const bytes = new Uint8Array(32);
  cryptoSource.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

let lastRequest = Date.now() * 1000 + Math.floor(Math.random() * 1000);
const nextRequest = () => { lastRequest += 1; return lastRequest; };

function encodeFrame(message) {
  const bytes = encode(message);
  if (bytes.length > CLIENT_FRAME_MAX) {
    const error = new Error(`the message is ${bytes.length} bytes, the server takes at most ${CLIENT_FRAME_MAX}`);
    error.code = 'too_large';
    throw error;
  }
  return bytes;
}

function decodeFrame(data) {
  if (!(data instanceof ArrayBuffer)) throw new Error('a text frame (the protocol is binary)');
  const message = decode(new Uint8Array(data));
  if (message === null || typeof message !== 'object' || Array.isArray(message) ||
      typeof message.type !== 'string') {
    throw new Error('a frame that is not a message map');
  }
  return message;
}

function openSocket(url) {
  const socket = new WebSocket(url, [SUBPROTOCOL]);
  socket.binaryType = 'arraybuffer';
  return socket;
}

// Sends one message on a connection of its own and resolves the answer
// with its request id (any type, `error` included), following `moved`
// (PROTOCOL.md §6.4): that connection closed, the same frame sent again
// to the error's url, at most MOVED_MAX times in a row. Rejects with an
// Error carrying `code` (timeout, no_server, bad_protocol, bad_frame, or
// moved when a `moved` cannot be followed).
function requestOnce(url, frame, request) {
  return new Promise((resolve, reject) => {
    let socket = null;
    let over = false;
    let moves = 0;
    const finish = (error, answer) => {
      if (over) return;
      over = true;
      clearTimeout(timer);
      if (error) reject(error); else resolve(answer);
      if (socket) {
        socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
        try { socket.close(1000); } catch { /* closing */ }
      }
    };
    const fail = (code, text) => { const error = new Error(text); error.code = code; finish(error); };
    const timer = setTimeout(() => fail('timeout', 'the server did not answer'), ANSWER_TIMEOUT_MS);
    const open = (target) => {
      const current = openSocket(target);
      socket = current;
      current.onopen = () => {
        if (current.protocol !== SUBPROTOCOL) fail('bad_protocol', `the server speaks "${current.protocol}", not ${SUBPROTOCOL}`);
        else current.send(frame);
      };
      current.onerror = () => fail('no_server', 'could not reach the server');
      current.onclose = () => fail('no_server', 'the server closed the connection before answering');
      current.onmessage = (event) => {
        let answer;
        try {
          answer = decodeFrame(event.data);
        } catch (error) {
          fail('bad_frame', `the server sent ${error.message}`);
          return;
        }
        if (answer.request !== request) return;
        if (answer.type === 'error' && answer.code === 'moved') {
          const next = moves < MOVED_MAX ? movedUrl(answer) : null;
          if (!next) {
            const failure = movedFailure(answer, moves);
            fail(failure.code, failure.message);
            return;
          }
          moves += 1;
          current.onopen = current.onmessage = current.onclose = current.onerror = null;
          try { current.close(1000); } catch { /* closing */ }
          open(next);
          return;
        }
        finish(null, answer);
      };
    };
    open(url);
  });
}

// Creates a game on a connection of its own (§5.1), with a spectators'
// password and delay when given, following `moved` (§6.4). Resolves
// {game, seats: {A, B, umpire?}, spectator?} (an older server gives
// neither umpire nor spectator); rejects with an Error carrying `code`.
export async function createGame(url, scenario, { spectatorPassword = '', spectatorDelay = 0 } = {}) {
  const request = nextRequest();
  const create = { type: 'create', request, scenario };
  if (spectatorPassword) create.spectator_password = spectatorPassword;
  if (spectatorDelay) create.spectator_delay = spectatorDelay;
  const message = await requestOnce(url, encodeFrame(create), request);
  if (message.type === 'created' && message.seats && typeof message.game === 'string') {
    return { game: message.game, seats: message.seats,
      spectator: typeof message.spectator === 'string' ? message.spectator : '' };
  }
  const error = new Error(String(message.message || 'refused'));
  error.code = String(message.code || message.type);
  throw error;
}

// One seat's session in one game: join, keep the state, act, reconnect.
//
// Reconnecting: the join carries last_seq. A server that can resume
// answers `resumed` {from, seq} and sends the deltas after `from`; then
// the actions that were waiting for their answer when the connection
// dropped are sent again with the same request ids, and the server answers
// again those it had taken, without taking them twice. A `welcome` is a
// whole snapshot instead: actions in flight are then reported lost (the
// log shows whether they were taken).
//   onState(state, {seq, snapshot, ops})  the state changed (a new object each time)
//   onConnection(status, detail)          'connecting' | 'live' | 'reconnecting' | 'stopped'
//   onNotice(text)                        something worth a line on screen
//   onBehind(seq, seen)                   the server came back at a seq before the one
//                                         this page had seen: accepted actions are lost
//   onWatchers(count)                     a player hears how many spectators watch (§6.7)
//   onClock(clockNow)                     a game with a clock (§11.2): the server's clock_now
//                                         of a welcome, resumed or delta, as {A, B, at}: the ms
//                                         left to each side when it was sent, `at` the
//                                         Date.now() it arrived (after onState for the state)
//   onPresence(seats | null)              a player or the umpire hears who is joined (§6.8):
//                                         {A, B, umpire}, each the number of connections
//                                         joined as that seat (0: nobody); null: not known
//                                         (this page is not live, or the server sends none)
//
// A spectator (seat "spectator") joins with the game's spectator id as its
// token, and with `password` when the game has one (§5.2); a delayed
// spectator (welcome.spectator_delay > 0) gets deltas whose seq skips
// (§6.5), which it applies as they come.
// A connection that opens itself again: each socket it opens first sends
// its hello (a join, a tournament_get: `hello(request)` gives the frame's
// message), follows `moved` (§6.4) and, once dropped, opens again after a
// backoff. Session and TournamentWatch are the two kinds.
//   onConnection(status, detail)  'connecting' | 'live' | 'reconnecting' | 'stopped'
class Link {
  constructor(url, onConnection) {
    // Where the next connection goes: `url`, or the last `moved` answer's
    // url (PROTOCOL.md §6.4), which reconnections then use.
    this.url = url;
    this.originUrl = url;
    this.movedTo = null; // the last `moved` url, null before one
    this.moves = 0; // `moved` followed in a row for the hello in flight
    this.helloRequest = 0; // the request id of this connection's hello
    this.resendHello = 0; // the hello's request id, sent again after a `moved`
    this.onConnection = onConnection || (() => {});
    this.status = 'connecting';
    this.socket = null;
    this.failures = 0; // connections in a row that did not get a welcome
    this.retryTimer = null;
    this.stopped = false;
    this.onOnline = () => { if (this.retryTimer) this.reconnectNow(); };
  }

  start() {
    window.addEventListener('online', this.onOnline);
    this.connect();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener('online', this.onOnline);
    clearTimeout(this.retryTimer);
    this.drop();
  }

  setStatus(status, detail = {}) {
    this.status = status;
    this.onConnection(status, detail);
  }

  connect() {
    this.retryTimer = null;
    if (this.stopped) return;
    if (this.status !== 'connecting') this.setStatus('reconnecting', { attempt: this.failures + 1 });
    // An attempt of its own began here, not one following a `moved`.
    if (!this.resendHello) this.attemptUrl = this.url;
    const socket = openSocket(this.url);
    this.socket = socket;
    this.opened = false;
    socket.onopen = () => {
      if (socket.protocol !== SUBPROTOCOL) {
        this.fatal('bad_protocol', `the server speaks "${socket.protocol}", not ${SUBPROTOCOL}`);
        return;
      }
      this.opened = true;
      // After a `moved`, the same hello with its request id (§6.4).
      if (this.resendHello) {
        this.helloRequest = this.resendHello;
        this.resendHello = 0;
      } else {
        this.helloRequest = nextRequest();
        this.moves = 0;
      }
      socket.send(encodeFrame(this.hello(this.helloRequest)));
    };
    socket.onmessage = (event) => this.receive(socket, event.data);
    socket.onclose = () => this.closed(socket);
  }

  // Forgets the current socket without waiting for its close.
  drop() {
    const { socket } = this;
    this.socket = null;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
      try { socket.close(1000); } catch { /* already closing */ }
    }
  }

  // The socket closed (or is given up): open again after a backoff of at
  // least `delayAtLeast` ms.
  closed(socket, delayAtLeast = 0) {
    if (socket !== this.socket) return;
    this.drop();
    if (this.stopped) return;
    this.resendHello = 0;
    // A host we were sent to that cannot be reached: the next attempt goes
    // to the page's own server, which sends us on to wherever the game is
    // now, and the one after to that host again (§6.4: a host that is down
    // is not answered for). The first attempt after a drop goes straight
    // to the host that served the game.
    if (!this.opened && this.movedTo && this.failures > 0)
      this.url = this.attemptUrl === this.originUrl ? this.movedTo : this.originUrl;
    this.failures += 1;
    const base = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** (this.failures - 1));
    const delay = Math.max(delayAtLeast, Math.round(base * (0.75 + Math.random() * 0.5)));
    // `at`: when the next attempt goes (Date.now() ms), for a countdown;
    // reconnectNow() goes at once.
    this.setStatus('reconnecting', { delay, at: Date.now() + delay, attempt: this.failures });
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  // Tries again at once ("Retry now", the browser back online); a no-op
  // while live or stopped.
  reconnectNow() {
    if (this.stopped || this.status === 'live') return;
    clearTimeout(this.retryTimer);
    this.drop();
    this.connect();
  }

  fatal(code, message) {
    this.stop();
    this.setStatus('stopped', { code, message });
  }

  // A frame of this connection's socket: decoded, to handle(message,
  // socket), or to undecodable(socket, error).
  receive(socket, data) {
    if (socket !== this.socket) return;
    let message;
    try {
      message = decodeFrame(data);
    } catch (error) {
      this.undecodable(socket, error);
      return;
    }
    this.handle(message, socket);
  }

  // The hello was answered `moved` (§6.4): the same hello, same request
  // id, on a connection to the answer's url at once; reconnections then go
  // there. Past MOVED_MAX in a row, or without a usable url, it has
  // failed: stopped with code `moved`.
  followMoved(message) {
    const next = this.moves < MOVED_MAX ? movedUrl(message) : null;
    if (!next) {
      const failure = movedFailure(message, this.moves);
      this.fatal(failure.code, failure.message);
      return;
    }
    this.moves += 1;
    this.url = next;
    this.movedTo = next;
    this.resendHello = this.helloRequest;
    this.drop();
    this.connect();
  }
}

export class Session extends Link {
  constructor({ url, game, token, password, onState, onConnection, onNotice, onWatchers, onPresence, onBehind, onClock }) {
    super(url, onConnection);
    this.game = game;
    this.token = token;
    this.password = password || '';
    this.onState = onState || (() => {});
    this.onNotice = onNotice || (() => {});
    this.onBehind = onBehind || (() => {});
    this.onWatchers = onWatchers || (() => {});
    this.onPresence = onPresence || (() => {});
    this.onClock = onClock || (() => {});
    this.clockNow = null; // {A, B, at} of the last clock_now (§11.2), null without one
    this.state = null;
    this.seq = null;
    this.seat = null;
    this.spectatorDelay = 0;
    this.watchers = 0;
    this.presence = null; // {A, B, umpire} of the last presence message, while live
    this.pending = new Map(); // request -> {action, resolve, timer}
    this.resyncs = []; // times of recent out-of-date re-joins
  }

  stop() {
    super.stop();
    this.failPending();
  }

  setStatus(status, detail = {}) {
    this.status = status;
    // Who is joined is known only while this connection is: the next
    // presence after the welcome tells it again.
    if (status !== 'live' && this.presence) {
      this.presence = null;
      this.onPresence(null);
    }
    super.setStatus(status, detail);
  }

  // The join (§6.1) each connection opens with.
  hello(request) {
    const join = { type: 'join', request, game: this.game, token: this.token };
    // The dice seed (PROTOCOL.md §10.3): the server keeps the one of the
    // seat's first join and ignores it after.
    if (!this.diceSeed) this.diceSeed = diceSeed();
    if (this.diceSeed) join.seed = this.diceSeed;
    // A spectator's password (ignored for a player's seat).
    if (this.password) join.password = this.password;
    // Resuming: the server answers `resumed` and the missed deltas, or a
    // whole snapshot (`welcome`) when it cannot (or does not resume).
    if (this.state && Number.isSafeInteger(this.seq)) join.last_seq = this.seq;
    return join;
  }

  // Forgets the current socket without waiting for its close. Actions in
  // flight stay pending (without their timers) until failPending() or a
  // resume.
  drop() {
    super.drop();
    for (const entry of this.pending.values()) clearTimeout(entry.timer);
  }

  failPending() {
    for (const entry of this.pending.values()) {
      clearTimeout(entry.timer);
      entry.resolve({ ok: false, code: 'connection_lost',
        message: 'the connection dropped before the server answered; the log shows whether the action was taken' });
    }
    this.pending.clear();
  }

  // The state is out of date (§4): join again on a new connection, for a
  // whole snapshot. Repeated trouble backs off like a dropped connection.
  outOfDate(reason) {
    this.onNotice(`out of step with the server (${reason}); joining again`);
    this.state = null;
    this.seq = null;
    this.failPending();
    const now = Date.now();
    this.resyncs = this.resyncs.filter((time) => now - time < 10000).concat(now);
    if (this.resyncs.length > 3) {
      this.closed(this.socket); // wait as after a dropped connection
      return;
    }
    this.drop();
    this.connect();
  }

  // A frame that does not decode (§3): the state may have missed it.
  undecodable(socket, error) {
    this.outOfDate(`the server sent ${error.message}`);
  }

  handle(message) {
    switch (message.type) {
      case 'welcome': this.welcome(message); break;
      case 'resumed': this.resumed(message); break;
      case 'delta': this.delta(message); break;
      case 'ack':
      case 'error': this.answer(message); break;
      case 'watchers':
        if (Number.isSafeInteger(message.count) && message.count >= 0) {
          this.watchers = message.count;
          this.onWatchers(this.watchers);
        }
        break;
      case 'presence': {
        // §6.8: {A, B, umpire} counts; anything else in it is ignored,
        // and a malformed one changes nothing.
        const seats = message.seats;
        const count = (seat) => (seats && Number.isSafeInteger(seats[seat]) && seats[seat] >= 0 ? seats[seat] : null);
        if (message.game !== undefined && message.game !== this.game) break;
        const presence = { A: count('A'), B: count('B'), umpire: count('umpire') };
        if (Object.values(presence).some((value) => value === null)) break;
        this.presence = presence;
        this.onPresence(presence);
        break;
      }
      default: break; // a type this client does not know (§9)
    }
  }

  welcome(message) {
    if (message.request !== this.helloRequest) return;
    const state = message.state;
    if (!state || typeof state !== 'object' || Array.isArray(state) || !Number.isSafeInteger(message.seq)) {
      this.outOfDate('a welcome without a state');
      return;
    }
    this.failPending();
    this.seat = typeof message.seat === 'string' ? message.seat : null;
    this.spectatorDelay = Number.isSafeInteger(message.spectator_delay) ? message.spectator_delay : 0;
    // Behind what this page saw (a delayed spectator is, by design): the
    // server lost actions it had accepted (its data restored from a copy).
    if (this.state && Number.isSafeInteger(this.seq) && message.seq < this.seq &&
        !(this.seat === 'spectator' && this.spectatorDelay > 0)) this.onBehind(message.seq, this.seq);
    if (this.seat !== 'spectator') {
      this.watchers = Number.isSafeInteger(message.watchers) ? message.watchers : 0;
      this.onWatchers(this.watchers);
    }
    this.state = state;
    this.seq = message.seq;
    this.failures = 0;
    this.setStatus('live');
    this.onState(this.state, { seq: this.seq, snapshot: true });
    this.clock(message);
  }

  // clock_now (§11.2): not part of the state; a client counts the running
  // clocks down from it.
  clock(message) {
    const now = message.clock_now;
    if (!now || typeof now !== 'object' || !Number.isFinite(now.A) || !Number.isFinite(now.B)) return;
    this.clockNow = { A: now.A, B: now.B, at: Date.now() };
    this.onClock(this.clockNow);
  }

  resumed(message) {
    if (message.request !== this.helloRequest) return;
    if (!this.state || message.from !== this.seq) {
      this.outOfDate(`resumed from seq ${message.from}, not ${this.seq}`);
      return;
    }
    this.seat = typeof message.seat === 'string' ? message.seat : this.seat;
    this.failures = 0;
    this.setStatus('live');
    this.clock(message);
    for (const [request, entry] of this.pending) this.sendAct(request, entry);
  }

  delta(message) {
    if (!this.state || message.game !== this.game) return;
    // A delayed spectator's view moves a phase change at a time: its seq
    // skips forward, never back (§6.5).
    const delayed = this.seat === 'spectator' && this.spectatorDelay > 0;
    if (delayed ? !(Number.isSafeInteger(message.seq) && message.seq > this.seq) : message.seq !== this.seq + 1) {
      this.outOfDate(`delta seq ${message.seq} after ${this.seq}`);
      return;
    }
    let next;
    try {
      next = applyOps(this.state, message.ops);
    } catch (error) {
      this.outOfDate(`delta ${message.seq} does not apply: ${error.message}`);
      return;
    }
    this.state = next;
    this.seq = message.seq;
    this.onState(this.state, { seq: this.seq, snapshot: false, ops: message.ops });
    this.clock(message);
  }

  answer(message) {
    if (message.request === this.helloRequest && message.type === 'error' && message.code === 'moved') {
      this.followMoved(message);
      return;
    }
    if (message.request === this.helloRequest && message.type === 'error') {
      const code = String(message.code);
      const text = String(message.message || '');
      if (JOIN_FATAL.has(code)) this.fatal(code, text);
      else { this.onNotice(`join refused: ${text} (${errorWords(code)}) [${code}]; trying again`); this.closed(this.socket); }
      return;
    }
    const entry = this.pending.get(message.request);
    if (!entry) {
      if (message.type === 'error') this.onNotice(`the server says: ${message.message} (${errorWords(String(message.code))}) [${message.code}]`);
      return;
    }
    if (message.type === 'error' &&
        (message.code === 'unavailable' || message.code === 'rate_limited') &&
        (entry.retries || 0) < UNAVAILABLE_RETRIES) {
      // Not refused: the server could not commit it yet. The same request
      // id again, so it is never applied twice (§4.1).
      entry.retries = (entry.retries || 0) + 1;
      clearTimeout(entry.timer);
      this.onNotice(message.code === 'rate_limited'
        ? 'too many orders at once; sending the order again in a moment'
        : 'the server is busy saving the game; sending the order again');
      entry.timer = setTimeout(() => {
        if (this.status === 'live' && this.socket && this.pending.get(message.request) === entry)
          this.sendAct(message.request, entry);
      }, retryDelay(message));
      return;
    }
    this.pending.delete(message.request);
    clearTimeout(entry.timer);
    if (message.type === 'ack') entry.resolve({ ok: true, seq: message.seq });
    else entry.resolve({ ok: false, code: String(message.code), message: String(message.message || '') });
  }

  // Sends one action (§5.3). Resolves {ok: true, seq} or {ok: false, code, message}.
  act(action) {
    return new Promise((resolve) => {
      if (this.status !== 'live' || !this.socket) {
        resolve({ ok: false, code: 'not_connected', message: 'not connected to the server: wait until it is live again' });
        return;
      }
      const request = nextRequest();
      try {
        encodeFrame({ type: 'act', request, action });
      } catch (error) {
        resolve({ ok: false, code: error.code || 'bad_message', message: error.message });
        return;
      }
      const entry = { action, resolve, timer: null };
      this.pending.set(request, entry);
      this.sendAct(request, entry);
    });
  }

  sendAct(request, entry) {
    clearTimeout(entry.timer);
    // No answer in time does not mean refused: the server may have taken
    // it. Keep the action pending and treat the connection as lost; on
    // `resumed` it is sent again under the same request id, which the
    // server answers once (PROTOCOL.md §4.1), so a retry never doubles it.
    entry.timer = setTimeout(() => {
      this.onNotice('no answer from the server within 15 s; reconnecting to find out');
      this.closed(this.socket);
    }, ANSWER_TIMEOUT_MS);
    this.socket.send(encodeFrame({ type: 'act', request, action: entry.action }));
  }
}

// ------------------------------------------------------------ tournaments

// One request on a connection of its own that joins no game (PROTOCOL.md
// §11: tournament_create, tournament_get, tournament_start_round,
// tournament_result): `message` without its `request`, which this adds;
// `moved` is followed (§6.4). Resolves the server's answer to it (any
// type but `error`); rejects with an Error carrying `code` (the server's
// error code, or timeout, no_server, bad_protocol, bad_frame, too_large,
// moved).
export async function tournamentRequest(url, message) {
  const request = nextRequest();
  const answer = await requestOnce(url, encodeFrame({ ...message, request }), request);
  if (answer.type === 'error') {
    const error = new Error(String(answer.message || 'refused'));
    error.code = String(answer.code || 'error');
    if (Number.isSafeInteger(answer.retry_after)) error.retryAfter = answer.retry_after;
    throw error;
  }
  return answer;
}

// A tournament watched live (PROTOCOL.md §11.4): tournament_get with
// watch on a connection that joins no game; the answer and every
// tournament_state after it (request 0) give the whole view. A dropped
// connection is opened again with the same backoff as a game's.
//   onView(view, you, {request})  a tournament_state: `view` the tournament, `you` what
//                                 the token is (§11.4) or null
//   onConnection(status, detail)  'connecting' | 'live' | 'reconnecting' | 'stopped'
//                                 ({code, message}: the get was refused: unknown_game or
//                                 unknown_tournament, bad_token, unknown_type (a server
//                                 without tournaments), bad_message ...)
// The token (a player's, umpire's or organiser's, §11.1) is kept here only
// and sent in the get, never shown or logged.
const TOURNAMENT_RETRY = new Set(['unavailable', 'rate_limited', 'internal']);

export class TournamentWatch extends Link {
  constructor({ url, tournament, token, onView, onConnection }) {
    super(url, onConnection);
    this.tournament = tournament;
    this.token = token || '';
    this.onView = onView || (() => {});
    this.view = null;
    this.you = null;
  }

  // The watching get (§11.4) each connection opens with.
  hello(request) {
    const get = { type: 'tournament_get', request, tournament: this.tournament, watch: true };
    if (this.token) get.token = this.token;
    return get;
  }

  undecodable(socket) {
    this.closed(socket); // open again for a whole view
  }

  handle(message, socket) {
    if (message.type === 'tournament_state' && (message.request === this.helloRequest || message.request === 0)) {
      const view = message.tournament;
      if (!view || typeof view !== 'object' || Array.isArray(view)) return;
      this.view = view;
      this.you = message.you && typeof message.you === 'object' ? message.you : null;
      this.failures = 0;
      if (this.status !== 'live') this.setStatus('live');
      this.onView(this.view, this.you, { request: message.request });
    } else if (message.type === 'error' && message.request === this.helloRequest && message.code === 'moved') {
      // Another host serves the tournament (§6.4): the same get there.
      this.followMoved(message);
    } else if (message.type === 'error' && message.request === this.helloRequest) {
      const code = String(message.code || 'error');
      if (TOURNAMENT_RETRY.has(code)) this.closed(socket, retryDelay(message));
      else this.fatal(code, String(message.message || ''));
    }
    // Anything else (§9): ignored.
  }
}
