// client-web/controls.js: a player's orders. Shows exactly the actions the
// turn allows this seat now (PROTOCOL.md §5.3, rules/turn.md): choosing the
// phasing side, declaring charges, answering them, the sappers' re-roll,
// free-form adjustments and done, each only in its phase and step and only
// when the seat is awaited. Refusals are shown in words, code and message.
import { field, h, keepingInput, replace, select } from './dom.js';
import { CAVALRY, OUT_OF_PLAY, capital, errorWords, formationsOf, statusesOf, word } from './names.js';
import { awaitingList, holdReason, pendingList, phaseWords, sideName, unitName } from './view.js';

const NOTE_MAX_BYTES = 159; // core keeps a note in 159 bytes (BRIGADE_TEXT_MAX)
const REPORT_PHASES = new Set(['mandatory_moves', 'movement', 'fire', 'morale']);

const WAITING_FOR = {
  'initiative/choose': 'to choose who moves first',
  'charge/declare': 'to declare charges',
  'charge/respond': 'to answer the charges',
  'melee/reroll': "to choose its sappers' re-roll",
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
// Statuses that never charge (turn.md §Charge 1, 12.19, 12.24).
const NO_CHARGE = new Set(['blown', 'broken', 'retreating', 'pushed_back']);

/* Whether `unit` (id `id`) may declare a charge at all now, as the server
 * checks it (core/battle.c declare_charge, charge_check): in play, in no
 * melee, not already declared this turn, not blown, broken, retreating or
 * pushed back, not a battery nor a square, and formed unless it is
 * pursuing cavalry (D26, 12.24 f). The server stays the judge. */
export function mayCharge(state, id, unit) {
  if (!unit || OUT_OF_PLAY.has(unit.status) || NO_CHARGE.has(unit.status)) return false;
  if (meleeOf(state, id)) return false;
  if ((Array.isArray(state.charges) ? state.charges : []).some((charge) => charge && charge.unit === id)) return false;
  if (unit.type === 'artillery' || unit.formation === 'square') return false;
  const pursuing = unit.status === 'pursuing' && CAVALRY.has(unit.type);
  return Boolean(unit.formed) || pursuing;
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

export class Controls {
  constructor(root, { act }) {
    this.root = root;
    this.act = act;
    this.title = root.querySelector('#controls-title');
    this.error = root.querySelector('#controls-error');
    this.busy = root.querySelector('#controls-busy');
    this.body = root.querySelector('#controls-body');
    this.signature = '';
    this.pending = false;
    this.state = null;
  }

  update(state, { seat, mode }) {
    this.state = state;
    this.seat = seat;
    this.root.hidden = mode !== 'play';
    if (mode !== 'play') return;
    const signature = JSON.stringify([state.turn, state.phase, state.step, state.awaiting, seat,
      state.hold, state.pending, state.sides, state.charges, state.melees,
      Object.entries(state.units || {}).map(([id, u]) => [id, u.side, u.status, u.formed, u.figures,
        u.sappers, u.general, u.type, u.move, u.formation, u.terrain, u.defending]),
      state.step === 'reroll' && Array.isArray(state.log) ? state.log.length : 0]);
    if (signature === this.signature) return;
    this.signature = signature;
    // A refusal belongs to the step it was made in.
    const step = `${state.turn}/${state.phase}/${state.step}`;
    if (step !== this.step) this.showError(null);
    this.step = step;
    const hadFocus = keepingInput(this.body, () => this.render(state, seat));
    if (hadFocus && !this.body.contains(document.activeElement)) this.title.focus();
  }

  showError(code, message) {
    this.errorCode = code || null;
    if (!code) { replace(this.error); this.error.hidden = true; return; }
    this.error.hidden = false;
    replace(this.error, h('strong', {}, 'Refused: '), message || errorWords(code), ' ',
      h('span', { class: 'code' }, `(${code}: ${errorWords(code)})`));
  }

  // Live again: a refusal for being offline no longer holds.
  connected() {
    if (this.errorCode === 'not_connected') this.showError(null);
  }

  // Sends one action; a refusal is shown, success clears the error.
  async send(action, form) {
    if (this.pending) return;
    this.pending = true;
    this.busy.hidden = false;
    this.root.setAttribute('aria-busy', 'true');
    try {
      const answer = await this.act(action);
      if (answer.ok) {
        this.showError(null);
        if (form) form.reset();
      } else {
        this.showError(answer.code, answer.message);
      }
    } finally {
      this.pending = false;
      this.busy.hidden = true;
      this.root.removeAttribute('aria-busy');
    }
  }

  render(state, seat) {
    const awaiting = awaitingList(state);
    const mine = awaiting.includes(seat);
    const key = `${state.phase}/${state.step}`;
    let parts;
    if (state.phase === 'ended') {
      parts = [h('p', {}, 'The battle has ended: no more orders.')];
    } else if (holdReason(state)) {
      parts = [h('p', { class: 'waiting held' }, 'The umpire holds the game: your orders wait until the umpire releases it.')];
    } else if (state.step === 'settle' && !mine) {
      const pending = pendingList(state);
      parts = [h('p', { class: 'waiting' }, 'Waiting for the umpire to settle ',
        pending.length ? pending.map((item) => `${unitName(state, item.unit)}'s ${word(item.event)}`).join(', ')
          : "the melee's events", '; the melee phase goes on once the umpire has ruled.')];
    } else if (!mine) {
      const others = awaiting.filter((side) => side !== seat);
      const done = REPORT_PHASES.has(state.phase) && state.sides && state.sides[seat] && state.sides[seat].done;
      const what = WAITING_FOR[key] || (REPORT_PHASES.has(state.phase) ? 'to report and say done' : '');
      // Turn 0: the battle begins once both players have joined with their
      // dice seeds (PROTOCOL.md §10.3).
      const seeds = state.dice && state.dice.seeds ? state.dice.seeds : {};
      const absent = state.turn === 0 ? ['A', 'B'].filter((side) => !seeds[side]) : [];
      parts = [h('p', { class: 'waiting' }, done ? 'You are done with this phase. ' : '',
        others.length ? `Waiting for ${others.map((side) => sideName(state, side)).join(' and ')} ${what}.`
          : absent.length ? `Waiting for ${absent.map((side) => sideName(state, side)).join(' and ')} to join: the battle begins when both players are in.`
            : 'Waiting for the server.')];
    } else if (key === 'initiative/choose') {
      parts = this.initiative(state);
    } else if (key === 'charge/declare') {
      parts = this.declare(state, seat);
    } else if (key === 'charge/respond') {
      parts = this.respond(state, seat);
    } else if (key === 'melee/reroll') {
      parts = this.reroll(state, seat);
    } else if (REPORT_PHASES.has(state.phase) && state.step === 'report') {
      parts = this.report(state, seat);
    } else {
      // A step this page does not know: done is the one action every step has.
      parts = [h('p', {}, `${phaseWords(state)}: this page has no form for this step.`), this.doneButton('Done')];
    }
    replace(this.body, h('p', { class: 'now' }, h('strong', {}, mine && !holdReason(state) ? 'Your move: ' : 'Now: '), phaseWords(state)), parts);
  }

  doneButton(label) {
    return h('button', { type: 'button', id: 'act-done', class: 'done', onclick: () => this.send({ kind: 'done' }) }, label);
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
    const done = this.doneButton(declared.length ? 'Done: no more charges' : 'Done: no charges this turn');
    if (!own.length) {
      return [h('p', {}, declared.length ? 'No other unit of yours can charge an enemy now.'
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
      const melee = meleeOf(state, target.value);
      show(reinforce, Boolean(melee));
      if (melee) reinforce.querySelector('label').textContent = `It reinforces melee ${melee.id}, already in contact (12.8)`;
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
    return [
      declared.length ? h('p', {}, 'Declared this turn: ', declared.map((charge) =>
        `${unitName(state, charge.unit)} → ${unitName(state, charge.target)} (${word(charge.facing)})`).join('; ')) : null,
      form, done,
    ];
  }

  respond(state, seat) {
    const owed = new Map();
    for (const charge of Array.isArray(state.charges) ? state.charges : []) {
      const target = state.units[charge.target];
      if (target && target.side === seat && !charge.reinforce && !charge.response && !owed.has(charge.target)) {
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
          unit.formed ? h('button', { type: 'button', id: `respond-${id}-countercharge`,
            onclick: () => this.send({ kind: 'respond', unit: id, response: 'countercharge' }) },
          'Countercharge') : h('span', { class: 'hint' }, 'Unformed: it cannot countercharge (D26).')));
    });
  }

  reroll(state, seat) {
    const log = Array.isArray(state.log) ? state.log : [];
    const recorded = log.filter((entry) => entry && entry.kind === 'melee_dice_recorded').pop();
    const melee = recorded && (state.melees || []).find((m) => m.id === recorded.melee);
    if (!melee) return [h('p', {}, 'The melee awaiting the sappers is not in the state.')];
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
    const figures = h('input', { type: 'number', name: 'figures', min: 0, max: 100000, step: 1, inputmode: 'numeric' });
    const formed = select({ name: 'formed' }, [['', 'unchanged'], ['yes', 'formed'], ['no', 'unformed']]);
    const status = h('select', { name: 'status' });
    const formation = h('select', { name: 'formation' });
    const note = h('input', { type: 'text', name: 'note', maxlength: NOTE_MAX_BYTES, autocomplete: 'off' });
    const now = h('p', { class: 'hint unit-now', id: 'adjust-now', 'aria-live': 'polite' });
    const refresh = () => {
      const chosen = state.units[unit.value] || {};
      figures.placeholder = `now ${chosen.figures}`;
      fillChoice(status, statusesOf(chosen.type));
      fillChoice(formation, formationsOf(chosen.type));
      now.textContent = unitNow(chosen);
    };
    unit.addEventListener('change', refresh);
    refresh();
    const form = h('form', {
      id: 'adjust-form', class: 'order',
      onsubmit: (event) => {
        event.preventDefault();
        const changes = adjustmentChanges({ figures, formed, status, formation },
          (words) => this.showError('input', words));
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
        field('adjust-figures', 'Figures', figures, 'empty: unchanged'),
        field('adjust-formed', 'Order', formed),
        field('adjust-status', 'Status', status),
        field('adjust-formation', 'Formation', formation)),
      now,
      field('adjust-note', 'Note (required)', note, 'e.g. "lost 2 figures to the battery\'s fire"'),
      h('button', { type: 'submit', id: 'adjust-submit' }, 'Record adjustment')));
    return [
      moves.length ? h('div', { class: 'moves' }, h('p', {}, h('strong', {}, 'Move on the table:')),
        h('ul', {}, moves.map(([id, u]) => h('li', {}, h('strong', {}, u.name || id), `: ${u.move}`)))) : null,
      form,
      this.doneButton(`Done with ${word(state.phase)}`),
    ];
  }
}
