// Consent that cannot be confused (issue 11):
// (a) Airlock's own native dialog for a long look-alike host leads with the
//     registrable domain; a reflexive Return declines and nothing opens
//     (screenshots of the whole screen and of the dialog alone);
// (b) desktop notifications carry no server text and nothing a notification
//     daemon could make a link of: for a server named like a domain and a
//     message full of links, what dunst showed (`dunstctl history`) has no
//     `://`, no server message and no domain but the one Airlock computed;
// (c) the window's Open button ignores clicks for 0.5 s after its card
//     appears or moves: a click on a card that just appeared, or on one that
//     just slid under the pointer because the card above it went, does not
//     accept (the record stays requested); a click after the wait does. The
//     timing logic itself (ui/src/lib/settle.ts) is unit-tested first,
//     without the app.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, ROOT, focusAndKey, sh, sleep, waitFor, waitForNoWindow, waitForWindow, windowsTitled } from './lib/harness.mjs';
import { goTo, openTool, pendingCards, runTool, settleOpened, toolResult, waitElicitationState, waitPendingCard, waitServerState } from './lib/steps.mjs';

const SERVER = 'paypal.com.evil.example';
const HOST = 'accounts.google.com.secure-login.verify-account.example.co.uk';
const LOOK_ALIKE = `https://${HOST}/signin?continue=https%3A%2F%2Fmail.google.com%2F&session=8f2c1e`;
const MESSAGE = 'Your Google session expired. Sign in again at https://accounts.google.com/ or <a href="https://evil.example/x">here</a>';
const DIALOG = `Airlock: ${SERVER} asks you to open a web page`;
const SCREEN = { w: 1280, h: 800 }; // Xvfb (scripts/with-session.sh)
const SETTLE_MS = 500; // ui/src/lib/settle.ts

const apps = [];
after(async () => {
  for (const a of apps) await a.close();
});

function geometry(win) {
  const out = sh('xdotool', ['getwindowgeometry', '--shell', win]) || '';
  const v = Object.fromEntries(out.split('\n').filter(Boolean).map((l) => l.split('=')));
  return { x: Number(v.X), y: Number(v.Y), w: Number(v.WIDTH), h: Number(v.HEIGHT) };
}

/** What dunst shows and keeps of each notification (`dunstctl history`: closed ones). */
function dunstHistory(app) {
  const out = sh('dunstctl', ['history'], { env: app.env });
  if (!out) return [];
  const field = (n, k) => n[k]?.data;
  return JSON.parse(out).data.flat().map((n) => ({
    id: field(n, 'id'), app: field(n, 'appname'), summary: field(n, 'summary'), body: field(n, 'body'), message: field(n, 'message'),
  }));
}

test('the settle guard (ui/src/lib/settle.ts): a click counts only after 0.5 s in one place', async () => {
  // Transpiled with the UI's own TypeScript, imported as a module.
  const ts = createRequire(path.join(ROOT, 'ui/package.json'))('typescript');
  const source = fs.readFileSync(path.join(ROOT, 'ui/src/lib/settle.ts'), 'utf8');
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const { SETTLE_MS: settleMs, SettleGuard, sameBox } = await import(`data:text/javascript,${encodeURIComponent(js)}`);
  assert.equal(settleMs, SETTLE_MS);
  const at = (y, height = 40) => ({ x: 800, y, width: 150, height });

  const g = new SettleGuard();
  assert.equal(g.settled(0), false, 'not ready before it was ever seen');
  assert.equal(g.remaining(0), SETTLE_MS);
  assert.equal(g.observe(at(100), 1000), true, 'appeared: the wait starts');
  assert.equal(g.settled(1000 + SETTLE_MS - 1), false);
  assert.equal(g.observe(at(100.4), 1200), false, 'sub-pixel noise is not a move');
  assert.equal(g.settled(1000 + SETTLE_MS), true, 'still for the whole wait: ready');
  assert.equal(g.observe(at(60), 2000), true, 'moved up: the wait starts over');
  assert.equal(g.settled(2000 + SETTLE_MS - 1), false);
  assert.equal(g.remaining(2100), SETTLE_MS - 100);
  assert.equal(g.observe(at(60, 80), 2200), true, 'grew: the wait starts over');
  assert.equal(g.settled(2600), false);
  assert.equal(g.settled(2700), true);
  // At the moment of a click: a move no observer saw yet is caught, and restarts the wait.
  assert.equal(g.allows(at(20, 80), 3000), false, 'a click right as it moved does not count');
  assert.equal(g.allows(at(20, 80), 3000 + SETTLE_MS - 1), false);
  assert.equal(g.allows(at(20, 80), 3000 + SETTLE_MS), true, 'the same click after the wait counts');
  assert.equal(new SettleGuard(200).allows(at(0), 0), false, 'a click on a control never seen before does not count');
  assert.equal(sameBox(at(0), at(0.9)), true);
  assert.equal(sameBox(at(0), at(1)), false);
});

