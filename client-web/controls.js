// client-web/controls.js: a player's orders. Shows exactly the actions the
// turn allows this seat now (PROTOCOL.md §5.3, rules/turn.md): choosing the
// phasing side, declaring charges, answering them, the sappers' re-roll,
// free-form adjustments and done, each only in its phase and step and only
// when the seat is awaited; and the reports the rules leave to the players
// (rules/decisions.md D34-D46: a rally, a reform, a pursuer's uncontrolled
// charge or contact, who occupies a built-up area) with the other side's
// answers to them (accept, contest). Refusals are shown in words, code and
// message.
import { field, h, keepingInput, replace, select } from './dom.js';
import { CAVALRY, OUT_OF_PLAY, capital, formationsOf, statusesOf, word } from './names.js';
import { rolledBackIndexes } from './log.js';
import { Panel } from './panel.js';
import {
  answerWords, answersOwed, awaitingList, holdReason, otherSide, pendingList, phaseWords, reportList, reportWhat,
  reportsForUmpire, sideName, unitName,
} from './view.js';

const NOTE_MAX_BYTES = 159; // core keeps a note, and a contest's reason, in 159 bytes (BRIGADE_TEXT_MAX)
const REPORT_PHASES = new Set(['mandatory_moves', 'movement', 'fire', 'morale']);
const bytes = (text) => new TextEncoder().encode(text).length;

const WAITING_FOR = {
  'initiative/choose': 'to choose who moves first',
  'charge/declare': 'to declare charges',
  'charge/respond': 'to answer the charges',
  'charge/occupy': 'to name who occupies the built-up area',
  'melee/reroll': "to choose its sappers' re-roll",
};

// What the seat is awaited for, as the orders panel says it first.
const AWAITED_FOR = {
  'initiative/choose': 'Choose who moves first.',
  'charge/declare': 'Declare your charges, then say done.',
  'charge/respond': 'Answer the charges on your units.',
  'charge/occupy': 'Name who occupies the built-up area its defenders fled, then say done.',
  'melee/reroll': "Choose your sappers' re-roll.",
};

function unitsOf(state, predicate) {
  return Object.entries(state.units || {}).filter(([id, unit]) => predicate(unit, id));
}

const inPlay = (unit) => !OUT_OF_PLAY.has(unit.status);

function unitLabel(id, unit) {
  const notes = [];
  if (!unit.formed) notes.push('unformed');
  if (unit.status && unit.status !== 'normal') notes.push(word(unit.status));
  return `${unit.name || id}: ${unit.figures} fig.${notes.length ? `, ${notes.join(', ')}` : ''}`;
}

function canLead(unit) {
  const general = unit && unit.general;
  return Boolean(general && typeof general === 'object' && general.rating !== 'poor' &&
    general.role !== 'regimental');
}

const INFANTRY = new Set(['infantry', 'open_order', 'skirmishers']);
// Statuses that never declare a charge (turn.md §Charge 1, 12.19, 12.24):
// a pursuing unit makes only its uncontrolled charge (12.24 f, D38).
const NO_CHARGE = new Set(['blown', 'broken', 'retreating', 'pushed_back', 'pursuing']);

const chargesOf = (state) => (Array.isArray(state.charges) ? state.charges : []).filter((charge) => charge && typeof charge === 'object');
const hasCharged = (state, id) => chargesOf(state).some((charge) => charge.unit === id);

/* Whether `unit` (id `id`) may declare a charge at all now, as the server
 * checks it (core/battle.c declare_charge, charge_check): in play, in no
 * melee, not already declared this turn, not blown, broken, retreating,
 * pushed back or pursuing (its only charge is the uncontrolled one, 12.24 f,
 * D38: mayChargeUncontrolled), not a battery nor a square, and formed. The
 * server stays the judge. */
export function mayCharge(state, id, unit) {
  if (!unit || OUT_OF_PLAY.has(unit.status) || NO_CHARGE.has(unit.status)) return false;
  if (meleeOf(state, id)) return false;
  if (hasCharged(state, id)) return false;
  if (unit.type === 'artillery' || unit.formation === 'square') return false;
  return Boolean(unit.formed);
}

/* The unit (id) that pursuing unit `id` pursues (its quarry), null when
 * it has none, undefined when the state does not tell. A game of rules
 * version 2 gives it as the unit's `pursuing` (PROTOCOL.md §7.1). An older
 * game does not: then the one its mandatory-move instruction names
 * ("pursue '<id>'…", core/battle.c), none when that says "no enemy left to
 * pursue"; else, from the log, the losers' first unit left in play in the
 * melee result that made it pursuing (core/battle.c melee_beaten), leaving
 * out rolled-back entries. */
export function pursuedBy(state, id) {
  const units = state.units || {};
  const unit = units[id];
  if (!unit || unit.status !== 'pursuing') return null;
  if (Number.isInteger(state.rules_version) && state.rules_version >= 2) {
    return typeof unit.pursuing === 'string' && units[unit.pursuing] ? unit.pursuing : null;
  }
  const move = typeof unit.move === 'string' ? unit.move : '';
  const named = /^pursue '([^']+)'/.exec(move);
  if (named && units[named[1]]) return named[1];
  if (move.startsWith('no enemy left to pursue')) return null;
  const log = Array.isArray(state.log) ? state.log : [];
  const gone = rolledBackIndexes(state);
  const isResult = (entry, index) => entry && entry.kind === 'melee_unit_result' && !gone.has(index);
  let made = null;
  log.forEach((entry, index) => {
    if (isResult(entry, index) && entry.unit === id) made = entry.status === 'pursuing' ? entry : null;
  });
  if (!made) return undefined;
  const beaten = log.find((entry, index) => isResult(entry, index) && entry.melee === made.melee &&
    entry.turn === made.turn && entry.seq === made.seq && units[entry.unit] && units[entry.unit].side !== unit.side &&
    !OUT_OF_PLAY.has(entry.status));
  return beaten ? beaten.unit : undefined;
}

// Whether `unit` made (or, until the Mandatory moves are over, is about to
// make) its retreat or broken move this turn (D38).
function fledThisTurn(state, unit) {
  if (!unit || OUT_OF_PLAY.has(unit.status)) return false;
  const fled = Number.isInteger(unit.fled_turn) && unit.fled_turn === state.turn;
  if ((state.phase === 'initiative' || state.phase === 'mandatory_moves') && !fled) {
    return unit.status === 'retreating' || unit.status === 'broken';
  }
  return fled;
}

