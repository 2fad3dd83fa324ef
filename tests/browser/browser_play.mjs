#!/usr/bin/env node
// tests/browser/browser_play.mjs: the browser client end to end. Starts the
// real brigaded (ephemeral loopback port, temporary --data, --web the
// source tree's client-web/) and Debian's Chromium through playwright-core
// (no browser is downloaded), then:
//
//   - a first page creates a game from scenarios/example_a.json (file input)
//     and reads the two join links (#game=…&token=…, no query string);
//   - side A (1280x800) and side B (375x812) join by their links and play
//     turns through the page's controls only, deciding from what the page
//     shows (who won the initiative, whose action is awaited), as
//     tests/e2e/e2e_turn.py does: the hussars charge, the dragoons
//     counter-charge, until a melee is fought with dice (the morale dice
//     may deny it: then the turn is played out and the units rallied);
//   - a third page watches read-only (side A's link with &watch=1, until
//     the protocol has a spectator seat): no controls; its connection is
//     dropped once and it must reconnect by itself and catch up;
//   - checks: refusals shown with code and message, controls only where
//     allowed, keyboard order, no horizontal scrolling, the melee block with
//     dice, modifiers and rules, the same melee result, figures and snapshot
//     hash on all three pages and on the server (`brigade state --json`);
//   - screenshots at 1280x800 and 375x812 in --screenshots.
//
// Prints "1 passed, 0 failed" or the failure and "0 passed, 1 failed".
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { check, Failure, options, run } from './support.mjs';

const args = options(['brigaded', 'brigade', 'web', 'scenario', 'screenshots']);

const MAX_TURNS = 12;
const STEP_MS = 20000;
const WHOLE_MS = 200000; // below ctest's TIMEOUT, so that cleanup runs
const DESK = { width: 1280, height: 800 };
const PHONE = { width: 375, height: 812 };
const OTHER = { A: 'B', B: 'A' };

async function serverState(port, game, token) {
  const { stdout } = await promisify(execFile)(args.brigade, ['state', '--json', '--server',
    `ws://127.0.0.1:${port}`, '--game', game, '--token', token], { timeout: 20000 });
  return JSON.parse(stdout);
}

// ------------------------------------------------------------ the pages

async function statusOf(page) {
  return page.evaluate(() => ({ ...document.getElementById('status').dataset }));
}

// Waits until the page's status line shows `want` ({turn, phase, step, awaiting}).
async function waitStatus(page, want, label) {
  try {
    await page.waitForFunction((wanted) => {
      const status = document.getElementById('status');
      if (!status || !status.dataset.phase) return false;
      return Object.entries(wanted).every(([key, value]) => status.dataset[key] === String(value));
    }, want, { timeout: STEP_MS });
  } catch {
    throw new Failure(`${label}: the page never showed ${JSON.stringify(want)}; it shows ${JSON.stringify(await statusOf(page))}`);
  }
}

async function waitLive(page, label) {
  try {
    await page.waitForSelector('#connection[data-status="live"]', { timeout: STEP_MS });
  } catch {
    throw new Failure(`${label}: never live; the page says "${await page.textContent('#connection')}"`);
  }
}

// Clicks a control (or presses Enter on it) and waits for the server's answer.
async function act(page, selector, label, { keyboard = false } = {}) {
  try {
    await page.waitForSelector(selector, { state: 'visible', timeout: STEP_MS });
  } catch {
    throw new Failure(`${label}: no ${selector} on the page; its orders say: ${await page.textContent('#controls')}`);
  }
  if (keyboard) {
    await page.focus(selector);
    await page.keyboard.press('Enter');
  } else {
    await page.click(selector);
  }
  await page.waitForSelector('#controls-busy', { state: 'hidden', timeout: STEP_MS });
  const error = await page.$('#controls-error:not([hidden])');
  if (error) throw new Failure(`${label}: ${selector} was refused: ${await error.textContent()}`);
}

async function unitsOn(page) {
  return page.$$eval('.unit', (cards) => Object.fromEntries(cards.map((card) => [card.dataset.unit, {
    figures: Number(card.querySelector('.count').dataset.figures),
    status: [...card.classList].find((name) => name.startsWith('status-')).slice(7),
    formed: card.querySelector('.chips').textContent.includes('unformed') ? false : true,
  }])));
}

async function noHorizontalScroll(page, label) {
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `${label}: the page is ${widths[0]} px wide in a ${widths[1]} px window`);
}

async function shoot(page, name, size) {
  if (size) await page.setViewportSize(size);
  await page.screenshot({ path: join(args.screenshots, `${name}.png`) });
}

async function syncOf(page) {
  await page.waitForFunction(() => document.getElementById('sync').dataset.hash, null, { timeout: STEP_MS });
  return page.evaluate(() => ({ ...document.getElementById('sync').dataset }));
}

