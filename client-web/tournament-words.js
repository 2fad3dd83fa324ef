// client-web/tournament-words.js: a tournament's view (PROTOCOL.md §11.4)
// and a game's clock (§11.2) in words, for the tournament page
// (tournament.js) and the broadcast overlay (overlay.js). Pure functions
// of the values the server sends; a value they do not know is shown as it
// is (§7.1).

const text = (value) => (typeof value === 'string' ? value : '');
const int = (value) => (Number.isSafeInteger(value) ? value : null);

// Half points as a score: 5 -> "2½", 1 -> "½", 0 -> "0".
export function halfPoints(value) {
  const n = int(value);
  if (n === null) return '';
  const sign = n < 0 ? '−' : '';
  const whole = Math.floor(Math.abs(n) / 2);
  const half = Math.abs(n) % 2 === 1;
  return `${sign}${half ? (whole ? `${whole}½` : '½') : whole}`;
}

// Quarter points (Sonneborn-Berger, tournament/README.md): 7 -> "1¾".
export function quarterPoints(value) {
  const n = int(value);
  if (n === null) return '';
  const sign = n < 0 ? '−' : '';
  const whole = Math.floor(Math.abs(n) / 4);
  const part = ['', '¼', '½', '¾'][Math.abs(n) % 4];
  return `${sign}${part ? (whole ? `${whole}${part}` : part) : whole}`;
}

// A player's name by index into view.players ("player 3" without one).
export function playerName(view, index) {
  const players = view && Array.isArray(view.players) ? view.players : [];
  return Number.isSafeInteger(index) && typeof players[index] === 'string' ? players[index] : `player ${index}`;
}

export function formatWords(view) {
  if (!view) return '';
  if (view.format === 'swiss') return 'Swiss';
  if (view.format === 'round_robin') return 'Round robin (everyone meets everyone once)';
  return text(view.format);
}

// "Round 2 of 5", "Not begun: 5 rounds", "Round 5 of 5, the last: over".
export function roundWords(view) {
  const round = int(view.round) || 0;
  const rounds = int(view.rounds) || 0;
  if (round === 0) return `Not begun yet: ${rounds} round${rounds === 1 ? '' : 's'}`;
  const over = view.round_over === true;
  if (over && round >= rounds) return `Round ${round} of ${rounds}: the tournament is over`;
  return `Round ${round} of ${rounds}${over ? ': every game has its result' : ''}`;
}

// "90 minutes a side, plus 30 seconds a move" or "No clock".
export function timeControlWords(control) {
  if (!control || typeof control !== 'object') return 'No clock';
  const minutes = int(control.minutes_per_side);
  const increment = int(control.increment_seconds) || 0;
  const base = minutes === null ? 'a clock' : `${minutes} minute${minutes === 1 ? '' : 's'} a side`;
  return increment ? `${base}, plus ${increment} second${increment === 1 ? '' : 's'} a move` : base;
}

// A result ("A", "B", "draw") as a score from seat A's player: "1–0".
export function scoreWords(result) {
  if (result === 'A') return '1–0';
  if (result === 'B') return '0–1';
  if (result === 'draw') return '½–½';
  return text(result);
}

// "Anna Lefèvre wins", "a draw".
export function resultWords(view, table, result = table.result) {
  if (result === 'A') return `${playerName(view, table.a)} wins`;
  if (result === 'B') return `${playerName(view, table.b)} wins`;
  if (result === 'draw') return 'a draw';
  return text(result);
}

export function statusWords(table) {
  switch (table.status) {
    case 'waiting': return 'waiting for the players';
    case 'playing': return 'playing';
    case 'ended': return table.result ? 'ended' : "ended, the organiser's result awaited";
    default: return text(table.status);
  }
}

// The rounds of the view, each {round, scenario, tables, bye}, in order.
export function roundsOf(view) {
  return (view && Array.isArray(view.pairings) ? view.pairings : [])
    .filter((round) => round && typeof round === 'object' && Array.isArray(round.tables));
}

// The table numbered `number` of the last round that has one (a table
// followed across rounds), with its round; null when none has it.
export function latestTable(view, number) {
  const rounds = roundsOf(view);
  for (let index = rounds.length - 1; index >= 0; index -= 1) {
    const table = rounds[index].tables.find((item) => item && item.table === number);
    if (table) return { round: rounds[index], table };
  }
  return null;
}

// The table of game `game` and its round.
export function tableOfGame(view, game) {
  for (const round of roundsOf(view)) {
    const table = round.tables.find((item) => item && item.game === game);
    if (table) return { round, table };
  }
  return null;
}

// A clock's ms as "1:29:45", "29:45", "0:07".
export function clockText(ms) {
  const seconds = Math.max(0, Math.ceil((Number.isFinite(ms) ? ms : 0) / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// Each side's clock now ({A, B}: ms left; running; flag), counted down
// from `clockNow` ({A, B, at}: the server's clock_now and Date.now() when
// it came) for the sides whose clock runs (state.clock.running), or from
// state.clock's A and B without one. Null when the game has no clock.
export function clocksNow(state, clockNow, now = Date.now()) {
  const clock = state && state.clock && typeof state.clock === 'object' ? state.clock : null;
  if (!clock) return null;
  const running = Array.isArray(clock.running) ? clock.running : [];
  const flags = Array.isArray(clock.flags) ? clock.flags : [];
  const result = {};
  for (const side of ['A', 'B']) {
    const base = clockNow && Number.isFinite(clockNow[side]) ? clockNow[side] : Number.isFinite(clock[side]) ? clock[side] : 0;
    const runs = running.includes(side) && !flags.includes(side);
    const elapsed = runs && clockNow && Number.isFinite(clockNow.at) ? Math.max(0, now - clockNow.at) : 0;
    const left = flags.includes(side) ? 0 : Math.max(0, base - elapsed);
    result[side] = { ms: left, running: runs, flag: flags.includes(side) || (runs && left <= 0) };
  }
  return result;
}
