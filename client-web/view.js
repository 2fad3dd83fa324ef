// client-web/view.js: the battle as it stands: the status line (turn,
// phase, step, whose action is awaited) and both sides' units as cards,
// with this turn's charges and the melees in contact. Rebuilt from the
// state on every change; all server text goes in as text (dom.js).
import { h, replace } from './dom.js';
import { capital, OUT_OF_PLAY, PHASES, word } from './names.js';

const SIDES = ['A', 'B'];

export function sideName(state, side) {
  const name = state && state.sides && state.sides[side] && state.sides[side].name;
  return typeof name === 'string' && name ? `side ${side} (${name})` : `side ${side}`;
}

export function unitName(state, id) {
  const unit = state && state.units && state.units[id];
  return unit && typeof unit.name === 'string' ? unit.name : String(id);
}

export function awaitingList(state) {
  return Array.isArray(state.awaiting) ? state.awaiting.filter((seat) => typeof seat === 'string') : [];
}

// D9's events awaiting the umpire's settle (PROTOCOL.md §7.1, §10.2).
export function pendingList(state) {
  return (Array.isArray(state.pending) ? state.pending : [])
    .filter((item) => item && typeof item === 'object' && typeof item.unit === 'string');
}

// "hussars' double six (melee T2.M1)".
export function pendingWords(state, item) {
  return `${unitName(state, item.unit)}: ${word(item.event)}${item.melee ? ` (melee ${item.melee})` : ''}`;
}

// ---------------------------------------------------------------- reports

// The players' reports of this phase (PROTOCOL.md §7.1 state.reports): what
// the rules leave to the players (a rally, a reform, a pursuer's
// uncontrolled charge or contact), each with where it stands.
export function reportList(state) {
  return (Array.isArray(state && state.reports) ? state.reports : [])
    .filter((report) => report && typeof report === 'object' && Number.isSafeInteger(report.number) &&
      typeof report.unit === 'string' && (report.side === 'A' || report.side === 'B'));
}

export const otherSide = (side) => (side === 'A' ? 'B' : 'A');

// What the report says, in unit names: "2e Lanciers rallies".
export function reportWhat(state, report) {
  const unit = unitName(state, report.unit);
  const target = typeof report.target === 'string' && report.target ? unitName(state, report.target) : '';
  switch (report.kind) {
    case 'rally': return `${unit} rallies: normal again, still unformed`;
    case 'reform': return `${unit} reforms: it spends its move and is formed when the Movement phase ends`;
    case 'uncontrolled':
      return target ? `${unit}, pursuing, makes its uncontrolled charge at ${target}, in the ${word(report.facing || 'front')} (12.24 f)`
        : `${unit}, pursuing, has no enemy in sight for its uncontrolled charge (12.24 f)`;
    case 'contact': return `${unit}, pursuing, has reached ${target || 'an enemy'} (12.24, 12.25)`;
    case 'adjust': {
      // An adjustment of the other side's unit: `unit` is that unit.
      const sets = [
        Number.isInteger(report.figures) ? `${report.figures} figures` : null,
        typeof report.formed === 'boolean' ? (report.formed ? 'formed' : 'unformed') : null,
        typeof report.status === 'string' ? word(report.status) : null,
        typeof report.formation === 'string' ? `in ${word(report.formation)}` : null,
      ].filter(Boolean);
      const note = typeof report.note === 'string' && report.note ? ` (“${report.note}”)` : '';
      return `${unit} of ${sideName(state, otherSide(report.side))} set to ${sets.join(', ') || 'a change'}${note}`;
    }
    default: return `${unit}: ${word(report.kind)}${target ? ` against ${target}` : ''}`;
  }
}


// Where it stands: "awaits the answer of side B (British)", "upheld by the umpire".
export function reportStateWords(state, report) {
  const other = sideName(state, otherSide(report.side));
  switch (report.state) {
    case 'stands': return report.contested ? 'stands, contested' : 'stands';
    case 'awaits_answer': return `awaits the answer of ${other}`;
    case 'awaits_umpire': return "contested: awaits the umpire's ruling";
    case 'accepted': return `accepted by ${other}`;
    case 'upheld': return 'upheld by the umpire';
    case 'rejected': return report.ruling ? 'rejected by the umpire' : 'contested: not in force';
    default: return word(report.state);
  }
}