/* Whether pursuing unit `id` has an enemy to pursue this turn, as
 * core/battle.h brigade_battle_has_enemy_to_pursue says (12.24 f, D38): the
 * unit it pursues is in play and made a retreat or broken move in this
 * turn's Mandatory-move phase (its fled_turn is this turn; during that
 * phase: it is retreating or broken). */
export function hasEnemyToPursue(state, id) {
  const pursued = pursuedBy(state, id);
  if (pursued === undefined) {
    // An older game that does not tell the quarry: any enemy that fled
    // this turn may be it (PROTOCOL.md §5.3).
    const unit = state.units[id];
    return unitsOf(state, (other) => other.side === otherSide(unit.side) && fledThisTurn(state, other)).length > 0;
  }
  return Boolean(pursued) && fledThisTurn(state, state.units[pursued]);
}

// Whether `id` has a report of `kind` in this phase, rejected ones too: a
// unit is reported once a phase for each kind (core/battle.c report_unit).
function reported(state, kind, id) {
  return reportList(state).some((report) => report.kind === kind && report.unit === id);
}

// Whether `id` fought a melee this turn (state.fought).
function fought(state, id) {
  return (Array.isArray(state.fought) ? state.fought : [])
    .some((item) => item && Array.isArray(item.units) && item.units.includes(id));
}

/* The pursuing units of `seat` that may make their uncontrolled charge now
 * (12.24 f, D38): in play, in no melee, with no enemy to pursue, no charge
 * declared and no uncontrolled report this turn. */
export function uncontrolledChargers(state, seat) {
  return unitsOf(state, (unit, id) => unit.side === seat && unit.status === 'pursuing' && inPlay(unit) &&
    !meleeOf(state, id) && !hasCharged(state, id) && !reported(state, 'uncontrolled', id) && !hasEnemyToPursue(state, id));
}

// The enemies an uncontrolled charge may strike: those a charge may
// (mayChargeAt), outside any melee (core/battle.c uncontrolled_charge).
export function uncontrolledTargets(state, id) {
  const charging = state.units[id];
  return unitsOf(state, (unit, tid) => mayChargeAt(charging, unit) && !meleeOf(state, tid));
}

// Own broken units that made their broken move this turn and fought no
// melee since (D34, core/battle.c rally).
export function rallyCandidates(state, seat) {
  return unitsOf(state, (unit, id) => unit.side === seat && unit.status === 'broken' &&
    Number.isInteger(unit.fled_turn) && unit.fled_turn === state.turn && !fought(state, id) && !reported(state, 'rally', id));
}

// Own unformed `normal` units in no melee (D37).
export function reformCandidates(state, seat) {
  return unitsOf(state, (unit, id) => unit.side === seat && inPlay(unit) && unit.status === 'normal' && !unit.formed &&
    !meleeOf(state, id) && !reported(state, 'reform', id));
}

// A pursuer's contact reports of this phase.
const contactsOf = (state, id) => reportList(state).filter((report) => report.kind === 'contact' && report.unit === id);

/* The units pursuer `id` may report contact with (12.24, 12.25, D39,
 * core/battle.c contact): the other side's, in play, not pushed back, in
 * no melee, not one whose contact was rejected in this phase, the one it
 * pursues first. None once it reported a contact that is not rejected,
 * except Cossacks that reached skirmishers, which finish their move. */
export function contactTargets(state, id) {
  const pursuer = state.units[id];
  if (!pursuer) return [];
  const pursued = pursuedBy(state, id);
  const reports = contactsOf(state, id);
  const done = reports.some((report) => {
    if (report.state === 'rejected') return false;
    const reached = state.units[report.target];
    return !(pursuer.type === 'cossacks' && reached && reached.type === 'skirmishers' && report.target !== pursued);
  });
  if (done) return [];
  const refused = new Set(reports.filter((report) => report.state === 'rejected').map((report) => report.target));
  const targets = unitsOf(state, (unit, tid) => unit.side === otherSide(pursuer.side) && inPlay(unit) &&
    unit.status !== 'pushed_back' && !meleeOf(state, tid) && !refused.has(tid));
  return [...targets.filter(([tid]) => tid === pursued), ...targets.filter(([tid]) => tid !== pursued)];
}

// Own pursuers following a fleeing enemy this turn (D38), with a unit left to reach (D39).
export function contactPursuers(state, seat) {
  return unitsOf(state, (unit, id) => unit.side === seat && unit.status === 'pursuing' && inPlay(unit) &&
    hasEnemyToPursue(state, id) && contactTargets(state, id).length > 0);
}

// The other side's reports of this phase that `seat` may still contest.
export function contestable(state, seat) {
  return reportList(state).filter((report) => report.side !== seat && !report.contested &&
    (report.state === 'stands' || report.state === 'awaits_answer'));
}

/* The charges of `seat` whose target fled a built-up area before contact
 * (D41, 12.9 e, f): its charger may occupy it. [charge, occupied] pairs
 * (the charge's `occupies`). */
export function occupyChoices(state, seat) {
  const units = state.units || {};
  return chargesOf(state).filter((charge) => {
    const charger = units[charge.unit];
    const target = units[charge.target];
    const morale = charge.morale && typeof charge.morale === 'object' ? charge.morale : {};
    // core/battle.c charge_target_fled: the charger passed, the defender
    // failed by enough to flee (3 or more by default), so no contact.
    const test = morale.target && typeof morale.target === 'object' ? morale.target : null;
    return charger && target && charger.side === seat && inPlay(charger) && !charge.reinforce &&
      target.terrain === 'bua' && target.defending && target.defending !== 'none' &&
      Boolean(morale.charger && morale.charger.passed) && Boolean(test && !test.passed) &&
      !meleeOf(state, charge.unit) && !meleeOf(state, charge.target);
  }).map((charge) => [charge, charge.occupies === true]);
}

/* Whether `unit` may charge `target` (charge_check's checks on the pair):
 * an enemy in play; no cavalry into a built-up area, only Cossacks into
 * rough ground (12.11); a unit defending a built-up area charges only
 * within it (12.9). */
