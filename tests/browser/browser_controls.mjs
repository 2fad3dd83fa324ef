#!/usr/bin/env node
// tests/browser/browser_controls.mjs: the page's orders panel and view on
// made-up states, in Chromium (the page's own modules, served by brigaded),
// for the cases a played example A never reaches: a general who may or may
// not lead, sappers, reinforcing a melee in contact, an unformed unit that
// may not counter-charge, the sappers' re-roll with its dice, statuses
// offered by arm, the read-only view, a refusal in words, and what a player
// was typing surviving an update; the reports the rules leave to the
// players (rules/decisions.md D34-D46): a rally, a reform, a pursuer's
// uncontrolled charge and contact, who occupies a built-up area, the other
// side's accept and contest, the umpire's rule, and the phase's reports on
// every page. Screenshots go to --screenshots.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { check, Failure, options, run } from './support.mjs';

const args = options(['brigaded', 'web', 'screenshots']);

const unit = (side, name, type, extra = {}) => ({
  side, name, type, class: 'veteran', figures: 20, nation: side === 'A' ? 'french' : 'british',
  formation: type === 'light_cavalry' ? 'line' : 'column', formed: true, wavering: false,
  status: 'normal', general: null, sappers: false, ranks: 0, defending: 'none', terrain: 'open',
  move: '', ...extra,
});

function village(phase, step, awaiting, more = {}) {
  return {
    game: 'g1', title: 'The village (made up for the test)', turn: 2, phase, step,
    phasing: 'A', awaiting,
    sides: { A: { name: 'French', done: false }, B: { name: 'British', done: false } },
    units: {
      ligne_1: unit('A', '1/45e Ligne', 'infantry', { general: { role: 'brigadier', rating: 'excellent' }, sappers: true }),
      ligne_2: unit('A', '2/45e Ligne', 'infantry'),
      chasseurs: unit('A', '7e Chasseurs a cheval', 'light_cavalry', { general: { role: 'regimental', rating: 'average' }, figures: 12 }),
      battery: unit('A', 'Foot battery', 'artillery', { formation: 'unlimbered', figures: 6 }),
      village: unit('B', '28th Foot in the village', 'infantry', { terrain: 'bua', defending: 'fortified', formation: 'line' }),
      square: unit('B', '1/52nd Foot', 'infantry', { formation: 'square', move: 'pushed back: fall back 12" (12.19 j)' }),
      dragoons: unit('B', '23rd Light Dragoons', 'light_cavalry', { formed: false, status: 'blown', figures: 9 }),
    },
    charges: [],
    melees: [{ id: 'T1.M1', units: ['ligne_2', 'square'], round: 2, terrain: 'open' }],
    log: [],
    ...more,
  };
}

const rerollLog = [
  { turn: 2, phase: 'melee', kind: 'phase_begun', text: 'phase melee' },
  { turn: 2, phase: 'melee', kind: 'roll', text: 'T2.M2.ligne_1: 2, 5', name: 'T2.M2.ligne_1', dice: [2, 5] },
  { turn: 2, phase: 'melee', kind: 'roll', text: 'T2.M2.village: 4, 4', name: 'T2.M2.village', dice: [4, 4] },
  { turn: 2, phase: 'melee', kind: 'melee_dice_recorded', text: "melee T2.M2: dice rolled, awaiting the sappers' choice", melee: 'T2.M2' },
  { turn: 2, phase: 'melee', kind: 'phase_begun', text: "phase melee, reroll, awaiting A" },
];

const foughtLog = rerollLog.concat([
  { turn: 2, phase: 'melee', kind: 'roll', text: 'T2.M2.ligne_1.reroll: 6, 1', name: 'T2.M2.ligne_1.reroll', dice: [6, 1] },
  { turn: 2, phase: 'melee', kind: 'sappers_chosen', text: "melee T2.M2: sappers' choice recorded", melee: 'T2.M2' },
  { turn: 2, phase: 'melee', kind: 'melee_unit_result', text: 'T2.M2 ligne_1: …', melee: 'T2.M2', unit: 'ligne_1', rolled: true,
    dice: [6, 5], rolled_dice: [2, 5], total: 14,
    modifiers: [{ rule: '12.17', name: 'column', value: 1 }, { rule: '12.4', name: 'general leading', value: 2 }],
    casualties: 2, figures: 18, status: 'normal', formed: false },
  { turn: 2, phase: 'melee', kind: 'melee_unit_result', text: 'T2.M2 village: …', melee: 'T2.M2', unit: 'village', rolled: true,
    dice: [4, 4], rolled_dice: [4, 4], total: 12,
    modifiers: [{ rule: '12.9', name: 'fortified', value: 4 }, { rule: '12.17', name: 'British', value: 1 }],
    casualties: 4, figures: 16, status: 'pushed_back', formed: false,
    test: { kind: 'reform', dice: [3, 3], total: 6, target: 7, outcome: 'failed', modifiers: [] } },
  { turn: 2, phase: 'melee', kind: 'melee_resolved', text: 'melee T2.M2: A 14, B 12, difference 2; side A wins; pushed back',
    melee: 'T2.M2', winner: 'A', result: 'pushed_back', score_a: 14, score_b: 12, difference: 2, continues: true },
]);

// The umpire's panel and what everyone sees of the umpire, on made-up
// states (PROTOCOL.md §5.3, §7.1, §10.2): D9's events to settle, a melee
// fought this turn to overrule, entries with their seq to roll back to,
// an overrule in the log and its rollback struck through, the hold.
const seqs = [7, 8, 8, 8, 8, 9, 9, 9, 9, 9];
const umpireLog = foughtLog.map((entry, index) => ({ ...entry, seq: seqs[index] }));
const overruleLog = umpireLog.concat([
  { seq: 10, turn: 2, phase: 'morale', kind: 'umpire_ruled', ruling: 'overrule', melee: 'T2.M2',
    text: 'umpire: overrule melee T2.M2: the square was not formed' },
  { seq: 10, turn: 2, phase: 'morale', kind: 'melee_unit_result', text: 'T2.M2 ligne_1: …', melee: 'T2.M2', unit: 'ligne_1', rolled: true,
    dice: [6, 5], total: 14, modifiers: [{ rule: '12.17', name: 'column', value: 1 }], casualties: 3, figures: 17, status: 'retreating', formed: false },
  { seq: 10, turn: 2, phase: 'morale', kind: 'melee_unit_result', text: 'T2.M2 village: …', melee: 'T2.M2', unit: 'village', rolled: true,
    dice: [4, 4], total: 12, modifiers: [{ rule: '12.9', name: 'fortified', value: 4 }], casualties: 1, figures: 19, status: 'normal', formed: true },
  { seq: 10, turn: 2, phase: 'morale', kind: 'unit_changed', unit: 'ligne_1', cause: 'umpire', text: 'ligne_1: 17 figures, retreating, unformed (umpire)' },
  { seq: 10, turn: 2, phase: 'morale', kind: 'melee_overruled', melee: 'T2.M2', result: 'retreat', winner: 'B',
    text: 'melee T2.M2 overruled: side B wins; retreat' },
]);
const rolledLog = overruleLog.concat([
  { seq: 11, turn: 2, phase: 'morale', kind: 'umpire_ruled', ruling: 'rollback', text: 'umpire: rolled back to seq 9: a mistake' },
]);

// ------------------------------------------------------------- reports

// A field after a cavalry fight (a game of rules version 2: a pursuer's
// quarry is its `pursuing`): side A's pursuers and side B's fleeing,
// broken and out-of-play units (turn 2). Unit ids are never in a name, so
// a text that shows an id is caught.
function pursuit(phase, step, awaiting, more = {}) {
  const state = village(phase, step, awaiting, { rules_version: 2, ...more });
  Object.assign(state.units, {
    // Pursues b_hussars, which fled this turn: it follows.
    a_lancers: unit('A', '2e Lanciers', 'lancers', { formed: false, status: 'pursuing', figures: 10, pursuing: 'b_hussars',
      move: "pursue 'b_hussars', following it in its move; report any contact (12.24, 12.25)" }),
    // Pursues b_rifles, removed: no enemy to pursue.
    a_cuir: unit('A', '4e Cuirassiers', 'cuirassiers', { formed: false, status: 'pursuing', figures: 11, pursuing: 'b_rifles',
      move: 'no enemy left to pursue: uncontrolled charge at the nearest enemy in sight within 22 degrees in the Charge phase, else blown (12.24)' }),
    // Pursues dragoons, which did not flee this turn.
    a_chev: unit('A', '1er Chevau-legers', 'light_cavalry', { formed: false, status: 'pursuing', figures: 9, pursuing: 'dragoons' }),
    a_volt: unit('A', 'Voltigeurs de la Garde', 'infantry', { formed: false }),
    a_routed: unit('A', '3/12e Legere', 'infantry', { formed: false, status: 'broken', figures: 8, fled_turn: 2 }),
    a_old: unit('A', '4/12e Legere', 'infantry', { formed: false, status: 'broken', figures: 6, fled_turn: 1 }),
    b_hussars: unit('B', '10th Hussars', 'light_cavalry', { formed: false, status: 'retreating', figures: 7, fled_turn: 2 }),
    b_rifles: unit('B', '95th Rifles', 'skirmishers', { status: 'removed', figures: 0, formation: 'skirmish' }),
    b_pushed: unit('B', '1st Foot Guards', 'infantry', { formed: false, status: 'pushed_back', figures: 14 }),
  });
  state.units.ligne_2.formed = false; // in melee T1.M1: it may not reform
  state.units.dragoons.fled_turn = 1;
  state.log = [
    { seq: 5, turn: 1, phase: 'melee', kind: 'melee_unit_result', text: 'T1.M2 a_chev: …', melee: 'T1.M2', unit: 'a_chev', rolled: true,
      dice: [5, 5], total: 12, modifiers: [], casualties: 1, figures: 9, status: 'pursuing', formed: false },
    { seq: 5, turn: 1, phase: 'melee', kind: 'melee_unit_result', text: 'T1.M2 dragoons: …', melee: 'T1.M2', unit: 'dragoons', rolled: true,
      dice: [1, 2], total: 4, modifiers: [], casualties: 3, figures: 9, status: 'retreating', formed: false },
    { seq: 5, turn: 1, phase: 'melee', kind: 'melee_resolved', text: 'melee T1.M2: side A wins; retreat', melee: 'T1.M2',
      winner: 'A', result: 'retreat', score_a: 12, score_b: 4, difference: 8, continues: false },
    ...(more.log || []),
  ];
  return state;
}

const report = (number, kind, side, unitId, extra = {}) => ({
  number, kind, side, unit: unitId, target: null, facing: 'front', state: 'stands', contested: false,
  contest: null, ruling: null, ...extra,
});

const optionValues = (page, id) => page.$$eval(`#${id} option`, (list) => list.map((o) => o.value));

// No unit id and no decision number in what a reader of the reports sees.
async function readable(page, selector, what) {
  const words = await page.textContent(selector);
  const ids = ['a_lancers', 'a_cuir', 'a_chev', 'a_volt', 'a_routed', 'a_old', 'b_hussars', 'b_rifles', 'b_pushed', 'ligne_1', 'village'];
  const leaked = ids.filter((id) => new RegExp(`\\b${id}\\b`).test(words));
  check(!leaked.length && !/\bD\d{1,2}\b/.test(words), `${what} shows ids ${leaked} or a decision number: "${words}"`);
  return words;
}

