// Bad input from a hostile MCP server (tests/e2e/peers/hostile_peer.py,
// 2025-11-25, raw elicitation/create requests):
// (a) a URL elicitation every 10 ms for 2 s: the window stays responsive, at
//     most 3 consent cards and dialogs wait at once, the rest are recorded
//     rate_limited;
// (b) a 1 MB message with a 100,000-character URL (blocked as too_long: a
//     "blocked" dialog with the reason, nothing to open) and with a
//     6,000-character URL (a consent dialog and an inbox card of bounded size,
//     the URL elided in the middle with a "Show full URL" toggle);
// (c) the server exits while its consent dialog is up: the dialog closes by
//     itself, the card goes, the record says connection_lost.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, ROOT, focusAndKey, sh, sleep, waitFor, waitForNoWindow, waitForWindow, windowsTitled } from './lib/harness.mjs';
import { allElicitationRows, goTo, openTool, pendingCards, runTool, settleOpened, toolResult, waitElicitationState, waitPendingCard, waitServerState } from './lib/steps.mjs';

const PEER = path.join(ROOT, 'tests/e2e/peers/hostile_peer.py');
const DIALOG = 'Airlock: hostile asks you to open a web page';
const BLOCKED = 'Airlock blocked a web page from hostile';
// The broker's defaults (airlock-core elicitation/mod.rs).
const MAX_PENDING_PER_SERVER = 3;
const MAX_MESSAGE_CHARS = 4096;
const URL_SHOWN_CHARS = 240; // ConsentCard.svelte
const SCREEN = { w: 1280, h: 800 }; // Xvfb (scripts/with-session.sh)

const apps = [];
after(async () => {
  for (const a of apps) await a.close();
});

async function launch(name) {
  const app = await App.launch(name, {
    // The vanish test's trigger file is in peer-out, the one folder of the
    // test's the confined server may read.
    before: (a) => {
      fs.mkdirSync(path.join(a.dir, 'peer-out'), { recursive: true });
      a.cli('servers', 'add', 'hostile', '--allow-read', path.join(a.dir, 'peer-out'), '--command', BIN.python, '--', PEER, 'stdio');
    },
  });
  apps.push(app);
  await waitServerState(app, 'hostile', 'ready');
  return app;
}

/** Every elicitation record (the CLI lists 20 by default). */
function allRecords(app) {
  return app.cliJson('elicitations', '--limit', '100000');
}

const HEADINGS = { servers: 'Servers', elicitations: 'Requests', history: 'History', settings: 'Settings' };

/**
 * Click a page in the sidebar and read its heading: how long it took, in ms.
 * Fails if the window does not answer within 2 s.
 */
async function responsive(app, page) {
  const t0 = Date.now();
  await (await app.$(`nav-${page}`)).click();
  const heading = await waitFor(`the ${page} page within 2 s`, () => app.b.execute((p) => document.querySelector(`[data-testid="nav-${p}"]`)?.getAttribute('aria-current') === 'page'
    && document.querySelector('h1')?.textContent.trim(), page), { timeout: 2000, interval: 20 });
  const ms = Date.now() - t0;
  assert.equal(heading, HEADINGS[page], `the ${page} page shows its heading`);
  assert.ok(ms < 2000, `the window answered a click on ${page} in ${ms} ms`);
  return ms;
}

/** Size of an X window: { w, h }. */
function geometry(win) {
  const out = sh('xdotool', ['getwindowgeometry', '--shell', win]) || '';
  const get = (k) => Number(out.match(new RegExp(`^${k}=(\\d+)$`, 'm'))?.[1]);
  return { w: get('WIDTH'), h: get('HEIGHT') };
}

/** The text of the last call in the history (the CLI on the same data dir). */
function lastCallText(app) {
  const [call] = app.cliJson('history').calls;
  return { call, text: (call?.result?.content || []).map((c) => c.text || '').join('\n') };
}

