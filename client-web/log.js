// client-web/log.js: the game's log (state.log, PROTOCOL.md §7.1), oldest
// first, appended as entries come. Every roll shows its dice, modifiers
// (value, name, rule) and result; a melee's unit results and its outcome
// are gathered in one block per melee and turn, side A against side B.
// A bare `roll` entry is shown only until the entry that explains it (a
// morale test, a melee result) arrives, since that one shows the dice too.
// A melee the umpire overrules gets a second block, the ruling's, and the
// first is marked overruled. Entries inside state.rolled_back's ranges are
// struck through and badged "undone: rolled back to seq N" (N: the action
// the rollback returned to, §10.2); the umpire's page has a "Roll back to
// here" button on the entry that records each action (entry.seq): the act
// itself, not the phase it led to.
import { h, replace } from './dom.js';
import { capital, meleeWords, rollWords, signed, word } from './names.js';
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
  if (entry.kind === 'test_taken') return testRoll(entry) === name;
  if (entry.kind === 'melee_unit_result') {
    const own = `${meleePrefix(entry)}.${text(entry.unit)}`;
    return name === own || name.startsWith(`${own}.`);
  }
  return false;
}

// A test_taken entry's roll name ("T2.dragoons.pursuit").
function testRoll(entry) {
  return text(entry.name);
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
  return h('p', { class: 'meta' }, `T${entry.turn} · ${word(entry.phase)}`,
    Number.isSafeInteger(entry.seq) ? h('span', { class: 'seq' }, ` · seq ${entry.seq}`) : null);
}

// Log index -> the range of state.rolled_back that rolled it back
// ({from, to, seq, to_seq}, PROTOCOL.md §7.1: seq the rollback's, to_seq
// the action it returned to; an older server's range may lack to_seq).
export function rolledBackIndexes(state) {
  const marked = new Map();
  for (const range of Array.isArray(state.rolled_back) ? state.rolled_back : []) {
    if (!isMap(range) || !Number.isInteger(range.from) || !Number.isInteger(range.to)) continue;
    for (let index = Math.max(0, range.from); index < range.to; index += 1) marked.set(index, range);
  }
  return marked;
}

// "undone: rolled back to seq 14" for an entry of `range`.
export function rolledBackWords(range) {
  if (range && Number.isSafeInteger(range.to_seq)) return `undone: rolled back to seq ${range.to_seq}`;
  return 'undone: rolled back';
}

// The kinds of entry that record what a player or the umpire did (the
// action itself); the rest follow from it (rolls, phases begun, results).
const ACT_KINDS = new Set(['phasing_chosen', 'side_done', 'charge_declared', 'charge_answered',
  'sappers_chosen', 'umpire_ruled', 'dice_seed_added', 'reported', 'report_answered']);
const isAct = (entry) => ACT_KINDS.has(entry.kind) || (entry.kind === 'unit_changed' && entry.cause === 'adjusted');
const isMark = (entry) => entry.kind === 'phase_begun' || entry.kind === 'turn_begun';

// The actions a rollback may return to (PROTOCOL.md §5.3), newest first:
// [{seq, turn, phase, text, at, last}] from the log entries' seq: 1 … seq − 1,
// whose state is in the battle (turn 1 or later), not rolled back. `turn`
// and `phase` are those the action was taken in (its first entry's), not
// those the game reached after it; `text` says what the action was (its
// first entry that is a player's or the umpire's act, else its first entry
// that is more than a turn or phase mark), `at` that entry's log index, and
// `last` the index of the action's last entry.
export function rollbackTargets(state, seq) {
  const log = Array.isArray(state.log) ? state.log : [];
  const gone = rolledBackIndexes(state);
  const actions = new Map();
  log.forEach((entry, index) => {
    if (!isMap(entry) || !Number.isSafeInteger(entry.seq) || entry.seq < 1) return;
    if (Number.isSafeInteger(seq) && entry.seq >= seq) return;
    let action = actions.get(entry.seq);
    if (!action) {
      action = { seq: entry.seq, turn: entry.turn, phase: entry.phase, text: '', rank: 0, at: index, last: index, after: entry.turn, gone: false };
      actions.set(entry.seq, action);
    }
    if (gone.has(index)) action.gone = true;
    action.after = entry.turn;
    action.last = index;
    // 3: the act itself; 2: more than a mark; 1: a turn or phase mark.
    const rank = isAct(entry) ? 3 : isMark(entry) ? 1 : 2;
    const words = text(entry.text) || text(entry.kind);
    if (rank > action.rank && words) { action.text = words; action.rank = rank; action.at = index; }
  });
  return [...actions.values()]
    .filter((action) => !action.gone && Number.isInteger(action.after) && action.after >= 1)
    .sort((a, b) => b.seq - a.seq);
}

