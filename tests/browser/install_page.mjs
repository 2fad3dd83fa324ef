// tests/browser/install_page.mjs: the installed page in Debian's Chromium
// (tests/install/install_test.py starts the installed brigaded and runs
// this; it lives here for playwright-core in this folder's node_modules).
//
//   node install_page.mjs --base http://127.0.0.1:PORT/ --chromium PATH
//     --scenarios 'TITLE|TITLE...'
//
// Loads /, /tournament.html and /overlay.html; each must keep its title,
// throw no error, and get 200 for every request it makes to the server
// (scripts, the msgpack module, styles, icons, scenarios/index.json). The
// start page must list the shipped scenarios by title, which it does only
// once app.js and all its imports (the msgpack module included) ran.
// Prints the requested paths, then "1 passed, 0 failed" or the failure.
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    scenarios: { type: 'string', default: '' },
  },
});
const failures = [];
const check = (condition, message) => { if (!condition) failures.push(message); };
const watchdog = setTimeout(() => { console.log('FAIL: did not finish in 60 s\n0 passed, 1 failed'); process.exit(1); }, 60000);

const browser = await chromium.launch({
  executablePath: values.chromium,
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'],
});
const requested = new Set();
try {
  const pages = [['', 'Brigade'], ['tournament.html', 'Tournament — Brigade'], ['overlay.html', 'Brigade overlay']];
  for (const [path, title] of pages) {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (!response.url().startsWith(values.base)) return;
      requested.add(url.pathname);
      check(response.status() === 200, `/${path}: ${url.pathname} answered ${response.status()}`);
    });
    const response = await page.goto(values.base + path, { waitUntil: 'networkidle' });
    check(response.status() === 200, `/${path}: HTTP ${response.status()}`);
    check(await page.title() === title, `/${path}: title '${await page.title()}', expected '${title}'`);
    if (path === '') {
      const wanted = values.scenarios.split('|').filter(Boolean);
      await page.waitForFunction((count) => document.querySelectorAll('.scenario-choice').length === count,
        wanted.length, { timeout: 10000 }).catch(() => {});
      const titles = await page.$$eval('.scenario-title', (nodes) => nodes.map((node) => node.textContent));
      check(JSON.stringify(titles) === JSON.stringify(wanted),
        `start page's scenarios ${JSON.stringify(titles)}, expected ${JSON.stringify(wanted)}`);
      check(await page.isVisible('#game-title'), 'start page: no #game-title');
    }
    check(errors.length === 0, `/${path}: ${errors.join('; ')}`);
    await page.close();
  }
  // The page loads its module graph: the msgpack module among it.
  check(requested.has('/vendor/msgpack/index.mjs'), 'the page did not load vendor/msgpack/index.mjs');
} finally {
  await browser.close();
  clearTimeout(watchdog);
}
console.log([...requested].sort().join('\n'));
if (failures.length) {
  for (const failure of failures) console.log(`FAIL: ${failure}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}
console.log('1 passed, 0 failed');