export function mayChargeAt(unit, target) {
  if (!target || OUT_OF_PLAY.has(target.status) || target.side === unit.side) return false;
  if (target.side !== 'A' && target.side !== 'B') return false;
  if (CAVALRY.has(unit.type)) {
    if (target.terrain === 'bua') return false;
    if (target.terrain === 'rough' && unit.type !== 'cossacks') return false;
  }
  const defendsBua = INFANTRY.has(unit.type) && unit.terrain === 'bua' && unit.defending && unit.defending !== 'none';
  if (defendsBua && target.terrain !== 'bua') return false;
  return true;
}

/* Why `unit` (id `id`) may not counter-charge `charger`, or '' when it
 * may (core/battle.c charge_check, counter): in play and in no melee, not
 * blown, broken, retreating, pushed back or pursuing, not a battery nor a
 * square, formed (D26), and allowed to charge it (mayChargeAt: 12.9, 12.11). */
export function noCountercharge(state, id, unit, charger) {
  if (!unit || !charger || OUT_OF_PLAY.has(unit.status)) return 'It cannot countercharge.';
  if (meleeOf(state, id)) return 'In a melee: it cannot countercharge.';
  if (NO_CHARGE.has(unit.status)) return `${capital(word(unit.status))}: it cannot countercharge.`;
  if (unit.type === 'artillery') return 'A battery cannot countercharge (12.16).';
  if (unit.formation === 'square') return 'In square: it cannot countercharge.';
  if (!unit.formed) return 'Unformed: it cannot countercharge.';
  if (!mayChargeAt(unit, charger)) {
    return CAVALRY.has(unit.type) ? 'Cavalry cannot countercharge there (12.11).'
      : 'It defends the built-up area: it cannot countercharge a unit outside it (12.9).';
  }
  return '';
}

// Sappers serve an infantry unit that has them against a castle, church or
// fortified building (12.10, D7).
export function maySapAt(unit, target) {
  return Boolean(unit && unit.sappers && INFANTRY.has(unit.type) && target &&
    target.defending === 'fortified' && target.terrain === 'bua');
}

function meleeOf(state, id) {
  return (Array.isArray(state.melees) ? state.melees : [])
    .find((melee) => Array.isArray(melee.units) && melee.units.includes(id));
}

// Refills a <select> with "unchanged" and `names`, keeping the choice made
// when it is still offered.
export function fillChoice(control, names) {
  const keep = control.value;
  replace(control, h('option', { value: '' }, 'unchanged'),
    names.map((name) => h('option', { value: name }, word(name))));
  if (names.includes(keep)) control.value = keep;
}

/* The controls of an adjustment form (PROTOCOL.md §5.3 adjust and
 * umpire_adjust) for the unit chosen in the <select> `unit`: figures
 * (a number input), formed, status and formation (selects), as
 * adjustmentChanges reads them, and `now`, the line (<p id=nowId>) saying
 * the chosen unit's state (unitNow) followed by what `more(unit)` returns.
 * `refresh()` sets them for the unit chosen: once now, and on each change
 * of `unit`; `changes(complain)` is adjustmentChanges of them. */
export function adjustmentControls(state, unit, nowId, more = () => '') {
  const figures = h('input', { type: 'number', name: 'figures', min: 0, max: 100000, step: 1, inputmode: 'numeric' });
  const formed = select({ name: 'formed' }, [['', 'unchanged'], ['yes', 'formed'], ['no', 'unformed']]);
  const status = h('select', { name: 'status' });
  const formation = h('select', { name: 'formation' });
  const now = h('p', { class: 'hint unit-now', id: nowId, 'aria-live': 'polite' });
  const refresh = () => {
    const chosen = state.units[unit.value] || {};
    figures.placeholder = `now ${chosen.figures}`;
    fillChoice(status, statusesOf(chosen.type));
    fillChoice(formation, formationsOf(chosen.type));
    now.textContent = `${unitNow(chosen)}${more(chosen)}`;
  };
  unit.addEventListener('change', refresh);
  refresh();
  const changes = (complain) => adjustmentChanges({ figures, formed, status, formation }, complain);
  return { figures, formed, status, formation, now, refresh, changes };
}

// "Now: 6 figures, unformed, pushed back, in line": the unit an adjustment
// starts from.
/* What an adjustment form changes (PROTOCOL.md §5.3 adjust and
 * umpire_adjust): {figures?, formed?, status?, formation?} from its
 * controls, or null after telling `complain` what is wrong (figures not a
 * whole number 0..100000, or nothing changed; the figures field gets the
 * focus). */
export function adjustmentChanges({ figures, formed, status, formation }, complain) {
  const changes = {};
  if (figures.value !== '') {
    const value = Number(figures.value);
    if (!Number.isInteger(value) || value < 0 || value > 100000) {
      complain('figures: a whole number from 0 to 100000');
      figures.focus();
      return null;
    }
    changes.figures = value;
  }
  if (formed.value) changes.formed = formed.value === 'yes';
  if (status.value) changes.status = status.value;
  if (formation.value) changes.formation = formation.value;
  if (Object.keys(changes).length === 0) {
    complain('an adjustment changes the figures, the order (formed), the status or the formation');
    figures.focus();
    return null;
  }
  return changes;
}

export function unitNow(unit) {
  if (!unit || typeof unit !== 'object') return '';
  return `Now: ${unit.figures} figures, ${unit.formed ? 'formed' : 'unformed'}, ${word(unit.status)}, in ${word(unit.formation)}.`;
}

export class Controls extends Panel {
  constructor(root, { act }) {
    super(root, act, 'controls');
    this.kept = new Map(); // id -> value typed in this step (dom.js keepingInput)
    // this.confirming: the step whose "no charges" done waits for its second press
    this.confirmingAt = 0;
    // What the form said was wrong goes once the player edits it.
    this.body.addEventListener('input', () => { if (this.errorCode === 'input') this.showError(null); });
  }

