#!/usr/bin/env node
// tests/browser/browser_rules.mjs: the house rules of the page (issue 19
// point 2, client-web/rules.js) in Chromium against the real brigaded:
// - the create form's "House rules" file: a file that is not JSON, or not
//   one JSON object, is refused next to its field and nothing is sent (no
//   websocket frame); a good one is the `ruleset` of the scenario the
//   create sends (the frame decoded), the scenario's other members as the
//   shipped file has them (the server's answer is not checked: it takes the
//   ruleset only with the server side of issue 19);
// - the "Rules of this game" card: a game created without house rules
//   says "The default ruleset." on side A's, the spectator's (390x844) and
//   the umpire's page; given a state with `ruleset` (PROTOCOL.md §7.1) it
//   lists each differs text with its rule, never a member's path, inside
//   the window, overlapping no other panel.
// Screenshots in --screenshots. Prints "1 passed, 0 failed" or the failure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check, createGame, DESK, Failure, openPage, options, PHONE, run, waitLive } from './support.mjs';

const args = options(['brigaded', 'web', 'screenshots']);
const WAIT_MS = 10000;

const HOUSE = { unit: 'cm', morale: { pass: { line: 6 } }, moves: { half_charge: { heavy_cavalry: 7.5 } } };
const HOUSE_STATE = { ruleset: { unit: 'cm', differs: [
  { member: 'morale.pass.line', rule: 'Charge phase, morale test', text: 'Morale test, Line: passes on 6+ (default 7+)' },
  { member: 'moves.half_charge.heavy_cavalry', rule: 'Mandatory-move phase, excellent discipline (12.24)',
    text: 'Half charge move, heavy cavalry: 7.5 cm (default 7.5")' },
  { member: 'unit', rule: 'Mandatory-move phase', text: 'Distances are in centimetres (default inches)' },
] } };

// Every frame the page's websockets send, as byte arrays in window.sentFrames.
function recordFrames() {
  window.sentFrames = [];
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function record(data) {
    const bytes = data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    window.sentFrames.push(Array.from(bytes));
    return send.call(this, data);
  };
}

// The messages sent so far, decoded (the page's own msgpack module).
const sentMessages = (page) => page.evaluate(async () => {
  const { decode } = await import('/vendor/msgpack/index.mjs');
  return window.sentFrames.map((bytes) => decode(new Uint8Array(bytes)));
});

const houseFile = (page, text) => page.setInputFiles('#ruleset-file',
  { name: 'house.json', mimeType: 'application/json', buffer: Buffer.from(text) });

// The page is no wider than its window.
async function fits(page, label) {
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  check(widths[0] <= widths[1], `${label}: the page is ${widths[0]} px wide in a ${widths[1]} px window`);
}

async function createForm(page) {
  await page.waitForSelector('#scenario-choices input[value="example_a.json"]', { timeout: WAIT_MS });
  await page.check('#scenario-choices input[value="example_a.json"]');
  for (const [text, said] of [['{"unit": ', 'house.json is not JSON: '],
    ['[{"unit": "cm"}]', 'house.json is not a ruleset: a ruleset is one JSON object']]) {
    await houseFile(page, text);
    await page.click('#create-submit');
    await page.waitForSelector('#ruleset-error', { state: 'visible', timeout: WAIT_MS })
      .catch(async () => { throw new Failure(`${text}: no error by the house rules; the form says "${await page.textContent('#create-error')}"`); });
    const error = await page.textContent('#ruleset-error');
    check(error.startsWith(said), `${text}: the house rules' error: "${error}"`);
    check(await page.evaluate(() => document.getElementById('ruleset-error').parentElement.contains(document.getElementById('ruleset-file'))),
      'the house rules\' error is not next to its field');
    await page.waitForTimeout(300);
    check((await sentMessages(page)).length === 0, `${text}: something was sent: ${JSON.stringify(await sentMessages(page))}`);
    check(await page.isHidden('#created'), `${text}: a game was created`);
  }
  await page.setViewportSize(PHONE);
  await page.locator('.house-rules').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(args.screenshots, 'rules_create_error_390x844.png') });
  await fits(page, 'the create form at 390 px');
  await page.setViewportSize(DESK);

  await houseFile(page, JSON.stringify(HOUSE, null, 2));
  check(await page.isHidden('#ruleset-error'), 'the error stays once another file is chosen');
  await page.click('#create-submit');
  await page.waitForFunction(() => window.sentFrames.length > 0, null, { timeout: WAIT_MS });
  const creates = (await sentMessages(page)).filter((message) => message.type === 'create');
  check(creates.length === 1, `creates sent: ${creates.length}`);
  const sent = JSON.parse(creates[0].scenario);
  check(JSON.stringify(sent.ruleset) === JSON.stringify(HOUSE), `the ruleset sent: ${JSON.stringify(sent.ruleset)}`);
  const shipped = JSON.parse(readFileSync(join(args.web, 'scenarios', 'example_a.json'), 'utf8'));
  delete sent.ruleset;
  check(JSON.stringify(sent) === JSON.stringify(shipped), 'the scenario sent is not the shipped example A beside its ruleset');
  await page.waitForSelector('#created:not([hidden]), #create-error:not([hidden])', { timeout: WAIT_MS });
}