// The other side's reports that wait for `seat`'s answer: those that
// change its units (a contact, an adjustment of its unit).
export function answersOwed(state, seat) {
  return reportList(state).filter((report) => report.state === 'awaits_answer' &&
    report.side !== seat && (seat === 'A' || seat === 'B'));
}

// "the contact report", "the adjustment of your unit", "reports 3 and 5":
// what a seat has to answer, or has asked the other side to.
export function answerWords(reports, whose) {
  if (reports.length !== 1) return `${whose} reports ${reports.map((report) => report.number).join(' and ')}`;
  const [report] = reports;
  if (report.kind === 'contact') return `${whose} contact report ${report.number}`;
  if (report.kind === 'adjust') return `${whose} adjustment ${report.number}`;
  return `${whose} report ${report.number}`;
}

export function reportsForUmpire(state) {
  return reportList(state).filter((report) => report.state === 'awaits_umpire');
}

// The phase's reports, on every page: number, side, what, where it stands,
// the contest and the ruling; and what is this page's to do about them.
function renderReports(state, { seat, mode }) {
  const reports = reportList(state);
  if (!reports.length) return null;
  const text = (value) => (typeof value === 'string' ? value : '');
  return h('section', { id: 'reports', class: 'reports', 'aria-labelledby': 'reports-title' },
    h('h2', { id: 'reports-title' }, `Reports this phase (${word(state.phase)})`),
    h('ol', { class: 'report-list' }, reports.map((report) => {
      const yours = mode === 'play' && report.side === seat;
      const toAnswer = mode === 'play' && report.state === 'awaits_answer' && report.side !== seat;
      const toRule = mode === 'umpire' && report.state === 'awaits_umpire';
      // A standing report of the other side that this seat may still
      // contest: its form is in the orders panel while the seat is awaited.
      const toContest = mode === 'play' && report.state === 'stands' && report.side !== seat && !report.contested &&
        (seat === 'A' || seat === 'B') && awaitingList(state).includes(seat) && !holdReason(state) && state.phase !== 'ended';
      return h('li', {
        class: `report side-${report.side} state-${text(report.state) || 'unknown'}`,
        dataset: { report: String(report.number), kind: text(report.kind), state: text(report.state) },
      },
      h('p', { class: 'report-head' },
        h('span', { class: 'report-number' }, `Report ${report.number}`),
        h('span', { class: 'report-side' }, sideName(state, report.side), yours ? ', yours' : ''),
        h('span', { class: `chip report-state state-${text(report.state)}` }, reportStateWords(state, report))),
      h('p', { class: 'report-what' }, reportWhat(state, report)),
      report.contested || text(report.contest) ? h('p', { class: 'report-contest' },
        h('strong', {}, `Contested by ${sideName(state, otherSide(report.side))}: `),
        text(report.contest) ? `“${text(report.contest)}”` : 'no reason given') : null,
      text(report.ruling) ? h('p', { class: 'report-ruling' },
        h('strong', { class: 'umpire-label' }, `The umpire ${report.state === 'upheld' ? 'upheld it' : report.state === 'rejected' ? 'rejected it' : 'ruled'}: `),
        `“${text(report.ruling)}”`) : null,
      toAnswer || toRule || toContest ? h('p', { class: 'report-todo' }, toAnswer ? 'For you: accept it or contest it. '
        : toContest ? 'For you: you may contest it until you say done. ' : 'For you: rule on it. ',
        h('button', {
          type: 'button', class: 'quiet jump', id: `report-${report.number}-go`,
          onclick: () => {
            const form = document.getElementById(toAnswer || toContest ? `answer-${report.number}` : `rule-${report.number}-form`);
            if (!form) return;
            form.scrollIntoView({ block: 'center' });
            const control = form.querySelector('button, select');
            if (control) control.focus({ preventScroll: true });
          },
        }, toAnswer ? 'Answer it' : toContest ? 'Contest it' : 'Rule on it')) : null);
    })));
}

// The umpire's hold, or '' when the game is not held.
export function holdReason(state) {
  return typeof state.hold === 'string' && state.hold ? state.hold : '';
}

// "side B (British)", "you", "side A (French) and you", "the umpire", "nobody".
export function awaitingWords(state, seat) {
  const awaiting = awaitingList(state);
  if (awaiting.length === 0) {
    if (state.turn === 0) return 'the players to join';
    if (state.step === 'settle' || (state.umpire && pendingList(state).length && state.phase === 'melee')) {
      return seat === 'umpire' ? 'you (the umpire)' : 'the umpire';
    }
    return 'nobody';
  }
  return awaiting.map((side) => (side === seat ? 'you' : sideName(state, side))).join(' and ');
}