// "seq 22 · T1 Morale: side A is done": an action a rollback may return to.
// "seq 22 · T1 Morale": when the action was taken.
export function rollbackWhen(target) {
  return `seq ${target.seq} · ${Number.isInteger(target.turn) ? `T${target.turn} ` : ''}${word(target.phase)}`;
}
export function rollbackLabel(target) {
  return `${rollbackWhen(target)}: ${target.text}`;
}

export class LogView {
  // onRollback(seq): the umpire pressed "Roll back to here" after action seq.
  constructor(list, scroller, { onRollback } = {}) {
    this.list = list;
    this.scroller = scroller;
    this.onRollback = onRollback || (() => {});
    this.umpire = false; // the umpire's page: "Roll back to here" buttons
    this.seq = null; // the state's seq (a rollback goes to 1 … seq − 1)
    this.items = []; // {element, indexes: [log index…], top} for every shown entry
    this.buttons = new Map(); // seq -> its "Roll back to here" button
    this.supersessions = []; // {older, newer, tag}: a melee block and the umpire's overrule of it
    // Follow the newest entries until the reader scrolls up to read older
    // ones; scrolling back to the end follows again. The log scrolls in
    // its own box on a wide screen, with the page on a narrow one (the
    // log is then at the page's bottom): `atEnd()` asks whichever scrolls.
    this.follow = true;
    // A new entry out of view: "New entries ↓" jumps to the end (fixed at
    // the window's bottom on a phone, style.css).
    this.jump = h('button', { type: 'button', id: 'log-new', class: 'log-new', hidden: true,
      'aria-label': 'New entries: go to the newest in the battle log', onclick: () => this.toEnd(true) }, 'New entries ↓');
    scroller.after(this.jump);
    // Scrolled down: a shadow under the log's title shows that entries
    // go on above, rather than looking cut by it (style.css).
    const panel = scroller.closest('.log');
    const scrolled = () => {
      this.follow = this.atEnd();
      if (this.follow) this.jump.hidden = true;
    };
    scroller.addEventListener('scroll', () => {
      scrolled();
      if (panel) panel.classList.toggle('scrolled', scroller.scrollTop > 2);
    });
    window.addEventListener('scroll', () => { this.fitBox(); scrolled(); this.placeJump(); }, { passive: true });
    window.addEventListener('resize', () => { this.fitBox(); this.placeJump(); });
    // While following, the box's end stays in view whenever the box or
    // its list changes size (the first render's box may get its height
    // only after fonts and the other panels are laid out).
    if (typeof ResizeObserver === 'function') {
      const keep = new ResizeObserver(() => {
        if (this.follow && scroller.scrollHeight > scroller.clientHeight + 1 &&
            getComputedStyle(scroller).overflowY !== 'visible') scroller.scrollTop = scroller.scrollHeight;
      });
      keep.observe(scroller);
      keep.observe(this.list);
    }
    this.count = 0;
    this.blocks = new Map(); // "turn|melee" -> block element parts
    this.rolls = new Map(); // roll name -> its element, while shown
  }

  reset(state) {
    replace(this.list);
    this.count = 0;
    this.blocks.clear();
    this.rolls.clear();
    this.items = [];
    this.buttons.clear();
    this.supersessions = [];
    this.markedRanges = '';
    this.update(state, true);
  }

