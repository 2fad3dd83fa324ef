#!/usr/bin/env node
// tests/browser/browser_tournament.mjs: the tournament page and the
// broadcast overlay on the real brigaded (PROTOCOL.md §11) in Chromium:
//   - a 4-player Swiss of 3 rounds with a clock and one umpire is created
//     over the websocket (tournament_create, the shipped example_a.json
//     read from scenarios/), and its round 1 started (the organiser's
//     tournament_start_round), from a page's wire.js (tournamentRequest);
//   - the public page (/tournament.html#t=ID) shows the event, round 1 of
//     3, the time control, the standings (every player, 0 points) and the
//     pairings (each table's players, as the server paired them);
//   - a player's link (&token=T) is taken out of the address bar and shows
//     "Your game: Table 1 vs <opponent>, you play Side A" leading to
//     /#game=GAME&token=T, which joins that game as side A;
//   - the umpire ends table 2's game with a result (the umpire panel's end
//     form, PROTOCOL.md §11.5): the public page, watching, shows 1–0 and
//     the winner's point without a reload, and says so in its live region;
//     its "Download the game" link gives the export (/exports/GAME.sqlite);
//   - the overlay (/overlay.html#t=ID&table=1) shows the players, the turn
//     and phase in words, whose move, both clocks (when the game's state
//     has one), on a transparent page with no scrollbars and nothing to
//     click;
//   - an unknown tournament and an address without one say so;
//   - screenshots: the page at 1280x800 and 390x844 (the public one and a
//     player's), the overlay at 1920x1080, in screenshots/ of the build
//     folder; at 390 px nothing is wider than the screen.
// Prints "1 passed, 0 failed" or the failure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { check, DESK, Failure, openPage, options, PHONE, run } from './support.mjs';

const args = options(['brigaded', 'web', 'scenario', 'screenshots']);
const STREAM = { width: 1920, height: 1080 };
const WAIT_MS = 10000;

const TOURNAMENT = {
  name: 'Autumn Cup 1809',
  players: ['Anna Lefèvre', 'Ben Carter', 'Chiara Rossi', 'Dmitri Orlov'],
  scenarios: ['example_a.json'],
  format: 'swiss',
  rounds: 3,
  time_control: { minutes_per_side: 90, increment_seconds: 30 },
  umpires: ['Gustav Berg'],
};

async function waitText(page, selector, wanted, label) {
  await page.waitForFunction(([sel, text]) => {
    const node = document.querySelector(sel);
    return node && node.textContent.includes(text);
  }, [selector, wanted], { timeout: WAIT_MS }).catch(async () => {
    const now = await page.$eval(selector, (node) => node.textContent).catch(() => '(no such element)');
    throw new Failure(`${label}: ${selector} does not say "${wanted}": "${now.replace(/\s+/g, ' ').trim()}"`);
  });
}

// Nothing wider than the window (no sideways scrolling of the page).
async function fits(page, label) {
  const [scroll, width, wide] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth,
    [...document.querySelectorAll('body *')].filter((node) => node.getBoundingClientRect().right > window.innerWidth + 1)
      .slice(0, 5).map((node) => `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}.${node.className}`)]);
  check(scroll <= width, `${label}: the page is ${scroll} px wide in a window of ${width}: ${wide.join(', ')}`);
}

