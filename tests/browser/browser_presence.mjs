#!/usr/bin/env node
// tests/browser/browser_presence.mjs: who is connected, on the real
// brigaded (PROTOCOL.md §6.8 presence, §6.7 watchers) in Chromium: a game
// of the shipped example A with a spectators' password;
//   - side A's and side B's pages show in their header who is connected
//     ("French (you) · British: connected · Umpire: not seated");
//   - B's page closed, A's shows B not connected within a few seconds and
//     announces it (the live region); B back, connected again;
//   - the umpire joins: "Umpire: connected"; a spectator: "1 watching";
//     the spectator's own page shows no presence;
//   - once the battle begins, the initiative winner's tab says "Your move"
//     and shows the icon with a dot (favicon-move.svg), the other's not;
//   - the spectator, in a new tab, rejoins from "Your games" without being
//     asked the password again (the browser keeps it with the link);
//   - screenshots of the header at 1280x800 and 390x844.
// Prints "1 passed, 0 failed" or the failure.
import { join } from 'node:path';
import { check, createGame, DESK, Failure, openPage, options, PHONE, run, waitLive } from './support.mjs';

const args = options(['brigaded', 'web', 'screenshots']);
const WAIT_MS = 8000;

const live = (page, label) => waitLive(page, label, WAIT_MS);

// The header's presence line, as [seat, status, text].
const presence = (page) => page.$$eval('#presence .presence-part', (parts) => parts.map((part) =>
  [part.dataset.seat, part.dataset.status, part.textContent]));

async function waitPresence(page, seat, status, label) {
  await page.waitForSelector(`#presence .presence-part[data-seat="${seat}"][data-status="${status}"]`, { timeout: WAIT_MS })
    .catch(async () => { throw new Failure(`${label}: the header does not show ${seat} ${status}: ${JSON.stringify(await presence(page))}`); });
}

