// client-web/umpire.js: the umpire's panel (PROTOCOL.md §5.3, §10.2), shown
// only to the seat "umpire": hold and release the game, settle D9's events
// (state.pending), overrule a melee fought this turn (state.fought), adjust
// any unit, write a note in the log, and roll the game back to an earlier
// action (by its log entries' seq), and rule on the players' contested
// reports (state.reports, D46). Every action carries the umpire's
// reason; refusals are shown in words, with the code and the server's
// message. Players never see this panel, and the umpire never sees the
// players' orders (controls.js).
import { field, h, keepingInput, replace, select } from './dom.js';
import { CAVALRY, RESULTS, capital, word } from './names.js';
import { adjustmentControls } from './controls.js';
import { Panel } from './panel.js';
import { rollbackLabel, rolledBackIndexes, rollbackTargets } from './log.js';
import { holdReason, otherSide, pendingList, reportWhat, reportsForUmpire, resultWords, sideName, unitName } from './view.js';

const REASON_MAX_BYTES = 159; // the server cuts a reason to 159 bytes (§5.3)
const bytes = (text) => new TextEncoder().encode(text).length;
const isMap = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

// The seats whose flag fell, in the order they fell (state.clock.flags,
// PROTOCOL.md §11.2); [] for a game without a clock, or a server that has
// none (the member is absent, or not the shape §11.2 gives).
export function fallenFlags(state) {
  const clock = state && isMap(state.clock) ? state.clock : null;
  const flags = clock && Array.isArray(clock.flags) ? clock.flags : [];
  return flags.filter((seat, index) => (seat === 'A' || seat === 'B') && flags.indexOf(seat) === index);
}

// "T2.M1: hussars against dragoons (side A wins: retreat)".
function foughtWords(state, fought) {
  const units = Array.isArray(fought.units) ? fought.units : [];
  const of = (side) => units.filter((id) => state.units[id] && state.units[id].side === side)
    .map((id) => unitName(state, id)).join(', ') || 'nobody';
  const outcome = fought.winner ? `${sideName(state, fought.winner)} wins: ${word(fought.result)}`
    : `no winner: ${word(fought.result)}`;
  return `${fought.melee}: ${of('A')} against ${of('B')} — ${outcome}`;
}

// The outcomes of each test (12.22 reform, 12.23 pursuit), as the server
// takes them in an overrule (core/melee.c test_ruled).
const TEST_OUTCOMES = {
  reform: ['pass', 'fail'],
  pursuit: ['excellent', 'unformed', 'blown', 'pursuit'],
};

// Unit id -> the kind of test it took in melee `melee` ("reform",
// "pursuit"; absent: none), from the latest melee_unit_result of each unit
// in the log that is not rolled back (an overrule's entries come after the
// melee's own).
export function meleeTests(state, melee) {
  const log = Array.isArray(state.log) ? state.log : [];
  const gone = rolledBackIndexes(state);
  const tests = new Map();
  log.forEach((entry, index) => {
    if (!isMap(entry) || entry.kind !== 'melee_unit_result' || entry.melee !== melee || gone.has(index)) return;
    if (typeof entry.unit !== 'string') return;
    const kind = isMap(entry.test) && typeof entry.test.kind === 'string' ? entry.test.kind : 'none';
    tests.set(entry.unit, kind);
  });
  return tests;
}

function shorten(text, most = 90) {
  return text.length > most ? `${text.slice(0, most - 1)}…` : text;
}

export class UmpirePanel extends Panel {
  constructor(root, { act }) {
    super(root, act, 'umpire');
    this.done = root.querySelector('#umpire-done');
    // this.confirming: the seq a rollback waits to be confirmed for
    this.seq = null;
  }