async function reportsPanel(page, show, sent, shoot) {
  await page.setViewportSize({ width: 1280, height: 800 });

  // Charge/declare: a pursuer declares no normal charge (12.24 f, D38);
  // one with no enemy to pursue makes its uncontrolled charge or says none
  // is in sight; one whose enemy fled this turn follows it and may not charge.
  const declare = pursuit('charge', 'declare', ['A']);
  await show(declare, 'A');
  const chargers = await optionValues(page, 'charge-unit');
  check(!chargers.some((id) => id.startsWith('a_')), `pursuing or unformed units offered a normal charge: ${chargers}`);
  const uncontrolled = await optionValues(page, 'uncontrolled-unit');
  check(JSON.stringify(uncontrolled) === JSON.stringify(['a_cuir', 'a_chev']),
    `the pursuers offered the uncontrolled charge: ${uncontrolled} (not the lancers, whose enemy fled this turn)`);
  const following = await page.textContent('#pursuers-following');
  check(following.includes('2e Lanciers pursues 10th Hussars') && following.includes('12.24 f'), `the pursuer that follows: "${following}"`);
  // The first enemy listed is chosen to begin with: "No enemy in sight"
  // only deliberately, so the obvious click declares the charge.
  const firstTargets = await optionValues(page, 'uncontrolled-target');
  check(firstTargets[0] !== '' && await page.inputValue('#uncontrolled-target') === firstTargets[0] &&
    !(await page.isDisabled('#uncontrolled-facing')) &&
    (await page.textContent('#uncontrolled-submit')) === 'Declare the uncontrolled charge',
  `the uncontrolled charge begins on "${await page.inputValue('#uncontrolled-target')}", button "${await page.textContent('#uncontrolled-submit')}"`);
  await page.click('#uncontrolled-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([
    { kind: 'uncontrolled_charge', unit: 'a_cuir', target: firstTargets[0], facing: 'front' }]),
  'the obvious click does not declare the charge at the first enemy listed');
  await page.selectOption('#uncontrolled-unit', 'a_chev');
  check(await page.inputValue('#uncontrolled-target') !== '', 'another pursuer begins on "No enemy in sight"');
  await page.selectOption('#uncontrolled-unit', 'a_cuir');
  const targets = await optionValues(page, 'uncontrolled-target');
  check(!targets.includes('village') && !targets.includes('b_rifles') && !targets.includes('square') && targets.includes('b_pushed') &&
    targets[targets.length - 1] === '',
  `the uncontrolled charge's targets: ${targets} (no built-up area for cavalry, none removed or in melee, "no enemy in sight" last)`);
  await page.selectOption('#uncontrolled-target', 'b_pushed');
  await page.selectOption('#uncontrolled-facing', 'flank');
  await page.click('#uncontrolled-submit');
  await page.selectOption('#uncontrolled-unit', 'a_chev');
  await page.selectOption('#uncontrolled-target', '');
  check(await page.isDisabled('#uncontrolled-facing') && (await page.textContent('#uncontrolled-submit')).includes('no enemy in sight'),
    'no enemy in sight still asks for a facing');
  await page.click('#uncontrolled-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([
    { kind: 'uncontrolled_charge', unit: 'a_cuir', target: 'b_pushed', facing: 'flank' },
    { kind: 'uncontrolled_charge', unit: 'a_chev' }]), 'the uncontrolled charges');
  await shoot('controls_uncontrolled_1280x800');
  // A game from before rules version 2 has no `pursuing`: the quarry comes
  // from the move (a_lancers, a_cuir) or the melee that made it pursue
  // (a_chev, in the log); not known at all, any enemy that fled this turn
  // may be it (PROTOCOL.md §5.3).
  const legacy = pursuit('charge', 'declare', ['A']);
  delete legacy.rules_version;
  for (const id of ['a_lancers', 'a_cuir', 'a_chev']) delete legacy.units[id].pursuing;
  legacy.units.a_unknown = unit('A', '3e Hussards', 'light_cavalry', { formed: false, status: 'pursuing', figures: 6 });
  await show(legacy, 'A');
  const legacyOffered = await optionValues(page, 'uncontrolled-unit');
  check(JSON.stringify(legacyOffered) === JSON.stringify(['a_cuir', 'a_chev']),
    `an older game's pursuers offered the uncontrolled charge: ${legacyOffered}`);
  check((await page.textContent('#pursuers-following')).includes('3e Hussards pursues an enemy, which fled this turn'),
    'a pursuer of an unknown quarry is not said to follow it');
  // Both reported: nothing more to offer them.
  await show(pursuit('charge', 'declare', ['A'], {
    charges: [{ unit: 'a_cuir', target: 'square', facing: 'flank', leading: false, sappers: false, reinforce: false, response: null, morale: null, uncontrolled: true }],
    reports: [report(1, 'uncontrolled', 'A', 'a_cuir', { target: 'square', facing: 'flank' }), report(2, 'uncontrolled', 'A', 'a_chev')],
  }), 'A');
  check(await page.locator('#uncontrolled-form').count() === 0, 'the uncontrolled charge offered again after its report');
  const declared = await page.textContent('#controls-body');
  check(declared.includes('4e Cuirassiers → 1/52nd Foot (flank, uncontrolled)'), `the uncontrolled charge in the declared list: "${declared}"`);
  // Reported, not yet charges (they become charges when the declarations
  // close): listed as declared, and done says nothing of "no charges".
  const reportedOnly = pursuit('charge', 'declare', ['A'], {
    reports: [report(4, 'uncontrolled', 'A', 'a_cuir', { target: 'b_pushed', facing: 'flank' }), report(5, 'uncontrolled', 'A', 'a_chev')],
  });
  for (const id of ['ligne_1', 'chasseurs', 'a_volt']) reportedOnly.units[id].status = 'blown';
  await show(reportedOnly, 'A');
  const reportedText = await readable(page, '#controls-body', 'the declarations after the uncontrolled reports');
  check(await page.locator('#uncontrolled-form, #charge-form').count() === 0 &&
    reportedText.includes("Declared this turn: 4e Cuirassiers' uncontrolled charge at 1st Foot Guards, in the flank (report 4)") &&
    reportedText.includes('1er Chevau-legers: no enemy in sight for its uncontrolled charge (report 5)') &&
    !reportedText.includes('No unit of yours') && reportedText.includes('No other unit of yours can charge an enemy now.') &&
    (await page.textContent('#act-done')) === 'Done: end my declarations',
  `the reported uncontrolled charges not listed as declared: "${reportedText}"`);
  // The other side, in its declarations, may contest them; a report already contested is not offered.
  await show(pursuit('charge', 'declare', ['B'], {
    reports: [report(1, 'uncontrolled', 'A', 'a_cuir', { target: 'square', facing: 'flank' }),
      report(2, 'uncontrolled', 'A', 'a_chev', { contested: true, contest: 'the dragoons were in sight' })],
  }), 'B');
  check(await page.isVisible('#contest-1-submit') && await page.locator('#contest-2-submit').count() === 0 &&
    await page.locator('#accept-1').count() === 0, "B's contests in the Charge phase: only report 1, and no accept");
  const reportsText = await readable(page, '#reports', "the Charge phase's reports");
  check(reportsText.includes('4e Cuirassiers, pursuing, makes its uncontrolled charge at 1/52nd Foot, in the flank (12.24 f)') &&
    reportsText.includes('1er Chevau-legers, pursuing, has no enemy in sight') && reportsText.includes('the dragoons were in sight'),
  `the reports of the Charge phase: "${reportsText}"`);

  // Mandatory moves: a pursuer that follows a fleeing enemy reports its
  // contact (12.24, 12.25, D39): the enemy it pursues first, never a
  // pushed-back unit, one in a melee or one out of play.
  await show(pursuit('mandatory_moves', 'report', ['A', 'B']), 'A');
  const pursuers = await optionValues(page, 'contact-unit');
  check(JSON.stringify(pursuers) === JSON.stringify(['a_lancers']),
    `the pursuers offered contact: ${pursuers} (not those whose enemy is out of play or did not flee)`);
  const reached = await optionValues(page, 'contact-target');
  check(reached[0] === 'b_hussars' && !reached.includes('b_pushed') && !reached.includes('b_rifles') && !reached.includes('square') &&
    !reached.some((id) => id.startsWith('a_')), `a contact's targets: ${reached}`);
  check((await page.textContent('#contact-target option')).includes('(the enemy it pursues)'), 'the pursued unit is not marked');
  await page.selectOption('#contact-target', 'b_hussars');
  await page.click('#contact-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'contact', unit: 'a_lancers', target: 'b_hussars' }]), 'the contact');
  check(await page.locator('#rally-form, #reform-form').count() === 0, 'a rally or a reform offered in the Mandatory moves');
  await show(pursuit('mandatory_moves', 'report', ['A', 'B'], { reports: [report(3, 'contact', 'A', 'a_lancers', { target: 'b_hussars', state: 'accepted' })] }), 'A');
  check(await page.locator('#contact-form').count() === 0, 'a second contact offered to a pursuer that reported one');
  await show(pursuit('mandatory_moves', 'report', ['A', 'B']), 'B');
  check(await page.locator('#contact-form').count() === 0, 'side B, with no pursuer, is offered a contact');

  // Side B answers the contact, which changes its units (D46): accept or
  // contest with a reason; done waits for the answer. Everyone sees the report.
  const contact = report(4, 'contact', 'A', 'a_lancers', { target: 'b_hussars', state: 'awaits_answer' });
  const asked = pursuit('mandatory_moves', 'report', ['B'], { reports: [contact] });
  asked.sides.A.done = true;
  await show(asked, 'B');
  const awaited = await page.textContent('#awaited-for');
  check(awaited.includes('Answer the contact report 4 of side A (French): accept or contest'), `what B is awaited for: "${awaited}"`);
  check(await page.locator('#act-done').count() === 0 && await page.isVisible('#done-after-answer'), 'done offered before the contact is answered');
  const answerText = await readable(page, '#answers', 'the answer form');
  check(answerText.includes('2e Lanciers, pursuing, has reached 10th Hussars'), `the contact to answer: "${answerText}"`);
  check((await page.textContent('#reports .report[data-report="4"]')).includes('For you: accept it or contest it'), 'the report does not tell B to answer it');
  await page.click('#contest-4-submit');
  check((await page.textContent('#controls-error')).includes('say why') && (await sent()).length === 0, 'a contest without a reason was sent');
  await page.fill('#contest-4-reason', 'é'.repeat(100));
  await page.click('#contest-4-submit');
  check((await page.textContent('#controls-error')).includes('too long') && (await sent()).length === 0, 'a contest of 200 bytes was sent');
  await page.fill('#contest-4-reason', 'the hussars were 4" ahead when the lancers stopped');
  await shoot('controls_contest_contact_1280x800');
  await shoot('controls_contest_contact_390x844', { width: 390, height: 844 });
  const narrow = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(narrow[0] <= narrow[1], `the contest page is ${narrow[0]} px wide in a ${narrow[1]} px window`);
  await page.evaluate(() => document.getElementById('answers').scrollIntoView({ block: 'start' }));
  await shoot('controls_contest_contact_form_390x844');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.click('#contest-4-submit');
  await page.click('#accept-4');
  check(JSON.stringify(await sent()) === JSON.stringify([
    { kind: 'contest', report: 4, reason: 'the hussars were 4" ahead when the lancers stopped' },
    { kind: 'accept', report: 4 }]), 'the contest and the accept');
  // Side A waits for that answer, and says so.
  await show(asked, 'A');
  const waiting = await page.textContent('#controls-body');
  check(waiting.includes('Waiting for side B (British) to answer your contact report 4: accept or contest') &&
    await page.locator('#controls-body button').count() === 0, `A while B answers: "${waiting}"`);
  // A spectator sees the report too, read-only.
  await show(asked, 'spectator', 'watch');
  const watched = await readable(page, '#reports', "the spectator's reports");
  check(watched.includes('Report 4') && watched.includes('side A (French)') && watched.includes('awaits the answer of side B (British)') &&
    !watched.includes('For you'), `the spectator's reports: "${watched}"`);

  // A contact rejected in this phase is not reported again at the same unit.
  await show(pursuit('mandatory_moves', 'report', ['A', 'B'], {
    reports: [report(3, 'contact', 'A', 'a_lancers', { target: 'b_hussars', state: 'rejected', contested: true, contest: 'too far' })] }), 'A');
  const again = await optionValues(page, 'contact-target');
  check(!again.includes('b_hussars') && again.includes('dragoons'), `a rejected contact's target offered again: ${again}`);

  // Fire: an adjustment of the other side's unit is a report that side
  // answers (accept or contest), like a contact.
  await show(pursuit('fire', 'report', ['A', 'B']), 'A');
  await page.selectOption('#adjust-unit', 'dragoons');
  check((await page.textContent('#adjust-now')).includes("It is side B (British)'s: your adjustment waits for that side to accept or contest it") &&
    (await page.textContent('#adjust-submit')) === 'Report the adjustment', 'an adjustment of the other side\'s unit is not said to wait for its answer');
  await page.selectOption('#adjust-unit', 'ligne_1');
  check((await page.textContent('#adjust-submit')) === 'Record adjustment', 'an own unit\'s adjustment is called a report');
  const adjusted = report(9, 'adjust', 'A', 'dragoons', { state: 'awaits_answer', figures: 7, formed: false, note: 'lost two to the battery' });
  await show(pursuit('fire', 'report', ['A', 'B'], { reports: [adjusted] }), 'B');
  const answerFire = await page.textContent('#awaited-for');
  check(answerFire.includes('Answer the adjustment 9 of side A (French): accept or contest') && await page.isVisible('#accept-9') &&
    await page.locator('#act-done').count() === 0, `what B is awaited for in the Fire phase: "${answerFire}"`);
  const fireWords = await readable(page, '#reports', 'an adjustment report');
  check(fireWords.includes('23rd Light Dragoons of side B (British) set to 7 figures, unformed (“lost two to the battery”)'), `the adjustment report: "${fireWords}"`);
  await page.click('#accept-9');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'accept', report: 9 }]), 'the accept of the adjustment');
  await show(pursuit('fire', 'report', ['B'], { reports: [adjusted] }), 'A');
  check((await page.textContent('#controls-body')).includes('Waiting for side B (British) to answer your adjustment 9: accept or contest'),
    'A is not told B answers its adjustment');

  // Movement: an own unformed normal unit in no melee reforms (D37).
  await show(pursuit('movement', 'report', ['A', 'B']), 'A');
  const reform = await optionValues(page, 'reform-unit');
  check(JSON.stringify(reform) === JSON.stringify(['a_volt']),
    `the units offered to reform: ${reform} (not ligne_2 in melee, nor the pursuing, broken or formed units)`);
  check(await page.locator('#rally-form, #contact-form, #uncontrolled-form').count() === 0, 'other reports offered in the Movement phase');
  await page.click('#reform-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'reform', unit: 'a_volt' }]), 'the reform');
  await show(pursuit('movement', 'report', ['A', 'B'], { reports: [report(6, 'reform', 'A', 'a_volt')] }), 'A');
  check(await page.locator('#reform-form').count() === 0, 'a reform offered again after its report');
  check(await page.locator('#answers').count() === 0 && await page.locator('#report-6-go').count() === 0, 'A offered to contest its own report');

  // Morale: an own broken unit that made its broken move this turn rallies (D34).
  await show(pursuit('morale', 'report', ['A', 'B']), 'A');
  const rally = await optionValues(page, 'rally-unit');
  check(JSON.stringify(rally) === JSON.stringify(['a_routed']), `the units offered to rally: ${rally} (not the one that fled in turn 1)`);
  check(await page.locator('#reform-form').count() === 0, 'a reform offered in the Morale phase');
  await page.click('#rally-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'rally', unit: 'a_routed' }]), 'the rally');

  // B may contest A's rally until B's own done; not once done, nor a contested one.
  const rallied = pursuit('morale', 'report', ['A', 'B'], { reports: [report(7, 'rally', 'A', 'a_routed')] });
  await show(rallied, 'B');
  check(await page.isVisible('#contest-7-submit') && await page.locator('#accept-7').count() === 0 && await page.isVisible('#act-done'),
    'B cannot contest the rally, is offered an accept, or lost its done');
  check((await page.textContent('#answer-7')).includes('No umpire is seated: the report stands'), 'B is not told what a contest does without an umpire');
  // On a phone the report B may contest comes above the long adjustment
  // form, and the reports box has a jump to it, like "Answer it".
  await page.setViewportSize({ width: 390, height: 844 });
  check(await page.evaluate(() => Boolean(document.getElementById('answers').compareDocumentPosition(document.getElementById('adjust-form')) &
    Node.DOCUMENT_POSITION_FOLLOWING)), 'the contestable report comes below the adjustment form');
  check((await page.textContent('#report-7-go')) === 'Contest it' &&
    (await page.textContent('#reports .report[data-report="7"]')).includes('For you: you may contest it until you say done'),
  'the standing report B may contest has no "Contest it" jump');
  await page.click('#report-7-go');
  check(await page.evaluate(() => document.getElementById('answer-7').contains(document.activeElement)), '"Contest it" does not go to the contest form');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.fill('#contest-7-reason', 'it never made its broken move');
  await page.press('#contest-7-reason', 'Enter');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'contest', report: 7, reason: 'it never made its broken move' }]), 'the contest of the rally');
  const doneB = pursuit('morale', 'report', ['A'], { reports: [report(7, 'rally', 'A', 'a_routed')] });
  doneB.sides.B.done = true;
  await show(doneB, 'B');
  check(await page.locator('#answers').count() === 0, 'B, done, is offered a contest');
  check(await page.locator('#report-7-go').count() === 0, 'B, done, is offered a "Contest it" jump');

  // Contested with an umpire seated: the phase waits for the ruling; every page says so.
  const contested = report(7, 'rally', 'A', 'a_routed', { state: 'awaits_umpire', contested: true, contest: 'it never made its broken move' });
  const ruling = pursuit('morale', 'settle', [], { umpire: true, hold: null, pending: [], fought: [], rolled_back: [], reports: [contested],
    log: [{ seq: 30, turn: 2, phase: 'morale', kind: 'reported', text: "side A reports: '3/12e Legere' rallies", report: 7 },
      { seq: 31, turn: 2, phase: 'morale', kind: 'report_answered', text: "side B contests report 7: it never made its broken move", number: 7 }] });
  for (const [seat, mode] of [['A', 'play'], ['B', 'play'], ['spectator', 'watch']]) {
    await show(ruling, seat, mode);
    const banner = await page.textContent('#pending-banner');
    check(banner.includes("Waiting for the umpire's ruling on report 7, contested") && (seat === 'umpire' || banner.includes('The Morale phase goes on')) && !banner.includes('melee'),
      `${seat}: the banner while the umpire rules: "${banner}"`);
    const words = await readable(page, '#reports', `${seat}'s contested report`);
    check(words.includes("contested: awaits the umpire's ruling") && words.includes('Contested by side B (British): “it never made its broken move”'),
      `${seat}: the contested report: "${words}"`);
    if (mode === 'play') {
      check((await page.textContent('#controls-body')).includes('Waiting for the umpire to rule on the contested report 7') &&
        await page.locator('#controls-body button').count() === 0, `${seat} is not told it waits for the umpire's ruling`);
    }
  }
  check((await page.textContent('#log')).includes('side B contests report 7'), 'the report_answered entry is not in the log');
  // Contested while a side still reports: the phase goes on, and ends only after the ruling.
  await show(pursuit('morale', 'report', ['A'], { umpire: true, reports: [contested] }), 'A');
  const before = await page.textContent('#pending-banner');
  check(before.includes("For the umpire's ruling on report 7, contested. The Morale phase ends only once the umpire has ruled.") &&
    await page.isVisible('#act-done'), `the banner while A still reports: "${before}"`);
  await show(ruling, 'spectator', 'watch');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('view_contested_spectator_1280x800');
  await shoot('view_contested_spectator_390x844', { width: 390, height: 844 });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The umpire rules: upheld or rejected, with a reason.
  await show(ruling, 'umpire', 'umpire', 32);
  check((await page.textContent('#rule-part')).includes('Contested by side B (British): “it never made its broken move”'), 'the umpire does not see the contest');
  await page.fill('#rule-7-reason', 'it fled 12" in the Mandatory moves');
  await page.click('#rule-7-submit');
  check((await page.textContent('#umpire-error')).includes('upheld or rejected') && (await sent()).length === 0, 'a ruling sent with no choice');
  await page.selectOption('#rule-7-upheld', 'yes');
  await page.click('#rule-7-submit');
  await page.selectOption('#rule-7-upheld', 'no');
  await page.fill('#rule-7-reason', 'it was still in contact');
  await page.click('#rule-7-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([
    { kind: 'rule', report: 7, upheld: true, reason: 'it fled 12" in the Mandatory moves' },
    { kind: 'rule', report: 7, upheld: false, reason: 'it was still in contact' }]), 'the rulings');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('controls_umpire_rule_1280x800');
  await shoot('controls_umpire_rule_390x844', { width: 390, height: 844 });
  await page.setViewportSize({ width: 1280, height: 800 });
  // A player never sees the ruling form; ruled, the report shows the ruling.
  await show(ruling, 'B');
  check(await page.isHidden('#umpire') && !(await page.isVisible('#rule-part')), 'a player sees the umpire\'s ruling form');
  const upheld = pursuit('morale', 'report', ['A', 'B'], { umpire: true, reports: [{ ...contested, state: 'upheld', ruling: 'it fled 12" in the Mandatory moves' }] });
  await show(upheld, 'B');
  const ruled = await readable(page, '#reports', 'a ruled report');
  check(ruled.includes('upheld by the umpire') && ruled.includes('The umpire upheld it: “it fled 12" in the Mandatory moves”') &&
    await page.locator('#answers').count() === 0, `the ruled report: "${ruled}"`);
  await show(pursuit('morale', 'report', ['A', 'B'], { reports: [{ ...contested, state: 'rejected', ruling: 'it was still in contact' }] }), 'A');
  // A rejected report is not made again in its phase (core/battle.c report_unit).
  check(await page.isVisible('#reports .report.state-rejected') && await page.locator('#rally-form').count() === 0,
    'a rejected rally is not shown rejected, or its unit is offered again');

  // Charge/occupy: the chargers whose target fled its built-up area (D41);
  // done once one occupies it (12.9 f). Not a charger that failed its test.
  const charge = (unitId, passed) => ({ unit: unitId, target: 'village', facing: 'front', leading: false, sappers: false, reinforce: false,
    response: 'stand', morale: { charger: { dice: [4, 4], total: passed ? 8 : 4, pass_on: 6, passed, failed_by: passed ? 0 : 2 },
      target: passed ? { dice: [1, 2], total: 3, pass_on: 6, passed: false, failed_by: 3 } : null } });
  const occupying = (charges, log = []) => {
    const state = pursuit('charge', 'occupy', ['A'], { charges, log });
    Object.assign(state.units, {
      a_gren: unit('A', 'Grenadiers of the 45e', 'infantry'),
      a_shaken: unit('A', 'Fusiliers of the 45e', 'infantry', { formed: false }),
    });
    Object.assign(state.units.village, { status: 'retreating', formed: false });
    return state;
  };
  const fled = occupying([charge('ligne_1', true), charge('a_gren', true), charge('a_shaken', false)]);
  await show(fled, 'A');
  check((await page.textContent('#awaited-for')).includes('Name who occupies the built-up area'), 'A is not told what the occupy step wants');
  check(await page.locator('#act-done').count() === 0 && await page.isVisible('#occupy-first'), 'done offered before anyone occupies');
  const occupiers = await page.$$eval('.occupiers li', (list) => list.map((li) => li.dataset.unit));
  check(JSON.stringify(occupiers) === JSON.stringify(['ligne_1', 'a_gren']), `the chargers offered to occupy: ${occupiers} (not the one that halted)`);
  check((await page.textContent('#controls-body')).includes('28th Foot in the village fled the built-up area'), 'the defenders that fled are not named');
  await page.click('#occupy-ligne_1');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'occupy', unit: 'ligne_1' }]), 'the occupation');
  await shoot('controls_occupy_1280x800');
  await show(fled, 'B');
  check((await page.textContent('#controls-body')).includes('Waiting for side A (French) to name who occupies the built-up area'), 'B is not told what A does');
  const occupied = occupying([{ ...charge('ligne_1', true), occupies: true }, charge('a_gren', true)], [
    { seq: 40, turn: 2, phase: 'charge', kind: 'roll', name: 'T2.ligne_1.reform', dice: [5, 3], text: 'T2.ligne_1.reform: 5, 3' },
    { seq: 40, turn: 2, phase: 'charge', kind: 'test_taken', unit: 'ligne_1', name: 'T2.ligne_1.reform',
      test: { kind: 'reform', dice: [5, 3], total: 8, target: 7, outcome: 'pass', modifiers: [{ rule: '12.22', name: 'veteran', value: 0 }] },
      text: "'1/45e Ligne' occupies the village: reform test 8, passes" }]);
  await show(occupied, 'A');
  check(await page.isVisible('#act-done') && await page.locator('#occupy-ligne_1').count() === 0 && await page.isVisible('#occupy-a_gren'),
    'after one occupies: done not offered, occupy offered to it again, or not to the other');
  const test = await page.textContent('#log .kind-test_taken');
  check(test.includes('Reform test') && test.includes('1/45e Ligne') && test.includes('needs 7') && test.includes('pass'), `the test_taken entry: "${test}"`);
  check(!test.includes('occupies the village: reform test 8') && await page.locator('#log .kind-test_taken .hint').count() === 0 &&
    await page.locator('#log .kind-test_taken .calc').count() === 1, `the test_taken entry shows its dice and total twice: "${test}"`);
  check(await page.locator('#log .roll').count() === 0, 'the reform roll shown beside the test that shows it');
}

