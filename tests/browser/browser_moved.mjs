#!/usr/bin/env node
// tests/browser/browser_moved.mjs: the page follows a cluster's `moved`
// (PROTOCOL.md §6.4) in Chromium. A fake host (tests/e2e/moved_host.py)
// serves the page (client-web) and answers every create and join on its
// websocket with `moved` to the real brigaded, which accepts the fake's
// page origin (--allow-origin), as a cluster's hosts accept each other's.
// The page served by the fake creates a game (it lands on the real server:
// `brigade state` there finds it), sides A and B open their links (the
// fake's), are moved, go live and show the real game: turn 1's initiative,
// the seq the real server has. A link to the game "loop" (which the fake
// moves to itself) stops after 5 moves with wire.js's words. Then the fake
// is stopped: the pages, on the real server, keep working: the
// initiative's winner chooses and both pages move on to the Mandatory
// moves at the real server's seq. Screenshots.
// Prints "1 passed, 0 failed" or the failure.
import { execFile, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { check, createGame, DESK, Failure, openPage, options, run, statusOf, waitLive, waitStatus as waitStatusFor } from './support.mjs';

const args = options(['brigaded', 'brigade', 'web', 'screenshots']);
const HERE = dirname(fileURLToPath(import.meta.url));
const WAIT_MS = 15000;
const OTHER = { A: 'B', B: 'A' };

// The fake host: its port once it listens; the target is written on its
// standard input once brigaded is up. Its answers are kept in `answers`.
function startFake() {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [join(HERE, '..', 'e2e', 'moved_host.py'), '--target', '-', '--web', args.web],
      { stdio: ['pipe', 'pipe', 'inherit'] });
    const fake = { child, answers: [], port: 0 };
    let buffer = '';
    const timer = setTimeout(() => reject(new Failure('the fake host did not say its port')), 10000);
    child.stdout.on('data', (chunk) => {
      buffer += chunk.toString();
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        const listening = /^moved_host: listening on http:\/\/127\.0\.0\.1:(\d+)$/.exec(line);
        const answer = /^moved (\S+) (\S+) (\S+)$/.exec(line);
        if (listening) { fake.port = Number(listening[1]); clearTimeout(timer); resolve(fake); }
        if (answer) fake.answers.push({ path: answer[1], type: answer[2], request: answer[3] });
      }
    });
    child.on('exit', (code) => { clearTimeout(timer); reject(new Failure(`the fake host exited (${code})`)); });
  });
}

const fake = await startFake();
process.on('exit', () => { if (fake.child.exitCode === null) fake.child.kill('SIGKILL'); });
const fakeBase = `http://127.0.0.1:${fake.port}/`;

async function serverState(port, game, token) {
  const { stdout } = await promisify(execFile)(args.brigade, ['state', '--json', '--server',
    `ws://127.0.0.1:${port}`, '--game', game, '--token', token], { timeout: 20000 });
  return JSON.parse(stdout);
}

const waitStatus = (page, want, label) => waitStatusFor(page, want, label, WAIT_MS);

const live = (page, label) => waitLive(page, label, WAIT_MS);

run('browser_moved', args, async ({ browser, server }) => {
  fake.child.stdin.write(`ws://127.0.0.1:${server.port}/\n`);
  const errors = [];
  const open = async (link) => openPage(await browser.newContext(), link, DESK, errors);

  // The page of host 1 (the fake) creates a game: moved to the real server.
  const creator = await open(fakeBase);
  await createGame(creator, 'example_a.json', WAIT_MS);
  const game = await creator.textContent('#created-game');
  const links = {};
  for (const key of ['A', 'B']) links[key] = await creator.inputValue(`#link-${key}`);
  await creator.close();
  check(fake.answers.length === 1 && fake.answers[0].type === 'create', `the fake answered ${JSON.stringify(fake.answers)}`);
  for (const key of ['A', 'B']) check(links[key].startsWith(`${fakeBase}#game=${game}&token=`), `${key}'s link: ${links[key]}`);
  const tokens = Object.values(links).map((link) => new URL(link).hash.match(/token=([0-9a-f]+)/)[1]);
  const real = await serverState(server.port, game, tokens[1]);
  check(real.state.game === game, `the real server has game ${real.state.game}, not ${game}`);

  // Both sides open their links on host 1, are moved and go live.
  const pages = { A: await open(links.A), B: await open(links.B) };
  for (const [seat, page] of Object.entries(pages)) await live(page, seat);
  const joins = fake.answers.filter((answer) => answer.type === 'join');
  check(joins.length === 2, `the fake answered ${joins.length} joins`);
  for (const seat of ['A', 'B']) await waitStatus(pages[seat], { turn: 1, phase: 'initiative', step: 'choose' }, seat);
  const begun = await serverState(server.port, game, tokens[1]);
  for (const [seat, page] of Object.entries(pages)) {
    await page.waitForFunction((seq) => document.getElementById('sync').dataset.seq === String(seq), begun.seq, { timeout: WAIT_MS })
      .catch(async () => { throw new Failure(`${seat} shows seq ${await page.getAttribute('#sync', 'data-seq')}, the server has ${begun.seq}`); });
  }
  await pages.A.screenshot({ path: join(args.screenshots, 'moved_side_A_1280x800.png') });

  // A game the fake moves to itself: stopped after 5 moves, in words.
  const before = fake.answers.length;
  const loop = await open(`${fakeBase}#game=loop&token=${'0'.repeat(64)}`);
  await loop.waitForSelector('#stopped', { state: 'visible', timeout: WAIT_MS })
    .catch(async () => { throw new Failure(`the loop did not stop; the page says "${await loop.textContent('#connection')}"`); });
  const reason = await loop.textContent('#stopped-reason');
  check(reason === 'the servers kept sending this on to another one (5 times in a row); giving up. The last one said: ' +
    'sent on to the same host again (the servers could not say where this is served) [moved]', `the loop's reason: "${reason}"`);
  const looped = fake.answers.slice(before);
  check(looped.length === 6 && looped.every((answer) => answer.request === looped[0].request),
    `the loop's answers: ${JSON.stringify(looped)}`);
  await loop.screenshot({ path: join(args.screenshots, 'moved_loop_stopped.png') });
  await loop.close();

  // Host 1 goes away: the pages are on the real server and keep working.
  fake.child.kill('SIGTERM');
  const winner = (await statusOf(pages.A)).awaiting;
  check(winner === 'A' || winner === 'B', `the initiative awaits "${winner}"`);
  await pages[winner].waitForSelector('#act-initiative-A', { state: 'visible', timeout: WAIT_MS });
  await pages[winner].click('#act-initiative-A');
  for (const seat of ['A', 'B']) await waitStatus(pages[seat], { turn: 1, phase: 'mandatory_moves' }, `after ${winner}'s choice, ${seat}`);
  const after = await serverState(server.port, game, tokens[1]);
  check(after.seq > begun.seq, `the choice was not taken: seq ${after.seq}`);
  for (const seat of ['A', OTHER.A]) {
    await pages[seat].waitForFunction((seq) => document.getElementById('sync').dataset.seq === String(seq), after.seq, { timeout: WAIT_MS })
      .catch(async () => { throw new Failure(`${seat} shows seq ${await pages[seat].getAttribute('#sync', 'data-seq')}, the server has ${after.seq}`); });
  }
  check(errors.length === 0, `errors in the pages: ${errors.join('; ')}`);
  return tokens;
}, 90000, { serverArgs: ['--allow-origin', fakeBase.slice(0, -1)] });