  update(state, first = false) {
    const log = Array.isArray(state.log) ? state.log : [];
    if (log.length < this.count) { this.reset(state); return; }
    const scroller = this.scroller;
    if (first) { this.follow = true; this.jump.hidden = true; }
    const grew = log.length > this.count;
    // Where the reader was before the new entries (a box that has no
    // height yet counts as at its end).
    const follow = first || (this.follow && this.atEnd());
    for (let index = this.count; index < log.length; index += 1) this.add(state, log, index);
    this.count = log.length;
    this.mark(state, log, grew);
    if (!grew) return;
    // After layout: on the first render the box may only now have a height.
    if (follow) requestAnimationFrame(() => { this.fitBox(); this.toEnd(false, first); });
    else if (!this.atEnd()) {
      this.jump.hidden = false;
      // After the orders are drawn for the new state (app.js renders them next).
      requestAnimationFrame(() => this.placeJump());
    }
  }

  /* On a wide screen the log scrolls in its own box (style.css), sticky
   * at the window's top once the page scrolls: the box ends at the
   * window's bottom wherever it starts, so that its newest entry is in
   * view before the page is scrolled too (a box as tall as the window,
   * starting under the header, ended below the fold). */
  fitBox() {
    const scroller = this.scroller;
    // The wide layout's box (style.css, min-width 960px); on a phone the
    // log is the page's, with no box.
    if (!window.matchMedia('(min-width: 960px)').matches) {
      scroller.style.maxHeight = '';
      return;
    }
    const top = Math.max(scroller.getBoundingClientRect().top, 0);
    const atEnd = this.follow && this.atEnd();
    scroller.style.maxHeight = `${Math.max(window.innerHeight - top - 16, 160)}px`;
    if (atEnd) scroller.scrollTop = scroller.scrollHeight;
  }

  /* "New entries ↓" is fixed at the window's bottom: never over the
   * orders' or the umpire's main action (Done, a form's submit), a form's
   * field or the declarations' question on a phone. Covering one there, it goes to the window's top; covering one
   * there too, it is tucked away (.tucked: not shown) until a scroll
   * uncovers it. */
  placeJump() {
    const jump = this.jump;
    if (jump.hidden) return;
    jump.classList.remove('at-top', 'tucked');
    // Nor over what the player fills in or must read to act: any field of
    // the page (the orders' forms, the footer's alert choices) and the
    // declarations' "press again" question.
    const actions = [...document.querySelectorAll('#act-done, #controls-body button[type="submit"], #umpire-body button[type="submit"], ' +
      'input:not([type="hidden"]), select, textarea, #done-confirm')]
      .map((button) => button.getBoundingClientRect()).filter((box) => box.width > 0 && box.height > 0);
    const covers = () => {
      const box = jump.getBoundingClientRect();
      return actions.some((other) => box.left < other.right && other.left < box.right && box.top < other.bottom && other.top < box.bottom);
    };
    if (!covers()) return;
    jump.classList.add('at-top');
    if (covers()) { jump.classList.remove('at-top'); jump.classList.add('tucked'); }
  }

  // Whether the log's end is in view: its box scrolled to its bottom, or,
  // where the page scrolls, the list's bottom inside the window.
  atEnd() {
    const scroller = this.scroller;
    if (scroller.scrollHeight > scroller.clientHeight + 1 && getComputedStyle(scroller).overflowY !== 'visible') {
      return scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 48;
    }
    if (!this.list.lastElementChild) return true;
    return this.list.getBoundingClientRect().bottom <= window.innerHeight + 48;
  }

  // Scrolls to the newest entry. `asked`: the reader pressed the button
  // (focus goes to the log); `first`: a page scrolls itself only when
  // asked or already at the log (never on the first render).
  toEnd(asked, first = false) {
    const scroller = this.scroller;
    this.jump.hidden = true;
    this.follow = true;
    if (scroller.scrollHeight > scroller.clientHeight + 1 && getComputedStyle(scroller).overflowY !== 'visible') {
      scroller.scrollTop = scroller.scrollHeight;
    } else if (!first && this.list.lastElementChild) {
      this.list.lastElementChild.scrollIntoView({ block: 'end' });
    }
    if (asked) scroller.focus({ preventScroll: true });
  }

  track(element, index, top) {
    this.items.push({ element, indexes: [index], top });
  }

  // Adds `index` to what the item of `element` shows.
  extend(element, index) {
    const item = this.items.find((candidate) => candidate.element === element);
    if (item) item.indexes.push(index);
  }

