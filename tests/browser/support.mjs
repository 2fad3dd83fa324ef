// tests/browser/support.mjs: what the browser tests share: brigaded on an
// ephemeral loopback port with a temporary --data folder, Debian's Chromium
// through playwright-core (never a downloaded browser), and a main() that
// cleans up whatever happens and prints "1 passed, 0 failed" or the failure.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

export class Failure extends Error {}

// The page tests' two windows: a desk's and a phone's.
export const DESK = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function check(condition, message) {
  if (!condition) throw new Failure(message);
}

export function options(required) {
  const { values } = parseArgs({
    options: {
      brigaded: { type: 'string' },
      brigade: { type: 'string' },
      web: { type: 'string' },
      scenario: { type: 'string' },
      screenshots: { type: 'string' },
      chromium: { type: 'string', default: '/usr/bin/chromium' },
    },
  });
  for (const name of required) {
    if (!values[name]) { console.error(`--${name} is required`); process.exit(2); }
  }
  return values;
}

function startServer(brigaded, web, folder, serverArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(brigaded, ['--port', '0', '--listen', '127.0.0.1',
      '--data', join(folder, 'data'), '--web', web, ...serverArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
    const log = [];
    let buffer = '';
    const timer = setTimeout(() => reject(new Failure(`brigaded did not say its port: ${log.join('\n')}`)), 10000);
    const read = (chunk) => {
      buffer += chunk.toString();
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        log.push(line);
        const match = /listening on http:\/\/[^ ]*:(\d+)/.exec(line);
        if (match) { clearTimeout(timer); resolve({ child, log, port: Number(match[1]) }); }
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => { clearTimeout(timer); reject(new Failure(`brigaded exited (${code}) at start: ${log.join('\n')}`)); });
  });
}

// SIGTERM; resolves brigaded's exit status (SIGKILL after 10 s).
function stopServer(server) {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null) { resolve(server.child.exitCode); return; }
    const timer = setTimeout(() => { server.child.kill('SIGKILL'); }, 10000);
    server.child.removeAllListeners('exit');
    server.child.on('exit', (code) => { clearTimeout(timer); resolve(code); });
    server.child.kill('SIGTERM');
  });
}

// Runs body({browser, server, base, folder}) with brigaded and Chromium
// started; `secrets` that body returns must not appear in brigaded's log.
// Exits the process with 0 or 1; a watchdog ends it within `limitMs`.
// `serverArgs`: more of brigaded's options (e.g. --allow-origin). The
// --screenshots folder, if the test takes one, is made first.
export async function run(name, args, body, limitMs, { serverArgs = [] } = {}) {
  if (args.screenshots) mkdirSync(args.screenshots, { recursive: true });
  const folder = mkdtempSync(join(tmpdir(), 'brigade-browser-'));
  let server = null;
  let browser = null;
  const watchdog = setTimeout(() => {
    console.error(`FAIL: ${name} did not finish within ${limitMs / 1000} s`);
    if (server) server.child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
    console.log('0 passed, 1 failed');
    process.exit(1);
  }, limitMs);
  let status = 0;
  try {
    check(existsSync(args.chromium), `no Chromium at ${args.chromium} (scripts/install-deps --tests installs Debian's chromium)`);
    server = await startServer(args.brigaded, args.web, folder, serverArgs);
    browser = await chromium.launch({
      executablePath: args.chromium,
      headless: true,
      // playwright-core gives the browser a fresh --user-data-dir of its own
      // (it refuses one in args).
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
    });
    const secrets = (await body({ browser, server, base: `http://127.0.0.1:${server.port}/`, folder })) || [];
    await browser.close();
    browser = null;
    const code = await stopServer(server);
    const log = server.log.join('\n');
    check(code === 0, `brigaded exited ${code} after SIGTERM:\n${log}`);
    check(secrets.every((secret) => !log.includes(secret)), 'a seat token is in the server log');
    check(!/AddressSanitizer|LeakSanitizer|runtime error:/.test(log), `a sanitizer report:\n${log}`);
    console.log(`PASS: ${name}`);
  } catch (error) {
    status = 1;
    console.error(`FAIL: ${error instanceof Failure ? error.message : error.stack || error}`);
    if (server) console.error(`--- brigaded log:\n${server.log.join('\n')}`);
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
    clearTimeout(watchdog);
  }
  console.log(status ? '0 passed, 1 failed' : '1 passed, 0 failed');
  process.exit(status);
}

// A new page of `context` in a window of `size`, its uncaught errors pushed
// to `errors` (as `note` makes them), at `link` if there is one.
export async function openPage(context, link, size, errors, note = (message) => message) {
  const page = await context.newPage();
  await page.setViewportSize(size);
  page.on('pageerror', (error) => errors.push(note(error.message)));
  if (link) await page.goto(link);
  return page;
}

// On the page `creator` (the server's first page): picks `scenario`, lets
// `more` fill other options, creates the game and waits for its links; a
// Failure with the page's error if they do not come within `timeoutMs`.
export async function createGame(creator, scenario, timeoutMs, more = async () => {}) {
  const choice = `#scenario-choices input[value="${scenario}"]`;
  await creator.waitForSelector(choice, { timeout: timeoutMs });
  await creator.check(choice);
  await more();
  await creator.click('#create-submit');
  await creator.waitForSelector('#created', { state: 'visible', timeout: timeoutMs })
    .catch(async () => { throw new Failure(`not created: ${await creator.textContent('#create-error')}`); });
}

// Waits up to `timeoutMs` until the page's connection is live; else a
// Failure that says what the page shows instead.
export async function waitLive(page, label, timeoutMs) {
  await page.waitForSelector('#connection[data-status="live"]', { timeout: timeoutMs })
    .catch(async () => { throw new Failure(`${label}: not live; the page says "${await page.textContent('#connection')}"`); });
}

// The page's status line (#status's data: turn, phase, step, awaiting, hold).
export const statusOf = (page) =>
  page.evaluate(() => ({ ...document.getElementById('status').dataset }));

// Waits up to `timeoutMs` until the page's status line shows `want`.
export async function waitStatus(page, want, label, timeoutMs) {
  try {
    await page.waitForFunction((wanted) => {
      const status = document.getElementById('status');
      if (!status || !status.dataset.phase) return false;
      return Object.entries(wanted).every(([key, value]) => status.dataset[key] === String(value));
    }, want, { timeout: timeoutMs });
  } catch {
    throw new Failure(`${label}: the page never showed ${JSON.stringify(want)}; it shows ${JSON.stringify(await statusOf(page))}`);
  }
}