  update(state, { mode, seq }) {
    this.root.hidden = mode !== 'umpire';
    if (mode !== 'umpire') return;
    this.state = state;
    this.seq = seq;
    const log = Array.isArray(state.log) ? state.log : [];
    const signature = JSON.stringify([state.turn, state.phase, state.step, state.hold, state.pending,
      state.fought, state.rolled_back, state.umpire, state.reports, seq, log.length, this.confirming,
      fallenFlags(state), state.sides && state.sides.A && state.sides.A.name, state.sides && state.sides.B && state.sides.B.name,
      Object.entries(state.units || {}).map(([id, u]) => [id, u.side, u.name, u.status, u.formed, u.figures, u.formation, u.type])]);
    if (signature === this.signature) return;
    this.signature = signature;
    // A refusal or a confirmation belongs to the step it was made in.
    const step = `${state.turn}/${state.phase}/${state.step}`;
    // The state our own accepted action made (its seq) keeps its done line.
    const ours = Number.isSafeInteger(seq) && seq === this.doneAt;
    if (this.step !== undefined && step !== this.step && !ours) { this.showError(null); this.showDone(''); }
    this.step = step;
    const { hadFocus } = keepingInput(this.body, () => this.render(state));
    if (this.focusNext()) return;
    if (hadFocus && !this.body.contains(document.activeElement) && !this.afterRollback) this.title.focus();
  }

  // After a rollback: the focus goes to the release form's reason (the game
  // is held now), once the held state is shown, with the done line in view.
  focusNext() {
    if (!this.afterRollback) return false;
    const reason = this.body.querySelector('#release-reason');
    if (!reason) return false;
    this.afterRollback = false;
    reason.focus({ preventScroll: true });
    reason.scrollIntoView({ block: 'nearest' });
    if (!this.done.hidden) this.done.scrollIntoView({ block: 'nearest' });
    return true;
  }

  rerender() {
    this.signature = '';
    if (this.state) this.update(this.state, { mode: 'umpire', seq: this.seq });
  }

  // A refusal is brought into view too.
  showError(code, message) {
    super.showError(code, message);
    if (code) this.error.scrollIntoView({ block: 'nearest' });
  }

  showDone(text) {
    this.done.hidden = !text;
    this.done.textContent = text || '';
  }

  // Sends one action (Panel send); an accepted one says `doneText` ("Done."
  // when none) in the done line. Resolves to whether it was accepted.
  async send(action, form, doneText) {
    if (this.pending) return false;
    this.afterRollback = false;
    this.showDone('');
    const answer = await super.send(action, form);
    if (!answer || !answer.ok) return false;
    this.doneAt = Number.isSafeInteger(answer.seq) ? answer.seq : null;
    this.showDone(doneText || 'Done.');
    return true;
  }

  // The reason of an action from `input`, or null after saying what is wrong.
  reason(input, what) {
    const text = input.value.trim();
    if (!text) { this.showError('input', `give ${what}`); input.focus(); return null; }
    if (bytes(text) > 255) { this.showError('input', 'the reason is too long (at most 255 bytes)'); input.focus(); return null; }
    return text;
  }

  // From the log: the umpire picked "Roll back to here" on an entry.
  pickRollback(seq) {
    const choice = this.body.querySelector('#rollback-seq');
    if (!choice) return;
    if (![...choice.options].some((option) => option.value === String(seq))) {
      this.showError('input', `seq ${seq} cannot be rolled back to (not an action of the battle, or rolled back already)`);
      return;
    }
    choice.value = String(seq);
    choice.dispatchEvent(new Event('change'));
    const reason = this.body.querySelector('#rollback-reason');
    reason.scrollIntoView({ block: 'center' });
    reason.focus();
  }

  render(state) {
    const begun = Number.isInteger(state.turn) && state.turn >= 1;
    // On a phone the panel is long: buttons to its parts and to the log.
    const jump = (label, id) => h('button', {
      type: 'button', class: 'quiet jump',
      onclick: () => {
        const target = document.getElementById(id);
        if (!target) return;
        target.scrollIntoView({ block: 'start' });
        const control = target.matches('input, select, textarea, button, [tabindex]') ? target
          : target.querySelector('input, select, textarea, button, [tabindex]');
        if (control) control.focus({ preventScroll: true });
      },
    }, label);
    if (state.phase === 'ended') {
      // Nothing more can be played, ruled or rolled back (PROTOCOL.md §10.2).
      replace(this.body, h('p', { class: 'waiting', id: 'umpire-ended' },
        'The battle has ended: nothing more can be ruled or rolled back. Its dice seed is public: ',
        'anyone can check every roll with "brigade verify".'));
      return;
    }
    const contested = reportsForUmpire(state);
    const parts = [
      h('nav', { class: 'umpire-jump', 'aria-label': "The umpire's tools" },
        contested.length ? jump('Rule', 'rule-part') : null,
        jump('Overrule', 'overrule-part'), jump('Adjust', 'uadjust-form'), jump('Note', 'note-form'),
        jump('Roll back', 'rollback-part'), jump('Units', 'forces'), jump('Log', 'log-scroll')),
      begun ? null : h('p', { class: 'waiting' }, 'The battle has not begun: the umpire acts once both players have joined.'),
      this.rulePart(state, contested),
      this.holdPart(state),
      this.settlePart(state),
      this.overrulePart(state),
      h('div', { class: 'umpire-grid' },
        h('div', { class: 'umpire-col' }, this.adjustPart(state)),
        h('div', { class: 'umpire-col' }, this.notePart(), this.rollbackPart(state),
          begun ? this.endPart(state) : null)),
    ];
    replace(this.body, parts);
  }