test('a flood of URL elicitations: the window stays responsive, 3 wait at most, the rest are rate_limited', { timeout: 120_000 }, async () => {
  const app = await launch('08-bad-input-flood');
  await openTool(app, 'hostile', 'flood');
  await runTool(app, { seconds: 2, interval_ms: 10 });
  const started = Date.now();

  // While the flood lasts (and a little after): click around, read, count.
  const pages = ['elicitations', 'history', 'elicitations', 'settings', 'elicitations', 'servers'];
  const samples = [];
  let maxDialogs = 0;
  let maxCards = 0;
  let shotDuring = false;
  for (let i = 0; Date.now() - started < 4000; i++) {
    const page = pages[i % pages.length];
    const ms = await responsive(app, page);
    const records = allRecords(app).length;
    const dialogs = windowsTitled(DIALOG).length;
    const cards = page === 'elicitations' ? (await pendingCards(app)).length : 0;
    maxDialogs = Math.max(maxDialogs, dialogs);
    maxCards = Math.max(maxCards, cards);
    samples.push({ at: Date.now() - started, page, ms, records, dialogs, cards });
    assert.ok(dialogs <= MAX_PENDING_PER_SERVER, `at most ${MAX_PENDING_PER_SERVER} consent dialogs at once (saw ${dialogs})`);
    assert.ok(cards <= MAX_PENDING_PER_SERVER, `at most ${MAX_PENDING_PER_SERVER} consent cards at once (saw ${cards})`);
    if (page === 'elicitations' && !shotDuring && records > 20) {
      await app.shot('inbox-during-the-flood');
      shotDuring = true;
    }
  }
  console.log(`# flood samples: ${JSON.stringify(samples)}`);

  // The flood is over once nothing new is recorded for a second.
  let last = -1;
  const records = await waitFor('the flood to end', async () => {
    const r = allRecords(app);
    if (r.length === last) return r;
    last = r.length;
    await sleep(1000);
    return null;
  }, { timeout: 30000, interval: 0 });
  assert.ok(samples.some((s) => s.records > 0 && s.records < records.length), `the window was used while the flood was coming in: ${JSON.stringify(samples.map((s) => s.records))}`);
  assert.ok(records.length >= 50, `the peer sent a flood (${records.length} requests)`);

  const byState = {};
  for (const r of records) byState[r.state] = (byState[r.state] || 0) + 1;
  assert.deepEqual(byState, { requested: MAX_PENDING_PER_SERVER, rate_limited: records.length - MAX_PENDING_PER_SERVER },
    'three wait for consent, every other one was rate limited');
  const limited = records.find((r) => r.state === 'rate_limited');
  assert.deepEqual(await app.statesOf(limited.id), ['requested', 'rate_limited']);
  const reason = app.cliJson('audit', '--limit', '100000')
    .find((e) => e.kind === 'elicitation' && e.detail?.record_id === limited.id && e.detail.state === 'rate_limited')?.detail.reason;
  assert.match(reason, /already waiting for consent/);

  // Exactly the three that wait have a card and a dialog.
  const waiting = records.filter((r) => r.state === 'requested').map((r) => r.id).sort((a, b) => a - b);
  await goTo(app, 'elicitations');
  const cards = await waitFor('the three cards', async () => {
    const c = await pendingCards(app);
    return c.length === MAX_PENDING_PER_SERVER ? c : null;
  });
  assert.deepEqual(cards.map((c) => c.id).sort((a, b) => a - b), waiting);
  assert.equal(windowsTitled(DIALOG).length, MAX_PENDING_PER_SERVER, 'three consent dialogs');
  const notes = app.notifications().filter((n) => /hostile asks you to open/.test(n.summary || ''));
  assert.ok(notes.length <= MAX_PENDING_PER_SERVER, `at most ${MAX_PENDING_PER_SERVER} notifications (got ${notes.length})`);
  await app.shot('inbox-three-waiting-the-rest-rate-limited');

  // The history folds the run of rate-limited requests into one row; expanded,
  // it lists each of them as such. It comes in pages, newest first: older
  // pages load as the end of the list scrolls into view.
  const shown = records.length;
  await app.waitExists('burst-hostile');
  await waitFor('every page of the history', async () => {
    if (await app.exists('el-all')) return true;
    await app.b.execute(() => document.querySelector('[data-testid="el-more"]')?.scrollIntoView({ block: 'end' }));
    return false;
  }, { timeout: 20000, interval: 200 });
  assert.match(await app.text('burst-hostile'), new RegExp(`${shown - MAX_PENDING_PER_SERVER} requests rate-limited from hostile`));
  await app.shot('history-flood-folded');
  await app.click('burst-toggle-hostile');
  await waitFor('the history to list every record', async () => (await allElicitationRows(app)).length === shown);
  const rows = await allElicitationRows(app);
  assert.equal(rows.filter((r) => r.state === 'rate_limited').length, records.length - MAX_PENDING_PER_SERVER);
  assert.equal(rows.find((r) => r.state === 'rate_limited').label, 'Rate limited');
  await app.b.execute(() => document.querySelector('[data-testid^="elicitation-row-"]')?.scrollIntoView({ block: 'start' }));
  await app.shot('history-rate-limited');

  // Answer the three from the window at once, grouped under their server:
  // Decline all; their dialogs go, the tool returns.
  await goTo(app, 'elicitations');
  assert.equal((await app.text('pending-group-count-hostile'))?.trim(), `${MAX_PENDING_PER_SERVER} answers`);
  await app.click('decline-all-hostile');
  await waitFor('the inbox to empty', async () => (await pendingCards(app)).length === 0);
  await waitForNoWindow(DIALOG);
  const { call, text } = await waitFor('the flood call to finish', () => {
    const c = lastCallText(app);
    return c.call && c.call.tool === 'flood' && c.text ? c : null;
  }, { timeout: 20000 });
  assert.equal(call.outcome, 'ok');
  const summary = JSON.parse(text);
  assert.equal(summary.sent, records.length, 'every request the peer sent was recorded');
  assert.deepEqual(summary.answers, { decline: records.length }, 'every request got an answer: decline');
  assert.deepEqual(await settleOpened(app, 500), [], 'nothing was opened');
  await responsive(app, 'history');
  await app.waitExists(`history-row-${call.id}`);
  assert.match(await app.text(`history-row-${call.id}`), /flood/);
  await app.shot('call-history-after-the-flood');
});