  update(state, { seat, mode }) {
    this.state = state;
    this.seat = seat;
    this.root.hidden = mode !== 'play';
    if (mode !== 'play') return;
    const signature = JSON.stringify([state.turn, state.phase, state.step, state.awaiting, seat,
      state.hold, state.pending, state.sides, state.charges, state.melees, state.reports, state.umpire,
      Object.entries(state.units || {}).map(([id, u]) => [id, u.side, u.status, u.formed, u.figures,
        u.sappers, u.general, u.type, u.move, u.formation, u.terrain, u.defending, u.fled_turn,
        u.status === 'pursuing' ? pursuedBy(state, id) : null]),
      (state.step === 'reroll' || state.step === 'occupy') && Array.isArray(state.log) ? state.log.length : 0]);
    if (signature === this.signature) return;
    this.signature = signature;
    // A refusal belongs to the step it was made in.
    const step = `${state.turn}/${state.phase}/${state.step}`;
    const mine = state.phase !== 'ended' && !holdReason(state) && awaitingList(state).includes(seat);
    // A step of the player's turn begins (or the player is awaited again):
    // focus goes to its main action.
    const arrived = mine && (step !== this.step || !this.mine);
    const another = step !== this.step;
    if (another) { this.showError(null); this.kept.clear(); }
    this.step = step;
    this.mine = mine;
    // What the player typed survives every render of the step, the
    // umpire's hold and release included (its form comes back filled in,
    // the focus and caret where they were); a new step starts empty.
    let hadFocus = this.body.contains(document.activeElement);
    let restored = false;
    if (another) this.render(state, seat);
    else ({ hadFocus, restored } = keepingInput(this.body, () => this.render(state, seat), this.kept));
    if (restored) return;
    if (arrived && this.mayTakeFocus()) this.focusMain();
    else if (hadFocus && !this.body.contains(document.activeElement)) this.title.focus();
  }

  // Not while the player types or chooses somewhere else on the page.
  mayTakeFocus() {
    const active = document.activeElement;
    if (!active || active === document.body || this.root.contains(active)) return true;
    return !active.matches('input, select, textarea, [contenteditable="true"]');
  }

  // The step's main action: its Done button, else its first control.
  focusMain() {
    const done = this.body.querySelector('#act-done');
    const first = done && !done.disabled ? done
      : [...this.body.querySelectorAll('button, select, input, textarea, a[href]')]
        .find((control) => !control.disabled && !control.closest('[hidden]') && control.type !== 'hidden');
    if (!first) return;
    // Focus without the browser's own scroll, which brought the button to
    // the window's edge and the step's instructions above it out of view:
    // the orders panel is brought into view from its top instead.
    first.focus({ preventScroll: true });
    const box = this.root.getBoundingClientRect();
    if (box.top < 0 || box.bottom > window.innerHeight) {
      this.root.scrollIntoView({ block: box.height <= window.innerHeight ? 'nearest' : 'start' });
    }
  }

  render(state, seat) {
    const awaiting = awaitingList(state);
    const mine = awaiting.includes(seat);
    const key = `${state.phase}/${state.step}`;
    const owed = mine ? answersOwed(state, seat) : [];
    let parts;
    let awaitedFor = null;
    if (state.phase === 'ended') {
      parts = [h('p', {}, 'The battle has ended: no more orders.')];
    } else if (holdReason(state)) {
      parts = [h('p', { class: 'waiting held' }, 'The umpire holds the game: your orders wait until the umpire releases it.')];
    } else if (state.step === 'settle' && !mine) {
      const pending = pendingList(state);
      const contested = reportsForUmpire(state);
      parts = [
        pending.length || !contested.length ? h('p', { class: 'waiting' }, 'Waiting for the umpire to settle ',
          pending.length ? pending.map((item) => `${unitName(state, item.unit)}'s ${word(item.event)}`).join(', ')
            : "the melee's events", '; the melee phase goes on once the umpire has ruled.') : null,
        contested.length ? h('p', { class: 'waiting', id: 'waiting-ruling' }, 'Waiting for the umpire to rule on the contested ',
          contested.length === 1 ? 'report ' : 'reports ', contested.map((report) => `${report.number} (${reportWhat(state, report)})`).join('; '),
          `; the ${word(state.phase)} phase goes on once the umpire has ruled.`) : null,
      ];
    } else if (!mine) {
      const others = awaiting.filter((side) => side !== seat);
      const done = REPORT_PHASES.has(state.phase) && state.sides && state.sides[seat] && state.sides[seat].done;
      // Our report waits for the other side's answer (D46).
      const asked = answersOwed(state, otherSide(seat)).filter((report) => report.side === seat);
      const what = asked.length ? `to answer ${answerWords(asked, 'your')}: accept or contest`
        : WAITING_FOR[key] || (REPORT_PHASES.has(state.phase) ? 'to report and say done' : '');
      // Turn 0: the battle begins once both players have joined with their
      // dice seeds (PROTOCOL.md §10.3).
      const seeds = state.dice && state.dice.seeds ? state.dice.seeds : {};
      const absent = state.turn === 0 ? ['A', 'B'].filter((side) => !seeds[side]) : [];
      parts = [h('p', { class: 'waiting' }, done ? 'You are done with this phase. ' : '',
        others.length ? `Waiting for ${others.map((side) => sideName(state, side)).join(' and ')} ${what}.`
          : absent.length ? `Waiting for ${absent.map((side) => sideName(state, side)).join(' and ')} to join: the battle begins when both players are in.`
            : 'Waiting for the server.')];
    } else {
      if (key === 'initiative/choose') {
        parts = this.initiative(state);
      } else if (key === 'charge/declare') {
        parts = this.declare(state, seat);
      } else if (key === 'charge/respond') {
        parts = this.respond(state, seat);
      } else if (key === 'charge/occupy') {
        parts = this.occupy(state, seat);
      } else if (key === 'melee/reroll') {
        parts = this.reroll(state, seat);
      } else if (REPORT_PHASES.has(state.phase) && state.step === 'report') {
        parts = this.report(state, seat);
      } else {
        // A step this page does not know: done is the one action every step has.
        parts = [h('p', {}, `${phaseWords(state)}: this page has no form for this step.`), this.doneButton('Done')];
      }
      awaitedFor = AWAITED_FOR[key] || (REPORT_PHASES.has(state.phase) ? 'Report what happened on the table, then say done.' : null);
      // The other side's reports of this phase, which this seat may answer
      // until its done in the step (D46): a contact report waiting for its
      // answer comes first, and done waits for that answer.
      const answers = this.answers(state, seat);
      if (owed.length) {
        awaitedFor = `Answer ${answerWords(owed, 'the')} of ${sideName(state, otherSide(seat))}: accept or contest.`;
        parts = [answers, parts.filter((part) => !(part && (part.id === 'act-done' || part.id === 'done-row'))),
          h('p', { class: 'hint', id: 'done-after-answer' }, `Done comes once you have answered ${answerWords(owed, 'the')}.`)];
      } else if (answers) {
        // Above the adjustment form (long on a phone), else before done.
        const adjust = parts.findIndex((part) => part && part.id === 'adjust-form');
        const at = adjust >= 0 ? adjust : parts.findIndex((part) => part && (part.id === 'act-done' || part.id === 'done-row'));
        parts = at < 0 ? [...parts, answers] : [...parts.slice(0, at), answers, ...parts.slice(at)];
      }
    }
    replace(this.body, h('p', { class: 'now' }, h('strong', {}, mine && !holdReason(state) ? 'Your move: ' : 'Now: '), phaseWords(state)),
      awaitedFor ? h('p', { class: 'awaited-for', id: 'awaited-for' }, awaitedFor) : null, parts);
  }