  add(state, log, index) {
    const entry = log[index];
    if (!isMap(entry)) {
      const node = h('li', { class: 'entry' }, '(an entry in a form this page does not know)');
      this.list.append(node);
      this.track(node, index, true);
      return;
    }
    for (const [name, element] of this.rolls) {
      if (explains(entry, name)) { element.remove(); this.rolls.delete(name); }
    }
    const node = this.entry(state, log, index, entry);
    if (node) { this.list.append(node); this.track(node, index, true); }
  }

  // Strikes through what was rolled back, and gives the umpire a "Roll back
  // to here" after the last entry shown of each action it may return to.
  mark(state, log, grew) {
    const ranges = JSON.stringify(state.rolled_back || []);
    if (ranges !== this.markedRanges || grew) {
      this.markedRanges = ranges;
      const gone = rolledBackIndexes(state);
      this.items = this.items.filter((item) => item.element.isConnected);
      for (const item of this.items) {
        const by = item.indexes.every((index) => gone.has(index)) ? gone.get(item.indexes[0]) : null;
        const was = item.element.classList.contains('rolled-back');
        if (Boolean(by) === was) continue;
        item.element.classList.toggle('rolled-back', !was);
        // data-rolled-back: the rollback's seq; data-rolled-back-to: the action it returned to.
        item.element.dataset.rolledBack = was ? '' : String(by.seq);
        item.element.dataset.rolledBackTo = was || !Number.isSafeInteger(by.to_seq) ? '' : String(by.to_seq);
        if (!was) {
          const badge = h('span', {
            class: 'rb-badge',
            title: Number.isSafeInteger(by.seq) ? `undone by the umpire's rollback, seq ${by.seq}` : null,
          }, rolledBackWords(by));
          item.element.prepend(badge);
        } else {
          const badge = item.element.querySelector(':scope > .rb-badge');
          if (badge) badge.remove();
        }
      }
    }
    for (const { older, newer, tag } of this.supersessions) {
      const stands = Boolean(newer) && !newer.classList.contains('rolled-back');
      older.classList.toggle('superseded', stands);
      tag.hidden = !stands;
    }
    this.rollbackButtons(state, log);
  }