// The melee blocks of a turn as the page shows them.
async function meleesOn(page, turn) {
  return page.$$eval(`#log .melee-block[data-turn="${turn}"]`, (blocks) => blocks.map((block) => ({
    melee: block.dataset.melee,
    winner: block.querySelector('.verdict').dataset.winner || '',
    result: block.querySelector('.verdict').dataset.result || '',
    verdict: block.querySelector('.verdict').textContent,
    units: [...block.querySelectorAll('.melee-unit')].map((unit) => ({
      unit: unit.dataset.unit,
      dice: unit.querySelectorAll(':scope > .calc .die').length,
      rules: [...unit.querySelectorAll(':scope > .calc .rule')].map((rule) => rule.textContent),
      text: unit.textContent,
    })),
  })));
}

// ------------------------------------------------------------- the game

async function rally(page, seat, strength, label) {
  const units = await unitsOn(page);
  for (const [id, unit] of Object.entries(units)) {
    if (!strength[id] || strength[id].side !== seat) continue;
    if (unit.status === 'normal' && unit.formed && unit.figures >= strength[id].figures) continue;
    if (unit.status === 'removed' || unit.status === 'dispersed') continue;
    await page.selectOption('#adjust-unit', id);
    await page.fill('#adjust-figures', String(Math.max(unit.figures, strength[id].figures)));
    await page.selectOption('#adjust-formed', 'yes');
    if (unit.status !== 'normal') await page.selectOption('#adjust-status', 'normal');
    await page.fill('#adjust-note', 'rallied and reformed behind the lines (browser test)');
    // Enter in the note submits the form (keyboard use).
    await act(page, '#adjust-note', `${label}: rally ${id}`, { keyboard: true });
    await page.waitForFunction(([unitId, figures]) => {
      const card = document.querySelector(`.unit[data-unit="${unitId}"]`);
      return card && card.classList.contains('status-normal') &&
        Number(card.querySelector('.count').dataset.figures) >= figures &&
        !card.querySelector('.chips').textContent.includes('unformed');
    }, [id, strength[id].figures], { timeout: STEP_MS });
  }
}