test('a 1 MB message and a 100,000-character URL: bounded dialogs and card, no hang; the long URL is blocked', { timeout: 120_000 }, async () => {
  const app = await launch('08-bad-input-huge');
  const { b } = app;

  // 100,000 characters: blocked (too_long) before any consent.
  await openTool(app, 'hostile', 'big');
  await runTool(app, { url_chars: 100000, message_bytes: 1000000, tag: 'huge' });
  const blocked = await waitForWindow(BLOCKED);
  const bg = geometry(blocked);
  assert.ok(bg.w > 0 && bg.w <= SCREEN.w && bg.h > 0 && bg.h <= SCREEN.h, `the blocked dialog fits on the screen: ${JSON.stringify(bg)}`);
  await app.shot('blocked-dialog-100k-url');
  assert.equal(windowsTitled(DIALOG).length, 0, 'no consent dialog for a blocked URL');
  await toolResult(app, (t) => t.includes('"action"'));
  const huge = JSON.parse(await app.text('tool-content-0'));
  assert.deepEqual(huge, { action: 'decline', url_chars: 100000, message_bytes: 1000000 }, 'the server hears decline at once');

  let records = allRecords(app);
  assert.equal(records.length, 1);
  assert.equal(records[0].state, 'blocked');
  assert.deepEqual(await app.statesOf(records[0].id), ['requested', 'blocked']);
  const reason = app.cliJson('audit', '--limit', '1000')
    .find((e) => e.kind === 'elicitation' && e.detail?.record_id === records[0].id && e.detail.state === 'blocked')?.detail.reason;
  assert.equal(reason, 'too_long');
  assert.ok(Array.from(records[0].message).length <= MAX_MESSAGE_CHARS, `the stored message is bounded (${records[0].message.length})`);
  assert.ok(Array.from(records[0].url).length <= 8192, `the stored URL is bounded (${records[0].url.length})`);

  // Its one button, Close, takes Return.
  focusAndKey(blocked, 'Return');
  await waitForNoWindow(BLOCKED);
  assert.deepEqual(await settleOpened(app, 1000), [], 'nothing was opened');
  assert.equal(allRecords(app)[0].state, 'blocked');

  // 6,000 characters with the same 1 MB message: asked, in bounded form.
  await runTool(app, { url_chars: 6000, message_bytes: 1000000, tag: 'long' });
  const win = await waitForWindow(DIALOG);
  await app.shot('consent-dialog-1mb-message-6000-char-url');
  const g = geometry(win);
  console.log(`# consent dialog geometry: ${JSON.stringify(g)}`);
  // Its width is checked in the known-bug test below.
  assert.ok(g.h > 0 && g.h <= SCREEN.h, `the consent dialog's height fits on the screen: ${JSON.stringify(g)}`);

  const card = await waitPendingCard(app, (c) => c.kind === 'consent');
  const measure = () => b.execute((id) => {
    const q = (t) => document.querySelector(`[data-testid="${t}"]`);
    const box = (el) => Math.round(el.getBoundingClientRect().height);
    return {
      card: q(`pending-${id}`).textContent.length,
      cardHeight: box(q(`pending-${id}`)),
      url: q(`full-url-${id}`).textContent,
      urlHeight: box(q(`full-url-${id}`)),
      message: q(`consent-message-${id}`).textContent,
      messageHeight: box(q(`consent-message-${id}`)),
      toggle: q(`show-full-url-${id}`)?.textContent.trim() ?? null,
      expanded: q(`show-full-url-${id}`)?.getAttribute('aria-expanded') ?? null,
      pageWidth: document.documentElement.scrollWidth,
      viewWidth: document.documentElement.clientWidth,
    };
  }, card.id);
  const m = await measure();
  console.log(`# card (elided): ${JSON.stringify({ ...m, url: m.url.length, message: m.message.length })}`);
  assert.equal(card.domain, 'example.com');
  assert.equal(Array.from(m.url).length, URL_SHOWN_CHARS, 'the URL is elided to 240 characters');
  assert.ok(m.url.startsWith('https://example.com/long/') && m.url.endsWith('/END') && m.url.includes('…'), `elided in the middle: ${m.url}`);
  assert.equal(m.toggle, 'Show full URL (6000 characters)');
  assert.equal(m.expanded, 'false');
  assert.ok(Array.from(m.message).length <= MAX_MESSAGE_CHARS && m.message.endsWith('…'), `the message is cut at ${MAX_MESSAGE_CHARS} characters (${m.message.length})`);
  assert.ok(m.message.startsWith('Please open this page to continue.'));
  assert.ok(m.card < 6000, `the card's text is bounded (${m.card} characters)`);
  assert.ok(m.messageHeight <= 200, `the message box is bounded (${m.messageHeight} px), it scrolls`);
  assert.ok(m.cardHeight < SCREEN.h, `the card fits in the window's height (${m.cardHeight} px)`);
  assert.ok(m.pageWidth <= m.viewWidth, `nothing scrolls sideways (${m.pageWidth} > ${m.viewWidth})`);
  await app.b.execute((id) => document.querySelector(`[data-testid="pending-${id}"]`).scrollIntoView({ block: 'start' }), card.id);
  await app.shot('inbox-card-url-elided');

  // The full URL on request, in a bounded, scrolling box; and back.
  await app.click(`show-full-url-${card.id}`);
  const full = await waitFor('the full URL', async () => {
    const v = await measure();
    return v.expanded === 'true' ? v : null;
  });
  assert.equal(full.url.length, 6000, 'the whole URL is shown');
  assert.ok(full.url.startsWith('https://example.com/long/abcdefghij') && full.url.endsWith('/END'));
  assert.equal(full.toggle, 'Show less');
  assert.ok(full.urlHeight <= 220, `the URL box is bounded (${full.urlHeight} px), it scrolls`);
  assert.ok(full.pageWidth <= full.viewWidth, 'nothing scrolls sideways with the full URL');
  await app.shot('inbox-card-full-url');
  await app.click(`show-full-url-${card.id}`);
  await waitFor('the URL elided again', async () => Array.from((await measure()).url).length === URL_SHOWN_CHARS);

  // No hang: the window answers while all this is on screen.
  await responsive(app, 'history');
  await responsive(app, 'elicitations');

  // Decline on the native dialog (Return).
  focusAndKey(win, 'Return');
  await waitForNoWindow(DIALOG);
  await waitFor('the card to leave the inbox', async () => !(await pendingCards(app)).some((c) => c.id === card.id));
  const row = await waitElicitationState(app, card.id, 'declined');
  assert.ok(row.text.length < 600, `the history row is bounded (${row.text.length} characters)`);
  records = allRecords(app);
  assert.deepEqual(records.map((r) => r.state), ['declined', 'blocked']);
  const { text } = await waitFor('the second call to finish', () => {
    const c = lastCallText(app);
    return c.text.includes('"url_chars": 6000') ? c : null;
  });
  assert.equal(JSON.parse(text).action, 'decline');
  assert.deepEqual(await settleOpened(app, 500), [], 'nothing was opened');
  await app.shot('history-blocked-and-declined');
});