run('browser_tournament', args, async ({ browser, base }) => {
  const errors = [];
  const open = (context, link, size = DESK) => openPage(context, link, size, errors, (message) => `${link}: ${message}`);

  // The organiser, from a page of the server (its wire.js).
  const helper = await open(await browser.newContext(), base);
  const scenario = readFileSync(args.scenario, 'utf8');
  const ask = (message) => helper.evaluate(async (sent) => {
    const { serverUrl, tournamentRequest } = await import('/wire.js');
    try {
      return { ok: true, answer: await tournamentRequest(serverUrl(), sent) };
    } catch (error) {
      return { ok: false, code: error.code, message: error.message };
    }
  }, message);
  const created = await ask({ type: 'tournament_create', tournament: JSON.stringify(TOURNAMENT), scenarios: { 'example_a.json': scenario } });
  check(created.ok && created.answer.type === 'tournament_created', `tournament_create: ${JSON.stringify(created)}`);
  const { tournament: id, organiser, players, umpires } = created.answer;
  check(/^[0-9a-f]{32}$/.test(id) && players.length === 4 && umpires.length === 1, `tournament_created: ${JSON.stringify(created.answer)}`);
  const tokens = [organiser, ...players.map((item) => item.token), ...umpires.map((item) => item.token)];
  const started = await ask({ type: 'tournament_start_round', tournament: id, token: organiser });
  check(started.ok && started.answer.type === 'tournament_state', `tournament_start_round: ${JSON.stringify(started)}`);
  const view = started.answer.tournament;
  check(view.round === 1 && view.pairings.length === 1 && view.pairings[0].tables.length === 2, `round 1: ${JSON.stringify(view)}`);
  const tables = view.pairings[0].tables;
  const name = (index) => TOURNAMENT.players[index];

  // The public page.
  const visitors = await browser.newContext();
  const page = await open(visitors, `${base}tournament.html#t=${id}`);
  await waitText(page, '#connection', 'Live', 'the public page');
  await waitText(page, '#t-name', 'Autumn Cup 1809', 'the public page');
  await waitText(page, '#t-round', 'Round 1 of 3', 'the public page');
  await waitText(page, '#t-clock', '90 minutes a side, plus 30 seconds a move', 'the public page');
  const standings = await page.$$eval('#t-standings-table tbody tr', (rows) => rows.map((row) =>
    [row.querySelector('.name').firstChild.textContent, row.querySelector('.points').textContent]));
  check(standings.length === 4 && TOURNAMENT.players.every((player) => standings.some(([who, points]) => who === player && points === '0')),
    `the standings before any result: ${JSON.stringify(standings)}`);
  const headers = await page.$$eval('#t-standings-table thead th', (cells) => cells.map((cell) => cell.textContent));
  check(headers.some((text) => text.startsWith('Buchholz')) && headers.some((text) => text.startsWith('Sonneborn–Berger')),
    `the tie-breaks' headings: ${JSON.stringify(headers)}`);
  for (const table of tables) {
    const row = `#round-1-pairings tr[data-table="${table.table}"]`;
    const cells = await page.$eval(row, (tr) => [tr.querySelector('.seat-A').textContent, tr.querySelector('.seat-B').textContent,
      tr.dataset.game, tr.querySelector('.table-status').textContent, tr.querySelector('a.watch')?.getAttribute('href')]);
    check(cells[0] === name(table.a) && cells[1] === name(table.b) && cells[2] === table.game,
      `table ${table.table} on the page: ${JSON.stringify(cells)}, the server paired ${name(table.a)} – ${name(table.b)}`);
    check(cells[4] === `/#game=${table.game}&token=${table.spectator}`, `table ${table.table}'s Watch link: ${cells[4]}`);
  }
  await page.screenshot({ path: join(args.screenshots, 'tournament_round1_1280x800.png'), fullPage: true });

  // A player's link: the seat A player of table 1.
  const first = tables.find((table) => table.table === 1);
  const second = tables.find((table) => table.table === 2);
  const playerA = players[first.a];
  const own = await browser.newContext();
  const mine = await open(own, `${base}tournament.html#t=${id}&token=${playerA.token}`, PHONE);
  await waitText(mine, '#t-play', `Your game: Table 1 vs ${name(first.b)}, you play Side A`, "the player's page");
  check(!mine.url().includes(playerA.token), `the token is still in the address bar: ${mine.url()}`);
  const play = await mine.getAttribute('#t-play', 'href');
  check(play === `/#game=${first.game}&token=${playerA.token}`, `the Play button leads to ${play}`);
  await fits(mine, "the player's page at 390 px");
  await mine.screenshot({ path: join(args.screenshots, 'tournament_player_390x844.png'), fullPage: true });
  await mine.click('#t-play');
  await mine.waitForSelector('#connection[data-status="live"]', { timeout: WAIT_MS });
  await waitText(mine, '#seat-badge', 'Side A', 'the game from the Play button');
  // Its opponent joins too: the battle begins.
  const opponent = await open(await browser.newContext(), `${base}#game=${first.game}&token=${players[first.b].token}`);
  await waitText(opponent, '#seat-badge', 'Side B', "the opponent's game");
  await mine.waitForFunction(() => Number(document.getElementById('status').dataset.turn) >= 1, null, { timeout: WAIT_MS });

  // Table 2: both players join (on connections of the helper page), the
  // umpire ends the game with a win for seat A's player.
  await helper.evaluate(async ([game, a, b]) => {
    const { serverUrl, Session } = await import('/wire.js');
    window.kept = [a, b].map((token) => {
      const session = new Session({ url: serverUrl(), game, token });
      session.start();
      return session;
    });
    const deadline = Date.now() + 10000;
    while (!window.kept.every((session) => session.state && session.state.turn >= 1)) {
      if (Date.now() > deadline) throw new Error('table 2 did not begin');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, [second.game, players[second.a].token, players[second.b].token]);
  const umpire = await open(await browser.newContext(), `${base}#game=${second.game}&token=${umpires[0].token}`);
  await waitText(umpire, '#seat-badge', 'Umpire', "the umpire's page");
  await umpire.waitForSelector('#end-form', { timeout: WAIT_MS });
  await umpire.fill('#end-reason', 'side B conceded');
  await umpire.selectOption('#end-result', 'A');
  await umpire.check('#end-confirm');
  await umpire.click('#end-submit');
  await waitText(umpire, '#end-result', 'a win for side A', "the umpire's page after the end");

  // The public page follows, live.
  await page.waitForSelector(`#round-1-pairings tr[data-table="2"][data-result="A"]`, { timeout: WAIT_MS })
    .catch(async () => { throw new Failure(`table 2 shows no result: ${await page.textContent('#round-1-pairings')}`); });
  const result = await page.textContent('#round-1-pairings tr[data-table="2"] .result');
  check(result.includes('1–0') && result.includes(`${name(second.a)} wins`) && result.includes('side B conceded'),
    `table 2's result: "${result}"`);
  await waitText(page, '#announce', '1–0', "the public page's live region");
  // The ended game's download (the table's export, PROTOCOL.md §11.4).
  await page.waitForSelector('#round-1-pairings tr[data-table="2"] a.download', { timeout: WAIT_MS })
    .catch(() => { throw new Failure('table 2, ended, has no download link'); });
  const download = await page.getAttribute('#round-1-pairings tr[data-table="2"] a.download', 'href');
  check(download === `/exports/${second.game}.sqlite`, `table 2's download link: ${download}`);
  const fetched = await page.evaluate(async (href) => {
    const response = await fetch(href);
    return [response.status, (await response.arrayBuffer()).byteLength];
  }, download);
  check(fetched[0] === 200 && fetched[1] > 0, `the download of table 2: HTTP ${fetched[0]}, ${fetched[1]} bytes`);
  const points = await page.$$eval('#t-standings-table tbody tr', (rows) => rows.map((row) =>
    [row.querySelector('.name').firstChild.textContent, row.querySelector('.points').textContent]));
  check(points[0][0] === name(second.a) && points[0][1] === '1', `the standings after table 2's result: ${JSON.stringify(points)}`);
  await fits(page, 'the public page at 1280 px');
  await page.screenshot({ path: join(args.screenshots, 'tournament_1280x800.png'), fullPage: true });
  await page.setViewportSize(PHONE);
  await fits(page, 'the public page at 390 px');
  await page.screenshot({ path: join(args.screenshots, 'tournament_390x844.png'), fullPage: true });

  // The overlay of table 1, followed through the tournament.
  const overlay = await open(await browser.newContext(), `${base}overlay.html#t=${id}&table=1`, STREAM);
  await overlay.waitForSelector('#ov[data-state="live"]', { timeout: WAIT_MS });
  const game = await mine.evaluate(() => ({ phase: document.getElementById('status-phase').textContent,
    awaiting: document.getElementById('status').dataset.awaiting }));
  await waitText(overlay, '#ov-phase', game.phase, 'the overlay');
  await waitText(overlay, '#ov-name-A', name(first.a), 'the overlay');
  await waitText(overlay, '#ov-name-B', name(first.b), 'the overlay');
  await waitText(overlay, '#ov-event', 'Autumn Cup 1809 · Round 1, table 1', 'the overlay');
  const awaited = game.awaiting.split(',').filter(Boolean);
  const move = await overlay.textContent('#ov-move');
  check(awaited.length === 1 ? move.startsWith(`To move: ${name(awaited[0] === 'A' ? first.a : first.b)}`) : move === 'Both sides to move',
    `the overlay's whose move: "${move}", awaiting ${game.awaiting}`);
  const clocked = await overlay.evaluate(() => !document.getElementById('ov-clock-A').hidden);
  if (clocked) {
    const clocks = await overlay.$$eval('.ov-clock', (nodes) => nodes.map((node) => [node.textContent, node.dataset.running]));
    check(clocks.every(([text]) => /^\d+:\d\d(:\d\d)?$/.test(text) || text === 'time is up'), `the overlay's clocks: ${JSON.stringify(clocks)}`);
    check(clocks.every(([text]) => text === 'time is up' || /^1:(2\d|30):\d\d$/.test(text)), `the clocks of 90 minutes: ${JSON.stringify(clocks)}`);
    const running = clocks.findIndex(([, runs]) => runs === 'true');
    if (running >= 0) {
      const before = clocks[running][0];
      await overlay.waitForTimeout(2100);
      const after = await overlay.textContent(`#ov-clock-${running ? 'B' : 'A'}`);
      check(after !== before, `the running clock does not count down: ${before} then ${after}`);
    }
  } else {
    console.log('note: the game has no state.clock (a server without clocks): the overlay shows none');
  }
  const look = await overlay.evaluate(() => ({
    body: getComputedStyle(document.body).backgroundColor,
    html: getComputedStyle(document.documentElement).backgroundColor,
    wide: document.documentElement.scrollWidth > window.innerWidth,
    tall: document.documentElement.scrollHeight > window.innerHeight,
    controls: document.querySelectorAll('a, button, input, select, textarea, [tabindex]').length,
  }));
  check(look.body === 'rgba(0, 0, 0, 0)' && look.html === 'rgba(0, 0, 0, 0)', `the overlay's background is not transparent: ${JSON.stringify(look)}`);
  check(!look.wide && !look.tall && look.controls === 0, `the overlay scrolls or has controls: ${JSON.stringify(look)}`);
  await overlay.screenshot({ path: join(args.screenshots, 'overlay_1920x1080.png'), omitBackground: true });

  // An unknown tournament, and none in the address.
  const unknown = await open(visitors, `${base}tournament.html#t=${'0'.repeat(32)}`);
  await waitText(unknown, '#t-message-title', 'No such tournament', 'an unknown tournament');
  const none = await open(visitors, `${base}tournament.html`, PHONE);
  await waitText(none, '#t-message-title', 'No tournament in the address', 'no tournament id');

  check(errors.length === 0, `errors in the pages: ${errors.join('; ')}`);
  return tokens;
}, 150000);