export function phaseWords(state) {
  const phase = word(state.phase);
  // Step settle outside the Melee phase: a contested report waits (D46).
  const step = state.step === 'settle' && state.phase !== 'melee' ? "waiting for the umpire's ruling" : word(state.step);
  return state.step ? `${phase} — ${step}` : phase;
}

// Who this page is: a side, the umpire, or a spectator (delayed by
// `delay` phase changes).
function seatWords(state, { seat, mode, delay }) {
  if (mode === 'play') return sideName(state, seat);
  if (mode === 'umpire') return 'the umpire';
  if (seat === 'spectator') {
    return delay > 0 ? `a spectator, watching ${delay} phase change${delay === 1 ? '' : 's'} behind the game`
      : 'a spectator, watching live (read-only)';
  }
  return 'watching (read-only)';
}

// The umpire's hold and D9's events waiting for a ruling: shown to everyone.
function umpireNotices(state, { mode }) {
  const hold = holdReason(state);
  const pending = pendingList(state);
  const contested = reportsForUmpire(state);
  const settling = state.step === 'settle';
  const meleeWaits = state.phase === 'melee' || pending.length > 0;
  const items = pending.map((item) => h('li', { dataset: { unit: item.unit, event: String(item.event) } }, pendingWords(state, item)));
  // The contested reports themselves are shown under "Reports this phase".
  const numbers = contested.map((report) => report.number);
  const onReports = numbers.length ? `${numbers.length === 1 ? 'report' : 'reports'} ${numbers.join(', ')}, contested` : '';
  return [
    hold ? h('div', { id: 'hold-banner', class: 'hold-banner' },
      h('p', { class: 'hold-title' }, h('span', { class: 'hold-icon', 'aria-hidden': 'true' }, '❚❚ '),
        h('strong', {}, 'The umpire holds the game')),
      h('p', { id: 'hold-reason', class: 'hold-reason' }, hold),
      h('p', { class: 'hint' }, mode === 'umpire' ? 'Players\' orders are refused until you release the game.'
        : mode === 'play' ? 'Your orders wait until the umpire releases the game.'
          : 'Nothing moves until the umpire releases the game.')) : null,
    settling || items.length || contested.length ? h('div', { id: 'pending-banner', class: 'pending-banner' },
      h('p', {}, h('strong', {}, mode === 'umpire'
        ? (settling && meleeWaits && !contested.length ? 'The melee waits for you to settle' : 'Waiting for your ruling')
        : settling && meleeWaits && !contested.length ? 'Waiting for the umpire to settle'
          : settling || items.length ? 'Waiting for the umpire\'s ruling' : 'For the umpire\'s ruling'),
        onReports ? ` on ${onReports}${items.length ? ', and on' : '.'}` : '',
        items.length ? ':' : onReports ? '' : meleeWaits ? ' the melee\'s events.' : '.',
        mode !== 'umpire' && onReports ? (settling ? ` The ${word(state.phase)} phase goes on once the umpire has ruled.`
          : ` The ${word(state.phase)} phase ends only once the umpire has ruled.`) : ''),
      items.length ? h('ul', { id: 'pending-list' }, items) : null) : null,
  ];
}

// How the battle ended (state.end: {cause, reason}, PROTOCOL.md §7.1), when
// it gives no reason of its own.
const END_CAUSES = {
  no_units: 'a side has no unit left in play',
  umpire: 'the umpire ended it',
  lapsed: 'the game was left idle, and the server ended it',
};

/* One side's count at the end: {inPlay, removed, dispersed, figures,
 * start}: units by status (names.js OUT_OF_PLAY), figures now, and
 * figures at the start (the sum of the units' `strength`; null when a
 * unit has none, an older server's state). */
export function endSummary(state, side) {
  const units = Object.values(state.units || {}).filter((unit) => unit && unit.side === side);
  const count = (status) => units.filter((unit) => unit.status === status).length;
  const start = units.every((unit) => Number.isFinite(unit.strength))
    ? units.reduce((sum, unit) => sum + unit.strength, 0) : null;
  return {
    inPlay: units.filter((unit) => !OUT_OF_PLAY.has(unit.status)).length,
    removed: count('removed'),
    dispersed: count('dispersed'),
    figures: units.reduce((sum, unit) => sum + (Number.isFinite(unit.figures) ? unit.figures : 0), 0),
    start: units.length ? start : null,
  };
}

