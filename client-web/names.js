// client-web/names.js: words for the names of the protocol (PROTOCOL.md
// §7.1) and for error codes. A name this table does not know is shown as
// it is (§7.1: "show a value it does not know as it is").

const WORDS = {
  // phases and steps
  initiative: 'Initiative', mandatory_moves: 'Mandatory moves', charge: 'Charge',
  movement: 'Movement', fire: 'Fire', melee: 'Melee', morale: 'Morale', ended: 'Ended',
  choose: 'choose who moves first', declare: 'declarations', respond: 'responses',
  reroll: "sappers' re-roll", report: 'report and done', settle: 'waiting for the umpire to settle',
  occupy: 'occupying the built-up area',
  // troop types
  cuirassiers: 'cuirassiers', heavy_cavalry: 'heavy cavalry', dragoons: 'dragoons',
  lancers: 'lancers', light_cavalry: 'light cavalry', cossacks: 'Cossacks',
  infantry: 'infantry', open_order: 'open order', skirmishers: 'skirmishers',
  artillery: 'artillery',
  // classes
  guard: 'Guard', elite: 'elite', veteran: 'veteran', line: 'line', second_rate: 'second-rate',
  garrison: 'garrison', conscript: 'conscript',
  // formations
  column: 'column', square: 'square', austrian_mass: 'Austrian mass', skirmish: 'skirmish order',
  march_column: 'march column', unlimbered: 'unlimbered', limbered: 'limbered',
  // statuses
  normal: 'normal', retreating: 'retreating', broken: 'broken', pursuing: 'pursuing',
  pushed_back: 'pushed back', dispersed: 'dispersed', removed: 'removed', blown: 'blown',
  // generals
  cinc: 'commander-in-chief', brigadier: 'brigadier', regimental: 'regimental officer',
  excellent: 'excellent', average: 'average', poor: 'poor',
  // positions
  none: 'none', cover: 'in cover', building: 'holding a building', fortified: 'fortified',
  open: 'open', rough: 'rough', bua: 'built-up area',
  // charges
  front: 'front', flank: 'flank', rear: 'rear', stand: 'stand', countercharge: 'countercharge',
  // morale effects
  passed: 'passed', halts: 'halts', halts_retreats: 'halts and retreats',
  wavers: 'wavers', retreats: 'retreats', flees: 'flees',
  // melee results (12.18) and test outcomes (12.22, 12.23)
  retreat: 'retreat', draw: 'draw', square_holds: 'the square holds', auto: 'automatic',
  pass: 'pass', fail: 'fail', unformed: 'unformed', pursuit: 'pursuit', reform: 'reform',
  // the umpire (D9 events, rulings)
  double_six: 'double six', risk_to_general: 'risk to the general',
  hold: 'hold', release: 'release', note: 'note', overrule: 'overrule', rollback: 'rollback',
  seated: 'seated', rule: 'ruling',
  // the players' reports and where they stand (state.reports)
  rally: 'rally', uncontrolled: 'uncontrolled charge', contact: 'contact',
  stands: 'stands', awaits_answer: 'awaits the answer', awaits_umpire: "awaits the umpire's ruling",
  accepted: 'accepted', upheld: 'upheld', rejected: 'rejected',
  // why a unit changed
  rallied: 'rallied', reformed: 'reformed', blown_over: 'no longer blown', charge_over: 'charge over',
  test: 'test',
};

export function word(name) {
  if (typeof name !== 'string') return name === null || name === undefined ? '' : String(name);
  return Object.prototype.hasOwnProperty.call(WORDS, name) ? WORDS[name] : name;
}

export const PHASES = ['initiative', 'mandatory_moves', 'charge', 'movement', 'fire', 'melee', 'morale'];
export const STATUSES = ['normal', 'retreating', 'broken', 'pursuing', 'pushed_back', 'dispersed',
  'removed', 'blown'];
export const CAVALRY = new Set(['cuirassiers', 'heavy_cavalry', 'dragoons', 'lancers',
  'light_cavalry', 'cossacks']);
// The formations each troop type may take, its default first (core/names.c).
const CAVALRY_FORMATIONS = ['line', 'column', 'march_column'];
const FORMATIONS_OF = {
  infantry: ['line', 'column', 'square', 'austrian_mass'],
  open_order: ['open_order'],
  skirmishers: ['skirmish'],
  artillery: ['unlimbered', 'limbered'],
};
export function formationsOf(type) {
  return FORMATIONS_OF[type] || CAVALRY_FORMATIONS;
}
// The statuses the rules let a unit of `type` take (pursuing and blown:
// cavalry only; dispersed: artillery only).
export function statusesOf(type) {
  return STATUSES.filter((name) => (name !== 'pursuing' && name !== 'blown') || CAVALRY.has(type))
    .filter((name) => name !== 'dispersed' || type === 'artillery');
}
// overrule (PROTOCOL.md §5.3): the results an umpire may impose, and the
// outcomes of a unit's reform or pursuit test.
export const RESULTS = ['broken', 'retreat', 'pushed_back', 'draw', 'square_holds'];
export const OUTCOMES = ['pass', 'fail', 'excellent', 'unformed', 'blown', 'pursuit'];
export const OUT_OF_PLAY = new Set(['removed', 'dispersed']);