async function play(browser, server, base) {
  mkdirSync(args.screenshots, { recursive: true });

  // --- create the game from the start page
  const creator = await (await browser.newContext({ viewport: DESK })).newPage();
  await creator.goto(base);
  await creator.waitForSelector('#start', { state: 'visible' });
  await creator.setInputFiles('#scenario-file', args.scenario);
  await creator.press('#scenario-text', 'Tab'); // keyboard: the create button follows the text area
  check(await creator.evaluate(() => document.activeElement.id) === 'create-submit',
    'the tab order does not lead from the scenario to the create button');
  await creator.keyboard.press('Enter');
  await creator.waitForSelector('#created', { state: 'visible', timeout: STEP_MS });
  const links = { A: await creator.inputValue('#link-A'), B: await creator.inputValue('#link-B') };
  for (const [seat, link] of Object.entries(links)) {
    check(link.startsWith(`${base}#game=`) && !link.includes('?') && link.includes('&token='),
      `side ${seat}'s join link is not ${base}#game=…&token=…: ${link}`);
  }
  const game = new URL(links.A).hash.match(/game=([^&]+)/)[1];
  const tokens = { A: new URL(links.A).hash.match(/token=([^&]+)/)[1], B: new URL(links.B).hash.match(/token=([^&]+)/)[1] };
  await noHorizontalScroll(creator, 'create page');
  await shoot(creator, 'create_1280x800');
  await shoot(creator, 'create_375x812', PHONE);

  // --- the three viewers
  const pages = {
    A: await (await browser.newContext({ viewport: DESK })).newPage(),
    B: await (await browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true })).newPage(),
  };
  const watchContext = await browser.newContext({ viewport: DESK });
  const watch = await watchContext.newPage();
  // The watcher's websocket goes through a route, so that the test can drop it.
  const routes = [];
  await watch.routeWebSocket(/.*/, (route) => { route.connectToServer(); routes.push(route); });
  await pages.A.goto(links.A);
  await pages.B.goto(links.B);
  await watch.goto(`${links.A}&watch=1`);
  for (const [label, page] of [['A', pages.A], ['B', pages.B], ['watch', watch]]) {
    await waitLive(page, label);
    check(!page.url().includes(tokens.A) && !page.url().includes(tokens.B),
      `${label}: the token stays in the address bar: ${page.url()}`);
  }
  check(await watch.isHidden('#controls'), 'the read-only view shows the orders panel');
  check(await watch.locator('#battle button:visible').count() === 0, 'the read-only view shows buttons');
  check((await watch.textContent('#status-seat')).includes('watching'), 'the read-only view does not say it is watching');

  const strength = Object.fromEntries(Object.entries(await unitsOn(pages.A)).map(([id, unit]) => [id, unit]));
  const sideOf = await pages.A.$$eval('.unit', (cards) => Object.fromEntries(cards.map((card) =>
    [card.dataset.unit, card.classList.contains('side-A') ? 'A' : 'B'])));
  for (const id of Object.keys(strength)) strength[id].side = sideOf[id];

  let fought = null;
  let refusalChecked = false;
  let dropped = false;
  for (let turn = 1; turn <= MAX_TURNS && !fought; turn += 1) {
    const label = `turn ${turn}`;
    for (const seat of ['A', 'B']) await waitStatus(pages[seat], { turn, phase: 'initiative', step: 'choose' }, `${label} ${seat}`);
    const winner = (await statusOf(pages.A)).awaiting;
    check(winner === 'A' || winner === 'B', `${label}: the initiative awaits "${winner}"`);
    // Only the winner is offered the choice.
    check(await pages[OTHER[winner]].locator('#act-initiative-A').count() === 0,
      `${label}: the initiative loser is offered the choice`);
    await act(pages[winner], '#act-initiative-A', `${label} ${winner} chooses`, { keyboard: winner === 'B' });

    for (const seat of ['A', 'B']) await waitStatus(pages[seat], { turn, phase: 'mandatory_moves' }, `${label} ${seat}`);
    for (const seat of ['A', 'B']) await rally(pages[seat], seat, strength, `${label} ${seat}`);
    for (const seat of ['A', 'B']) await act(pages[seat], '#act-done', `${label} ${seat} done with mandatory moves`);

    await waitStatus(pages.A, { turn, phase: 'charge', step: 'declare', awaiting: 'A' }, `${label} A`);
    check(await pages.B.locator('#charge-form').count() === 0, `${label}: B may declare while A is awaited`);
    await pages.A.selectOption('#charge-unit', 'hussars');
    await pages.A.selectOption('#charge-target', 'dragoons');
    await pages.A.selectOption('#charge-facing', 'front');
    // No general, no sappers, no melee: those boxes are not offered.
    for (const box of ['#charge-leading', '#charge-sappers', '#charge-reinforce']) {
      check(await pages.A.isHidden(box), `${label}: ${box} is offered to hussars with no use for it`);
    }
    await pages.A.focus('#charge-facing');
    await pages.A.keyboard.press('Tab');
    check(await pages.A.evaluate(() => document.activeElement.id) === 'charge-submit',
      `${label}: Tab from the facing does not reach the declare button`);
    await act(pages.A, '#charge-submit', `${label} A charges`, { keyboard: true });
    if (!refusalChecked) {
      // The same charge again: refused, and the page says why, with the code.
      await pages.A.click('#charge-submit');
      await pages.A.waitForSelector('#controls-error:not([hidden])', { timeout: STEP_MS });
      const refusal = await pages.A.textContent('#controls-error');
      check(refusal.includes('invalid_action') && refusal.includes('already'),
        `${label}: a second charge of the hussars should be refused in words: "${refusal}"`);
      await shoot(pages.A, 'a_refused_1280x800');
      refusalChecked = true;
    }
    if (!dropped) {
      // Drop the watcher's connection: it must say so, reconnect by itself
      // and catch up with what it missed (checked at the end).
      check(routes.length === 1, `the watcher opened ${routes.length} websockets`);
      await routes[0].close({ code: 1012, reason: 'the test drops the connection' });
      await watch.waitForSelector('#connection[data-status="reconnecting"]', { timeout: STEP_MS });
      dropped = true;
    }
    await act(pages.A, '#act-done', `${label} A done declaring`);
    await waitStatus(pages.B, { turn, phase: 'charge', step: 'declare', awaiting: 'B' }, `${label} B`);
    await act(pages.B, '#act-done', `${label} B done declaring`, { keyboard: true });
    await waitStatus(pages.B, { turn, phase: 'charge', step: 'respond', awaiting: 'B' }, `${label} B`);
    check(await pages.A.locator('.respond').count() === 0, `${label}: A is offered B's answer`);
    await act(pages.B, '#respond-dragoons-countercharge', `${label} B countercharges`);

    for (const phase of ['movement', 'fire']) {
      for (const seat of ['A', 'B']) await waitStatus(pages[seat], { turn, phase }, `${label} ${seat}`);
      for (const seat of ['A', 'B']) await act(pages[seat], '#act-done', `${label} ${seat} done with ${phase}`);
    }
    for (const seat of ['A', 'B']) await waitStatus(pages[seat], { turn, phase: 'morale' }, `${label} ${seat}`);
    await waitStatus(watch, { turn, phase: 'morale' }, `${label} watch`);

    const melees = await meleesOn(pages.A, turn);
    const withDice = melees.filter((melee) => melee.units.length && melee.units.every((unit) => unit.dice === 2));
    console.log(`turn ${turn}: ${melees.length ? melees.map((m) => `${m.melee}: ${m.verdict}`).join('; ') : 'no melee'}`);
    if (withDice.length) {
      fought = { turn, melee: withDice[0] };
      check(withDice[0].units.some((unit) => unit.rules.some((rule) => /^12\./.test(rule))),
        `${label}: the melee shows no modifier with its rule: ${JSON.stringify(withDice[0])}`);
      check(['A', 'B'].includes(withDice[0].winner) || withDice[0].winner === 'none',
        `${label}: the melee shows no verdict`);
      for (const [name, page] of [['B', pages.B], ['watch', watch]]) {
        const theirs = await meleesOn(page, turn);
        check(JSON.stringify(theirs) === JSON.stringify(melees),
          `${label}: ${name} shows the melee otherwise than A:\n${JSON.stringify(theirs)}\n${JSON.stringify(melees)}`);
      }
      await pages.A.evaluate((id) => document.querySelector(`.melee-block[data-melee="${id}"]`).scrollIntoView({ block: 'center' }), withDice[0].melee);
      await watch.evaluate((id) => document.querySelector(`.melee-block[data-melee="${id}"]`).scrollIntoView({ block: 'center' }), withDice[0].melee);
      await shoot(pages.A, 'a_melee_1280x800');
      await shoot(watch, 'watch_melee_1280x800');
      await shoot(pages.B, 'b_top_375x812');
      await pages.B.evaluate((id) => document.querySelector(`.melee-block[data-melee="${id}"]`).scrollIntoView({ block: 'start' }), withDice[0].melee);
      await shoot(pages.B, 'b_melee_375x812');
      await pages.B.screenshot({ path: join(args.screenshots, 'b_full_375.png'), fullPage: true });
    }
    for (const seat of ['A', 'B']) await act(pages[seat], '#act-done', `${label} ${seat} done with morale`);
  }
  check(fought, `no melee was fought with dice in ${MAX_TURNS} turns`);
  check(refusalChecked, 'the refusal was not checked');

  // Everyone shows the same state: the next turn's initiative, the same
  // figures and the same snapshot hash as the server.
  const next = fought.turn + 1;
  for (const [name, page] of [['A', pages.A], ['B', pages.B], ['watch', watch]]) {
    await waitLive(page, name);
    await waitStatus(page, { turn: next, phase: 'initiative', step: 'choose' }, `end ${name}`);
  }
  const truth = await serverState(server.port, decodeURIComponent(game), decodeURIComponent(tokens.A));
  const figures = await unitsOn(pages.A);
  for (const [name, page] of [['A', pages.A], ['B', pages.B], ['watch', watch]]) {
    await page.waitForFunction((seq) => document.getElementById('sync').dataset.seq === String(seq), truth.seq, { timeout: STEP_MS })
      .catch(() => {});
    const sync = await syncOf(page);
    check(sync.seq === String(truth.seq) && sync.hash === truth.hash,
      `${name} holds seq ${sync.seq} hash ${sync.hash}; the server seq ${truth.seq} hash ${truth.hash}`);
    check(JSON.stringify(await unitsOn(page)) === JSON.stringify(figures), `${name} shows other units than A`);
    for (const [id, unit] of Object.entries(truth.state.units)) {
      check(figures[id].figures === unit.figures, `${name}: ${id} shows ${figures[id].figures} figures, the server has ${unit.figures}`);
    }
    await noHorizontalScroll(page, name);
  }
  const points = await pages.A.$$eval('#plot .series.side-A circle', (circles) => circles.length);
  check(points >= next, `the plot has ${points} points for side A after ${fought.turn} turns`);
  check(routes.length >= 2, 'the watcher did not reconnect after its connection dropped');

  for (const page of [pages.A, pages.B, watch]) {
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      const log = document.getElementById('log-scroll');
      log.scrollTop = log.scrollHeight;
    });
  }
  await shoot(pages.A, 'a_next_turn_1280x800');
  await shoot(pages.B, 'b_next_turn_375x812');
  await shoot(pages.A, 'a_375x812', PHONE);
  await shoot(pages.B, 'b_1280x800', DESK);
  await shoot(watch, 'watch_375x812', PHONE);
  console.log(`melee of turn ${fought.turn}: ${fought.melee.verdict}; seq ${truth.seq}, hash ${truth.hash}` +
    `${dropped ? '; the watcher reconnected' : ''}`);
  return { game, tokens };
}

run('browser_play', args, async ({ browser, server, base }) => {
  const { tokens } = await play(browser, server, base);
  return [tokens.A, tokens.B];
}, WHOLE_MS);