/* A game's result (PROTOCOL.md §11.5: the umpire's end's `result`, "A",
 * "B" or "draw") in words: "a win for side B (British)", "a draw"; null
 * for anything else (no result). */
export function resultWords(state, result) {
  if (result === 'A' || result === 'B') return `a win for ${sideName(state, result)}`;
  if (result === 'draw') return 'a draw';
  return null;
}

/* The end of the battle, shown to everyone once the phase is "ended":
 * "The battle has ended: <reason>", the umpire's result when the end has
 * one (state.end.result, §11.5: "Result: a win for side B (British)"), and
 * each side's units in play, removed and dispersed, and its figures now of
 * those at the start. Without state.end (an older server): "The battle has
 * ended". */
export function endPanel(state) {
  const end = state.end && typeof state.end === 'object' ? state.end : null;
  const reason = end && typeof end.reason === 'string' && end.reason ? end.reason
    : end && END_CAUSES[end.cause] ? END_CAUSES[end.cause] : '';
  const result = end ? resultWords(state, end.result) : null;
  const plural = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  return h('section', { class: 'end-panel', id: 'end-panel', 'aria-labelledby': 'end-title',
    dataset: { cause: end && typeof end.cause === 'string' ? end.cause : '', result: result ? end.result : '' } },
  h('h2', { id: 'end-title', class: 'ended' }, reason ? `The battle has ended: ${reason}` : 'The battle has ended'),
  result ? h('p', { class: 'end-result', id: 'end-result' }, h('strong', {}, 'Result: '), result) : null,
  h('table', { class: 'end-summary', id: 'end-summary' },
    h('caption', { class: 'visually-hidden' }, 'Each side at the end of the battle'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Side'), h('th', { scope: 'col' }, 'Units'),
      h('th', { scope: 'col' }, 'Figures'))),
    h('tbody', {}, SIDES.map((side) => {
      const sum = endSummary(state, side);
      const won = end && end.result === side;
      return h('tr', { class: `side-${side}${won ? ' winner' : ''}`, dataset: { side } },
        h('th', { scope: 'row' }, capital(sideName(state, side)), won ? h('span', { class: 'won' }, ' (won)') : null),
        h('td', { class: 'end-units' }, `${sum.inPlay} in play`,
          sum.removed ? `, ${sum.removed} removed` : '', sum.dispersed ? `, ${sum.dispersed} dispersed` : ''),
        h('td', { class: 'end-figures' }, sum.start !== null
          ? `${sum.figures} of ${plural(sum.start, 'figure', 'figures')} at the start` : plural(sum.figures, 'figure', 'figures')));
    }))));
}

export function renderStatus(root, state, { seat, mode, delay = 0, watchers = 0 }) {
  const awaiting = awaitingList(state);
  root.dataset.turn = String(state.turn);
  root.dataset.phase = String(state.phase);
  root.dataset.step = String(state.step || '');
  root.dataset.awaiting = awaiting.join(',');
  root.dataset.hold = holdReason(state);
  root.dataset.pending = String(pendingList(state).length);
  const held = Boolean(holdReason(state));
  const yours = !held && ((mode === 'play' && awaiting.includes(seat)) ||
    (mode === 'umpire' && awaiting.length === 0 && state.step === 'settle'));
  const track = h('ol', { class: 'phase-track', 'aria-label': 'Phases of the turn' },
    PHASES.map((phase) => h('li', {
      class: phase === state.phase ? 'current' : '',
      'aria-current': phase === state.phase ? 'step' : null,
    }, word(phase))));
  replace(root,
    h('dl', { class: 'status-line' },
      h('div', {}, h('dt', {}, 'Turn'), h('dd', { id: 'status-turn' }, String(state.turn))),
      h('div', {}, h('dt', {}, 'Phase'), h('dd', { id: 'status-phase' }, phaseWords(state))),
      h('div', {}, h('dt', {}, 'Phasing'),
        h('dd', {}, state.phasing ? sideName(state, state.phasing) : 'not chosen yet')),
      h('div', { class: yours ? 'awaiting yours' : 'awaiting' }, h('dt', {}, 'Awaiting'),
        h('dd', { id: 'status-awaiting' }, awaitingWords(state, mode === 'play' || mode === 'umpire' ? seat : null))),
      typeof state.umpire === 'boolean' ? h('div', {}, h('dt', {}, 'Umpire'),
        h('dd', { id: 'status-umpire' }, state.umpire ? 'seated' : 'none')) : null,
      (mode === 'play' || mode === 'umpire') && watchers > 0 ? h('div', {}, h('dt', {}, 'Spectators'),
        h('dd', { id: 'status-watchers' }, String(watchers))) : null,
      h('div', { class: mode === 'play' ? '' : `seat-${mode}` }, h('dt', {}, 'You are'),
        h('dd', { id: 'status-seat' }, seatWords(state, { seat, mode, delay })))),
    state.phase === 'ended' ? endPanel(state) : track,
    umpireNotices(state, { mode }),
    renderReports(state, { seat, mode }));
}

