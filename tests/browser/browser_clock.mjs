#!/usr/bin/env node
// tests/browser/browser_clock.mjs: a game's clocks on the page (PROTOCOL.md
// §11.2), on the real brigaded in Chromium: a game of example A created by
// `brigade new --clock 1`; both players' pages show both clocks in their
// header ("French 1:00 · British 0:59 ▶"), the running side's counting down
// from clock_now each second; screenshots at 1280x800 and 390x844.
// Prints "PASS" or the failure.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { check, Failure, options, run } from './support.mjs';

const args = options(['brigaded', 'brigade', 'web', 'scenario', 'screenshots']);
const WAIT_MS = 8000;

const clocks = (page) => page.$$eval('#clocks .clock', (parts) => parts.map((part) =>
  ({ seat: part.dataset.seat, status: part.dataset.status, text: part.textContent })));
const seconds = (text) => {
  const m = text.match(/(\d+):(\d\d)(?::(\d\d))?/);
  return m[3] !== undefined ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : Number(m[1]) * 60 + Number(m[2]);
};

run('browser_clock', args, async ({ browser, base }) => {
  mkdirSync(args.screenshots, { recursive: true });
  const port = new URL(base).port;
  const created = JSON.parse(execFileSync(args.brigade, ['new', '--server', `ws://127.0.0.1:${port}`,
    '--clock', '1', '--json', args.scenario], { encoding: 'utf8' }));
  const errors = [];
  const pages = {};
  for (const [seat, size] of [['A', { width: 1280, height: 800 }], ['B', { width: 390, height: 844 }]]) {
    const page = await (await browser.newContext()).newPage();
    await page.setViewportSize(size);
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${base}#game=${created.game}&token=${created.seats[seat]}`);
    await page.waitForSelector('#connection[data-status="live"]', { timeout: WAIT_MS })
      .catch(() => { throw new Failure(`side ${seat}: not live`); });
    pages[seat] = page;
  }
  // The battle begins once both seeds are in: one side awaited, its clock runs.
  await pages.A.waitForSelector('#clocks .clock[data-status="running"]', { timeout: WAIT_MS })
    .catch(async () => { throw new Failure(`no running clock: ${JSON.stringify(await clocks(pages.A))}`); });
  for (const seat of ['A', 'B']) {
    const shown = await clocks(pages[seat]);
    check(shown.length === 2 && shown[0].seat === 'A' && shown[1].seat === 'B' &&
      shown[0].text.startsWith('French ') && shown[1].text.startsWith('British '),
    `side ${seat}'s clocks: ${JSON.stringify(shown)}`);
    const running = shown.filter((c) => c.status === 'running');
    const stopped = shown.filter((c) => c.status === 'stopped');
    check(running.length === 1 && running[0].text.endsWith(' ▶') && stopped.length === 1 &&
      stopped[0].text.endsWith(' 1:00'), `side ${seat}: one clock runs, the other shows 1:00: ${JSON.stringify(shown)}`);
  }
  // It falls with the real time: at least 2 s shown gone within 8 s, and
  // never more than the time that passed (a loaded machine delays the
  // page's timer, so the window is waited for, not assumed).
  const before = (await clocks(pages.A)).find((c) => c.status === 'running');
  const started = Date.now();
  let after = before;
  let fell = 0;
  while (Date.now() - started < 8000) {
    await pages.A.waitForTimeout(250);
    after = (await clocks(pages.A)).find((c) => c.status === 'running');
    fell = seconds(before.text) - seconds(after.text);
    if (fell >= 2)
      break;
  }
  const passed = (Date.now() - started) / 1000;
  check(after.seat === before.seat && fell >= 2 && fell <= Math.ceil(passed) + 1,
    `the running clock counts down each second: "${before.text}" then "${after.text}" after ${passed.toFixed(1)} s`);
  await pages.A.screenshot({ path: join(args.screenshots, 'clock-desk.png') });
  await pages.B.screenshot({ path: join(args.screenshots, 'clock-phone.png') });
  check(errors.length === 0, `page errors: ${errors.join('; ')}`);
  return Object.values(created.seats);
}, 60000);