  reasonField(id, label, hint) {
    const input = h('input', { type: 'text', name: 'reason', maxlength: 255, autocomplete: 'off' });
    return [input, field(id, label, input, hint)];
  }

  // A form of one umpire's action whose only member is its reason (hold,
  // release, note): `lead` stands before the reason field, `missing`
  // names what an empty field lacks, `done` is said once sent.
  reasonForm({ id, cls, kind, legend, lead = null, reasonAt: [fieldId, label, hint], missing, done, button }) {
    const [reason, reasonField] = this.reasonField(fieldId, label, hint);
    return h('form', {
      id, class: cls,
      onsubmit: (event) => {
        event.preventDefault();
        const text = this.reason(reason, missing);
        if (text) this.send({ kind, reason: text }, event.target, done);
      },
    }, h('fieldset', {}, h('legend', {}, legend), lead, reasonField, button));
  }

  holdPart(state) {
    const hold = holdReason(state);
    if (hold) {
      return this.reasonForm({
        id: 'release-form', cls: 'umpire-part held', kind: 'release', legend: 'The game is held',
        lead: h('p', {}, 'Held: ', h('strong', { id: 'umpire-hold-reason' }, hold)),
        reasonAt: ['release-reason', 'Reason for releasing', 'e.g. "the table is set again"'],
        missing: 'a reason for releasing the game', done: 'Released: the game goes on.',
        button: h('button', { type: 'submit', id: 'release-submit' }, 'Release the game'),
      });
    }
    return this.reasonForm({
      id: 'hold-form', cls: 'umpire-part', kind: 'hold', legend: 'Hold the game',
      lead: h('p', { class: 'hint' }, 'While held, every order of the players is refused until you release the game.'),
      reasonAt: ['hold-reason-input', 'Reason for holding', 'e.g. "a dispute over the wood\'s edge"'],
      missing: 'a reason for holding the game', done: 'Held: players\' orders wait for your release.',
      button: h('button', { type: 'submit', id: 'hold-submit', class: 'hold' }, 'Hold the game'),
    });
  }

  /* The contested reports that wait for the umpire (D46): upheld (it is in
   * force) or rejected, with the reason. Null when none waits. */
  rulePart(state, contested) {
    if (!contested.length) return null;
    return h('section', { id: 'rule-part', class: 'umpire-part urgent', 'aria-labelledby': 'rule-title' },
      h('h3', { id: 'rule-title' }, contested.length === 1 ? 'A contested report waits for your ruling'
        : `${contested.length} contested reports wait for your ruling`),
      h('ul', { class: 'settle-list' }, contested.map((report) => {
        const key = `rule-${report.number}`;
        const upheld = select({ name: 'upheld' }, [['', 'choose…'], ['yes', 'Upheld: the report stands'],
          ['no', 'Rejected: it is not in force']]);
        const [reason, reasonField] = this.reasonField(`${key}-reason`, 'Your reason', 'e.g. "the dragoons had the hussars in sight"');
        return h('li', { dataset: { report: String(report.number) } },
          h('form', {
            class: 'ruling-form', id: `${key}-form`,
            onsubmit: (event) => {
              event.preventDefault();
              if (!upheld.value) { this.showError('input', 'choose upheld or rejected'); upheld.focus(); return; }
              const text = this.reason(reason, 'a reason for your ruling');
              if (!text) return;
              const yes = upheld.value === 'yes';
              this.send({ kind: 'rule', report: report.number, upheld: yes, reason: text }, null,
                `Report ${report.number} ${yes ? 'upheld' : 'rejected'}.`);
            },
          },
          h('p', {}, h('strong', {}, `Report ${report.number}`), ` by ${sideName(state, report.side)}: ${reportWhat(state, report)}.`),
          h('p', { class: 'report-contest' }, h('strong', {}, `Contested by ${sideName(state, otherSide(report.side))}: `),
            typeof report.contest === 'string' && report.contest ? `“${report.contest}”` : 'no reason given'),
          h('div', { class: 'row' }, field(`${key}-upheld`, 'Your ruling', upheld)),
          reasonField,
          h('button', { type: 'submit', id: `${key}-submit` }, `Rule on report ${report.number}`)));
      })));
  }

