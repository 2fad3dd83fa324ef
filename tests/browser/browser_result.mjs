#!/usr/bin/env node
// tests/browser/browser_result.mjs: the umpire ends a game with a result
// (PROTOCOL.md §11.5), on the real brigaded in Chromium: a game of the
// shipped example A; side A (1280x800), side B (390x844) and the umpire
// (1280x800) join by their links; once the battle has begun the umpire's
// End form offers no result, a win for either side by its name, or a draw;
// the umpire ends the battle with a win for side B; both players' pages
// (and the umpire's) show the end panel with "Result: a win for side B
// (British)" and B's row marked as the winner, and the log entry says it
// in words. Screenshots in --screenshots.
// Prints "1 passed, 0 failed" or the failure.
import { join } from 'node:path';
import { check, createGame, DESK, Failure, openPage, options, PHONE, run, waitLive } from './support.mjs';

const args = options(['brigaded', 'web', 'screenshots']);
const WAIT_MS = 10000;

const live = (page, label) => waitLive(page, label, WAIT_MS);

const panelOf = (page) => page.evaluate(() => ({
  title: document.getElementById('end-title') && document.getElementById('end-title').textContent,
  result: document.getElementById('end-result') && document.getElementById('end-result').textContent,
  won: [...document.querySelectorAll('#end-summary tbody tr.winner')].map((row) => row.dataset.side),
}));

run('browser_result', args, async ({ browser, base }) => {
  const errors = [];
  const open = async (link, size = DESK) => openPage(await browser.newContext(), link, size, errors);
  const creator = await open(base);
  await createGame(creator, 'example_a.json', WAIT_MS);
  const links = {};
  for (const key of ['A', 'B', 'umpire']) links[key] = await creator.inputValue(`#link-${key}`);
  await creator.close();
  const tokens = Object.values(links).map((link) => new URL(link).hash.match(/token=([0-9a-f]+)/)[1]);

  const pages = { A: await open(links.A), B: await open(links.B, PHONE), umpire: await open(links.umpire) };
  for (const [seat, page] of Object.entries(pages)) await live(page, seat);

  // The battle begins once both seeds are in: the umpire may end it.
  const umpire = pages.umpire;
  await umpire.waitForSelector('#end-form', { state: 'attached', timeout: WAIT_MS })
    .catch(async () => { throw new Failure(`the umpire is offered no End form: ${await umpire.textContent('#umpire')}`); });
  const offered = await umpire.$$eval('#end-result option', (list) => list.map((o) => [o.value, o.textContent]));
  check(JSON.stringify(offered) === JSON.stringify([['', 'No result (the organiser gives it)'],
    ['A', 'A win for side A (French)'], ['B', 'A win for side B (British)'], ['draw', 'A draw']]),
  `the umpire's results: ${JSON.stringify(offered)}`);
  check(await umpire.locator('#end-presets').count() === 0, 'a game without a clock offers "loss on time"');
  await umpire.selectOption('#end-result', 'B');
  await umpire.fill('#end-reason', 'the French withdrew from the field');
  await umpire.check('#end-confirm');
  await umpire.locator('#end-form').scrollIntoViewIfNeeded();
  await umpire.locator('#end-form').screenshot({ path: join(args.screenshots, 'result_umpire_end_form.png') });
  await umpire.click('#end-submit');

  const want = { title: 'The battle has ended: the French withdrew from the field',
    result: 'Result: a win for side B (British)', won: ['B'] };
  for (const [seat, page] of Object.entries(pages)) {
    await page.waitForSelector('#end-result', { timeout: WAIT_MS })
      .catch(async () => { throw new Failure(`${seat}: no result shown; the status says "${await page.textContent('#status')}"`); });
    const panel = await panelOf(page);
    check(JSON.stringify(panel) === JSON.stringify(want), `${seat}'s end panel: ${JSON.stringify(panel)}`);
    const entry = await page.$$eval('#log [data-ruling="end"]', (list) => list.map((li) => li.textContent).join(' | '));
    check(entry.includes('the umpire ends the battle: a win for side B (British) (the French withdrew from the field)'),
      `${seat}'s log of the end: "${entry}"`);
  }
  check((await umpire.textContent('#umpire-done')) === 'The battle has ended: a win for side B (British).',
    `the umpire's done line: "${await umpire.textContent('#umpire-done')}"`);
  for (const [seat, size, name] of [['A', DESK, '1280x800'], ['B', PHONE, '390x844']]) {
    await pages[seat].evaluate(() => window.scrollTo(0, 0));
    await pages[seat].screenshot({ path: join(args.screenshots, `result_side_${seat}_${name}.png`) });
    const widths = await pages[seat].evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
    check(widths[0] <= widths[1], `side ${seat}'s page is ${widths[0]} px wide in a ${widths[1]} px window`);
  }
  check(errors.length === 0, `errors in the pages: ${errors.join('; ')}`);
  return tokens;
}, 90000);