test('a long look-alike host: the dialog leads with the registrable domain, Return declines; notifications carry no link', { timeout: 150_000 }, async () => {
  const app = await App.launch('10-look-alike-dialog', {
    before: (a) => a.cli('servers', 'add', SERVER, '--command', BIN.python, '--', BIN.pyServer, 'stdio'),
  });
  apps.push(app);
  await waitServerState(app, SERVER, 'ready');
  await openTool(app, SERVER, 'connect_account');
  await runTool(app, { url: LOOK_ALIKE, message: MESSAGE });

  const win = await waitForWindow(DIALOG);
  const [record] = await waitFor('the request', async () => {
    const r = await app.elicitations();
    return r.length ? r : null;
  });
  assert.equal(record.registrable_domain, 'example.co.uk');
  assert.deepEqual(windowsTitled(`${DIALOG} (request ${record.id})`), [win], 'one dialog, titled with its request');
  const g = geometry(win);
  assert.ok(g.w > 0 && g.w <= SCREEN.w && g.h > 0 && g.h <= SCREEN.h, `the dialog fits on the screen: ${JSON.stringify(g)}`);
  await app.shot('look-alike-dialog');
  // The dialog alone, as the person sees it.
  execFileSync('import', ['-window', win, path.join(app.artifactDir, 'look-alike-dialog-only.png')], { env: app.env, timeout: 15000 });

  // A reflexive Return declines.
  focusAndKey(win, 'Return');
  await waitForNoWindow(DIALOG);
  const declined = await toolResult(app);
  assert.match(declined, /action=decline/);
  assert.deepEqual(await settleOpened(app), [], 'nothing was opened');
  assert.equal((await app.elicitations())[0].state, 'declined');
  await app.shot('declined');

  // Again, with the window in the background (no window manager here: the
  // pointer off the window and the focus on the root window), so the
  // request is also announced by a notification; opened this time: on 2026-07-28 the page is "late" at
  // once, and its notification (Continue / Cancel) names the server and the
  // domain.
  const root = (sh('xwininfo', ['-root', '-int']) || '').match(/Window id: (\d+)/)?.[1];
  assert.ok(root, 'the root window');
  execFileSync('xdotool', ['mousemove', '2', '2'], { timeout: 15000 });
  execFileSync('xdotool', ['windowfocus', '--sync', root], { timeout: 15000 });
  // Started without a click in the window (a click would bring it forward).
  await startCall(app, SERVER, 'connect_account', { url: LOOK_ALIKE, message: MESSAGE });
  const win2 = await waitForWindow(DIALOG);
  focusAndKey(win2, 'Tab', 'space');
  await waitForNoWindow(DIALOG);
  await waitFor('the browser to get the page', () => app.opened().length === 1);
  assert.deepEqual(app.opened(), [LOOK_ALIKE]);
  const asked = app.notifications().find((n) => n.actions.includes('review') || n.actions.includes('open'));
  assert.ok(asked, `the request was announced by a notification: ${JSON.stringify(app.notifications())}`);
  assert.equal(asked.summary, 'paypal[.]com[.]evil[.]example asks you to open example.co.uk');
  const late = await waitFor('the late notification', () => app.notifications().find((n) => n.actions.includes('continue')));
  assert.equal(late.summary, 'Still waiting for example.co.uk');
  assert.match(late.body, /^paypal\[\.\]com\[\.\]evil\[\.\]example has not heard back yet\./);
  await sleep(300);
  await app.shot('late-notification');
  const card = await waitPendingCard(app, (c) => c.kind === 'late');
  await app.click(`continue-${card.id}`);
  await waitElicitationState(app, card.id, 'continued');
  // Answered in the window: Airlock withdraws it, and dunst keeps it in its history.
  const ours = () => new Set(app.notifications().map((n) => n.id).filter(Boolean));
  const shown = await waitFor('the notifications in dunst\'s history', () => {
    const ids = ours();
    const h = dunstHistory(app).filter((n) => ids.has(n.id));
    return h.length >= ids.size && ids.size > 0 ? h : null;
  });

  // Every notification this test sent (as sent on D-Bus, and as dunst shows it).
  const sent = app.notifications();
  console.log(`# notifications sent: ${JSON.stringify(sent.map(({ summary, body, actions }) => ({ summary, body, actions })))}`);
  console.log(`# dunst history: ${JSON.stringify(shown)}`);
  for (const n of [...sent, ...shown]) {
    for (const text of [n.summary, n.body, n.message, ...(n.actions || [])].filter((t) => t !== undefined)) {
      assert.ok(!text.includes('://'), `no "://" in ${JSON.stringify(text)}`);
      assert.ok(!/evil\.example|paypal\.com|google\.com|<a|href/i.test(text), `no server text or link in ${JSON.stringify(text)}`);
    }
  }
  assert.ok(shown.some((n) => n.message?.includes('example.co.uk')), 'dunst showed the registrable domain');
});

