// client-web/log.js: the game's log (state.log, PROTOCOL.md §7.1), oldest
// first, appended as entries come. Every roll shows its dice, modifiers
// (value, name, rule) and result; a melee's unit results and its outcome
// are gathered in one block per melee and turn, side A against side B.
// A bare `roll` entry is shown only until the entry that explains it (a
// morale test, a melee result) arrives, since that one shows the dice too.
import { h, replace } from './dom.js';
import { capital, signed, word } from './names.js';
import { sideName, unitName } from './view.js';

const isMap = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const text = (value) => (typeof value === 'string' ? value : '');

// "T2.M1" for melee "T1.M1" fought in turn 2: the prefix of its rolls.
function meleePrefix(entry) {
  const number = text(entry.melee).split('.M')[1];
  return number ? `T${entry.turn}.M${number}` : null;
}

// Whether `entry` (a later one) shows the dice of the roll named `name`.
function explains(entry, name) {
  if (!isMap(entry)) return false;
  if (entry.kind === 'morale_tested') return entry.name === name;
  if (entry.kind === 'melee_unit_result') {
    const own = `${meleePrefix(entry)}.${text(entry.unit)}`;
    return name === own || name.startsWith(`${own}.`);
  }
  return false;
}

function dice(faces, label) {
  if (!Array.isArray(faces)) return null;
  return h('span', { class: 'dice', 'aria-label': `${label || 'dice'} ${faces.join(' and ')}` },
    faces.map((face) => h('span', { class: 'die', 'aria-hidden': 'true' }, String(face))));
}

function modifiers(list) {
  if (!Array.isArray(list) || list.length === 0) return h('p', { class: 'mods none' }, 'no modifiers');
  return h('ul', { class: 'mods' }, list.map((modifier) => h('li', {},
    h('span', { class: `mod-value ${modifier.value < 0 ? 'minus' : 'plus'}` }, signed(modifier.value)),
    ' ', text(modifier.name) || '?',
    ' ', h('span', { class: 'rule' }, text(modifier.rule)))));
}

// Dice, modifiers and total of a record (a roll with modifiers).
function calc(record, result) {
  const rerolled = Array.isArray(record.rolled_dice) && Array.isArray(record.dice) &&
    record.rolled_dice.join() !== record.dice.join();
  return h('div', { class: 'calc' },
    h('div', { class: 'calc-dice' }, dice(record.dice),
      rerolled ? h('span', { class: 'rerolled' }, ` re-rolled by the sappers from ${record.rolled_dice.join('+')}`) : null),
    modifiers(record.modifiers),
    h('p', { class: 'calc-total' }, h('span', { class: 'total' }, `= ${record.total}`), result || null));
}

function meta(entry) {
  return h('p', { class: 'meta' }, `T${entry.turn} · ${word(entry.phase)}`);
}

export class LogView {
  constructor(list, scroller) {
    this.list = list;
    this.scroller = scroller;
    // Follow the newest entries until the reader scrolls up to read older
    // ones; scrolling back to the bottom follows again.
    this.follow = true;
    scroller.addEventListener('scroll', () => {
      this.follow = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 48;
    });
    this.count = 0;
    this.blocks = new Map(); // "turn|melee" -> block element parts
    this.rolls = new Map(); // roll name -> its element, while shown
  }

  reset(state) {
    replace(this.list);
    this.count = 0;
    this.blocks.clear();
    this.rolls.clear();
    this.update(state, true);
  }

  update(state, first = false) {
    const log = Array.isArray(state.log) ? state.log : [];
    if (log.length < this.count) { this.reset(state); return; }
    if (log.length === this.count) return;
    const scroller = this.scroller;
    if (first) this.follow = true;
    for (let index = this.count; index < log.length; index += 1) this.add(state, log, index);
    this.count = log.length;
    // After layout: on the first render the box may only now have a height.
    if (this.follow) requestAnimationFrame(() => { scroller.scrollTop = scroller.scrollHeight; });
  }

  add(state, log, index) {
    const entry = log[index];
    if (!isMap(entry)) {
      this.list.append(h('li', { class: 'entry' }, '(an entry in a form this page does not know)'));
      return;
    }
    for (const [name, element] of this.rolls) {
      if (explains(entry, name)) { element.remove(); this.rolls.delete(name); }
    }
    const node = this.entry(state, log, index, entry);
    if (node) this.list.append(node);
  }