  /* The other side's reports of this phase that this seat may answer
   * (D46): accept a contact report that waits for the answer, contest any
   * with a reason. Null when there are none. */
  answers(state, seat) {
    const open = contestable(state, seat);
    if (!open.length) return null;
    const other = sideName(state, otherSide(seat));
    return h('section', { class: 'order answers', id: 'answers', 'aria-labelledby': 'answers-title' },
      h('h3', { id: 'answers-title' }, `Reports of ${other}: you may contest them until you say done`),
      open.map((report) => {
        const ask = report.state === 'awaits_answer';
        const reason = h('input', { type: 'text', name: 'reason', maxlength: NOTE_MAX_BYTES, autocomplete: 'off' });
        const outcome = state.umpire ? 'The umpire rules on a contested report; the phase ends only once the umpire has ruled.'
          : ask ? 'No umpire is seated: contested, it is not carried out; your reason goes in the log.'
            : 'No umpire is seated: the report stands, and your reason goes in the log for all to see.';
        return h('form', {
          class: `answer${ask ? ' asked' : ''}`, id: `answer-${report.number}`, dataset: { report: String(report.number) },
          onsubmit: (event) => {
            event.preventDefault();
            const text = reason.value.trim();
            if (!text) { this.showError('input', 'say why you contest the report'); reason.focus(); return; }
            if (bytes(text) > NOTE_MAX_BYTES) {
              this.showError('input', `the reason is too long (at most ${NOTE_MAX_BYTES} bytes)`);
              reason.focus();
              return;
            }
            this.send({ kind: 'contest', report: report.number, reason: text }, event.target);
          },
        },
        h('p', {}, h('strong', {}, `Report ${report.number}: `), reportWhat(state, report), '.',
          ask ? h('span', { class: 'ask' }, ' It changes your units: accept it, or contest it.') : null),
        ask ? h('div', { class: 'buttons' }, h('button', { type: 'button', id: `accept-${report.number}`,
          onclick: () => this.send({ kind: 'accept', report: report.number }) }, `Accept report ${report.number}`)) : null,
        field(`contest-${report.number}-reason`, ask ? 'Or contest it: why' : 'Contest it: why', reason, outcome),
        h('button', { type: 'submit', id: `contest-${report.number}-submit`, class: 'quiet contest' }, `Contest report ${report.number}`));
      }));
  }

  doneButton(label) {
    return h('button', { type: 'button', id: 'act-done', class: 'done', onclick: () => this.send({ kind: 'done' }) }, label);
  }

  /* The declarations' done while nothing is declared and `count` units
   * may charge: the first press (or Enter) only asks "no charges this
   * turn?", the second, at least 0.4 s later (not a held key's repeat),
   * sends done. The question stays through re-renders of the step. */
  confirmDone(count) {
    const asked = this.confirming === this.step;
    const note = h('p', { class: 'confirm-note', id: 'done-confirm', role: 'status', hidden: !asked },
      `No charge is declared, and ${count === 1 ? 'one unit of yours may' : `${count} units of yours may`} charge. `,
      'Press the button again to end your declarations with no charge, or declare a charge above.');
    const button = h('button', {
      type: 'button', id: 'act-done', class: `done${asked ? ' confirm' : ''}`,
      onclick: () => {
        if (this.confirming === this.step) {
          if (Date.now() - this.confirmingAt < 400) return;
          this.send({ kind: 'done' });
          return;
        }
        this.confirming = this.step;
        this.confirmingAt = Date.now();
        button.textContent = 'Yes: no charges this turn';
        button.classList.add('confirm');
        note.hidden = false;
      },
    }, asked ? 'Yes: no charges this turn' : 'Done: no charges this turn');
    return h('div', { class: 'done-row', id: 'done-row' }, note, button);
  }

  initiative(state) {
    const won = (Array.isArray(state.log) ? state.log : []).filter((entry) => entry && entry.kind === 'initiative_won').pop();
    return [
      h('p', {}, 'You won the initiative', won ? ` (A ${won.total_a}, B ${won.total_b})` : '',
        '. Choose the phasing side: it declares its charges first, moves first and fires first.'),
      h('div', { class: 'buttons' }, ['A', 'B'].map((side) => h('button', {
        type: 'button', id: `act-initiative-${side}`,
        onclick: () => this.send({ kind: 'choose_initiative', phasing: side }),
      }, `${capital(sideName(state, side))} moves first`))),
    ];
  }