  settlePart(state) {
    const pending = pendingList(state);
    return h('section', { id: 'settle-part', class: `umpire-part${pending.length ? ' urgent' : ''}`, 'aria-labelledby': 'settle-title' },
      h('h3', { id: 'settle-title' }, state.step === 'settle' && pending.length ? 'Settle: the melee waits for you' : 'Events to settle (12.15)'),
      pending.length ? h('ul', { class: 'settle-list' }, pending.map((item) => {
        const key = `${item.unit}-${item.event}`;
        const [reason, reasonField] = this.reasonField(`settle-${key}-reason`, 'Your ruling',
          item.event === 'double_six' ? 'e.g. "a double six: the colonel falls; see the adjustment"' : 'e.g. "the general survives"');
        return h('li', { dataset: { unit: item.unit, event: String(item.event) } },
          h('form', {
            class: 'settle',
            onsubmit: (event) => {
              event.preventDefault();
              const text = this.reason(reason, 'your ruling on the event');
              if (text) this.send({ kind: 'settle', unit: item.unit, event: item.event, reason: text }, null, `Settled: ${unitName(state, item.unit)}'s ${word(item.event)}.`);
            },
          },
          h('p', {}, h('strong', {}, unitName(state, item.unit)), ` (${item.unit}): ${word(item.event)}`,
            item.melee ? ` in melee ${item.melee}` : ''),
          reasonField,
          h('button', { type: 'submit', id: `settle-${key}` }, `Settle ${word(item.event)}`)));
      })) : h('p', { class: 'hint' }, 'No event waits for a ruling. A double six or a general at risk in a melee comes here; the melee phase waits until you settle it.'),
      pending.length ? h('p', { class: 'hint' }, 'What the ruling does to a unit, record under "Adjust a unit".') : null);
  }