  entry(state, log, index, entry) {
    const kind = text(entry.kind);
    switch (kind) {
      case 'turn_begun':
        return h('li', { class: 'turn-mark', dataset: { kind } }, h('h3', {}, `Turn ${entry.turn}`));
      case 'phase_begun':
        return h('li', { class: 'entry phase-mark', dataset: { kind } }, text(entry.text));
      case 'roll': {
        const name = text(entry.name);
        // The explaining entry comes with the roll, in the same action.
        if (log.slice(index + 1, index + 65).some((later) => explains(later, name))) return null;
        const sum = Array.isArray(entry.dice) ? entry.dice.reduce((a, b) => a + b, 0) : null;
        const node = h('li', { class: 'entry roll', dataset: { kind } }, meta(entry),
          h('p', { class: 'headline' }, h('strong', {}, 'Roll '), h('span', { class: 'roll-name' }, name),
            ' ', dice(entry.dice), sum === null ? null : h('span', { class: 'total' }, ` = ${sum}`)));
        this.rolls.set(name, node);
        return node;
      }
      case 'morale_tested': {
        const passed = entry.effect === 'passed';
        return h('li', { class: 'entry test', dataset: { kind } }, meta(entry),
          h('p', { class: 'headline' }, h('strong', {}, 'Morale test: '), unitName(state, entry.unit),
            ' ', h('span', { class: 'roll-name' }, text(entry.name))),
          calc(entry, [` needs ${entry.pass_on}: `,
            h('span', { class: `verdict-word ${passed ? 'good' : 'bad'}` }, word(entry.effect))]));
      }
      case 'initiative_won':
        return h('li', { class: 'entry initiative', dataset: { kind } }, meta(entry),
          h('p', { class: 'headline' }, h('strong', {}, `${capital(sideName(state, entry.winner))} wins the initiative`),
            ` (A ${entry.total_a}, B ${entry.total_b})`));
      case 'melee_unit_result':
        this.meleeUnit(state, entry);
        return null;
      case 'melee_resolved':
        this.meleeOutcome(state, entry);
        return null;
      default:
        return h('li', { class: `entry kind-${kind || 'unknown'}`, dataset: { kind } }, meta(entry),
          h('p', {}, text(entry.text) || kind || '?'));
    }
  }

  block(state, entry) {
    const key = `${entry.turn}|${text(entry.melee)}`;
    let block = this.blocks.get(key);
    if (!block) {
      const sides = {
        A: h('div', { class: 'melee-side side-A' }, h('h4', {}, sideName(state, 'A'))),
        B: h('div', { class: 'melee-side side-B' }, h('h4', {}, sideName(state, 'B'))),
      };
      const verdict = h('div', { class: 'verdict pending' }, 'being fought…');
      const element = h('li', { class: 'entry melee-block', dataset: { kind: 'melee', melee: text(entry.melee), turn: String(entry.turn) } },
        meta(entry),
        h('h3', {}, `Melee ${text(entry.melee)}`),
        h('div', { class: 'melee-sides' }, sides.A, sides.B),
        verdict);
      block = { element, sides, verdict };
      this.blocks.set(key, block);
      this.list.append(element);
    }
    return block;
  }

  meleeUnit(state, entry) {
    const block = this.block(state, entry);
    const unit = state.units && state.units[entry.unit];
    const column = block.sides[unit && unit.side === 'B' ? 'B' : 'A'];
    const test = isMap(entry.test) ? entry.test : null;
    column.append(h('div', { class: 'melee-unit', dataset: { unit: text(entry.unit) } },
      h('p', { class: 'headline' }, h('strong', {}, unitName(state, entry.unit))),
      entry.rolled ? calc(entry) : h('p', { class: 'calc' }, 'automatic result, no dice'),
      h('p', { class: 'outcome' },
        h('span', { class: entry.casualties > 0 ? 'loss' : '' }, `loses ${entry.casualties}`),
        `, ${entry.figures} left, ${word(entry.status)}, ${entry.formed ? 'formed' : 'unformed'}`),
      test ? h('div', { class: 'melee-test' },
        h('p', { class: 'headline' }, h('strong', {}, `${word(test.kind)} test`)),
        calc(test, [test.target ? ` needs ${test.target}: ` : ': ',
          h('span', { class: 'verdict-word' }, word(test.outcome))])) : null));
  }

  meleeOutcome(state, entry) {
    const block = this.block(state, entry);
    const scored = Number.isFinite(entry.score_a) && Number.isFinite(entry.score_b);
    const winner = typeof entry.winner === 'string' ? entry.winner : null;
    block.verdict.className = `verdict${winner ? ` win-${winner}` : ' draw'}`;
    block.verdict.dataset.winner = winner || 'none';
    block.verdict.dataset.result = text(entry.result);
    replace(block.verdict,
      scored ? h('p', { class: 'score' },
        h('span', { class: 'score-A' }, `A ${entry.score_a}`), ' : ',
        h('span', { class: 'score-B' }, `${entry.score_b} B`),
        ` (difference ${entry.difference})`) : h('p', { class: 'score' }, 'no scores: an automatic result'),
      h('p', { class: 'result' },
        h('strong', {}, winner ? `${capital(sideName(state, winner))} wins` : 'No winner'),
        `: ${word(entry.result)}`, entry.continues ? '; the melee goes on' : ''));
  }
}