// Plain words for each error code of PROTOCOL.md §6.4 (and the page's own:
// connection_lost ... input), never the code itself.
const ERRORS = {
  bad_frame: 'this page sent something the server cannot read (a bug: please report it)',
  too_large: 'the message is too large for the server',
  bad_message: 'the server cannot read that request (the message says which part)',
  unknown_type: 'this server does not know that request: it may be older than this page',
  not_joined: 'not in a game yet: join one first',
  unknown_game: 'no such game on this server (check the link)',
  bad_token: 'wrong password, or this link is not for this game',
  wrong_seat: "it is not your side's turn to do that, or it is not your seat's to do",
  wrong_phase: 'not allowed in this phase or step',
  invalid_action: 'the rules forbid it',
  unknown_unit: 'no unit of that id in this game',
  internal: 'the server failed; nothing changed, try again',
  connection_lost: 'the connection dropped',
  not_connected: 'not connected',
  timeout: 'no answer in time',
  bad_protocol: 'the server speaks another protocol version',
  no_server: 'the server cannot be reached',
  read_only: 'spectators watch and never act',
  held: 'the umpire holds the game: orders wait until the umpire releases it',
  unavailable: 'the server could not record it just now: send it again in a moment',
  rate_limited: 'too many requests at once: send it again in a moment',
  input: 'check the form',
  moved: 'the servers could not say where this is served',
};

export function errorWords(code) {
  return ERRORS[code] || 'refused by the server';
}


// A melee's id ("T1.M2", PROTOCOL.md §7.1) in words: "melee 2 (turn 1)";
// another form as it is.
export function meleeWords(id) {
  const match = /^T(\d+)\.M(\d+)$/.exec(typeof id === 'string' ? id : '');
  return match ? `melee ${Number(match[2])} (turn ${Number(match[1])})` : String(id ?? '');
}

// A unit's name in the state, for rollWords: the id without one.
function unitCalled(state, id) {
  const unit = state && state.units && state.units[id];
  return unit && typeof unit.name === 'string' && unit.name ? unit.name : id;
}
function possessive(name) {
  return name.endsWith('s') ? `${name}'` : `${name}'s`;
}

const ROLL_KINDS = { morale: 'morale test', pursuit: 'pursuit test', reform: 'reform test', reroll: "sappers' re-roll" };

// A roll's name (PROTOCOL.md §7.1 "Roll names") in the players' words,
// units and sides by their names in `state`:
//   T1.initiative.A        -> "Turn 1 initiative, side A (French)"
//   T1.initiative.B.2      -> "Turn 1 initiative, side B (British), roll 2 after a tie"
//   T2.hussars.morale      -> "Turn 2, 5e Hussards' morale test" (pursuit, reform too)
//   T2.M1.dragoons         -> "Turn 2, melee 1, 1st (Royal) Dragoons' dice"
//   T2.M1.dragoons.reroll  -> "Turn 2, melee 1, 1st (Royal) Dragoons' sappers' re-roll"
// A name of another form is returned as it is. The same words as the CLI's
// game_display_roll_words.
export function rollWords(state, name) {
  if (typeof name !== 'string') return '';
  let match = /^T(\d+)\.initiative\.([AB])(?:\.(\d+))?$/.exec(name);
  if (match) {
    const side = state && state.sides && state.sides[match[2]];
    const called = side && typeof side.name === 'string' && side.name ? ` (${side.name})` : '';
    return `Turn ${Number(match[1])} initiative, side ${match[2]}${called}` +
      (match[3] ? `, roll ${Number(match[3])} after a tie` : '');
  }
  match = /^T(\d+)\.M(\d+)\.([^.]+)(?:\.(pursuit|reform|reroll))?$/.exec(name);
  if (match) {
    return `Turn ${Number(match[1])}, melee ${Number(match[2])}, ` +
      `${possessive(unitCalled(state, match[3]))} ${match[4] ? ROLL_KINDS[match[4]] : 'dice'}`;
  }
  match = /^T(\d+)\.([^.]+)\.(morale|pursuit|reform)$/.exec(name);
  if (match && !/^M\d+$/.test(match[2])) {
    return `Turn ${Number(match[1])}, ${possessive(unitCalled(state, match[2]))} ${ROLL_KINDS[match[3]]}`;
  }
  return name;
}

// The text with its first letter in capitals, to begin a sentence.
// The connection's status (wire.js: connecting, live, reconnecting with
// its countdown, stopped as `stopped` says), for the page's status line.
export function connectionWords(status, detail, stopped = 'Disconnected') {
  switch (status) {
    case 'connecting': return 'Connecting…';
    case 'live': return 'Live';
    case 'reconnecting': {
      if (!detail || !detail.delay) return 'Reconnecting…';
      const left = Math.max(0, Math.ceil(((detail.at || Date.now() + detail.delay) - Date.now()) / 1000));
      return left > 0 ? `Reconnecting in ${left} s…` : 'Reconnecting…';
    }
    case 'stopped': return stopped;
    default: return String(status);
  }
}

export function capital(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// "+2", "−1", "0" for a modifier's value.
export function signed(value) {
  if (typeof value !== 'number') return String(value);
  return value > 0 ? `+${value}` : value < 0 ? `−${-value}` : '±0';
}