  overrulePart(state) {
    const fought = (Array.isArray(state.fought) ? state.fought : []).filter((m) => isMap(m) && typeof m.melee === 'string');
    const head = h('legend', {}, 'Overrule a melee');
    if (!fought.length) {
      return h('fieldset', { id: 'overrule-part', class: 'umpire-part' }, head,
        h('p', { class: 'hint' }, 'No melee has been fought this turn.'));
    }
    const melee = select({ name: 'melee' }, fought.map((m) => [m.melee, foughtWords(state, m)]));
    const result = h('select', { name: 'result' });
    const short = (side) => {
      const name = state.sides && state.sides[side] && state.sides[side].name;
      return typeof name === 'string' && name ? `${side} (${name})` : side;
    };
    const winner = select({ name: 'winner' }, [['A', short('A')], ['B', short('B')]], 'A');
    const unit = h('select', { name: 'unit' });
    const outcome = h('select', { name: 'outcome' });
    const [reason, reasonField] = this.reasonField('overrule-reason', 'Reason', 'e.g. "the dragoons were in the flank, not the front"');
    const current = h('p', { class: 'hint', id: 'overrule-current' });
    const refresh = () => {
      const chosen = fought.find((m) => m.melee === melee.value) || fought[0];
      // Only the results this melee may have: "the square holds" only with
      // a unit in square on one side and only cavalry on the other (D13, D25).
      const members = (Array.isArray(chosen.units) ? chosen.units : []).filter((id) => state.units[id]);
      const squares = members.filter((id) => state.units[id].formation === 'square' &&
        members.filter((other) => state.units[other].side !== state.units[id].side)
          .every((other) => CAVALRY.has(state.units[other].type)) &&
        members.some((other) => state.units[other].side !== state.units[id].side));
      const results = RESULTS.filter((name) => name !== 'square_holds' || squares.length > 0 || chosen.result === 'square_holds');
      const keepResult = result.value;
      replace(result, h('option', { value: '' }, 'unchanged'), results.map((name) => h('option', { value: name }, word(name))));
      if (results.includes(keepResult)) result.value = keepResult;
      // The square that holds wins (D13): its side is the winner.
      if (result.value === 'square_holds' && squares.length) winner.value = state.units[squares[0]].side;
      // Only a unit that took a test has outcomes to choose from: those of its test.
      const tests = meleeTests(state, chosen.melee);
      const keep = unit.value;
      replace(unit, h('option', { value: '' }, 'no test changed'),
        (Array.isArray(chosen.units) ? chosen.units : []).map((id) => {
          const kind = tests.get(id);
          const outcomes = TEST_OUTCOMES[kind];
          return h('option', { value: id, disabled: !outcomes },
            `${unitName(state, id)}: ${outcomes ? `${word(kind)} test` : 'no test'}`);
        }));
      if ([...unit.options].some((option) => option.value === keep && !option.disabled)) unit.value = keep;
      const outcomes = TEST_OUTCOMES[tests.get(unit.value)] || [];
      const keepOutcome = outcome.value;
      replace(outcome, outcomes.length ? outcomes.map((name) => h('option', { value: name }, word(name)))
        : h('option', { value: '' }, unit.value ? 'no test taken' : '—'));
      if (outcomes.includes(keepOutcome)) outcome.value = keepOutcome;
      current.textContent = `Now: ${chosen.winner ? `${sideName(state, chosen.winner)} wins` : 'no winner'}, ${word(chosen.result)}.`;
      winner.disabled = result.value === '' || result.value === 'draw' || (result.value === 'square_holds' && squares.length > 0);
      outcome.disabled = !outcomes.length;
    };
    melee.addEventListener('change', refresh);
    result.addEventListener('change', refresh);
    unit.addEventListener('change', refresh);
    const form = h('form', {
      id: 'overrule-form', class: 'umpire-part',
      'data-part': 'overrule',
      onsubmit: (event) => {
        event.preventDefault();
        const action = { kind: 'overrule', melee: melee.value };
        if (result.value) {
          action.result = result.value;
          if (result.value !== 'draw') action.winner = winner.value;
        }
        if (unit.value && outcome.value) { action.unit = unit.value; action.outcome = outcome.value; }
        if (!action.result && !action.unit) {
          this.showError('input', 'choose a new result, or a unit whose test outcome changes');
          result.focus();
          return;
        }
        const text = this.reason(reason, 'a reason for overruling');
        if (!text) return;
        action.reason = text;
        this.send(action, event.target, `Overruled melee ${action.melee}.`).then(() => refresh());
      },
    }, h('fieldset', { id: 'overrule-part' }, head,
      field('overrule-melee', 'Melee fought this turn', melee),
      current,
      h('div', { class: 'row overrule-row' },
        field('overrule-result', 'New result (12.18)', result),
        field('overrule-winner', 'Winner', winner),
        field('overrule-unit', "And/or a unit's test (12.22, 12.23)", unit),
        field('overrule-outcome', 'Its outcome', outcome)),
      reasonField,
      h('p', { class: 'hint' }, 'The melee is resolved again with the same dice and your result or outcome.'),
      h('button', { type: 'submit', id: 'overrule-submit' }, 'Overrule')));
    refresh();
    return form;
  }

