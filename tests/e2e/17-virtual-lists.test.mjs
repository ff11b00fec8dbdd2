// The History, Elicitations and audit lists are virtualized (issue 15): with a few
// thousand rows in the database (filled by `airlock-bench history --fill`
// before the app starts), the DOM holds only the rows in view plus an
// overscan, older pages load as the user scrolls, and scrolling to the
// bottom shows the oldest row, with its place in the table told to screen
// readers (aria-rowindex / aria-rowcount).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, waitFor } from './lib/harness.mjs';
import { goTo } from './lib/steps.mjs';

const CALLS = 3000; // the generator adds CALLS / 10 elicitations
// Rows in view (800 px screen) plus 600 px of overscan each side, at 30+ px a row: well under 100.
const MAX_DOM_ROWS = 100;

let app;
after(() => app?.close());

/**
 * The rows of a table in the app's database and the oldest of them by the
 * lists' order (newest first: time, then id). Not CALLS: the app prunes
 * rows past its 90-day retention, and the generator's oldest rows sit there.
 */
function inDb(table, time) {
  const db = path.join(app.dataDir, 'airlock.sqlite3');
  const out = execFileSync('python3', ['-c', `import sqlite3,sys
c = sqlite3.connect('file:' + sys.argv[1] + '?mode=ro', uri=True)
print(c.execute('SELECT count(*) FROM ${table}').fetchone()[0])
print(c.execute('SELECT id FROM ${table} ORDER BY ${time} ASC, id ASC LIMIT 1').fetchone()[0])`, db], { encoding: 'utf8' });
  const [count, oldest] = out.trim().split('\n').map(Number);
  return { count, oldest };
}

/** Rows of the list in the DOM, and how many are loaded. */
const domState = (prefix) => app.b.execute((p) => {
  const body = document.querySelector('tbody[data-count]');
  return {
    rows: document.querySelectorAll(`[data-testid^="${p}"]`).length,
    count: Number(body?.dataset.count ?? 0),
  };
}, prefix);

/**
 * Scroll to the bottom again and again until `endTestid` ("That is all.")
 * shows while the list is at its bottom; the DOM row count at each step.
 * Both are read in the same script: read apart, the last page could land
 * between the two reads and leave the bottom a page below the viewport.
 */
async function scrollToEnd(prefix, endTestid) {
  const seen = [];
  await waitFor(`the end of the list (${endTestid})`, async () => {
    const st = await app.b.executeAsync((p, end, done) => {
      const s = document.querySelector('[data-scroll-root]');
      s.scrollTop = s.scrollHeight;
      requestAnimationFrame(() => requestAnimationFrame(() => done({
        rows: document.querySelectorAll(`[data-testid^="${p}"]`).length,
        done: s.scrollTop + s.clientHeight >= s.scrollHeight - 2 && !!document.querySelector(`[data-testid="${end}"]`),
      })));
    }, prefix, endTestid);
    seen.push(st.rows);
    return st.done;
  }, { timeout: 120_000, interval: 50 });
  return seen;
}