test('the consent dialog of a long URL fits on the screen', {
  timeout: 60_000,
}, async () => {
  const app = await launch('08-bad-input-dialog-width');
  await openTool(app, 'hostile', 'big');
  await runTool(app, { url_chars: 6000, message_bytes: 1000000, tag: 'long' });
  const win = await waitForWindow(DIALOG);
  await app.shot('consent-dialog-long-url');
  const g = geometry(win);
  try {
    assert.ok(g.w > 0 && g.w <= SCREEN.w, `the consent dialog is at most ${SCREEN.w} px wide: ${JSON.stringify(g)}`);
    assert.ok(g.h > 0 && g.h <= SCREEN.h, `the consent dialog is at most ${SCREEN.h} px high: ${JSON.stringify(g)}`);
  } finally {
    focusAndKey(win, 'Escape');
    await waitForNoWindow(DIALOG);
  }
});

test('the server exits during its consent dialog: the dialog closes, the card goes, the record is connection_lost', {
  timeout: 90_000,
}, async () => {
  const app = await launch('08-bad-input-vanish');
  const trigger = path.join(app.dir, 'peer-out', 'vanish-now');
  await openTool(app, 'hostile', 'vanish');
  await runTool(app, { trigger });

  await waitForWindow(DIALOG);
  const card = await waitPendingCard(app, (c) => c.kind === 'consent');
  assert.equal(windowsTitled(DIALOG).length, 1);
  await app.shot('consent-before-the-server-exits');

  fs.writeFileSync(trigger, '');
  // Airlock notices the exit (rmcp first gives in-flight handlers 5 s to answer).
  await waitFor('Airlock to log the lost connection', () => app.cli('logs', 'hostile').includes('connection lost'), { timeout: 20000, interval: 500 });
  try {
    await waitForNoWindow(DIALOG, 5000);
  } finally {
    await app.shot('after-the-server-exited');
  }
  await waitFor('the card to leave the inbox', async () => (await pendingCards(app)).length === 0, { timeout: 5000 });
  const row = await waitElicitationState(app, card.id, 'connection_lost');
  assert.equal(row.label, 'Connection lost');
  await app.shot('connection-lost-in-history');

  const records = allRecords(app);
  assert.equal(records.length, 1);
  assert.equal(records[0].state, 'connection_lost');
  assert.deepEqual(await app.statesOf(records[0].id), ['requested', 'connection_lost']);
  assert.deepEqual(await settleOpened(app, 500), [], 'nothing was opened');
  const [call] = app.cliJson('history').calls;
  assert.equal(call.outcome, 'failed', 'the tool call failed with the connection');
  await responsive(app, 'servers');
  await app.shot('servers-after-the-exit');
});