  declare(state, seat) {
    const declared = (Array.isArray(state.charges) ? state.charges : [])
      .filter((charge) => state.units[charge.unit] && state.units[charge.unit].side === seat);
    // Only the units that may charge (mayCharge), each at the enemies it
    // may charge (mayChargeAt): what the server always refuses is not offered.
    const enemy = unitsOf(state, (unit) => unit.side !== seat && (unit.side === 'A' || unit.side === 'B') && inPlay(unit));
    const own = unitsOf(state, (unit, id) => unit.side === seat && mayCharge(state, id, unit) &&
      enemy.some(([, target]) => mayChargeAt(unit, target)));
    // Its pursuers' uncontrolled charges reported this turn (D38) that are
    // not charges yet: they become charges when the declarations close.
    const reportedCharges = reportList(state).filter((report) => report.kind === 'uncontrolled' && report.side === seat &&
      !declared.some((charge) => charge.unit === report.unit));
    // Nothing declared while units may charge: done asks to be pressed a
    // second time (an Enter on the focused Done must not end the
    // declarations by accident).
    if (declared.length || reportedCharges.length) this.confirming = null;
    const done = !declared.length && !reportedCharges.length && own.length
      ? this.confirmDone(own.length)
      : this.doneButton(reportedCharges.length ? 'Done: end my declarations'
        : declared.length ? 'Done: no more charges' : 'Done: no charges this turn');
    const uncontrolled = this.uncontrolled(state, seat);
    // Pursuers that still follow a fleeing enemy: no charge at all (12.24 f).
    const following = unitsOf(state, (unit, id) => unit.side === seat && unit.status === 'pursuing' && inPlay(unit) &&
      hasEnemyToPursue(state, id));
    const followingNote = following.length ? h('p', { class: 'hint', id: 'pursuers-following' }, following.map(([id, u]) =>
      `${u.name || id} pursues ${pursuedBy(state, id) ? unitName(state, pursuedBy(state, id)) : 'an enemy'}, which fled this turn: it follows it and may not charge (12.24 f).`).join(' ')) : null;
    const possessive = (name) => (/s$/i.test(name) ? `${name}'` : `${name}'s`);
    // Each of the seat's own charges may be withdrawn until its done
    // (withdraw_charge, PROTOCOL.md §5.3); an uncontrolled charge is a must (12.24 f).
    const withdraw = (charge) => h('button', {
      type: 'button', class: 'quiet withdraw', id: `withdraw-${charge.unit}`, dataset: { unit: charge.unit },
      onclick: () => this.send({ kind: 'withdraw_charge', unit: charge.unit }),
    }, 'Withdraw', h('span', { class: 'visually-hidden' }, ` the charge of ${unitName(state, charge.unit)}`));
    const listed = declared.length || reportedCharges.length ? h('div', { id: 'declared', class: 'declared' },
      h('p', { class: 'declared-title' }, 'Declared this turn: '), h('ul', { class: 'declared-list' }, [
      ...declared.map((charge) => h('li', { class: 'declared-charge', dataset: { unit: charge.unit } },
        `${unitName(state, charge.unit)} → ${unitName(state, charge.target)} (${word(charge.facing)}${charge.uncontrolled ? ', uncontrolled' : ''})`,
        charge.uncontrolled ? null : [' ', withdraw(charge)])),
      ...reportedCharges.map((report) => {
        const target = typeof report.target === 'string' && report.target ? report.target : '';
        const how = report.state === 'rejected' ? ', rejected' : report.state === 'awaits_umpire' ? ', contested' : '';
        return target ? `${possessive(unitName(state, report.unit))} uncontrolled charge at ${unitName(state, target)}, in the ${word(report.facing || 'front')} (report ${report.number}${how})`
          : `${unitName(state, report.unit)}: no enemy in sight for its uncontrolled charge (report ${report.number}${how})`;
      })].map((item) => (typeof item === 'string' ? h('li', {}, item) : item)))) : null;
    if (!own.length) {
      return [listed, uncontrolled, followingNote,
        uncontrolled ? null : h('p', {}, declared.length || reportedCharges.length ? 'No other unit of yours can charge an enemy now.'
          : 'No unit of yours can charge an enemy now.'), done];
    }

    const unit = select({ name: 'unit' }, own.map(([id, u]) => [id, unitLabel(id, u)]));
    const target = h('select', { name: 'target' });
    const fillTargets = () => {
      const charging = state.units[unit.value];
      const keep = target.value;
      const offered = enemy.filter(([, t]) => mayChargeAt(charging, t));
      replace(target, offered.map(([id, u]) => h('option', { value: id }, unitLabel(id, u))));
      if (offered.some(([id]) => id === keep)) target.value = keep;
    };
    const facing = select({ name: 'facing' }, ['front', 'flank', 'rear'].map((f) => [f, word(f)]));
    const checkbox = (id, label) => {
      const box = h('input', { type: 'checkbox', id });
      return h('div', { class: 'field check' }, box, h('label', { for: id }, label));
    };
    const leading = checkbox('charge-leading', 'Its general leads the charge (12.4)');
    const sappers = checkbox('charge-sappers', "Its brigade's sappers go in (12.10)");
    const reinforce = checkbox('charge-reinforce', 'It reinforces the melee already in contact (12.8)');
    const show = (wrapper, shown) => {
      wrapper.hidden = !shown;
      if (!shown) wrapper.querySelector('input').checked = false;
    };
    const refresh = () => {
      fillTargets();
      const charging = state.units[unit.value];
      show(leading, canLead(charging));
      show(sappers, maySapAt(charging, state.units[target.value]));
      // A charge on a unit in a melee reinforces it (12.8): the server
      // refuses it otherwise, so the box is ticked and stays so.
      const melee = meleeOf(state, target.value);
      show(reinforce, Boolean(melee));
      const box = reinforce.querySelector('input');
      box.disabled = Boolean(melee);
      if (melee) {
        box.checked = true;
        reinforce.querySelector('label').textContent = `It reinforces melee ${melee.id}, already in contact (12.8)`;
      }
    };
    unit.addEventListener('change', refresh);
    target.addEventListener('change', refresh);
    const form = h('form', {
      id: 'charge-form', class: 'order',
      onsubmit: (event) => {
        event.preventDefault();
        const action = { kind: 'declare_charge', unit: unit.value, target: target.value, facing: facing.value };
        for (const [name, wrapper] of [['leading', leading], ['sappers', sappers], ['reinforce', reinforce]]) {
          if (!wrapper.hidden && wrapper.querySelector('input').checked) action[name] = true;
        }
        this.send(action);
      },
    },
    h('fieldset', {}, h('legend', {}, 'Declare a charge'),
      h('div', { class: 'row charge-row' },
        field('charge-unit', 'Charging unit', unit),
        field('charge-target', 'Target', target),
        field('charge-facing', "Strikes the target's", facing)),
      leading, sappers, reinforce,
      h('button', { type: 'submit', id: 'charge-submit' }, 'Declare charge')));
    refresh();
    // The uncontrolled charge is a must (12.24 f): it comes first.
    return [listed, uncontrolled, followingNote, form, done];
  }