// The card of `page` (its body's text, its rules, its items).
const cardOf = (page) => page.evaluate(() => {
  const card = document.getElementById('rules');
  return { kind: card.dataset.ruleset, text: card.textContent,
    items: [...card.querySelectorAll('.rules-list li .rules-text')].map((item) => item.textContent),
    rules: [...card.querySelectorAll('.rules-list li .rule')].map((item) => item.textContent) };
});

// The card on `page` with HOUSE_STATE's ruleset (rules.js renderRules):
// each text and rule, no member, inside the window, over no other panel.
async function houseCard(page, label) {
  await page.evaluate(async (state) => {
    const { renderRules } = await import('/rules.js');
    renderRules(document.getElementById('rules-body'), state);
    document.getElementById('rules').scrollIntoView({ block: 'center' });
  }, HOUSE_STATE);
  const card = await cardOf(page);
  const differs = HOUSE_STATE.ruleset.differs;
  check(card.kind === 'house' && JSON.stringify(card.items) === JSON.stringify(differs.map((item) => item.text)) &&
    JSON.stringify(card.rules) === JSON.stringify(differs.map((item) => item.rule)), `${label}: the house card: ${JSON.stringify(card)}`);
  check(!differs.some((item) => card.text.includes(item.member)), `${label}: a member's path on the card: "${card.text}"`);
  const boxes = await page.evaluate(() => {
    const box = (node) => node.getBoundingClientRect();
    const card = box(document.getElementById('rules'));
    const others = [...document.querySelectorAll('#battle .panel:not(#rules), #forces')]
      .filter((node) => !node.closest('[hidden]') && node.offsetParent !== null).map(box)
      .filter((other) => other.left < card.right && card.left < other.right && other.top < card.bottom && card.top < other.bottom);
    const items = [...document.querySelectorAll('#rules li, #rules .rule')].map(box);
    return { card: [card.left, card.right], inner: window.innerWidth, overlaps: others.length,
      outside: items.filter((item) => item.right > card.right + 0.5 || item.left < card.left - 0.5).length };
  });
  check(boxes.card[0] >= 0 && boxes.card[1] <= boxes.inner && boxes.overlaps === 0 && boxes.outside === 0,
    `${label}: the card does not fit: ${JSON.stringify(boxes)}`);
  await fits(page, label);
}

run('browser_rules', args, async ({ browser, base }) => {
  const errors = [];
  const open = async (link, size = DESK) => {
    const context = await browser.newContext();
    await context.addInitScript(recordFrames);
    return openPage(context, link, size, errors);
  };
  await createForm(await open(base));

  const creator = await open(base);
  await createGame(creator, 'example_a.json', WAIT_MS);
  const links = {};
  for (const key of ['A', 'umpire', 'spectator']) links[key] = await creator.inputValue(`#link-${key}`);
  await creator.close();
  const tokens = ['A', 'umpire'].map((key) => new URL(links[key]).hash.match(/token=([0-9a-f]+)/)[1]);
  const pages = { A: await open(links.A), umpire: await open(links.umpire), spectator: await open(links.spectator, PHONE) };
  for (const [seat, page] of Object.entries(pages)) {
    await waitLive(page, seat, WAIT_MS);
    await page.waitForSelector('#rules[data-ruleset]', { timeout: WAIT_MS });
    const card = await cardOf(page);
    check(card.kind === 'default' && card.text.includes('The default ruleset.') && card.items.length === 0,
      `${seat}: a default game's card: ${JSON.stringify(card)}`);
  }
  await pages.umpire.evaluate(() => document.getElementById('rules').scrollIntoView({ block: 'center' }));
  await pages.umpire.screenshot({ path: join(args.screenshots, 'rules_default_umpire_1280x800.png') });
  await houseCard(pages.umpire, 'the umpire at 1280 px');
  await pages.umpire.screenshot({ path: join(args.screenshots, 'rules_house_umpire_1280x800.png') });
  await houseCard(pages.spectator, 'the spectator at 390 px');
  await pages.spectator.screenshot({ path: join(args.screenshots, 'rules_house_spectator_390x844.png') });
  await houseCard(pages.A, 'side A at 1280 px');
  await pages.A.screenshot({ path: join(args.screenshots, 'rules_house_side_A_1280x800.png') });
  check(errors.length === 0, `errors in the pages: ${errors.join('; ')}`);
  return tokens;
}, 90000);