async function umpirePanel(page, show, sent, shoot) {
  await page.setViewportSize({ width: 1280, height: 800 });
  const fought = [{ melee: 'T2.M2', units: ['ligne_1', 'village'], result: 'pushed_back', winner: 'A' }];
  const pending = [{ unit: 'ligne_1', event: 'double_six', melee: 'T2.M2' }];
  const ruling = village('melee', 'settle', [], { umpire: true, hold: null, pending, fought, rolled_back: [], log: umpireLog });

  // A player in step settle: no orders, told what the game waits for.
  await show(ruling, 'A', 'play', 9);
  check(await page.isHidden('#umpire') && await page.locator('#umpire-body form').count() === 0, 'a player sees the umpire\'s panel');
  check((await page.textContent('#controls-body')).includes('Waiting for the umpire to settle') &&
    await page.locator('#controls-body button').count() === 0, 'step settle: the player is not told it waits for the umpire');
  check((await page.textContent('#pending-banner')).includes('double six') &&
    (await page.textContent('#status-awaiting')) === 'the umpire', 'step settle: the status does not show the pending event');
  check(await page.locator('.rollback-here').count() === 0, 'a player is offered "Roll back to here"');
  await shoot('controls_settle_player_375x812', { width: 375, height: 812 });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The umpire: the panel, no orders.
  await show(ruling, 'umpire', 'umpire', 9);
  check(await page.isHidden('#controls') && await page.isVisible('#umpire'), 'the umpire sees orders, or no panel');
  check((await page.textContent('#status-seat')) === 'the umpire', 'the umpire is not told it is the umpire');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('controls_umpire_1280x800');
  // At a desk the umpire sees the units near the top, beside the panel, not below it.
  const boxes = await page.evaluate(() => {
    const box = (element) => { const r = element.getBoundingClientRect(); return { top: Math.round(r.top), left: Math.round(r.left), right: Math.round(r.right) }; };
    return { card: box(document.querySelector('.unit')), panel: box(document.getElementById('umpire')), log: box(document.querySelector('.log')) };
  });
  check(boxes.card.top < 500 && boxes.panel.top < 500 && boxes.card.right <= boxes.panel.left && boxes.panel.right <= boxes.log.left,
    `the umpire's page at 1280: units, panel and log are not side by side near the top: ${JSON.stringify(boxes)}`);
  // Narrower desks (960-1199 px): the cards first, the panel after them.
  await page.setViewportSize({ width: 1024, height: 768 });
  const narrow = await page.evaluate(() => [document.querySelector('.unit').getBoundingClientRect().top,
    document.getElementById('umpire').getBoundingClientRect().top].map(Math.round));
  check(narrow[0] < 500 && narrow[0] < narrow[1], `the umpire's page at 1024: the first card at ${narrow[0]} px, the panel at ${narrow[1]} px`);
  await shoot('controls_umpire_1024x768');
  await page.setViewportSize({ width: 1280, height: 800 });
  // This turn's melee fought, with its result and winner, and the melee in contact.
  const fightText = await page.textContent('.engagements .fought li[data-melee="T2.M2"]');
  check(fightText.includes('T2.M2: pushed back, won by side A (French)') && fightText.includes('1/45e Ligne against 28th Foot in the village'),
    `the melee fought this turn in "Charges and melees": "${fightText}"`);
  check((await page.textContent('.engagements .melees')).includes('Melee T1.M1, round 2'), 'the melee in contact is not in "Charges and melees"');
  await page.locator('.engagements').screenshot({ path: join(args.screenshots, 'view_engagements_umpire.png') });
  // The log's title never covers an entry: one scrolled to the top of the log starts below it.
  const underTitle = await page.evaluate(() => {
    const entry = [...document.querySelectorAll('#log > li')][4];
    entry.scrollIntoView({ block: 'start' });
    const title = document.getElementById('log-title').getBoundingClientRect();
    const top = entry.getBoundingClientRect().top;
    const hit = document.elementFromPoint(entry.getBoundingClientRect().left + 20, top + 3);
    return { gap: Math.round(top - title.bottom), inEntry: entry.contains(hit), scrolled: document.querySelector('.log').classList.contains('scrolled') };
  });
  check(underTitle.gap >= 4 && underTitle.inEntry && underTitle.scrolled, `the log's title covers its first entry shown: ${JSON.stringify(underTitle)}`);
  await shoot('controls_umpire_log_scrolled_1280x800');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.fill('#settle-ligne_1-double_six-reason', 'the colonel falls');
  await page.press('#settle-ligne_1-double_six-reason', 'Enter');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'settle', unit: 'ligne_1', event: 'double_six', reason: 'the colonel falls' }]),
    'the settle');

  // Overrule: nothing chosen is explained; a draw has no winner; result and a unit's test.
  await page.fill('#overrule-reason', 'the square was not formed');
  await page.click('#overrule-submit');
  check((await page.textContent('#umpire-error')).includes('choose a new result'), 'an empty overrule is not explained');
  await page.selectOption('#overrule-result', 'draw');
  check(await page.isDisabled('#overrule-winner') && await page.isDisabled('#overrule-outcome'), 'a draw asks for a winner, or no unit asks for an outcome');
  await page.click('#overrule-submit');
  await page.selectOption('#overrule-result', 'retreat');
  await page.selectOption('#overrule-winner', 'B');
  // Only the outcomes of the test the unit took in that melee (12.22, 12.23):
  // the village took a reform test, ligne_1 none.
  const overruleUnits = await page.$$eval('#overrule-unit option', (list) => list.map((o) => [o.value, o.disabled, o.textContent]));
  check(JSON.stringify(overruleUnits.map(([value, disabled]) => [value, disabled])) ===
    JSON.stringify([['', false], ['ligne_1', true], ['village', false]]) &&
    overruleUnits[1][2].includes('no test') && overruleUnits[2][2].includes('reform test'),
  `the overrule's units and their tests: ${JSON.stringify(overruleUnits)}`);
  await page.selectOption('#overrule-unit', 'village');
  const reformOutcomes = await page.$$eval('#overrule-outcome option', (list) => list.map((o) => o.value));
  check(JSON.stringify(reformOutcomes) === JSON.stringify(['pass', 'fail']) && await page.isEnabled('#overrule-outcome'),
    `a reform test offers the outcomes ${reformOutcomes}, not pass and fail`);
  await page.selectOption('#overrule-outcome', 'pass');
  await page.fill('#overrule-reason', 'the square was not formed');
  await page.click('#overrule-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([
    { kind: 'overrule', melee: 'T2.M2', result: 'draw', reason: 'the square was not formed' },
    { kind: 'overrule', melee: 'T2.M2', result: 'retreat', winner: 'B', unit: 'village', outcome: 'pass', reason: 'the square was not formed' },
  ]), 'the overrules');
  // The latest result of a unit counts (an overrule's, not rolled back): here ligne_1 took a pursuit test.
  const pursuitLog = umpireLog.concat([{ seq: 10, turn: 2, phase: 'melee', kind: 'melee_unit_result', text: 'T2.M2 ligne_1: …',
    melee: 'T2.M2', unit: 'ligne_1', rolled: true, dice: [6, 5], total: 14, modifiers: [], casualties: 2, figures: 18,
    status: 'pursuing', formed: false, test: { kind: 'pursuit', dice: [2, 2], total: 4, target: 0, outcome: 'pursuit', modifiers: [] } }]);
  await show({ ...ruling, log: pursuitLog }, 'umpire', 'umpire', 11);
  await page.selectOption('#overrule-unit', 'ligne_1');
  const pursuitOutcomes = await page.$$eval('#overrule-outcome option', (list) => list.map((o) => o.value));
  check(JSON.stringify(pursuitOutcomes) === JSON.stringify(['excellent', 'unformed', 'blown', 'pursuit']),
    `a pursuit test offers the outcomes ${pursuitOutcomes}`);
  await page.evaluate(() => document.getElementById('overrule-form').scrollIntoView({ block: 'center' }));
  await page.locator('#overrule-form').screenshot({ path: join(args.screenshots, 'controls_overrule_pursuit.png') });
  await show(ruling, 'umpire', 'umpire', 9);
  await page.evaluate(() => window.scrollTo(0, 0));

  // The umpire adjusts a unit of either side, its formation too.
  await page.selectOption('#uadjust-unit', 'dragoons');
  check((await page.textContent('#uadjust-now')).includes('9 figures, unformed, blown'), 'the umpire\'s adjustment does not say what the unit is now');
  const formations = await page.$$eval('#uadjust-formation option', (options) => options.map((o) => o.value).filter(Boolean));
  check(JSON.stringify(formations) === JSON.stringify(['line', 'column', 'march_column']), `cavalry formations: ${formations}`);
  await page.selectOption('#uadjust-formation', 'column');
  await page.fill('#uadjust-reason', 'they formed column to pass the bridge');
  await page.click('#uadjust-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'umpire_adjust', unit: 'dragoons', formation: 'column', reason: 'they formed column to pass the bridge' }]),
    'the umpire\'s adjustment');

  // A refusal in words.
  await page.evaluate(() => { window.answer = { ok: false, code: 'invalid_action', message: 'the game is not held' }; });
  await page.fill('#note-text', 'a note');
  await page.click('#note-submit');
  const refusal = await page.textContent('#umpire-error');
  check(refusal.includes('invalid_action') && refusal.includes('the game is not held') && refusal.includes('the rules forbid it'),
    `the umpire's refusal in words: "${refusal}"`);
  await page.evaluate(() => { window.answer = null; });
  await sent();

  // Roll back: "Roll back to here" after seq 8's last entry, a reason, Enter asks, the button confirms.
  const offered = await page.$$eval('.rollback-here', (buttons) => buttons.map((b) => Number(b.dataset.seq)));
  // Seqs 7 and 8; not 9, the state's own seq.
  check(JSON.stringify(offered) === JSON.stringify([7, 8]), `"Roll back to here" offered after seqs ${offered}, not 7 and 8`);
  await page.click('.rollback-here[data-seq="8"]');
  check(await page.inputValue('#rollback-seq') === '8' && await page.evaluate(() => document.activeElement.id) === 'rollback-reason',
    '"Roll back to here" does not pick seq 8 and focus the reason');
  await page.keyboard.type('the sappers were not there');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#rollback-confirm');
  check((await sent()).length === 0, 'a rollback is sent without a confirmation');
  await page.evaluate(() => { window.answer = { ok: true, seq: 10 }; });
  await page.keyboard.press('Enter'); // the confirmation button has the focus
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'rollback', to_seq: 8, reason: 'the sappers were not there' }]), 'the rollback');
  await page.evaluate(() => { window.answer = null; });
  // The umpire is told it is done, as for every other tool, and the page does not jump to the panel's title.
  const doneText = 'Rolled back to seq 8; the game is held until you release it.';
  check(await page.isVisible('#umpire-done') && (await page.textContent('#umpire-done')) === doneText &&
    await page.evaluate(() => document.activeElement.id) !== 'umpire-title',
  `the rollback's done line: "${await page.textContent('#umpire-done')}", focus on #${await page.evaluate(() => document.activeElement.id)}`);
  // The held state the rollback made (its seq, 10) comes: the done line stays, the release's reason has the focus, in view.
  const heldLog = umpireLog.concat([{ seq: 10, turn: 2, phase: 'melee', kind: 'umpire_ruled', ruling: 'rollback',
    text: 'umpire: rolled back to seq 8: the sappers were not there' }]);
  const firstOf9 = umpireLog.findIndex((entry) => entry.seq === 9);
  await show(village('melee', 'reroll', ['A'], { umpire: true, hold: 'rolled back to seq 8: the sappers were not there', pending: [], fought: [],
    rolled_back: [{ from: firstOf9, to: umpireLog.length, seq: 10 }], log: heldLog }), 'umpire', 'umpire', 10);
  const afterRollback = await page.evaluate(() => {
    const reason = document.getElementById('release-reason');
    const box = reason && reason.getBoundingClientRect();
    const done = document.getElementById('umpire-done').getBoundingClientRect();
    return { focus: document.activeElement.id, done: document.getElementById('umpire-done').hidden ? '' : document.getElementById('umpire-done').textContent,
      inView: Boolean(box) && box.top >= 0 && box.bottom <= innerHeight && done.top >= 0 && done.bottom <= innerHeight };
  });
  check(afterRollback.focus === 'release-reason' && afterRollback.done === doneText && afterRollback.inView,
    `after the rollback's held state: ${JSON.stringify(afterRollback)}`);
  await shoot('controls_umpire_rolled_back_done_1280x800');

  // Ending the battle needs its reason and the tick; an ended battle shows no tools.
  await page.fill('#end-reason', 'time is up: 3 hours');
  await page.click('#end-submit');
  check((await page.textContent('#umpire-error')).includes('I end the battle for good') && (await sent()).length === 0,
    'the battle ends without the confirmation');
  await page.check('#end-confirm');
  await page.click('#end-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'end', reason: 'time is up: 3 hours' }]), 'the end');
  await show(village('ended', '', [], { umpire: true, hold: null, pending: [], fought: [], rolled_back: [], log: overruleLog }), 'umpire', 'umpire', 12);
  check(await page.isVisible('#umpire-ended') && await page.locator('#umpire form').count() === 0,
    'an ended battle still offers the umpire\'s tools');
  check(await page.locator('#plot text.tick.now').count() === 0 && (await page.textContent('#plot .axis')).includes('has ended'),
    'an ended battle\'s plot still says its last turn is not over');

  // The overrule in everyone's log: a second block, the first marked overruled.
  await show(village('morale', 'report', ['A', 'B'], { umpire: true, hold: null, pending: [], fought, rolled_back: [], log: overruleLog }), 'B', 'watch', 11);
  const blocks = await page.$$eval('#log .melee-block', (list) => list.map((b) => ({ cls: b.className, result: b.querySelector('.verdict').dataset.result })));
  check(blocks.length === 2 && blocks[0].cls.includes('superseded') && blocks[1].cls.includes('overruled') && blocks[1].result === 'retreat',
    `the overruled melee in the log: ${JSON.stringify(blocks)}`);
  await page.evaluate(() => document.querySelector('#log .melee-block.overruled').scrollIntoView({ block: 'center' }));
  await shoot('view_overruled_1280x800');

  // Rolled back: the overrule's entries struck through, the first block stands again; the hold shows.
  const hold = 'rolled back to seq 9: a mistake';
  const from = umpireLog.length;
  const rolled = village('morale', 'report', ['A', 'B'], { umpire: true, hold, pending: [], fought,
    rolled_back: [{ from, to: overruleLog.length, seq: 11, to_seq: 9 }], log: rolledLog });
  for (const [seat, mode] of [['B', 'watch'], ['A', 'play'], ['umpire', 'umpire']]) {
    await show(rolled, seat, mode, 11);
    const marks = await page.evaluate(() => ({
      gone: [...document.querySelectorAll('#log .rolled-back')].map((e) => e.dataset.kind || e.className),
      badges: [...document.querySelectorAll('#log .rb-badge')].map((b) => b.textContent),
      superseded: document.querySelectorAll('#log .superseded').length,
      rollbackEntry: document.querySelector('#log [data-ruling="rollback"]').classList.contains('rolled-back'),
    }));
    check(marks.gone.length >= 3 && marks.gone.includes('umpire_ruled') && marks.gone.includes('unit_changed') && marks.gone.includes('melee') &&
      // Badged with the action they were rolled back to (seq 9), not the rollback's own seq (11).
      marks.badges.length >= 3 && marks.badges.every((badge) => badge === 'undone: rolled back to seq 9') &&
      marks.superseded === 0 && !marks.rollbackEntry,
    `${mode}: the rolled-back entries: ${JSON.stringify(marks)}`);
    check((await page.textContent('#hold-banner')).includes(hold), `${mode}: the rollback's hold is not shown`);
  }
  check(await page.isVisible('#release-submit') && await page.locator('#hold-submit').count() === 0, 'the umpire is not offered the release');
  const after = await page.$$eval('.rollback-here', (buttons) => buttons.map((b) => Number(b.dataset.seq)));
  check(!after.includes(10), `"Roll back to here" offered on a rolled-back action: ${after}`);
  await page.evaluate(() => document.querySelector('#log .rolled-back').scrollIntoView({ block: 'start' }));
  await shoot('view_rolled_back_umpire_1280x800');
  await page.setViewportSize({ width: 375, height: 812 });
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('controls_umpire_held_375x812');
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `the umpire's page is ${widths[0]} px wide in a ${widths[1]} px window`);
  await page.screenshot({ path: join(args.screenshots, 'controls_umpire_375_full.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // The actions to roll back to are named by the turn and phase they were
  // taken in and what they were, not by where the game went after them:
  // side A's done of T1 Morale began turn 2 (its later entries are in T2 Initiative).
  const turnLog = [
    { seq: 20, turn: 1, phase: 'morale', kind: 'phase_begun', text: 'phase morale, report, awaiting A and B' },
    { seq: 21, turn: 1, phase: 'morale', kind: 'side_done', side: 'B', text: 'side B is done' },
    { seq: 22, turn: 1, phase: 'morale', kind: 'side_done', side: 'A', text: 'side A is done' },
    { seq: 22, turn: 2, phase: 'initiative', kind: 'turn_begun', text: 'turn 2 begins' },
    { seq: 22, turn: 2, phase: 'initiative', kind: 'roll', name: 'T2.initiative.A', dice: [3, 4], text: 'T2.initiative.A: 3, 4' },
    { seq: 22, turn: 2, phase: 'initiative', kind: 'initiative_won', winner: 'A', total_a: 7, total_b: 5, text: 'side A wins the initiative' },
    { seq: 22, turn: 2, phase: 'initiative', kind: 'phase_begun', text: 'phase initiative, choose, awaiting A' },
    { seq: 23, turn: 2, phase: 'initiative', kind: 'phasing_chosen', phasing: 'A', text: 'side A moves first' },
    { seq: 23, turn: 2, phase: 'mandatory_moves', kind: 'phase_begun', text: 'phase mandatory_moves, report, awaiting A and B' },
  ];
  await show(village('mandatory_moves', 'report', ['A', 'B'], { umpire: true, hold: null, pending: [], fought: [], rolled_back: [], log: turnLog }),
    'umpire', 'umpire', 24);
  const labels = await page.$$eval('#rollback-seq option', (list) => list.map((o) => o.textContent).filter((t) => t.startsWith('seq')));
  check(JSON.stringify(labels) === JSON.stringify(['seq 23 · T2 Initiative: side A moves first', 'seq 22 · T1 Morale: side A is done',
    'seq 21 · T1 Morale: side B is done', 'seq 20 · T1 Morale: phase morale, report, awaiting A and B']),
  `the rollback list: ${JSON.stringify(labels)}`);
  const here = await page.$eval('.rollback-here[data-seq="22"]', (b) => [b.textContent, b.getAttribute('aria-label')]);
  check(here[0].includes('seq 22 · T1 Morale') && here[1].includes('seq 22 · T1 Morale: side A is done'),
    `"Roll back to here" for seq 22: ${JSON.stringify(here)}`);
  // Each button sits on the entry of the action it returns to, never under
  // the next phase's header: seq 22's on "side A is done" (not turn 2's
  // Initiative header), seq 23's on "side A moves first" (not Mandatory moves').
  const placed = await page.$$eval('.rollback-here', (buttons) => buttons.map((b) => {
    const entry = b.closest('li');
    return [Number(b.dataset.seq), entry.dataset.kind, entry.textContent.replace(b.textContent, '').trim().slice(-30)];
  }));
  check(JSON.stringify(placed.map(([seq, kind]) => [seq, kind])) === JSON.stringify([[20, 'phase_begun'], [21, 'side_done'], [22, 'side_done'], [23, 'phasing_chosen']]),
    `the "Roll back to here" buttons sit on: ${JSON.stringify(placed)}`);
  check(placed[2][2].endsWith('side A is done') && placed[3][2].endsWith('side A moves first'), `the entries of the buttons: ${JSON.stringify(placed)}`);
  await page.selectOption('#rollback-seq', '22');
  await page.evaluate(() => document.getElementById('rollback-form').scrollIntoView({ block: 'center' }));
  await page.locator('#rollback-form').screenshot({ path: join(args.screenshots, 'controls_rollback_list.png') });
  await page.evaluate(() => document.querySelector('.rollback-here[data-seq="22"]').scrollIntoView({ block: 'center' }));
  await page.locator('.log').screenshot({ path: join(args.screenshots, 'controls_rollback_here_log.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => document.querySelector('.rollback-here[data-seq="22"]').scrollIntoView({ block: 'center' }));
  await shoot('controls_rollback_here_390x844');
  await page.evaluate(() => document.getElementById('rollback-form').scrollIntoView({ block: 'center' }));
  await shoot('controls_rollback_list_390x844');
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate(() => document.querySelector('.rollback-here[data-seq="22"]').scrollIntoView({ block: 'center' }));
  await shoot('controls_rollback_here_1280x800');
}

// ------------------------- held and released, withdrawn, overruled, ended

// What a player types survives the umpire's hold and release (the form
// goes while held and comes back filled in, focus and caret kept); a
// charge declared by mistake is withdrawn (withdraw_charge: here the
// message sent; browser_play withdraws one through the real server); the
// overrule offers "the square holds" only for a square against cavalry
// (D13, D25); the end of the battle, with and without state.end.
async function heldWithdrawnEnded(page, show, sent, shoot) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await sent();
  const update = (state) => page.evaluate((s) => window.controls.update(s, { seat: 'A', mode: 'play' }), state);
  const typing = village('movement', 'report', ['A', 'B']);
  await show(typing, 'A');
  await page.selectOption('#adjust-unit', 'battery');
  await page.fill('#adjust-figures', '4');
  await page.fill('#adjust-note', 'lost two to the howitzers');
  await page.focus('#adjust-note');
  await page.evaluate(() => document.getElementById('adjust-note').setSelectionRange(5, 8));
  await update({ ...typing, hold: 'a question of line of sight' });
  check(await page.locator('#adjust-form').count() === 0 && (await page.textContent('#controls-body')).includes('The umpire holds the game'),
    'held: the orders are still offered');
  await update({ ...typing, hold: null });
  const kept = await page.evaluate(() => {
    const note = document.getElementById('adjust-note');
    return { unit: document.getElementById('adjust-unit').value, figures: document.getElementById('adjust-figures').value,
      note: note.value, focus: document.activeElement.id, selection: [note.selectionStart, note.selectionEnd] };
  });
  check(JSON.stringify(kept) === JSON.stringify({ unit: 'battery', figures: '4', note: 'lost two to the howitzers', focus: 'adjust-note', selection: [5, 8] }),
    `what was typed before the hold, after the release: ${JSON.stringify(kept)}`);
  // The other side's report being contested, across a hold too.
  const contest = pursuit('mandatory_moves', 'report', ['B'], {
    reports: [report(4, 'contact', 'A', 'a_lancers', { target: 'b_hussars', state: 'awaits_answer' })] });
  await show(contest, 'B');
  await page.fill('#contest-4-reason', 'the hussars were ahead');
  await page.evaluate((s) => window.controls.update({ ...s, hold: 'tea' }, { seat: 'B', mode: 'play' }), contest);
  await page.evaluate((s) => window.controls.update(s, { seat: 'B', mode: 'play' }), contest);
  check(await page.inputValue('#contest-4-reason') === 'the hussars were ahead', 'a contest\'s reason lost over a hold');
  // Another step: nothing typed in the last one is put back.
  await show(village('fire', 'report', ['A', 'B']), 'A');
  check(await page.inputValue('#adjust-note') === '', `the Movement phase's note put back in the Fire phase: "${await page.inputValue('#adjust-note')}"`);

  // Withdraw: beside each of the seat's own declarations, not beside an
  // uncontrolled charge (a must, 12.24 f), nor the other side's.
  const declared = pursuit('charge', 'declare', ['A'], {
    charges: [
      { unit: 'chasseurs', target: 'square', facing: 'flank', leading: false, sappers: false, reinforce: true, response: null, morale: null },
      { unit: 'a_cuir', target: 'b_pushed', facing: 'front', leading: false, sappers: false, reinforce: false, response: null, morale: null, uncontrolled: true },
      { unit: 'dragoons', target: 'ligne_1', facing: 'front', leading: false, sappers: false, reinforce: false, response: null, morale: null },
    ],
  });
  await show(declared, 'A');
  const withdraw = await page.$$eval('#declared .withdraw', (buttons) => buttons.map((b) => [b.dataset.unit, b.textContent]));
  check(JSON.stringify(withdraw) === JSON.stringify([['chasseurs', 'Withdraw the charge of 7e Chasseurs a cheval']]),
    `the Withdraw buttons: ${JSON.stringify(withdraw)}`);
  check((await page.textContent('#declared')).includes('7e Chasseurs a cheval → 1/52nd Foot (flank)'), 'the declaration beside its Withdraw');
  await page.click('#withdraw-chasseurs');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'withdraw_charge', unit: 'chasseurs' }]), 'Withdraw does not send withdraw_charge');
  await page.locator('#declared').screenshot({ path: join(args.screenshots, 'controls_withdraw_charge.png') });
  await show(declared, 'A', 'watch');
  check(await page.locator('.withdraw:visible').count() === 0, 'a read-only page offers Withdraw');

  // The overrule's results: a cavalry fight has no "square holds"; a square
  // against cavalry has it, and its side is the winner.
  const fought = [
    { melee: 'T2.M3', units: ['chasseurs', 'dragoons'], result: 'retreat', winner: 'A' },
    { melee: 'T2.M4', units: ['a_lancers', 'square'], result: 'pushed_back', winner: 'A' },
    { melee: 'T2.M5', units: ['ligne_2', 'square'], result: 'pushed_back', winner: 'A' },
  ];
  await show(pursuit('morale', 'report', ['A', 'B'], { umpire: true, hold: null, pending: [], fought, rolled_back: [] }), 'umpire', 'umpire', 9);
  const results = async (melee) => {
    await page.selectOption('#overrule-melee', melee);
    return (await optionValues(page, 'overrule-result')).filter(Boolean);
  };
  const cavalry = await results('T2.M3');
  check(JSON.stringify(cavalry) === JSON.stringify(['broken', 'retreat', 'pushed_back', 'draw']), `a cavalry melee's results: ${cavalry}`);
  const infantry = await results('T2.M5');
  check(!infantry.includes('square_holds'), `a square against infantry offered "the square holds": ${infantry}`);
  const square = await results('T2.M4');
  check(square.includes('square_holds'), `a square against lancers is not offered "the square holds": ${square}`);
  await page.selectOption('#overrule-result', 'square_holds');
  check(await page.inputValue('#overrule-winner') === 'B' && await page.isDisabled('#overrule-winner'),
    'the square that holds is not the winner');
  await page.fill('#overrule-reason', 'the square was formed in time');
  await page.click('#overrule-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'overrule', melee: 'T2.M4', result: 'square_holds', winner: 'B',
    reason: 'the square was formed in time' }]), 'the overrule of the square');

  // The end: the reason and each side's count, figures of those at the start.
  const ended = village('ended', '', [], { end: { cause: 'no_units', reason: 'side B (British) has no unit left in play' } });
  for (const [id, u] of Object.entries(ended.units)) u.strength = u.figures + (u.side === 'B' ? 4 : 2);
  ended.units.village.status = 'removed';
  ended.units.village.figures = 0;
  ended.units.dragoons.status = 'dispersed';
  await show(ended, 'A');
  const panel = await page.evaluate(() => ({
    title: document.getElementById('end-title').textContent,
    rows: [...document.querySelectorAll('#end-summary tbody tr')].map((row) => [...row.children].map((cell) => cell.textContent)),
  }));
  // A: 4 units of 20+20+12+6 = 58 figures, each 2 more at the start (66);
  // B: 0+20+9 = 29 now (the village removed, the dragoons dispersed), each 4 more at the start.
  const bStart = ['village', 'square', 'dragoons'].reduce((sum, id) => sum + ended.units[id].strength, 0);
  check(panel.title === 'The battle has ended: side B (British) has no unit left in play' &&
    JSON.stringify(panel.rows) === JSON.stringify([
      ['Side A (French)', '4 in play', '58 of 66 figures at the start'],
      ['Side B (British)', '1 in play, 1 removed, 1 dispersed', `29 of ${bStart} figures at the start`]]),
  `the end panel: ${JSON.stringify(panel)}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('view_ended_1280x800');
  await shoot('view_ended_390x844', { width: 390, height: 844 });
  const narrow = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(narrow[0] <= narrow[1], `the ended page is ${narrow[0]} px wide in a ${narrow[1]} px window`);
  await page.setViewportSize({ width: 1280, height: 800 });
  // An older server: no state.end, no strength.
  const older = village('ended', '', []);
  await show(older, 'A');
  const plain = await page.evaluate(() => ({
    title: document.getElementById('end-title').textContent,
    rows: [...document.querySelectorAll('#end-summary tbody tr')].map((row) => row.lastElementChild.textContent),
  }));
  check(plain.title === 'The battle has ended' && JSON.stringify(plain.rows) === JSON.stringify(['58 figures', '49 figures']),
    `the end panel of an older server: ${JSON.stringify(plain)}`);
}

// ------------------------------------------------- the umpire's result

// The umpire's End form (PROTOCOL.md §11.5): the result (a win for either
// side by its name, a draw, or none) beside the reason; a side whose flag
// fell (state.clock.flags, §11.2) offers "loss on time" for it, and a
// state without a clock, or with one of another shape, offers none; the
// end panel shows the result to everyone.
async function umpireEnd(page, show, sent, shoot) {
  await page.setViewportSize({ width: 1280, height: 800 });
  await sent();
  const umpireState = (more = {}) => village('movement', 'report', ['A', 'B'],
    { umpire: true, hold: null, pending: [], fought: [], rolled_back: [], ...more });
  await show(umpireState(), 'umpire', 'umpire', 9);
  const labels = await page.$$eval('#end-result option', (list) => list.map((o) => [o.value, o.textContent]));
  check(JSON.stringify(labels) === JSON.stringify([['', 'No result (the organiser gives it)'],
    ['A', 'A win for side A (French)'], ['B', 'A win for side B (British)'], ['draw', 'A draw']]),
  `the End form's results: ${JSON.stringify(labels)}`);
  check(await page.locator('#end-presets').count() === 0, 'a game without a clock offers "loss on time"');
  await page.fill('#end-reason', 'the French withdrew');
  await page.check('#end-confirm');
  await page.click('#end-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'end', reason: 'the French withdrew' }]),
    'an end with no result chosen sends a result');
  await show(umpireState({ turn: 3 }), 'umpire', 'umpire', 10);
  await page.selectOption('#end-result', 'draw');
  await page.fill('#end-reason', 'agreed');
  await page.check('#end-confirm');
  await page.click('#end-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'end', reason: 'agreed', result: 'draw' }]),
    'the draw is not sent');
  check((await page.textContent('#umpire-done')) === 'The battle has ended: a draw.', `the done line: "${await page.textContent('#umpire-done')}"`);

  // A clock whose flag fell for side A: the preset gives B the win on time.
  const flagged = umpireState({ turn: 4, clock: { minutes_per_side: 90, increment_seconds: 0, A: 0, B: 1200000, running: [], flags: ['A'] } });
  await show(flagged, 'umpire', 'umpire', 11);
  const preset = await page.$$eval('#end-presets button', (list) => list.map((b) => [b.id, b.textContent]));
  check(JSON.stringify(preset) === JSON.stringify([['end-preset-time-A', 'Loss on time: a win for side B (British)']]),
    `the presets: ${JSON.stringify(preset)}`);
  check((await page.textContent('#end-presets')).includes("Side A (French)'s flag fell"), 'the preset does not say whose flag fell');
  await page.click('#end-preset-time-A');
  check(await page.inputValue('#end-result') === 'B' && await page.inputValue('#end-reason') === 'loss on time',
    `the preset set ${await page.inputValue('#end-result')}, "${await page.inputValue('#end-reason')}"`);
  await page.locator('#end-form').scrollIntoViewIfNeeded();
  await page.locator('#end-form').screenshot({ path: join(args.screenshots, 'umpire_end_result_1280x800.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.locator('#end-form').scrollIntoViewIfNeeded();
  await shoot('umpire_end_result_390x844');
  const narrow = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(narrow[0] <= narrow[1], `the umpire's page is ${narrow[0]} px wide in a ${narrow[1]} px window`);
  await page.check('#end-confirm');
  await page.click('#end-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'end', reason: 'loss on time', result: 'B' }]),
    'the loss on time is not sent as a win for B');
  await page.setViewportSize({ width: 1280, height: 800 });
  // A clock of another shape (§11.2 says flags is a list): no preset, no error.
  await show(umpireState({ turn: 5, clock: { flags: 'A' } }), 'umpire', 'umpire', 12);
  check(await page.locator('#end-presets').count() === 0, 'a clock whose flags are not a list offers a preset');
  await show(umpireState({ turn: 6, clock: null }), 'umpire', 'umpire', 13);
  check(await page.locator('#end-presets').count() === 0, 'a nil clock offers a preset');

  // Ended with a win for B: every page says so.
  const ended = village('ended', '', [], { end: { cause: 'umpire', reason: 'loss on time', result: 'B' } });
  for (const [seat, mode] of [['A', 'play'], ['B', 'play'], ['umpire', 'umpire'], ['A', 'watch']]) {
    await show(ended, seat, mode);
    const panel = await page.evaluate(() => ({
      title: document.getElementById('end-title').textContent,
      result: document.getElementById('end-result') && document.getElementById('end-result').textContent,
      won: [...document.querySelectorAll('#end-summary tbody tr.winner')].map((row) => row.dataset.side),
    }));
    check(JSON.stringify(panel) === JSON.stringify({ title: 'The battle has ended: loss on time',
      result: 'Result: a win for side B (British)', won: ['B'] }), `${seat} (${mode}): the end panel ${JSON.stringify(panel)}`);
  }
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('view_ended_result_1280x800');
  await shoot('view_ended_result_390x844', { width: 390, height: 844 });
  await page.setViewportSize({ width: 1280, height: 800 });
  await show(village('ended', '', [], { end: { cause: 'umpire', reason: 'agreed', result: 'draw' } }), 'B');
  check((await page.textContent('#end-result')) === 'Result: a draw' && await page.locator('#end-summary tr.winner').count() === 0,
    `a draw's end panel: "${await page.textContent('#end-result')}"`);
  await show(village('ended', '', [], { end: { cause: 'umpire', reason: 'time is up' } }), 'B');
  check(await page.locator('#end-result').count() === 0, 'an end without a result shows one');
}

// ------------------------------------------------- focus, the log's end

// At each step of the player's turn focus lands on its main action (Done,
// or the step's first control): Done is at most 2 Tabs away. The log keeps
// its newest entry in view for a reader at its end, and offers "New
// entries ↓" to one who scrolled away, in its box (1280) and fixed at the
// window's bottom (390, where the page scrolls).
async function focusAndLog(page, show, shoot, sent) {
  await page.setViewportSize({ width: 1280, height: 800 });
  const focused = () => page.evaluate(() => document.activeElement && document.activeElement.id);
  const doneWithin = async (tabs) => {
    for (let pressed = 0; pressed <= tabs; pressed += 1) {
      if (await focused() === 'act-done') return true;
      await page.keyboard.press('Tab');
    }
    return false;
  };
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await show(village('initiative', 'choose', ['B']));
  await show(village('initiative', 'choose', ['A']));
  const chooser = await focused();
  check(chooser === 'act-initiative-A', `the initiative step's first control is not focused: "${chooser}"`);
  for (const [phase, step] of [['charge', 'declare'], ['movement', 'move'], ['fire', 'fire'],
    ['mandatory_moves', 'report'], ['movement', 'report'], ['fire', 'report'], ['morale', 'report']]) {
    await page.evaluate(() => document.activeElement && document.activeElement.blur());
    await show(village(phase, step, ['A']));
    const at = await focused();
    check(await doneWithin(2), `${phase}/${step}: Done is not within 2 Tabs of the focus (it starts on "${at}")`);
  }
  // Declarations with nothing declared while units may charge: an Enter
  // on the focused Done does not end them; it asks, and a second press
  // (not a held key's repeat) ends them.
  await sent();
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await show(village('charge', 'declare', ['A']));
  check(await focused() === 'act-done' && (await page.textContent('#act-done')) === 'Done: no charges this turn',
    `the declarations' Done: focus on "${await focused()}"`);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter'); // at once: a repeat, not an answer
  check((await sent()).length === 0, 'an Enter on Done ended the declarations with no charge declared');
  const asked = await page.textContent('#done-confirm');
  check(await page.isVisible('#done-confirm') && asked.includes('No charge is declared, and 2 units of yours may charge') &&
    (await page.textContent('#act-done')) === 'Yes: no charges this turn' && await focused() === 'act-done',
  `the declarations' Done does not ask: "${asked}"`);
  await shoot('controls_declare_confirm_done_390x844', { width: 390, height: 844 });
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.waitForTimeout(450);
  await page.keyboard.press('Enter');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'done' }]), 'the confirmed Done is not sent');
  // A charge declared: Done ends the declarations at once.
  await show(village('charge', 'declare', ['A'], {
    charges: [{ unit: 'chasseurs', target: 'square', facing: 'front', leading: false, sappers: false, reinforce: true, response: null, morale: null }],
  }));
  await page.click('#act-done');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'done' }]) && await page.locator('#done-confirm').count() === 0,
    'Done asks for a confirmation after a charge is declared');

  // Not awaited: the focus is left alone.
  await page.focus('#log-scroll');
  await show(village('movement', 'move', ['B']));
  check(await focused() === 'log-scroll', 'focus taken on a step the player is not awaited in');

  const notes = (count, from = 0) => Array.from({ length: count }, (_, i) => ({
    seq: from + i + 1, turn: 2, phase: 'movement', kind: 'note', text: `entry ${from + i + 1}: the battalion moves 6 inches`,
  }));
  const withLog = (count) => village('movement', 'move', ['B'], { log: notes(count) });
  const update = (state) => page.evaluate((s) => { window.log.update(s); return new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); }, state);
  const boxEnd = () => page.evaluate(() => {
    const box = document.getElementById('log-scroll');
    return box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
  });
  await show(withLog(60), 'B');
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  check(await boxEnd(), 'at 1280 the log does not open at its end');
  await update(withLog(61));
  check(await boxEnd() && await page.isHidden('#log-new'), 'at its end the log does not keep the newest entry in view');
  await page.evaluate(() => { document.getElementById('log-scroll').scrollTop = 0; });
  await page.waitForTimeout(50);
  await update(withLog(62));
  check(await page.isVisible('#log-new'), 'scrolled away from its end, the log does not offer "New entries"');
  const wide = await page.evaluate(() => {
    const rect = document.getElementById('log-new').getBoundingClientRect();
    const column = document.querySelector('.log').getBoundingClientRect();
    return rect.bottom <= window.innerHeight && rect.top >= 0 && rect.left >= column.left && rect.right <= column.right;
  });
  check(wide, 'at 1280 "New entries" is not in the window, over the log');
  check(!(await boxEnd()), 'the log jumped to its end under a reader of older entries');
  await shoot('log_new_entries_1280x800');
  await page.click('#log-new');
  check(await boxEnd() && await page.isHidden('#log-new'), '"New entries" does not go to the log\'s end');

  // A phone: the page scrolls, the log is at its bottom.
  await page.setViewportSize({ width: 390, height: 844 });
  await show(withLog(40), 'B');
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(50);
  await update(withLog(41));
  const button = await page.evaluate(() => {
    const rect = document.getElementById('log-new').getBoundingClientRect();
    return { top: rect.top, bottom: rect.bottom, height: rect.height, position: getComputedStyle(document.getElementById('log-new')).position };
  });
  check(button.position === 'fixed' && button.height > 0 && button.top >= 0 && button.bottom <= 844,
    `at 390 "New entries" is not in view at the window's bottom: ${JSON.stringify(button)}`);
  await shoot('log_new_entries_390x844');
  await page.click('#log-new');
  await page.waitForTimeout(100);
  const last = await page.evaluate(() => {
    const rect = document.querySelector('#log > li:last-child').getBoundingClientRect();
    return rect.bottom <= window.innerHeight + 1 && rect.bottom > 0;
  });
  check(last && await page.isHidden('#log-new'), 'at 390 "New entries" does not show the newest entry');
  await update(withLog(42));
  check(await page.isHidden('#log-new'), 'at 390, at the log\'s end, a new entry still offers "New entries"');
  // At 390, "New entries" never covers the orders' Done: at the window's
  // bottom it moves to the top (or out of the way) while Done is there.
  const phone = village('movement', 'report', ['A', 'B'], { log: notes(40) });
  await show(phone, 'A');
  for (const position of ['bottom', 'top']) {
    await page.evaluate((where) => {
      const done = document.getElementById('act-done');
      const box = done.getBoundingClientRect();
      window.scrollBy(0, where === 'bottom' ? box.bottom - window.innerHeight + 8 : box.top - 8);
    }, position);
    await page.waitForTimeout(50);
    await update({ ...phone, log: notes(41 + (position === 'top' ? 1 : 0)) });
    const overlap = await page.evaluate(() => {
      const jump = document.getElementById('log-new');
      const shown = !jump.hidden && getComputedStyle(jump).display !== 'none';
      const a = jump.getBoundingClientRect();
      const b = document.getElementById('act-done').getBoundingClientRect();
      return { shown, covers: shown && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom,
        done: [Math.round(b.top), Math.round(b.bottom)], jump: [Math.round(a.top), Math.round(a.bottom)] };
    });
    check(!overlap.covers, `at 390 "New entries" covers Done (Done at the window's ${position}): ${JSON.stringify(overlap)}`);
    if (position === 'bottom') {
      check(overlap.shown, `at 390 "New entries" is not shown when Done is at the window's bottom: ${JSON.stringify(overlap)}`);
      await shoot('log_new_entries_over_done_390x844');
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

// --------------------------------------- the seat kept, reconnecting

// A joined game's link is kept in this browser (localStorage): the bare
// page lists it under "Your games" (never its token), a new tab rejoins
// from it, a bookmark of #game=ID joins, "Forget" takes it out. Dropped
// and refused a few times, the page counts down to its next attempt, and
// "Retry now" reconnects at once.
async function seatAndReconnect(browser, base, links, errors) {
  const token = new URL(links.A).hash.match(/token=([0-9a-f]+)/)[1];
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  const routes = [];
  let refuse = 0;
  let gate = Promise.resolve();
  await page.routeWebSocket(/.*/, async (route) => {
    routes.push(route);
    if (refuse > 0) { refuse -= 1; await route.close({ code: 1012, reason: 'the test refuses it' }); return; }
    await gate;
    route.connectToServer();
  });
  await page.goto(links.A);
  await page.waitForSelector('#connection[data-status="live"]', { timeout: 15000 });

  // Dropped, then refused three times: the fourth wait is 3 to 5 s.
  let open = null;
  refuse = 3;
  gate = new Promise((resolve) => { open = resolve; });
  await routes[0].close({ code: 1012, reason: 'the test drops the connection' });
  for (let waited = 0; routes.length < 4 && waited < 15000; waited += 100) await page.waitForTimeout(100);
  check(routes.length === 4, `the page tried ${routes.length - 1} times to reconnect, not 3`);
  await page.waitForFunction(() => /Reconnecting in [3-5] s/.test(document.getElementById('connection').textContent), null, { timeout: 15000 })
    .catch(async () => { throw new Failure(`no countdown: the page says "${await page.textContent('#connection')}"`); });
  const seconds = async () => Number((/in (\d+) s/.exec(await page.textContent('#connection')) || [])[1]);
  const first = await seconds();
  await page.waitForTimeout(1100);
  const then = await seconds();
  check(then === first - 1 || then === first - 2, `the countdown does not count: ${first} s, then ${then} s`);
  check(await page.isVisible('#retry-now'), 'no "Retry now" while waiting to reconnect');
  await page.screenshot({ path: join(args.screenshots, 'reconnect_countdown_1280x800.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(args.screenshots, 'reconnect_countdown_390x844.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  open();
  const pressed = Date.now();
  const attempts = routes.length;
  await page.click('#retry-now');
  await page.waitForSelector('#connection[data-status="live"]', { timeout: 15000 });
  check(Date.now() - pressed < 1500 && routes.length === attempts + 1,
    `"Retry now" did not reconnect at once (${Date.now() - pressed} ms, ${routes.length - attempts} connections)`);
  check(await page.isHidden('#retry-now'), '"Retry now" stays when live');

  // The bare page: Your games.
  await page.goto(base);
  await page.waitForSelector('#your-games:not([hidden])', { timeout: 15000 });
  const listed = await page.textContent('#your-games');
  check(listed.includes('side A') && listed.includes(links.game) && listed.includes('kept in this browser'),
    `"Your games" does not list the game with its seat, or say where its link is kept: "${listed}"`);
  const visible = await page.evaluate(() => document.body.innerText);
  const markup = await page.evaluate(() => document.body.outerHTML);
  check(!visible.includes(token) && !markup.includes(token), 'the seat token is in the page');
  await page.screenshot({ path: join(args.screenshots, 'your_games_1280x800.png') });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(args.screenshots, 'your_games_390x844.png') });
  await page.setViewportSize({ width: 1280, height: 800 });
  // A new tab (no sessionStorage) rejoins from the list; a bookmark of the game joins.
  const tab = await context.newPage();
  await tab.goto(base);
  await tab.click('#your-games-list .rejoin');
  await tab.waitForSelector('#connection[data-status="live"]', { timeout: 15000 });
  check((await tab.textContent('#seat-badge')) === 'Side A' && !tab.url().includes(token), 'the rejoined tab is not side A, or shows the token');
  const bookmark = await context.newPage();
  await bookmark.goto(`${base}#game=${encodeURIComponent(links.game)}`);
  await bookmark.waitForSelector('#connection[data-status="live"]', { timeout: 15000 });
  check((await bookmark.textContent('#seat-badge')) === 'Side A', 'a bookmark of the game does not join as side A');
  await tab.close();
  await bookmark.close();
  await page.click('#your-games-list .forget');
  check(await page.isHidden('#your-games'), '"Forget" leaves the game listed');
  const kept = await page.evaluate(() => JSON.stringify(window.localStorage));
  check(!kept.includes(token), 'a forgotten game\'s token is still in localStorage');
  await context.close();
}

run('browser_controls', args, async ({ browser, base }) => {
  mkdirSync(args.screenshots, { recursive: true });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(base);
  await page.waitForSelector('#start', { state: 'visible' });
  // The page's icon is favicon.svg; /favicon.ico, which browsers ask for
  // by themselves, is that SVG too (server/net.c), not a 404.
  const icon = await page.evaluate(() => [...document.querySelectorAll('link[rel~="icon"]')].map((link) => link.getAttribute('href')));
  check(JSON.stringify(icon) === '["favicon.svg"]', `the page's icon: ${JSON.stringify(icon)}`);
  for (const path of ['favicon.svg', 'favicon.ico', 'favicon-move.svg']) {
    const answer = await page.request.get(`${base}${path}`);
    const body = await answer.text();
    check(answer.status() === 200 && answer.headers()['content-type'] === 'image/svg+xml' && body.startsWith('<svg'),
      `/${path}: HTTP ${answer.status()}, ${answer.headers()['content-type']}, "${body.slice(0, 30)}"`);
  }
  // The create page says what an umpire does: double sixes, generals at
  // risk, and with an umpire seated a contested report waits for the ruling (D46).
  await page.waitForSelector('#scenario-choices input[value="village.json"]');
  await page.check('#scenario-choices input[value="village.json"]');
  await page.click('#create-submit');
  await page.waitForSelector('#created', { state: 'visible' });
  const umpireHint = await page.textContent('.created-link.link-umpire .hint');
  check(umpireHint.includes('double sixes') && umpireHint.includes('a report a player contests'),
    `the umpire's link does not say a contested report waits for the umpire: "${umpireHint}"`);
  const links = { game: await page.textContent('#created-game'), A: await page.inputValue('#link-A') };
  await page.evaluate(async () => {
    const { Controls } = await import('/controls.js');
    const { renderForces, renderStatus } = await import('/view.js');
    const { LogView } = await import('/log.js');
    const { StrengthPlot } = await import('/plot.js');
    const { UmpirePanel } = await import('/umpire.js');
    document.getElementById('start').hidden = true;
    document.getElementById('battle').hidden = false;
    window.sent = [];
    window.answer = null;
    window.controls = new Controls(document.getElementById('controls'), {
      act: async (action) => { window.sent.push(action); return window.answer || { ok: true, seq: 1 }; },
    });
    window.umpire = new UmpirePanel(document.getElementById('umpire'), {
      act: async (action) => { window.sent.push(action); return window.answer || { ok: true, seq: 1 }; },
    });
    const log = new LogView(document.getElementById('log'), document.getElementById('log-scroll'),
      { onRollback: (seq) => window.umpire.pickRollback(seq) });
    const plot = new StrengthPlot(document.getElementById('plot'));
    window.log = log;
    window.show = (state, seat, mode, seq = null) => {
      document.getElementById('battle').dataset.mode = mode;
      renderStatus(document.getElementById('status'), state, { seat, mode });
      renderForces(document.getElementById('forces'), state, { seat: mode === 'play' ? seat : null });
      window.controls.update(state, { seat, mode });
      window.umpire.update(state, { mode, seq });
      log.umpire = mode === 'umpire';
      log.seq = seq;
      log.reset(state);
      plot.reset(state);
    };
  });
  const show = (state, seat = 'A', mode = 'play', seq = null) =>
    page.evaluate(([s, who, how, at]) => window.show(s, who, how, at), [state, seat, mode, seq]);
  const sent = () => page.evaluate(() => window.sent.splice(0));
  const shoot = async (name, size) => {
    if (size) await page.setViewportSize(size);
    await page.screenshot({ path: join(args.screenshots, `${name}.png`) });
  };

  // Read-only: no orders at all.
  await show(village('charge', 'declare', ['A']), 'A', 'watch');
  check(await page.isHidden('#controls'), 'watch mode shows the orders panel');

  // Not awaited: nothing to press.
  await show(village('initiative', 'choose', ['B']));
  check(await page.locator('#controls-body button').count() === 0, 'buttons for a seat that is not awaited');
  check((await page.textContent('#controls-body')).includes('Waiting for side B (British)'), 'no word of whom the game waits for');

  // The initiative winner chooses.
  await show(village('initiative', 'choose', ['A']));
  await page.click('#act-initiative-B');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'choose_initiative', phasing: 'B' }]), 'initiative choice');

  // Charges: only the units that may charge are offered (turn.md §Charge 1,
  // D26, core/battle.c charge_check): not retreating or unformed (pursuing
  // cavalry excepted), not in melee, not declared already, not a battery.
  const mayNot = village('charge', 'declare', ['A'], {
    charges: [{ unit: 'grenadiers', target: 'dragoons', facing: 'front', leading: false, sappers: false, reinforce: false, response: null, morale: null }],
  });
  Object.assign(mayNot.units, {
    hussards: unit('A', '5e Hussards', 'light_cavalry', { formed: false, status: 'retreating', figures: 7 }),
    lanciers: unit('A', '2e Lanciers', 'lancers', { formed: false, status: 'pursuing', figures: 10 }),
    voltigeurs: unit('A', 'Voltigeurs', 'infantry', { formed: false }),
    grenadiers: unit('A', 'Grenadiers', 'infantry'),
  });
  await show(mayNot);
  const chargers = await page.$$eval('#charge-unit option', (list) => list.map((o) => o.value));
  check(JSON.stringify(chargers) === JSON.stringify(['ligne_1', 'chasseurs']),
    `the units offered to charge: ${chargers} (not the retreating hussars, the unformed voltigeurs, ligne_2 in melee, the grenadiers declared, the battery, the pursuing lanciers: 12.24 f)`);
  await page.selectOption('#charge-unit', 'chasseurs');
  const cavalryTargets = await page.$$eval('#charge-target option', (list) => list.map((o) => o.value));
  check(!cavalryTargets.includes('village') && cavalryTargets.includes('square'), `cavalry offered a built-up area (12.11): ${cavalryTargets}`);
  await page.selectOption('#charge-unit', 'ligne_1');
  await page.selectOption('#charge-target', 'dragoons');
  check(await page.isHidden('#charge-sappers'), 'sappers offered against a unit that defends no fortified position (12.10)');
  await page.selectOption('#charge-target', 'village');
  check(await page.isVisible('#charge-sappers'), 'sappers not offered against the fortified village');
  await shoot('controls_declare_offered_1280x800');

  // Charges: the boxes follow the unit and the target.
  await show(village('charge', 'declare', ['A']));
  const shown = async () => Object.fromEntries(await Promise.all(['leading', 'sappers', 'reinforce'].map(
    async (box) => [box, await page.isVisible(`#charge-${box}`)])));
  await page.selectOption('#charge-unit', 'chasseurs');
  await page.selectOption('#charge-target', 'square');
  let boxes = await shown();
  check(!boxes.leading && !boxes.sappers && boxes.reinforce,
    `chasseurs (regimental officer) on the square (in melee T1.M1): ${JSON.stringify(boxes)}`);
  check((await page.textContent('label[for="charge-reinforce"]')).includes('T1.M1'), 'the melee to reinforce is not named');
  // A charge on a unit in melee reinforces it (12.8): the box is ticked and stays so.
  check(await page.isChecked('#charge-reinforce') && await page.isDisabled('#charge-reinforce'), 'a charge on a unit in melee may be sent without reinforce');
  await page.click('#charge-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'declare_charge', unit: 'chasseurs', target: 'square', facing: 'front', reinforce: true }]),
    'the reinforcing charge');
  await page.selectOption('#charge-unit', 'ligne_1');
  await page.selectOption('#charge-target', 'village');
  boxes = await shown();
  check(boxes.leading && boxes.sappers && !boxes.reinforce, `ligne_1 (brigadier, sappers) on the village: ${JSON.stringify(boxes)}`);
  await page.check('#charge-leading');
  await page.check('#charge-sappers');
  await page.selectOption('#charge-facing', 'flank');
  await shoot('controls_declare_1280x800');
  await page.click('#charge-submit');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'declare_charge', unit: 'ligne_1', target: 'village',
    facing: 'flank', leading: true, sappers: true }]), 'the declared charge');

  // What a player is typing survives an update of the state.
  await show(village('movement', 'report', ['A', 'B']));
  await page.selectOption('#adjust-unit', 'battery');
  await page.fill('#adjust-note', 'half typed');
  await page.focus('#adjust-note');
  const moved = village('movement', 'report', ['A', 'B']);
  moved.units.dragoons.figures = 7;
  await page.evaluate((s) => window.controls.update(s, { seat: 'A', mode: 'play' }), moved);
  check(await page.inputValue('#adjust-note') === 'half typed' && await page.inputValue('#adjust-unit') === 'battery',
    'the adjustment being typed was lost on an update');
  check(await page.evaluate(() => document.activeElement.id) === 'adjust-note', 'the focus was lost on an update');
  const statuses = (id) => page.evaluate(async (unitId) => {
    const select = document.getElementById('adjust-unit');
    select.value = unitId;
    select.dispatchEvent(new Event('change'));
    return [...document.getElementById('adjust-status').options].map((option) => option.value).filter(Boolean);
  }, id);
  check(!(await statuses('ligne_1')).some((s) => ['pursuing', 'blown', 'dispersed'].includes(s)), 'infantry offered a cavalry or artillery status');
  check((await statuses('chasseurs')).includes('blown'), 'cavalry not offered blown');
  check((await statuses('battery')).includes('dispersed'), 'artillery not offered dispersed');
  await page.selectOption('#adjust-unit', 'ligne_1');
  await page.fill('#adjust-note', '');
  await page.click('#adjust-submit');
  check((await page.textContent('#controls-error')).includes('figures'), 'an empty adjustment is not explained');
  check((await sent()).length === 0, 'an empty adjustment was sent');
  await page.fill('#adjust-figures', '18');
  await page.fill('#adjust-note', 'two figures lost to skirmishers');
  await page.press('#adjust-note', 'Enter');
  await page.waitForFunction(() => window.sent.length === 1);
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'adjust', unit: 'ligne_1', note: 'two figures lost to skirmishers', figures: 18 }]),
    'the adjustment');
  check(await page.inputValue('#adjust-note') === '', 'the form is not cleared after an accepted adjustment');
  await page.evaluate(() => { window.answer = { ok: false, code: 'wrong_phase', message: 'done has no place in phase charge' }; });
  await page.click('#act-done');
  const refusal = await page.textContent('#controls-error');
  check(refusal.includes('wrong_phase') && refusal.includes('done has no place') && refusal.includes('not allowed in this phase'),
    `the refusal in words: "${refusal}"`);
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'done' }]), 'done');
  await page.evaluate(() => { window.answer = null; });

  // Offline (app.js sets body.offline while not live): the orders are greyed and say why.
  await page.evaluate(() => document.body.classList.add('offline'));
  check(await page.isVisible('#controls .offline-note') &&
    await page.$eval('#act-done', (button) => getComputedStyle(button).pointerEvents === 'none'),
  'offline: the orders are not greyed, or do not say why');
  await shoot('controls_offline_1280x800');
  await page.evaluate(() => document.body.classList.remove('offline'));
  check(await page.isHidden('#controls .offline-note'), 'live: the orders still say they are offline');

  // Answers: an unformed unit is not offered the counter-charge (D26), nor
  // the defenders of a built-up area against a charger outside it (12.9).
  const charged = village('charge', 'respond', ['B'], {
    charges: [
      { unit: 'ligne_1', target: 'village', facing: 'front', leading: true, sappers: true, reinforce: false, response: null, morale: null },
      { unit: 'chasseurs', target: 'dragoons', facing: 'flank', leading: false, sappers: false, reinforce: false, response: null, morale: null },
      { unit: 'grenadiers', target: 'rifles', facing: 'front', leading: false, sappers: false, reinforce: false, response: null, morale: null },
      // The square is charged but charges itself: it answers nothing (it
      // tests as a charger), so it is offered no answer.
      { unit: 'voltigeurs', target: 'square', facing: 'front', leading: false, sappers: false, reinforce: false, response: null, morale: null },
      { unit: 'square', target: 'grenadiers', facing: 'front', leading: false, sappers: false, reinforce: false, response: null, morale: null },
    ],
  });
  Object.assign(charged.units, {
    grenadiers: unit('A', 'Grenadiers', 'infantry'),
    voltigeurs: unit('A', 'Voltigeurs', 'infantry'),
    rifles: unit('B', '2/95th Foot', 'infantry', { formation: 'line' }),
  });
  await show(charged, 'A');
  check(await page.locator('.respond').count() === 0, 'A is offered B\'s answers');
  await show(charged, 'B');
  check(await page.isVisible('#respond-village-stand') && await page.locator('#respond-village-countercharge').count() === 0 &&
    (await page.textContent('.respond[data-unit="village"]')).includes('defends the built-up area'),
  'the village cannot stand, or is offered a counter-charge out of its built-up area (12.9)');
  check(await page.locator('#respond-dragoons-countercharge').count() === 0 && await page.isVisible('#respond-dragoons-stand'),
    'unformed dragoons offered the counter-charge');
  check(await page.isVisible('#respond-rifles-countercharge'), 'formed infantry in the open is not offered the counter-charge');
  check(await page.locator('.respond[data-unit="square"]').count() === 0, 'a charged unit that charges itself is asked to answer');
  await shoot('controls_respond_375x812', { width: 375, height: 812 });
  await page.click('#respond-rifles-countercharge');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'respond', unit: 'rifles', response: 'countercharge' }]), 'the answer');

  // The sappers' re-roll shows the dice and offers die 0, die 1 or neither.
  await page.setViewportSize({ width: 1280, height: 800 });
  const reroll = village('melee', 'reroll', ['A'], {
    log: rerollLog,
    melees: [{ id: 'T1.M1', units: ['ligne_2', 'square'], round: 2, terrain: 'open' },
      { id: 'T2.M2', units: ['ligne_1', 'village'], round: 1, terrain: 'bua' }],
  });
  await show(reroll, 'A');
  const offer = await page.textContent('.reroll');
  check(offer.includes('the 2') && offer.includes('the 5') && offer.includes('Keep both'), `the re-roll offer: "${offer}"`);
  check(await page.locator('.reroll').count() === 1, 'units without sappers offered a re-roll');
  await shoot('controls_reroll_1280x800');
  await page.click('#reroll-ligne_1-0');
  await page.click('#reroll-ligne_1-decline');
  check(JSON.stringify(await sent()) === JSON.stringify([
    { kind: 'sappers_reroll', unit: 'ligne_1', die: 0 }, { kind: 'sappers_reroll', unit: 'ligne_1', die: -1 }]), 'the re-roll choices');

  // The melee as fought: the re-rolled die is told, the rolls are not repeated.
  await show(village('morale', 'report', ['A', 'B'], { log: foughtLog }), 'B', 'watch');
  const block = await page.textContent('.melee-block');
  check(block.includes('re-rolled by the sappers from 2+5') && block.includes('fortified') && block.includes('12.9') &&
    block.includes('Side A (French) wins'), `the melee block: "${block}"`);
  check(await page.locator('#log .roll').count() === 0, 'rolls shown again beside the melee that shows them');
  // The plot: the unfinished turn's point is "now", and the caption says so.
  const plotNow = await page.evaluate(() => ({
    tick: document.querySelector('#plot text.tick.now') && document.querySelector('#plot text.tick.now').textContent,
    hollow: document.querySelectorAll('#plot circle.now').length,
    caption: document.querySelector('#plot .axis').textContent,
  }));
  check(plotNow.tick === 'now (2)' && plotNow.hollow === 2 && plotNow.caption.includes('turn 2 is not over'),
    `the plot does not mark turn 2 as unfinished: ${JSON.stringify(plotNow)}`);
  await page.locator('.plot-panel').screenshot({ path: join(args.screenshots, 'view_plot_now.png') });
  await page.evaluate(() => document.querySelector('.melee-block').scrollIntoView({ block: 'center' }));
  await shoot('view_village_1280x800');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('view_village_375x812', { width: 375, height: 812 });
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `the page is ${widths[0]} px wide in a ${widths[1]} px window`);

  await umpirePanel(page, show, sent, shoot);
  await reportsPanel(page, show, sent, shoot);
  await focusAndLog(page, show, shoot, sent);
  await heldWithdrawnEnded(page, show, sent, shoot);
  await umpireEnd(page, show, sent, shoot);
  check(errors.length === 0, `errors in the page: ${errors.join('; ')}`);
  await seatAndReconnect(browser, base, links, errors);
  check(errors.length === 0, `errors in the page: ${errors.join('; ')}`);
  return [];
}, 90000);