  rollbackButtons(state, log) {
    const wanted = new Map(); // seq -> the top item showing the entry of the action itself
    if (this.umpire) {
      const found = rollbackTargets(state, this.seq);
      this.targets = new Map(found.map((target) => [target.seq, target]));
      // The action's own entry (its `at`) when it is shown; else the
      // action's first shown entry that is more than a turn or phase mark;
      // else its first shown entry. Never the next phase's header.
      const best = new Map(); // seq -> [score, item]
      for (const item of this.items) {
        if (!item.top || !item.element.isConnected) continue;
        for (const index of item.indexes) {
          const entry = log[index];
          if (!isMap(entry) || !this.targets.has(entry.seq)) continue;
          const target = this.targets.get(entry.seq);
          const score = index === target.at ? 3 : isMark(entry) ? 1 : 2;
          const known = best.get(entry.seq);
          if (!known || known[0] < score) best.set(entry.seq, [score, item]);
        }
      }
      for (const [seq, [, item]] of best) wanted.set(seq, item.element);
    }
    const describe = (seq) => {
      const target = this.targets && this.targets.get(seq);
      return target ? `the state after ${rollbackLabel(target)}` : `the state after seq ${seq}`;
    };
    for (const [seq, button] of this.buttons) {
      if (wanted.get(seq) !== button.parentElement || button.title !== describe(seq)) { button.remove(); this.buttons.delete(seq); }
    }
    for (const [seq, element] of wanted) {
      if (this.buttons.has(seq)) continue;
      // The button sits on the action's own entry; its label says which
      // action it returns to and when it was taken.
      const button = h('button', {
        type: 'button', class: 'quiet rollback-here', dataset: { seq: String(seq) },
        title: describe(seq),
        'aria-label': `Roll back to here: ${describe(seq)}`,
        onclick: () => this.onRollback(seq),
      }, `↶ Roll back to here (${this.targets && this.targets.get(seq) ? rollbackWhen(this.targets.get(seq)) : `seq ${seq}`})`);
      element.append(button);
      this.buttons.set(seq, button);
    }
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
          h('p', { class: 'headline' }, h('strong', {}, 'Roll: '), h('span', { class: 'roll-name' }, rollWords(state, name)),
            ' ', dice(entry.dice), sum === null ? null : h('span', { class: 'total' }, ` = ${sum}`)));
        this.rolls.set(name, node);
        return node;
      }
      case 'morale_tested': {
        const passed = entry.effect === 'passed';
        return h('li', { class: 'entry test', dataset: { kind } }, meta(entry),
          h('p', { class: 'headline' }, h('strong', {}, 'Morale test: '), unitName(state, entry.unit)),
          calc(entry, [` needs ${entry.pass_on}: `,
            h('span', { class: `verdict-word ${passed ? 'good' : 'bad'}` }, word(entry.effect))]));
      }
      case 'test_taken': {
        // A test outside a melee (a pursuit test in the Morale phase, an
        // occupier's reform test): test = {kind, dice, total, target,
        // outcome, modifiers}, shown like a morale test: once, its raw
        // text (the same dice and total again) left out.
        const test = isMap(entry.test) ? entry.test : null;
        if (!test || !Array.isArray(test.dice)) break;
        return h('li', { class: 'entry test kind-test_taken', dataset: { kind } }, meta(entry),
          h('p', { class: 'headline' }, h('strong', {}, `${capital(word(text(test.kind)) || 'a')} test: `), unitName(state, entry.unit)),
          calc(test, [Number.isFinite(test.target) && test.target > 0 ? ` needs ${test.target}: ` : ': ',
            h('span', { class: 'verdict-word' }, word(text(test.outcome)) || '?')]));
      }
      case 'initiative_won':
        return h('li', { class: 'entry initiative', dataset: { kind } }, meta(entry),
          h('p', { class: 'headline' }, h('strong', {}, `${capital(sideName(state, entry.winner))} wins the initiative`),
            ` (A ${entry.total_a}, B ${entry.total_b})`));
      case 'melee_unit_result':
        this.meleeUnit(state, entry, index);
        return null;
      case 'melee_resolved':
        this.meleeOutcome(state, entry, index);
        return null;
      case 'melee_overruled':
        if (this.blocks.has(`${entry.turn}|${text(entry.melee)}`)) {
          this.meleeOutcome(state, entry, index, true);
          return null;
        }
        return h('li', { class: 'entry umpire kind-melee_overruled', dataset: { kind } }, meta(entry),
          h('p', {}, h('strong', {}, 'Umpire: '), text(entry.text) || kind));
      case 'umpire_ruled':
        if (entry.ruling === 'overrule') this.overruling = text(entry.melee) || true;
        return h('li', { class: 'entry umpire kind-umpire_ruled', dataset: { kind, ruling: text(entry.ruling) } }, meta(entry),
          // "lapsed": the server ended a battle left idle (PROTOCOL.md §5.3).
          h('p', {}, h('strong', { class: 'umpire-label' }, entry.ruling === 'lapsed' ? 'Server: '
            : `Umpire${entry.ruling ? ` (${word(entry.ruling)})` : ''}: `),
            text(entry.text) || kind));
      default:
        break;
    }
    return h('li', { class: `entry kind-${kind || 'unknown'}`, dataset: { kind } }, meta(entry),
      h('p', {}, text(entry.text) || kind || '?'));
  }

  block(state, entry, index) {
    const key = `${entry.turn}|${text(entry.melee)}`;
    let block = this.blocks.get(key);
    // A melee already resolved whose units report again: the umpire's
    // overrule (or the melee fought again after a rollback).
    let again = null;
    if (block && block.resolved) {
      again = this.overruling === true || this.overruling === text(entry.melee) ? 'overruled' : 'again';
      if (again === 'overruled') {
        // Marked in mark(): the older block stands again when the overrule is rolled back.
        const tag = h('span', { class: 'overruled-tag' }, ' overruled by the umpire');
        block.element.querySelector('h3').append(tag);
        this.supersessions.push({ older: block.element, tag, newer: null });
      }
      block = null;
    }
    if (!block) {
      const sides = {
        A: h('div', { class: 'melee-side side-A' }, h('h4', {}, sideName(state, 'A'))),
        B: h('div', { class: 'melee-side side-B' }, h('h4', {}, sideName(state, 'B'))),
      };
      const verdict = h('div', { class: 'verdict pending' }, 'being fought…');
      const element = h('li', {
        class: `entry melee-block${again === 'overruled' ? ' overruled' : ''}`,
        dataset: { kind: 'melee', melee: text(entry.melee), turn: String(entry.turn), ...(again ? { again } : {}) },
      },
      meta(entry),
      h('h3', {}, capital(meleeWords(text(entry.melee))),
        again === 'overruled' ? h('span', { class: 'ruling-tag' }, ' as the umpire ruled')
          : again ? h('span', { class: 'ruling-tag' }, ' fought again') : null),
      h('div', { class: 'melee-sides' }, sides.A, sides.B),
      verdict);
      if (again === 'overruled') {
        this.overruling = null;
        this.supersessions[this.supersessions.length - 1].newer = element;
      }
      block = { element, sides, verdict, resolved: false };
      this.blocks.set(key, block);
      this.list.append(element);
      this.track(element, index, true);
    } else {
      this.extend(block.element, index);
    }
    return block;
  }

  meleeUnit(state, entry, index) {
    const block = this.block(state, entry, index);
    const unit = state.units && state.units[entry.unit];
    const column = block.sides[unit && unit.side === 'B' ? 'B' : 'A'];
    const test = isMap(entry.test) ? entry.test : null;
    const events = Array.isArray(entry.events) ? entry.events.filter((name) => typeof name === 'string') : [];
    const element = h('div', { class: 'melee-unit', dataset: { unit: text(entry.unit) } },
      h('p', { class: 'headline' }, h('strong', {}, unitName(state, entry.unit))),
      entry.rolled ? calc(entry) : h('p', { class: 'calc' }, 'automatic result, no dice'),
      h('p', { class: 'outcome' },
        h('span', { class: entry.casualties > 0 ? 'loss' : '' }, `loses ${entry.casualties}`),
        `, ${entry.figures} left, ${word(entry.status)}, ${entry.formed ? 'formed' : 'unformed'}`),
      test ? h('div', { class: 'melee-test' },
        h('p', { class: 'headline' }, h('strong', {}, `${word(test.kind)} test`)),
        calc(test, [test.target ? ` needs ${test.target}: ` : ': ',
          h('span', { class: 'verdict-word' }, word(test.outcome))])) : null,
      events.length ? h('p', { class: 'events' }, h('strong', {}, 'For the umpire (12.15): '),
        events.map(word).join(', ')) : null);
    column.append(element);
    this.track(element, index, false);
  }

  meleeOutcome(state, entry, index, overruled = false) {
    if (overruled && this.overruling !== true) this.overruling = text(entry.melee);
    const block = this.block(state, entry, index);
    block.resolved = true;
    this.track(block.verdict, index, false);
    const scored = Number.isFinite(entry.score_a) && Number.isFinite(entry.score_b);
    const winner = typeof entry.winner === 'string' ? entry.winner : null;
    block.verdict.className = `verdict${winner ? ` win-${winner}` : ' draw'}`;
    block.verdict.dataset.winner = winner || 'none';
    block.verdict.dataset.result = text(entry.result);
    replace(block.verdict,
      scored ? h('p', { class: 'score' },
        h('span', { class: 'score-A' }, `A ${entry.score_a}`), ' : ',
        h('span', { class: 'score-B' }, `${entry.score_b} B`),
        ` (difference ${entry.difference})`) : overruled ? null : h('p', { class: 'score' }, 'no scores: an automatic result'),
      h('p', { class: 'result' },
        overruled ? h('strong', { class: 'umpire-label' }, "Umpire's ruling: ") : null,
        h('strong', {}, winner ? `${capital(sideName(state, winner))} wins` : 'No winner'),
        `: ${word(entry.result)}`, entry.continues ? '; the melee goes on' : ''),
      overruled && text(entry.reason) ? h('p', { class: 'hint' }, text(entry.reason)) : null);
  }
}