/** Start a tool call from the page without waiting for it (it waits for consent). */
async function startCall(app, server, tool, args) {
  await app.b.execute((s, t, a) => {
    window.__TAURI_INTERNALS__.invoke('call_tool', { server: s, tool: t, arguments: a }).catch(() => undefined);
  }, server, tool, args);
}

/**
 * In the page, on its own clock: every click that reaches an Open button
 * (capture phase: which, when, whether it showed ready), and when each Open
 * button came into and went out of the page (a mutation observer runs as
 * soon as the DOM changes).
 */
async function recordClicks(app) {
  await app.b.execute(() => {
    window.__clicks = [];
    document.addEventListener('click', (e) => {
      const b = e.target instanceof Element ? e.target.closest('[data-testid^="open-"]') : null;
      if (b) window.__clicks.push({ id: b.getAttribute('data-testid'), t: performance.now(), settled: b.getAttribute('data-settled'), trusted: e.isTrusted });
    }, true);
    window.__came = {};
    window.__went = {};
    const scan = () => {
      const now = performance.now();
      for (const el of document.querySelectorAll('[data-testid^="open-"]')) {
        const id = el.getAttribute('data-testid');
        if (!(id in window.__came)) window.__came[id] = now;
      }
      for (const id of Object.keys(window.__came)) {
        if (!(id in window.__went) && !document.querySelector(`[data-testid="${id}"]`)) window.__went[id] = now;
      }
    };
    new MutationObserver(scan).observe(document.body, { childList: true, subtree: true });
    scan();
  });
}

async function cameAt(app, id) {
  return app.b.execute((i) => window.__came[`open-${i}`], id);
}

async function wentAt(app, id) {
  return app.b.execute((i) => window.__went[`open-${i}`], id);
}

async function takeClicks(app, testid) {
  return (await app.b.execute(() => window.__clicks.splice(0))).filter((c) => c.id === testid);
}

async function stateOf(app, id) {
  return (await app.elicitations()).find((r) => r.id === id)?.state;
}

async function openSettled(app, id) {
  return app.b.execute((i) => document.querySelector(`[data-testid="open-${i}"]`)?.getAttribute('data-settled'), id);
}