run('browser_presence', args, async ({ browser, base }) => {
  const errors = [];
  const open = (context, link, size = DESK) => openPage(context, link, size, errors);
  const creator = await open(await browser.newContext(), base);
  await createGame(creator, 'example_a.json', WAIT_MS, async () => {
    await creator.click('.spectator-options summary');
    await creator.fill('#create-spectator-password', 'sesame');
  });
  const links = {};
  for (const key of ['A', 'B', 'umpire', 'spectator']) links[key] = await creator.inputValue(`#link-${key}`);
  await creator.close();
  const tokens = Object.values(links).map((link) => new URL(link).hash.match(/token=([0-9a-f]+)/)[1]);

  const contexts = { A: await browser.newContext(), B: await browser.newContext() };
  const pages = { A: await open(contexts.A, links.A), B: await open(contexts.B, links.B, PHONE) };
  for (const seat of ['A', 'B']) await live(pages[seat], `side ${seat}`);
  await waitPresence(pages.A, 'B', 'connected', 'A, both joined');
  const line = await pages.A.textContent('#presence');
  check(line === 'French (you) · British: connected · Umpire: not seated', `side A's header: "${line}"`);
  await waitPresence(pages.B, 'A', 'connected', 'B, both joined');
  check((await pages.B.textContent('#presence')) === 'French: connected · British (you) · Umpire: not seated',
    `side B's header: "${await pages.B.textContent('#presence')}"`);

  // B drops: A sees it, and hears it at once.
  await pages.B.close();
  const dropped = Date.now();
  await waitPresence(pages.A, 'B', 'absent', 'A, B closed');
  check(Date.now() - dropped < 5000, `A learnt of B's drop after ${Date.now() - dropped} ms`);
  check((await pages.A.textContent('#presence')).includes('British: not connected'), 'A does not say B is not connected');
  const told = await pages.A.textContent('#announce');
  check(told.includes('British: disconnected.'), `A's announcement of B's drop: "${told}"`);
  await pages.A.evaluate(() => window.scrollTo(0, 0));
  await pages.A.screenshot({ path: join(args.screenshots, 'presence_b_absent_1280x800.png'), clip: { x: 0, y: 0, width: 1280, height: 160 } });
  pages.B = await open(contexts.B, links.B, PHONE);
  await live(pages.B, 'side B again');
  await waitPresence(pages.A, 'B', 'connected', 'A, B back');
  check((await pages.A.textContent('#announce')).includes('British: connected again.'), `A's announcement of B's return: "${await pages.A.textContent('#announce')}"`);

  // The umpire and a spectator.
  const umpire = await open(await browser.newContext(), links.umpire);
  await live(umpire, 'umpire');
  await waitPresence(pages.A, 'umpire', 'connected', 'A, the umpire joined');
  await waitPresence(umpire, 'A', 'connected', 'the umpire');
  check((await umpire.textContent('#presence')).startsWith('French: connected · British: connected · Umpire (you)'),
    `the umpire's header: "${await umpire.textContent('#presence')}"`);
  const spectators = await browser.newContext();
  const watch = await open(spectators, links.spectator, PHONE);
  await watch.waitForSelector('#password-form', { state: 'visible', timeout: WAIT_MS });
  check(await watch.isVisible('#password-kept'), 'the password form does not say the browser keeps the password');
  await watch.fill('#password-input', 'sesame');
  await watch.press('#password-input', 'Enter');
  await live(watch, 'the spectator');
  await waitPresence(pages.A, 'watchers', 'watching', 'A, a spectator joined');
  check((await pages.A.textContent('#presence')).endsWith(' · 1 watching'), `A's header with a spectator: "${await pages.A.textContent('#presence')}"`);
  check(await watch.isHidden('#presence') && await watch.isHidden('#alerts'), "the spectator's page shows who is connected, or the alerts");

  // The battle has begun (both seeds in): the initiative's winner chooses.
  let mover = null;
  for (let tries = 0; tries < 80 && !mover; tries += 1) {
    for (const seat of ['A', 'B']) {
      if (await pages[seat].locator('[id^="act-initiative-"]').count()) mover = seat;
    }
    if (!mover) await pages.A.waitForTimeout(100);
  }
  check(mover, 'neither side is offered the initiative choice');
  const other = mover === 'A' ? 'B' : 'A';
  await pages[mover].waitForFunction(() => document.title.startsWith('Your move · '), null, { timeout: WAIT_MS });
  const icons = {};
  for (const seat of ['A', 'B']) {
    icons[seat] = await pages[seat].evaluate(() => [document.title, document.getElementById('favicon').getAttribute('href')]);
  }
  check(icons[mover][1] === 'favicon-move.svg' && icons[other][1] === 'favicon.svg' && !icons[other][0].startsWith('Your move'),
    `the tabs: ${JSON.stringify(icons)} (side ${mover} to move)`);
  for (const seat of ['A', 'B']) {
    check(!(await pages[seat].isChecked('#alert-sound')) && !(await pages[seat].isChecked('#alert-notify')),
      `side ${seat}: a beep or a notification is on by default`);
  }
  await pages.A.evaluate(() => window.scrollTo(0, 0));
  await pages.A.screenshot({ path: join(args.screenshots, 'presence_header_1280x800.png') });
  await pages.B.evaluate(() => window.scrollTo(0, 0));
  await pages.B.screenshot({ path: join(args.screenshots, 'presence_header_390x844.png') });
  await umpire.evaluate(() => window.scrollTo(0, 0));
  await umpire.screenshot({ path: join(args.screenshots, 'presence_umpire_1280x800.png'), clip: { x: 0, y: 0, width: 1280, height: 160 } });
  // The mover's page with its alert choices (the footer), at both sizes.
  for (const [size, name] of [[DESK, '1280x800'], [PHONE, '390x844']]) {
    await pages[mover].setViewportSize(size);
    await pages[mover].evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await pages[mover].screenshot({ path: join(args.screenshots, `your_move_footer_${name}.png`) });
  }
  // The beep's choice is remembered in this browser.
  // (Under load a layout shift can move the box from under the click:
  // check() then fails, and is tried once more.)
  await pages.A.check('#alert-sound').catch(() => pages.A.check('#alert-sound'));
  const again = await open(contexts.A, links.A);
  await live(again, 'side A in a second tab');
  check(await again.isChecked('#alert-sound') && !(await again.isChecked('#alert-notify')), 'the beep\'s choice is not remembered');
  // Side A open twice: its header says so.
  await pages.A.waitForFunction(() => document.getElementById('presence').textContent.includes('(you, open in 2 places)'), null, { timeout: WAIT_MS })
    .catch(async () => { throw new Failure(`A open twice: "${await pages.A.textContent('#presence')}"`); });
  await again.close();

  // The spectator in a new tab of the same browser: Rejoin from Your games
  // needs no password.
  await watch.close();
  const fresh = await open(spectators, base, PHONE);
  await fresh.waitForSelector('#your-games', { state: 'visible', timeout: WAIT_MS });
  const kept = await fresh.textContent('#your-games-list');
  check(kept.includes('spectator, password kept in this browser'), `Your games for the spectator: "${kept}"`);
  await fresh.click('#your-games-list .rejoin');
  await live(fresh, 'the spectator rejoining').catch(async (failure) => {
    throw new Failure(`${failure.message}; the password form shown: ${await fresh.isVisible('#password-form')}`);
  });
  check(await fresh.isHidden('#password-form'), 'the spectator rejoining is asked the password again');
  check(errors.length === 0, `errors in the pages: ${errors.join('; ')}`);
  return tokens;
}, 90000);