// ---------------------------------------------------------------- units

function unitMelee(state, id) {
  return (Array.isArray(state.melees) ? state.melees : [])
    .find((melee) => Array.isArray(melee.units) && melee.units.includes(id));
}

function chargesOf(state) {
  return Array.isArray(state.charges) ? state.charges : [];
}

function chip(text, kind) {
  return h('span', { class: `chip ${kind || ''}` }, text);
}

function unitCard(state, id, unit, seat) {
  const outOfPlay = OUT_OF_PLAY.has(unit.status);
  const melee = unitMelee(state, id);
  const general = unit.general && typeof unit.general === 'object'
    ? `${word(unit.general.role)}, ${word(unit.general.rating)}` : null;
  const position = [
    unit.terrain && unit.terrain !== 'open' ? word(unit.terrain) : null,
    unit.defending && unit.defending !== 'none' ? word(unit.defending) : null,
  ].filter(Boolean).join(', ');
  const charges = chargesOf(state);
  const notes = [];
  for (const charge of charges) {
    const how = `${word(charge.facing)}${charge.leading ? ', general leading' : ''}${charge.sappers ? ', with sappers' : ''}`;
    if (charge.unit === id) {
      notes.push(`${charge.reinforce ? 'Reinforces the melee of' : charge.uncontrolled ? 'Uncontrolled charge at' : 'Charges'} ${unitName(state, charge.target)} (${how})`);
    }
    if (charge.target === id) {
      const answer = charge.response ? `answered: ${word(charge.response)}` : 'not answered yet';
      notes.push(`Charged by ${unitName(state, charge.unit)} in the ${word(charge.facing)}; ${answer}`);
    }
  }
  return h('article', {
    class: `unit side-${unit.side} status-${unit.status}${outOfPlay ? ' out' : ''}${unit.side === seat ? ' mine' : ''}`,
    'aria-labelledby': `unit-${id}-name`,
    dataset: { unit: id },
  },
  h('header', {},
    h('h3', { id: `unit-${id}-name` }, unit.name || id),
    h('span', { class: 'unit-id', title: 'unit id' }, id)),
  h('p', { class: 'figures' },
    h('span', { class: 'count', dataset: { figures: String(unit.figures) } }, String(unit.figures)),
    ' figures'),
  h('p', { class: 'kind' },
    `${word(unit.class)} ${word(unit.type)}`, unit.nation ? `, ${unit.nation}` : '',
    h('br'), `in ${word(unit.formation)}`),
  h('p', { class: 'chips' },
    chip(unit.formed ? 'formed' : 'unformed', unit.formed ? 'ok' : 'warn'),
    unit.wavering ? chip('wavering', 'warn') : null,
    chip(word(unit.status), `status-${unit.status}`),
    unit.sappers ? chip('sappers', '') : null,
    melee ? chip(`in melee ${melee.id}`, 'melee') : null),
  h('dl', { class: 'facts' },
    h('div', {}, h('dt', {}, 'General'), h('dd', {}, general || 'none')),
    position ? h('div', {}, h('dt', {}, 'Position'), h('dd', {}, position)) : null),
  unit.move ? h('p', { class: 'move' }, h('strong', {}, 'Move: '), unit.move) : null,
  notes.map((note) => h('p', { class: 'charge-note' }, note)));
}

function totalFigures(state, side) {
  return Object.values(state.units || {}).filter((unit) => unit.side === side)
    .reduce((sum, unit) => sum + (Number.isFinite(unit.figures) ? unit.figures : 0), 0);
}