  /* A pursuer with no enemy to pursue must charge the nearest enemy in
   * sight within 22 degrees, or its player states that none is in sight
   * (12.24 f, D38): the form, or null when no unit of the seat has to. */
  uncontrolled(state, seat) {
    const pursuers = uncontrolledChargers(state, seat);
    if (!pursuers.length) return null;
    const unit = select({ name: 'unit' }, pursuers.map(([id, u]) => [id, unitLabel(id, u)]));
    const target = h('select', { name: 'target' });
    const facing = select({ name: 'facing' }, ['front', 'flank', 'rear'].map((f) => [f, word(f)]));
    const submit = h('button', { type: 'submit', id: 'uncontrolled-submit' });
    // The target the player chose, if any: the first enemy listed is
    // chosen until then, and "No enemy in sight" only deliberately.
    let picked = null;
    const refresh = () => {
      const charging = state.units[unit.value];
      const offered = charging ? uncontrolledTargets(state, unit.value) : [];
      replace(target, offered.map(([id, u]) => h('option', { value: id }, unitLabel(id, u))),
        h('option', { value: '' }, 'No enemy in sight'));
      target.value = picked !== null && [...target.options].some((option) => option.value === picked) ? picked
        : offered.length ? offered[0][0] : '';
      facing.disabled = target.value === '';
      submit.textContent = target.value ? 'Declare the uncontrolled charge' : 'Report: no enemy in sight';
    };
    unit.addEventListener('change', refresh);
    target.addEventListener('change', () => { picked = target.value; refresh(); });
    refresh();
    return h('form', {
      id: 'uncontrolled-form', class: 'order',
      onsubmit: (event) => {
        event.preventDefault();
        const action = { kind: 'uncontrolled_charge', unit: unit.value };
        if (target.value) { action.target = target.value; action.facing = facing.value; }
        this.send(action);
      },
    },
    h('fieldset', {}, h('legend', {}, 'Uncontrolled charge of a pursuer (12.24 f)'),
      h('p', { class: 'hint' }, pursuers.map(([id, u]) => u.name || id).join(', '),
        pursuers.length === 1 ? ' has' : ' have', ' no enemy left to pursue: it must charge the nearest enemy in sight ',
        'within 22°. With none in sight, or no charge, it is blown when the Charge phase ends (12.24 g). ',
        'The other side may contest the target you name.'),
      h('div', { class: 'row charge-row' },
        field('uncontrolled-unit', 'Pursuing unit', unit),
        field('uncontrolled-target', 'Nearest enemy in sight', target),
        field('uncontrolled-facing', "Strikes the target's", facing)),
      submit));
  }

  // Charge/occupy: the chargers whose target fled its built-up area (D41, 12.9 f).
  occupy(state, seat) {
    const choices = occupyChoices(state, seat);
    const occupied = choices.filter(([, done]) => done);
    const fled = [...new Set(choices.map(([charge]) => unitName(state, charge.target)))];
    return [
      h('p', {}, fled.length ? `${fled.join(' and ')} fled the built-up area before contact. ` : 'The defenders fled a built-up area before contact. ',
        'At least one of your chargers must occupy it; each that does takes its reform test at once (12.9 f, 12.22).'),
      choices.length ? h('ul', { class: 'occupiers' }, choices.map(([charge, done]) => h('li', { dataset: { unit: charge.unit } },
        h('strong', {}, unitName(state, charge.unit)), ` (charged ${unitName(state, charge.target)}) `,
        done ? h('span', { class: 'chip ok' }, 'occupies it')
          : h('button', { type: 'button', id: `occupy-${charge.unit}`, onclick: () => this.send({ kind: 'occupy', unit: charge.unit }) },
            `${unitName(state, charge.unit)} occupies it`)))) : h('p', { class: 'hint' }, 'This page finds no charger of yours whose target fled; the server knows which.'),
      occupied.length || !choices.length ? this.doneButton(occupied.length ? 'Done: these occupy it' : 'Done')
        : h('p', { class: 'hint', id: 'occupy-first' }, 'Done comes once one of them occupies it.'),
    ];
  }

  respond(state, seat) {
    const owed = new Map();
    const charges = Array.isArray(state.charges) ? state.charges : [];
    // A charged unit that declared a charge of its own answers nothing: it
    // tests as a charger (core's unit_owes_answer, as the CLI offers it).
    const chargers = new Set(charges.map((charge) => charge.unit));
    for (const charge of charges) {
      const target = state.units[charge.target];
      if (target && target.side === seat && !charge.reinforce && !charge.response &&
          !chargers.has(charge.target) && !owed.has(charge.target)) {
        owed.set(charge.target, charge);
      }
    }
    if (!owed.size) return [h('p', {}, 'No charge of the enemy awaits your answer.')];
    return [...owed].map(([id, charge]) => {
      const unit = state.units[id];
      return h('div', { class: 'order respond', dataset: { unit: id } },
        h('p', {}, h('strong', {}, unitName(state, charge.unit)), ` charges your `,
          h('strong', {}, unitName(state, id)), ` in the ${word(charge.facing)}`,
          charge.leading ? ', its general leading' : '', '. Answer:'),
        h('div', { class: 'buttons' },
          h('button', { type: 'button', id: `respond-${id}-stand`,
            onclick: () => this.send({ kind: 'respond', unit: id, response: 'stand' }) }, 'Stand'),
          noCountercharge(state, id, unit, state.units[charge.unit])
            ? h('span', { class: 'hint' }, noCountercharge(state, id, unit, state.units[charge.unit]))
            : h('button', { type: 'button', id: `respond-${id}-countercharge`,
              onclick: () => this.send({ kind: 'respond', unit: id, response: 'countercharge' }) }, 'Countercharge')));
    });
  }

  reroll(state, seat) {
    const log = Array.isArray(state.log) ? state.log : [];
    const recorded = log.filter((entry) => entry && entry.kind === 'melee_dice_recorded').pop();
    const melee = recorded && (state.melees || []).find((m) => m.id === recorded.melee);
    if (!melee) return [h('p', {}, 'The melee whose sappers may re-roll is not among the melees in contact.')];
    const number = String(melee.id).split('.M')[1];
    const prefix = `T${state.turn}.M${number}`;
    let units = melee.units.filter((id) => state.units[id] && state.units[id].side === seat);
    const withSappers = units.filter((id) => state.units[id].sappers);
    if (withSappers.length) units = withSappers;
    return [h('p', {}, `Melee ${melee.id}: the dice are rolled. Your sappers may re-roll one die (12.10).`),
      units.map((id) => {
        const roll = log.filter((entry) => entry && entry.kind === 'roll' && entry.name === `${prefix}.${id}`).pop();
        const faces = roll && Array.isArray(roll.dice) ? roll.dice : ['?', '?'];
        return h('div', { class: 'order reroll', dataset: { unit: id } },
          h('p', {}, h('strong', {}, unitName(state, id)), ' rolled ',
            h('span', { class: 'dice', 'aria-label': `dice ${faces.join(' and ')}` },
              faces.map((face) => h('span', { class: 'die', 'aria-hidden': 'true' }, String(face))))),
          h('div', { class: 'buttons' },
            [0, 1].map((die) => h('button', { type: 'button', id: `reroll-${id}-${die}`,
              onclick: () => this.send({ kind: 'sappers_reroll', unit: id, die }) },
            `Re-roll die ${die} (the ${faces[die]})`)),
            h('button', { type: 'button', id: `reroll-${id}-decline`,
              onclick: () => this.send({ kind: 'sappers_reroll', unit: id, die: -1 }) }, 'Keep both')));
      })];
  }