test('virtual lists: bounded DOM, older pages on scroll, the oldest row at the bottom', { timeout: 300_000 }, async () => {
  app = await App.launch('17-virtual-lists', {
    before: (a) => {
      execFileSync(path.join(path.dirname(BIN.cli), 'airlock-bench'), ['history', '--rows', String(CALLS), '--fill', a.dataDir], { timeout: 120_000 });
    },
  });

  // ---- History, tool calls: 3,000 rows.
  await goTo(app, 'history');
  await app.waitExists('history-body');
  await waitFor('the first page', async () => (await domState('history-row-')).rows > 0);
  const first = await domState('history-row-');
  assert.ok(first.rows <= MAX_DOM_ROWS, `first page: ${first.rows} rows in the DOM`);
  await app.shot('history-first-page');

  // Keyboard focus on a row's button survives scrolling that row far out
  // of view and back (the row stays in the DOM while it holds focus).
  const focusedRow = await app.b.execute(() => {
    const btn = document.querySelector('[data-testid^="history-expand-"]');
    btn.focus();
    return btn.closest('tr').getAttribute('data-testid');
  });
  const focusAfter = async (top) => {
    await app.b.executeAsync((y, done) => {
      document.querySelector('[data-scroll-root]').scrollTop = y;
      requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(done)));
    }, top);
    return app.b.execute(() => document.activeElement?.closest('tr')?.getAttribute('data-testid') ?? document.activeElement?.tagName);
  };
  assert.equal(await focusAfter(1500), focusedRow, 'focus stays on its row a page below');
  assert.equal(await focusAfter(0), focusedRow, 'and when scrolled back');
  assert.ok((await domState('history-row-')).rows <= MAX_DOM_ROWS);
  await app.b.execute(() => document.activeElement?.blur());

  const seen = await scrollToEnd('history-row-', 'history-all');
  const end = await domState('history-row-');
  const calls = inDb('tool_calls', 'started_at');
  assert.ok(calls.count > CALLS - 10, `the database holds the calls (${calls.count})`);
  assert.equal(end.count, calls.count, 'every call was loaded, page after page');
  assert.ok(Math.max(...seen) <= MAX_DOM_ROWS, `at most ${MAX_DOM_ROWS} rows in the DOM while scrolling (saw ${Math.max(...seen)})`);
  const old = calls.oldest;
  const row = await app.waitExists(`history-row-${old}`);
  const onScreen = await app.b.execute((id) => {
    const r = document.querySelector(`[data-testid="history-row-${id}"]`).getBoundingClientRect();
    const v = document.querySelector('[data-scroll-root]').getBoundingClientRect();
    return r.height > 0 && r.top >= v.top && r.bottom <= v.bottom;
  }, old);
  assert.ok(onScreen, 'the oldest call is on screen at the bottom');
  assert.equal(await row.getAttribute('aria-rowindex'), String(calls.count + 1), 'the oldest call is the last row for screen readers');
  assert.equal(await app.b.execute(() => document.querySelector('[data-testid="history-table"]').getAttribute('aria-rowcount')), String(calls.count + 1));
  await app.shot('history-scrolled-to-the-oldest-call');

  // Back to the top: the newest rows again, the DOM still small.
  await app.b.executeAsync((done) => {
    document.querySelector('[data-scroll-root]').scrollTop = 0;
    requestAnimationFrame(() => requestAnimationFrame(done));
  });
  const top = await domState('history-row-');
  assert.ok(top.rows > 0 && top.rows <= MAX_DOM_ROWS, `back at the top: ${top.rows} rows`);
  assert.equal(await app.exists(`history-row-${old}`), false, 'the oldest call left the DOM');

  // ---- Elicitations: 300 requests.
  await goTo(app, 'elicitations');
  await waitFor('the first page', async () => (await domState('elicitation-row-')).rows > 0);
  assert.ok((await domState('elicitation-row-')).rows <= MAX_DOM_ROWS);
  const elSeen = await scrollToEnd('elicitation-row-', 'el-all');
  assert.ok(Math.max(...elSeen) <= MAX_DOM_ROWS, `at most ${MAX_DOM_ROWS} rows in the DOM (saw ${Math.max(...elSeen)})`);
  const oldEl = inDb('elicitations', 'created_at').oldest;
  // The oldest request is its own row, or folded into a burst of rate-limited ones (the last row then).
  const last = await app.b.execute(() => {
    const rows = [...document.querySelectorAll('tbody[data-count] tr:not(.v-spacer)')];
    const tr = rows[rows.length - 1];
    return { testid: tr?.getAttribute('data-testid'), index: tr?.getAttribute('aria-rowindex'), count: document.querySelector('tbody[data-count]').dataset.count };
  });
  assert.ok(last.testid === `elicitation-row-${oldEl}` || last.testid?.startsWith('burst-'), `the last row is the oldest request (${oldEl}): ${JSON.stringify(last)}`);
  assert.equal(last.index, String(Number(last.count) + 1));
  await app.shot('elicitations-scrolled-to-the-oldest');

  // ---- Audit trail: 600 events, more than the 500 the window once stopped at.
  await goTo(app, 'history');
  await app.click('history-tab-audit');
  await waitFor('the first page', async () => (await domState('audit-row-')).rows > 0);
  const auSeen = await scrollToEnd('audit-row-', 'audit-all');
  const audit = inDb('audit_events', 'at');
  assert.ok(audit.count > 500, `the database holds the events (${audit.count})`);
  assert.equal((await domState('audit-row-')).count, audit.count, 'every event was loaded, page after page');
  assert.ok(Math.max(...auSeen) <= MAX_DOM_ROWS, `at most ${MAX_DOM_ROWS} rows in the DOM (saw ${Math.max(...auSeen)})`);
  await app.waitExists(`audit-row-${audit.oldest}`);
  await app.shot('audit-scrolled-to-the-oldest');
});