  adjustPart(state) {
    const units = Object.entries(state.units || {});
    const unit = h('select', { name: 'unit' }, ['A', 'B'].map((side) => h('optgroup', { label: capital(sideName(state, side)) },
      units.filter(([, u]) => u.side === side).map(([id, u]) => h('option', { value: id }, `${u.name || id}: ${u.figures} fig.`)))),
    units.some(([, u]) => u.side !== 'A' && u.side !== 'B') ? h('optgroup', { label: 'Other units' },
      units.filter(([, u]) => u.side !== 'A' && u.side !== 'B').map(([id, u]) => h('option', { value: id }, u.name || id))) : null);
    const [reason, reasonField] = this.reasonField('uadjust-reason', 'Reason', 'e.g. "the colonel falls: the regiment is shaken"');
    const { figures, formed, status, formation, now, refresh, changes: adjusted } = adjustmentControls(state, unit, 'uadjust-now');
    return h('form', {
      id: 'uadjust-form', class: 'umpire-part',
      onsubmit: (event) => {
        event.preventDefault();
        const changes = adjusted((words) => this.showError('input', words));
        if (!changes) return;
        const action = { kind: 'umpire_adjust', unit: unit.value, ...changes };
        const text = this.reason(reason, 'a reason for the adjustment');
        if (!text) return;
        action.reason = text;
        this.send(action, event.target, `Adjusted ${unitName(state, action.unit)}.`).then(() => refresh());
      },
    }, h('fieldset', {}, h('legend', {}, 'Adjust a unit'),
      field('uadjust-unit', 'Unit (either side)', unit),
      now,
      h('div', { class: 'row' },
        field('uadjust-figures', 'Figures', figures, 'empty: unchanged'),
        field('uadjust-formed', 'Order', formed)),
      h('div', { class: 'row' },
        field('uadjust-status', 'Status', status),
        field('uadjust-formation', 'Formation', formation)),
      reasonField,
      h('button', { type: 'submit', id: 'uadjust-submit' }, 'Adjust')));
  }

  notePart() {
    return this.reasonForm({
      id: 'note-form', cls: 'umpire-part', kind: 'note', legend: 'Write in the log',
      reasonAt: ['note-text', 'Note', 'It goes in everyone\'s log; nothing else changes.'],
      missing: 'the text of the note', done: 'The note is in the log.',
      button: h('button', { type: 'submit', id: 'note-submit' }, 'Add the note'),
    });
  }

  // Ends the battle (a time limit, the players' agreement), once confirmed,
  // with the game's result if the umpire gives one (PROTOCOL.md §11.5): a
  // win for side A's side, for side B's, a draw, or none (in a tournament
  // the organiser then gives it). When a side's flag has fallen (§11.2) a
  // preset offers its loss on time: a win for the other side.
  endPart(state) {
    const [text, textField] = this.reasonField('end-reason', 'Why the battle ends',
      'e.g. "time is up: 3 hours", "agreed". Nothing can be played or rolled back afterwards.');
    const result = select({ name: 'result' }, [
      ['', 'No result (the organiser gives it)'],
      ['A', capital(resultWords(state, 'A'))],
      ['B', capital(resultWords(state, 'B'))],
      ['draw', capital(resultWords(state, 'draw'))],
    ], '');
    const confirm = h('label', { class: 'field check' },
      h('input', { type: 'checkbox', id: 'end-confirm' }), ' I end the battle for good');
    const flags = fallenFlags(state);
    const presets = flags.length ? h('div', { class: 'end-presets', id: 'end-presets', role: 'group', 'aria-label': 'Preset results' },
      flags.map((seat) => h('p', {},
        h('span', { class: 'hint' }, `${capital(sideName(state, seat))}'s flag fell (its time is up). `),
        h('button', {
          type: 'button', class: 'quiet', id: `end-preset-time-${seat}`,
          onclick: () => {
            result.value = otherSide(seat);
            text.value = 'loss on time';
            confirm.querySelector('input').focus();
          },
        }, `Loss on time: ${resultWords(state, otherSide(seat))}`)))) : null;
    return h('form', {
      id: 'end-form', class: 'umpire-part',
      onsubmit: (event) => {
        event.preventDefault();
        const reason = this.reason(text, 'the reason the battle ends');
        if (!reason) return;
        if (!confirm.querySelector('input').checked) {
          this.showError('input', 'tick "I end the battle for good" first');
          confirm.querySelector('input').focus();
          return;
        }
        const action = { kind: 'end', reason };
        if (resultWords(state, result.value)) action.result = result.value;
        const words = action.result ? resultWords(state, action.result) : null;
        this.send(action, event.target, words ? `The battle has ended: ${words}.` : 'The battle has ended.');
      },
    }, h('fieldset', {}, h('legend', {}, 'End the battle'),
      presets,
      field('end-result', 'Result', result, 'A win for a side, a draw, or none.'),
      textField, confirm,
      h('button', { type: 'submit', id: 'end-submit', class: 'hold' }, 'End the battle')));
  }