export function renderForces(root, state, { seat }) {
  const units = Object.entries(state.units || {});
  const columns = SIDES.map((side) => {
    const mine = units.filter(([, unit]) => unit.side === side);
    return h('section', { class: `side side-${side}`, 'aria-labelledby': `side-${side}-title` },
      h('h2', { id: `side-${side}-title` },
        `Side ${side}: ${(state.sides && state.sides[side] && state.sides[side].name) || ''}`,
        h('span', { class: 'side-total' }, ` ${totalFigures(state, side)} figures`),
        side === seat ? h('span', { class: 'you' }, ' (you)') : null),
      h('div', { class: 'cards' }, mine.map(([id, unit]) => unitCard(state, id, unit, seat))));
  });
  const others = units.filter(([, unit]) => !SIDES.includes(unit.side));
  replace(root, columns,
    others.length ? h('section', { class: 'side' }, h('h2', {}, 'Other units'),
      h('div', { class: 'cards' }, others.map(([id, unit]) => unitCard(state, id, unit, seat)))) : null,
    renderEngagements(state));
}

function moraleWords(test) {
  if (!test || typeof test !== 'object') return null;
  const dice = Array.isArray(test.dice) ? test.dice.join('+') : '?';
  return `${dice} → ${test.total}, needs ${test.pass_on}: ${test.passed ? 'passed' : `failed by ${test.failed_by}`}`;
}

function foughtOf(state) {
  return (Array.isArray(state.fought) ? state.fought : [])
    .filter((item) => item && typeof item === 'object' && typeof item.melee === 'string');
}

// "5e Hussards against 1st (Royal) Dragoons": a melee's units, side A first.
function meleeSides(state, ids) {
  const list = Array.isArray(ids) ? ids : [];
  const of = (side) => list.filter((id) => state.units && state.units[id] && state.units[id].side === side)
    .map((id) => unitName(state, id)).join(', ') || 'nobody';
  return `${of('A')} against ${of('B')}`;
}

// This turn's charges, the melees fought this turn with their results
// (state.fought) and the melees still in contact (state.melees).
function renderEngagements(state) {
  const charges = chargesOf(state);
  const melees = Array.isArray(state.melees) ? state.melees : [];
  const fought = foughtOf(state);
  if (!charges.length && !melees.length && !fought.length) return null;
  return h('section', { class: 'engagements', 'aria-labelledby': 'engagements-title' },
    h('h2', { id: 'engagements-title' }, 'Charges and melees'),
    charges.length ? h('h3', {}, 'Charges this turn') : null,
    charges.length ? h('ul', { class: 'charges' }, charges.map((charge) => {
      const morale = charge.morale && typeof charge.morale === 'object' ? charge.morale : {};
      return h('li', {},
        h('strong', {}, unitName(state, charge.unit)),
        charge.reinforce ? ' reinforces against ' : charge.uncontrolled ? ' makes its uncontrolled charge (12.24 f) at ' : ' charges ',
        h('strong', {}, unitName(state, charge.target)),
        ` in the ${word(charge.facing)}`,
        charge.leading ? ', general leading' : '', charge.sappers ? ', with sappers' : '',
        `; answer: ${charge.response ? word(charge.response) : 'awaited'}`,
        morale.charger ? h('span', { class: 'morale' }, ` · charger's morale ${moraleWords(morale.charger)}`) : null,
        morale.target ? h('span', { class: 'morale' }, ` · target's morale ${moraleWords(morale.target)}`) : null);
    })) : null,
    fought.length ? h('h3', {}, 'Melees fought this turn') : null,
    fought.length ? h('ul', { class: 'fought' }, fought.map((item) => {
      const winner = item.winner === 'A' || item.winner === 'B' ? item.winner : null;
      const result = item.result === 'auto' ? 'an automatic result' : word(item.result);
      return h('li', { class: winner ? `won-${winner}` : 'no-winner', dataset: { melee: item.melee, result: String(item.result || ''), winner: winner || '' } },
        h('strong', {}, `${item.melee}: ${result}`),
        winner ? `, won by ${sideName(state, winner)}` : ', no winner',
        h('span', { class: 'hint' }, ` (${meleeSides(state, item.units)})`));
    })) : null,
    melees.length ? h('h3', {}, 'In contact') : null,
    melees.length ? h('ul', { class: 'melees' }, melees.map((melee) => h('li', { dataset: { melee: String(melee.id) } },
      h('strong', {}, `Melee ${melee.id}`),
      `, round ${melee.round}, ${word(melee.terrain)}: ${meleeSides(state, melee.units)}`))) : null);
}
