// The first run leads (issue 39): a new user's window shows "Get started"
// on the Servers page: the person's mark (the one every consent dialog
// shows), then the apps found on this machine; one click plans connecting
// Cursor with its own servers moved into Airlock, the change to its config
// is shown, applied only on confirmation; the server then runs in Airlock,
// Cursor's file names only Airlock, and Finish puts the guide away for good.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, waitFor } from './lib/harness.mjs';
import { goTo, sidewaysOverflow, smallestWindow } from './lib/steps.mjs';

let app;
after(() => app?.close());

test('from an empty window to Cursor connected through Airlock, in three steps', { timeout: 150_000 }, async () => {
  const cursor = { mcpServers: { everything: { command: 'node', args: [BIN.everything, 'stdio'] } } };
  app = await App.launch('21-first-run', {
    before: (a) => {
      fs.mkdirSync(path.join(a.home, '.cursor'), { recursive: true });
      fs.writeFileSync(path.join(a.home, '.cursor/mcp.json'), JSON.stringify(cursor, null, 2));
    },
  });
  const cursorFile = path.join(app.home, '.cursor/mcp.json');
  await smallestWindow(app);
  await goTo(app, 'servers');

  // 1. The mark, as the settings keep it (every consent dialog shows it).
  await app.waitExists('get-started', 20000);
  const mark = (await app.text('guide-mark'))?.trim();
  const saved = JSON.parse(fs.readFileSync(path.join(app.dataDir, 'desktop-settings.json'), 'utf8'));
  assert.equal(mark, saved.consent_mark, 'the guide shows the mark the settings keep');
  assert.match(mark, /^[a-z]+ [a-z]+ \d{2}$/);
  assert.equal(await app.exists('servers-empty'), true, 'no server yet');

  // 2. Cursor was found; connect it and move its server into Airlock.
  await app.waitExists('guide-app-cursor', 20000);
  const o = await sidewaysOverflow(app);
  assert.ok(o.scrollWidth <= o.clientWidth, `the guide fits at 900×600 (${o.scrollWidth} > ${o.clientWidth})`);
  await app.shot('first-run-guide');
  await app.click('guide-connect-cursor');
  await app.waitExists('apps-review');
  assert.match(await app.text('apps-moved'), /everything/, 'the review names the server that moves in');
  assert.equal(fs.readFileSync(cursorFile, 'utf8'), JSON.stringify(cursor, null, 2), 'nothing written before the confirmation');
  await app.shot('first-run-review');
  await app.click('apps-apply');

  // 3. Done: the server is Airlock's, Cursor's config names only Airlock.
  await app.waitExists('guide-done', 20000);
  assert.match(await app.text('guide-done'), /Cursor now reaches its servers through Airlock/);
  const written = JSON.parse(fs.readFileSync(cursorFile, 'utf8'));
  assert.deepEqual(Object.keys(written.mcpServers), ['airlock'], JSON.stringify(written));
  await app.waitExists('server-row-everything', 20000);
  const servers = app.cliJson('servers', 'list');
  assert.ok(servers.some((s) => s.name === 'everything'), JSON.stringify(servers));
  await app.shot('first-run-done');

  await app.click('guide-finish');
  await waitFor('the guide to go', async () => !(await app.exists('get-started')));
  const after = JSON.parse(fs.readFileSync(path.join(app.dataDir, 'desktop-settings.json'), 'utf8'));
  assert.equal(after.guide_done, true, 'finished for good');
  assert.equal(after.consent_mark, mark, 'the mark stays');
});

test('the audit trail exports as CSV through Airlock\'s own save dialog', { timeout: 90_000 }, async () => {
  const { execFileSync } = await import('node:child_process');
  const { focusAndKey, waitForWindow, waitForNoWindow } = await import('./lib/harness.mjs');
  const exp = await App.launch('21-audit-export', { settings: { guide_done: true } });
  try {
    exp.cli('servers', 'add', 'everything', '--command', 'node', '--', BIN.everything, 'stdio');
    exp.cli('tools', 'off', 'everything', 'echo');
    await goTo(exp, 'history');
    await exp.click('history-tab-audit');
    await exp.click('audit-export-csv');
    const win = await waitForWindow('Export the audit trail');
    await exp.shot('audit-export-dialog');
    const target = path.join(exp.dir, 'exported-audit.csv');
    // The name field has the focus: select it, type the whole path, Return.
    focusAndKey(win, 'ctrl+a');
    execFileSync('xdotool', ['type', '--window', win, '--delay', '20', target], { timeout: 30000 });
    focusAndKey(win, 'Return');
    await waitForNoWindow('Export the audit trail');
    await waitFor('the file written', () => fs.existsSync(target) && fs.readFileSync(target, 'utf8').includes('tool_switched'), { timeout: 15000 });
    const lines = fs.readFileSync(target, 'utf8').split('\r\n').filter(Boolean);
    assert.equal(lines[0], 'id,time_utc,server,kind,detail');
    const all = exp.cliJson('audit', '--limit', '1000');
    assert.equal(lines.length - 1, all.length, 'every event, one row each');
    assert.ok(lines.some((l) => l.includes('"everything","tool_switched"')), lines.join('\n'));
  } finally {
    await exp.close();
  }
});
