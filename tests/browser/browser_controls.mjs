#!/usr/bin/env node
// tests/browser/browser_controls.mjs: the page's orders panel and view on
// made-up states, in Chromium (the page's own modules, served by brigaded),
// for the cases a played example A never reaches: a general who may or may
// not lead, sappers, reinforcing a melee in contact, an unformed unit that
// may not counter-charge, the sappers' re-roll with its dice, statuses
// offered by arm, the read-only view, a refusal in words, and what a player
// was typing surviving an update. Screenshots go to --screenshots.
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { check, options, run } from './support.mjs';

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
      square: unit('B', '1/52nd Foot', 'infantry', { formation: 'square', move: 'pushed back: fall back 12" (D21)' }),
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

run('browser_controls', args, async ({ browser, base }) => {
  mkdirSync(args.screenshots, { recursive: true });
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(base);
  await page.waitForSelector('#start', { state: 'visible' });
  await page.evaluate(async () => {
    const { Controls } = await import('/controls.js');
    const { renderForces, renderStatus } = await import('/view.js');
    const { LogView } = await import('/log.js');
    const { StrengthPlot } = await import('/plot.js');
    document.getElementById('start').hidden = true;
    document.getElementById('battle').hidden = false;
    window.sent = [];
    window.answer = null;
    window.controls = new Controls(document.getElementById('controls'), {
      act: async (action) => { window.sent.push(action); return window.answer || { ok: true, seq: 1 }; },
    });
    const log = new LogView(document.getElementById('log'), document.getElementById('log-scroll'));
    const plot = new StrengthPlot(document.getElementById('plot'));
    window.show = (state, seat, mode) => {
      renderStatus(document.getElementById('status'), state, { seat, mode });
      renderForces(document.getElementById('forces'), state, { seat: mode === 'play' ? seat : null });
      window.controls.update(state, { seat, mode });
      log.reset(state);
      plot.reset(state);
    };
  });
  const show = (state, seat = 'A', mode = 'play') =>
    page.evaluate(([s, who, how]) => window.show(s, who, how), [state, seat, mode]);
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

  // Answers: an unformed unit is not offered the counter-charge (D26).
  const charged = village('charge', 'respond', ['B'], {
    charges: [
      { unit: 'ligne_1', target: 'village', facing: 'front', leading: true, sappers: true, reinforce: false, response: null, morale: null },
      { unit: 'chasseurs', target: 'dragoons', facing: 'flank', leading: false, sappers: false, reinforce: false, response: null, morale: null },
    ],
  });
  await show(charged, 'A');
  check(await page.locator('.respond').count() === 0, 'A is offered B\'s answers');
  await show(charged, 'B');
  check(await page.isVisible('#respond-village-countercharge') && await page.isVisible('#respond-village-stand'), 'the village cannot answer');
  check(await page.locator('#respond-dragoons-countercharge').count() === 0 && await page.isVisible('#respond-dragoons-stand'),
    'unformed dragoons offered the counter-charge');
  await shoot('controls_respond_375x812', { width: 375, height: 812 });
  await page.click('#respond-village-countercharge');
  check(JSON.stringify(await sent()) === JSON.stringify([{ kind: 'respond', unit: 'village', response: 'countercharge' }]), 'the answer');

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
  await page.evaluate(() => document.querySelector('.melee-block').scrollIntoView({ block: 'center' }));
  await shoot('view_village_1280x800');
  await page.evaluate(() => window.scrollTo(0, 0));
  await shoot('view_village_375x812', { width: 375, height: 812 });
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `the page is ${widths[0]} px wide in a ${widths[1]} px window`);
  check(errors.length === 0, `errors in the page: ${errors.join('; ')}`);
  return [];
}, 90000);