async function waitSettled(app, id) {
  await waitFor(`Open of ${id} to be ready`, async () => (await openSettled(app, id)) === 'true', { timeout: 5000, interval: 50 });
}

/** A real pointer click at viewport coordinates (WebDriver actions): what a person's click is. */
async function clickAt(app, { x, y }) {
  await app.b.action('pointer', { parameters: { pointerType: 'mouse' } })
    .move({ x: Math.round(x), y: Math.round(y), origin: 'viewport' })
    .down({ button: 0 })
    .up({ button: 0 })
    .perform();
}

// The page's own clock decides when a click came (performance.now() in the
// page, from the moment the card came or the card above it went); a click
// is early when it came inside the wait, with a small margin.
const EARLY_MS = SETTLE_MS - 50;

test('Open ignores clicks for 0.5 s after its card appears or moves', { timeout: 240_000 }, async () => {
  const app = await App.launch('10-open-settles', {
    settings: { max_per_minute: 60, max_pending_per_server: 5 },
    before: (a) => a.cli('servers', 'add', 'everything', '--command', 'node', '--', BIN.everything, 'stdio'),
  });
  apps.push(app);
  const { b } = app;
  await waitServerState(app, 'everything', 'ready');
  await goTo(app, 'elicitations');
  await recordClicks(app);
  // The first pointer action of a session is slow: get it done.
  await app.b.action('pointer', { parameters: { pointerType: 'mouse' } }).move({ x: 5, y: 5, origin: 'viewport' }).perform();
  const expectOpened = [];
  let appearChecked = false;
  let moveChecked = false;

  // The test's clicks go through WebDriver: if one is slow (a busy machine)
  // it comes after the wait and rightly counts; then try again with new cards.
  for (let attempt = 1; attempt <= 4 && !(appearChecked && moveChecked); attempt++) {
    const A = `https://one.example/first-${attempt}`;
    const B = `https://two.example/second-${attempt}`;

    // 1. Card A appears (its Open is not ready at first), then settles.
    await startCall(app, 'everything', 'trigger-url-elicitation', { url: A, message: 'first' });
    const a = await waitPendingCard(app, (c) => c.text.includes(`first-${attempt}`));
    await waitSettled(app, a.id);

    // 2. Card B appears below A (A does not move: it stays ready). A click on
    //    B's Open as soon as it appears does not count.
    const known = (await pendingCards(app)).map((c) => c.id);
    await startCall(app, 'everything', 'trigger-url-elicitation', { url: B, message: 'second' });
    const seen = await b.executeAsync((old, done) => {
      const t0 = performance.now();
      const tick = () => {
        const el = [...document.querySelectorAll('[data-testid^="open-"]')].find((e) => !old.includes(Number(e.getAttribute('data-testid').slice(5))));
        if (el) {
          // In view for the pointer (scrolling does not move it in the layout).
          el.scrollIntoView({ block: 'center' });
          const r = el.getBoundingClientRect();
          done({ id: Number(el.getAttribute('data-testid').slice(5)), settled: el.getAttribute('data-settled'), spot: { x: r.left + r.width / 2, y: r.top + r.height / 2 } });
        } else if (performance.now() - t0 > 15000) done(null);
        else requestAnimationFrame(tick);
      };
      tick();
    }, known);
    assert.ok(seen, 'card B appeared');
    assert.equal(seen.settled, 'false', 'B\'s Open shows it is not ready yet');
    await clickAt(app, seen.spot);
    let [click] = await takeClicks(app, `open-${seen.id}`);
    assert.ok(click?.trusted, 'a real click reached B\'s Open');
    let gap = click.t - (await cameAt(app, seen.id));
    console.log(`# attempt ${attempt}: click ${Math.round(gap)} ms after B appeared (ready: ${click.settled})`);
    await sleep(400);
    if (gap < EARLY_MS) {
      assert.equal(click.settled, 'false');
      assert.equal(await stateOf(app, seen.id), 'requested', 'the click on a card that just appeared did not accept it');
      assert.ok(!app.opened().includes(B), 'B was not opened');
      if (!appearChecked) await app.shot('click-on-a-card-that-just-appeared');
      appearChecked = true;
    }
    if (gap >= EARLY_MS) {
      // Too slow to tell: the click came (about) after the wait; it may have counted.
      if ((await stateOf(app, seen.id)) !== 'requested') expectOpened.push(B);
      for (const id of [a.id, seen.id]) await b.execute((i) => document.querySelector(`[data-testid="decline-${i}"]`)?.click(), id);
      await waitFor('the cards to go', async () => (await pendingCards(app)).length === 0);
      continue;
    }
    assert.equal(await openSettled(app, a.id), 'true', 'A did not move: still ready');

    // 3. The pointer rests on A's Open; the person opens A. A goes, B slides
    //    up under the pointer: a second click there right away does not count.
    await waitSettled(app, seen.id);
    const spot = await b.execute((id) => {
      document.querySelector('main')?.scrollTo({ top: 0 });
      const r = document.querySelector(`[data-testid="open-${id}"]`).getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    }, a.id);
    await sleep(100);
    const bBefore = await b.execute((id) => document.querySelector(`[data-testid="open-${id}"]`).getBoundingClientRect().top, seen.id);
    await clickAt(app, spot);
    expectOpened.push(A);
    const shifted = await b.executeAsync((id, p, done) => {
      const t0 = performance.now();
      const tick = () => {
        const el = document.querySelector(`[data-testid="open-${id}"]`);
        const r = el?.getBoundingClientRect();
        if (r && p.x >= r.left && p.x <= r.right && p.y >= r.top && p.y <= r.bottom) {
          done({ top: r.top });
        } else if (performance.now() - t0 > 15000) done(null);
        else requestAnimationFrame(tick);
      };
      tick();
    }, seen.id, spot);
    assert.ok(shifted, 'B slid under the pointer');
    assert.ok(shifted.top < bBefore, `B moved up (${bBefore} -> ${shifted.top})`);
    await clickAt(app, spot);
    [click] = await takeClicks(app, `open-${seen.id}`);
    assert.ok(click?.trusted, 'the second click landed on B\'s Open');
    gap = click.t - (await wentAt(app, a.id));
    console.log(`# attempt ${attempt}: click ${Math.round(gap)} ms after B moved (ready: ${click.settled})`);
    await waitFor('A to be opened', () => app.opened().includes(A), { timeout: 10000 });
    await sleep(400);
    if (gap >= EARLY_MS) {
      if ((await stateOf(app, seen.id)) !== 'requested') expectOpened.push(B);
      else await b.execute((id) => document.querySelector(`[data-testid="decline-${id}"]`)?.click(), seen.id);
      await waitFor('the cards to go', async () => (await pendingCards(app)).length === 0);
      continue;
    }
    assert.equal(click.settled, 'false');
    assert.equal(await stateOf(app, seen.id), 'requested', 'the click right after the move did not accept B');
    assert.ok(!app.opened().includes(B), 'B was not opened');
    if (!moveChecked) await app.shot('click-on-a-card-that-just-moved');
    moveChecked = true;

    // 4. After the wait, the same click opens B.
    await waitSettled(app, seen.id);
    await app.shot('b-ready');
    await clickAt(app, spot);
    expectOpened.push(B);
    await waitFor('B to be opened', () => app.opened().includes(B), { timeout: 10000 });
    await waitFor('no card left', async () => (await pendingCards(app)).length === 0);
  }
  assert.ok(appearChecked, 'a click within the wait after a card appeared was seen (the machine was fast enough once in 4 tries)');
  assert.ok(moveChecked, 'a click within the wait after a card moved was seen (the machine was fast enough once in 4 tries)');
  assert.deepEqual(await settleOpened(app, 500), expectOpened, 'only pages whose Open was clicked when ready (or after the wait) opened, once each');
  await app.shot('done');
});