  report(state, seat) {
    const own = unitsOf(state, (unit) => unit.side === seat && inPlay(unit));
    const enemy = unitsOf(state, (unit) => unit.side !== seat && inPlay(unit));
    const moves = own.filter(([, unit]) => unit.move);
    const unit = h('select', { name: 'unit' },
      h('optgroup', { label: 'Your units' }, own.map(([id, u]) => h('option', { value: id }, unitLabel(id, u)))),
      enemy.length ? h('optgroup', { label: 'Enemy units' }, enemy.map(([id, u]) => h('option', { value: id }, unitLabel(id, u)))) : null);
    const note = h('input', { type: 'text', name: 'note', maxlength: NOTE_MAX_BYTES, autocomplete: 'off' });
    const submit = h('button', { type: 'submit', id: 'adjust-submit' });
    const { figures, formed, status, formation, now, changes: adjusted } = adjustmentControls(state, unit, 'adjust-now', (chosen) => {
      // Of the other side's unit it is a report that side answers (D46).
      const theirs = chosen.side && chosen.side !== seat;
      submit.textContent = theirs ? 'Report the adjustment' : 'Record adjustment';
      return theirs ? ` It is ${sideName(state, chosen.side)}'s: your adjustment waits for that side to accept or contest it.` : '';
    });
    const form = h('form', {
      id: 'adjust-form', class: 'order',
      onsubmit: (event) => {
        event.preventDefault();
        const changes = adjusted((words) => this.showError('input', words));
        if (!changes) return;
        const action = { kind: 'adjust', unit: unit.value, note: note.value.trim(), ...changes };
        if (!action.note) { this.showError('input', 'say what happened in the note'); note.focus(); return; }
        if (new TextEncoder().encode(action.note).length > NOTE_MAX_BYTES) {
          this.showError('input', `the note is too long (at most ${NOTE_MAX_BYTES} bytes)`);
          note.focus();
          return;
        }
        this.send(action, event.target);
      },
    },
    h('fieldset', {}, h('legend', {}, 'Report what happened on the table'),
      h('div', { class: 'row' },
        field('adjust-unit', 'Unit', unit),
        field('adjust-figures', 'Figures left', figures, 'what the unit has now, not its losses; empty: unchanged'),
        field('adjust-formed', 'Order', formed),
        field('adjust-status', 'Status', status),
        field('adjust-formation', 'Formation', formation)),
      now,
      field('adjust-note', 'Note (required)', note, 'e.g. "lost 2 figures to the battery\'s fire"'),
      submit));
    return [
      moves.length ? h('div', { class: 'moves' }, h('p', {}, h('strong', {}, 'Move on the table:')),
        h('ul', {}, moves.map(([id, u]) => h('li', {}, h('strong', {}, u.name || id), `: ${u.move}`)))) : null,
      state.phase === 'mandatory_moves' ? this.contact(state, seat) : null,
      state.phase === 'movement' ? this.unitReport(state, 'reform', reformCandidates(state, seat), {
        legend: 'Reform an unformed unit',
        label: 'Unformed unit, in no melee',
        hint: 'It spends its move reforming and is formed when the Movement phase ends. The other side may contest it.',
        submit: 'Report: it reforms',
      }) : null,
      state.phase === 'morale' ? this.unitReport(state, 'rally', rallyCandidates(state, seat), {
        legend: 'Rally a broken unit',
        label: 'Broken unit (made its broken move this turn)',
        hint: 'Rallied, it is normal again, still unformed. The other side may contest it.',
        submit: 'Report: it rallies',
      }) : null,
      form,
      this.doneButton(`Done with ${word(state.phase)}`),
    ];
  }

  // A report on one unit of one's own (rally, reform): a unit and a button; null with no unit.
  unitReport(state, kind, units, { legend, label, hint, submit }) {
    if (!units.length) return null;
    const unit = select({ name: 'unit' }, units.map(([id, u]) => [id, unitLabel(id, u)]));
    return h('form', {
      id: `${kind}-form`, class: 'order unit-report',
      onsubmit: (event) => { event.preventDefault(); this.send({ kind, unit: unit.value }); },
    }, h('fieldset', {}, h('legend', {}, legend),
      field(`${kind}-unit`, label, unit, hint),
      h('button', { type: 'submit', id: `${kind}-submit` }, submit)));
  }

  // Mandatory moves: a pursuer reached an enemy (12.24, 12.25, D39).
  contact(state, seat) {
    const pursuers = contactPursuers(state, seat);
    if (!pursuers.length) return null;
    const unit = select({ name: 'unit' }, pursuers.map(([id, u]) => [id, unitLabel(id, u)]));
    const target = h('select', { name: 'target' });
    const refresh = () => {
      const keep = target.value;
      const pursued = pursuedBy(state, unit.value);
      const offered = contactTargets(state, unit.value);
      replace(target, offered.map(([id, u]) => h('option', { value: id },
        `${unitLabel(id, u)}${id === pursued ? ' (the enemy it pursues)' : ''}`)));
      if (offered.some(([id]) => id === keep)) target.value = keep;
    };
    unit.addEventListener('change', refresh);
    refresh();
    return h('form', {
      id: 'contact-form', class: 'order',
      onsubmit: (event) => {
        event.preventDefault();
        this.send({ kind: 'contact', unit: unit.value, target: target.value });
      },
    }, h('fieldset', {}, h('legend', {}, 'Contact in pursuit (12.24, 12.25)'),
      h('p', { class: 'hint' }, 'Only when the pursuit reached a unit on the table: the enemy it pursues, a friend of that enemy ',
        'that a fleeing unit unformed in passing, or skirmishers a fleeing friend passed through. ',
        'The other side accepts it or contests it.'),
      h('div', { class: 'row' },
        field('contact-unit', 'Pursuing unit', unit),
        field('contact-target', 'Reached', target)),
      h('button', { type: 'submit', id: 'contact-submit' }, 'Report the contact')));
  }
}