  rollbackPart(state) {
    const targets = rollbackTargets(state, this.seq);
    const head = h('legend', {}, 'Roll back');
    const log = Array.isArray(state.log) ? state.log : [];
    if (!targets.length) {
      return h('fieldset', { id: 'rollback-part', class: 'umpire-part' }, head,
        h('p', { class: 'hint' }, log.length && !log.some((entry) => isMap(entry) && Number.isSafeInteger(entry.seq))
          ? 'This server does not number the log entries by action: rollback needs a newer server.'
          : 'No earlier action of the battle to return to yet.'));
    }
    const choice = select({ name: 'to_seq' }, [['', 'choose an action…'],
      ...targets.map((t) => [String(t.seq), shorten(rollbackLabel(t))])]);
    const [reason, reasonField] = this.reasonField('rollback-reason', 'Reason', 'e.g. "the charge was declared against the wrong unit"');
    const undone = h('p', { class: 'hint', id: 'rollback-undone' });
    const refresh = () => {
      const to = Number(choice.value);
      const later = Number.isSafeInteger(this.seq) && to ? this.seq - to : 0;
      undone.textContent = to ? `Undoes ${later === 1 ? 'the action' : `the ${later} actions`} after seq ${to}; the log keeps ${later === 1 ? 'its entries' : 'their entries'}, marked rolled back. The game stays held until you release it.`
        : 'Pick an action here, or "Roll back to here" on an entry of the log.';
    };
    choice.addEventListener('change', () => {
      if (Number(choice.value) !== this.confirming) this.confirming = null;
      refresh();
    });
    refresh();
    const confirming = this.confirming;
    return h('form', {
      id: 'rollback-form', class: 'umpire-part',
      onsubmit: async (event) => {
        event.preventDefault();
        const to = Number(choice.value);
        if (!to) { this.showError('input', 'choose the action to return to'); choice.focus(); return; }
        const text = this.reason(reason, 'a reason for the rollback');
        if (!text) return;
        if (this.confirming === to && !(event.submitter && event.submitter.id === 'rollback-confirm')) {
          // Enter in a field does not confirm: the button does.
          this.body.querySelector('#rollback-confirm').focus();
          return;
        }
        if (this.confirming !== to) {
          // A second press confirms: a rollback undoes actions of both players.
          this.confirming = to;
          this.rerender();
          const confirm = this.body.querySelector('#rollback-confirm');
          if (confirm) confirm.focus();
          return;
        }
        this.confirming = null;
        const ok = await this.send({ kind: 'rollback', to_seq: to, reason: text }, null,
          `Rolled back to seq ${to}; the game is held until you release it.`);
        if (ok) { choice.value = ''; reason.value = ''; }
        // The held state (it may come before or after the answer) offers the
        // release: its reason gets the focus, not the panel's title.
        this.afterRollback = ok;
        this.rerender();
        if (ok && this.afterRollback && !this.body.contains(document.activeElement)) {
          // Not held yet: the done line says what happened meanwhile.
          this.done.focus({ preventScroll: true });
          this.done.scrollIntoView({ block: 'nearest' });
        }
      },
    }, h('fieldset', { id: 'rollback-part' }, head,
      field('rollback-seq', 'Return to the state after', choice),
      undone,
      reasonField,
      confirming ? h('div', { class: 'confirm', role: 'group', 'aria-labelledby': 'rollback-confirm-text' },
        h('p', { id: 'rollback-confirm-text' }, h('strong', {}, `Roll back to seq ${confirming}?`),
          ` ${Number.isSafeInteger(this.seq) ? (this.seq - confirming === 1 ? 'The last action' : `The last ${this.seq - confirming} actions`) : 'The later actions'} will be undone for everyone.`),
        h('div', { class: 'buttons' },
          h('button', { type: 'submit', id: 'rollback-confirm', class: 'danger' }, 'Yes, roll back'),
          h('button', { type: 'button', id: 'rollback-cancel', class: 'quiet',
            onclick: () => { this.confirming = null; this.rerender(); this.body.querySelector('#rollback-submit').focus(); } }, 'Cancel')))
        : h('button', { type: 'submit', id: 'rollback-submit', class: 'danger' }, 'Roll back…')));
  }
}
