// The Apps page's cards and the activity overview (issues 13, 27). Cursor
// is connected from the Apps page (which then offers "Start Airlock at
// login" once: accepting writes the XDG autostart entry under the test's
// HOME; the Settings switch removes it). An app on the official TypeScript
// SDK client attaches as `airlock gateway --stdio --app cursor`: Cursor's
// card, among the apps in use, shows it attached with its last call;
// pausing it there makes its next call come back "paused in Airlock", and
// nothing reaches the server. The History page's Activity tab then shows
// the calls and the requests (one accepted, one declined, seeded through
// the CLI) with their counts; the card's profile editor limits its servers.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, ROOT, waitFor } from './lib/harness.mjs';
import { goTo, smallestWindow, waitServerState } from './lib/steps.mjs';

let app;
after(() => app?.close());

const CURSOR = '{\n  "mcpServers": {}\n}\n';

const attr = (sel, name) => app.b.execute((s, n) => document.querySelector(s)?.getAttribute(n) ?? null, sel, name);
const texts = (sel) => app.b.execute((s) => [...document.querySelectorAll(s)].map((e) => e.textContent.trim()), sel);

test('apps: attached, last calls, pause refuses; activity overview counts; the profile limits servers', { timeout: 180_000 }, async () => {
  app = await App.launch('15-apps-activity', {
    before: (a) => {
      a.cli('servers', 'add', 'py', '--command', BIN.python, '--', BIN.pyServer, 'stdio');
      fs.mkdirSync(path.join(a.home, '.cursor'), { recursive: true });
      fs.writeFileSync(path.join(a.home, '.cursor/mcp.json'), CURSOR);
    },
  });
  await waitServerState(app, 'py', 'ready');
  const autostartFile = path.join(app.home, '.config/autostart/Airlock.desktop');

  // ---- Connect Cursor, then the one-time offer to start at login.
  await goTo(app, 'apps');
  await app.click('app-connect-cursor');
  await app.waitExists('apps-diff');
  await app.click('apps-apply');
  await app.waitExists('autostart-offer');
  assert.equal(fs.existsSync(autostartFile), false, 'off by default');
  await app.shot('apps-offers-start-at-login');
  await app.click('autostart-offer-yes');
  await waitFor('the autostart entry', () => fs.existsSync(autostartFile));
  const entry = fs.readFileSync(autostartFile, 'utf8');
  // The program path quoted (a space in it must not split it), started hidden in the tray.
  assert.match(entry, /^Exec=".*airlock-desktop" --hidden$/m, entry);
  // The entry is written before the page hears back, so the offer goes a moment later.
  await waitFor('the offer gone', async () => !(await app.exists('autostart-offer')));
  // Offered once: never again.
  assert.equal(JSON.parse(fs.readFileSync(path.join(app.dataDir, 'desktop-settings.json'), 'utf8')).autostart_offered, true);
  await goTo(app, 'settings');
  await waitFor('the switch shows it on', async () => (await app.b.execute(() => document.querySelector('[data-testid="settings-autostart"]')?.checked)) === true);
  await app.click('settings-autostart');
  await waitFor('the autostart entry removed', () => !fs.existsSync(autostartFile));

  // ---- An app attaches as cursor, calls, and waits for the test.
  const go = path.join(app.dir, 'go-on');
  const log = (text) => ({ op: 'call', name: 'py__log_something', arguments: { text } });
  const ops = [log('first-call-5e1d'), { op: 'wait_file', path: go, timeout_ms: 90000 }, log('while-paused-0b9c')];
  const client = spawn('node', [
    path.join(ROOT, 'tests/peers/gateway_client.mjs'), '--name', 'cursor-e2e', '--ops', JSON.stringify(ops), '--',
    BIN.cli, '--data-dir', app.dataDir, 'gateway', '--stdio', '--no-start', '--app', 'cursor',
  ], { env: app.env, stdio: ['ignore', 'pipe', 'pipe'] });
  app.children.push(client);
  let out = '';
  let err = '';
  client.stdout.on('data', (d) => { out += d; });
  client.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => client.on('exit', resolve));

  await goTo(app, 'apps');
  const card = '[data-testid="apps-in-use"] [data-testid="app-cursor"]';
  await waitFor('cursor attached', async () => (await attr(card, 'data-attached')) === '1', { timeout: 30000 });
  await waitFor('its last call', async () => (await texts(`${card} [data-testid="app-call"]`)).some((t) => t.includes('py › log_something')), { timeout: 20000 });
  assert.match((await texts(`${card} [data-testid="app-attached"]`))[0], /^Open now/);
  assert.equal((await texts(`${card} h3`))[0], 'Cursor');
  assert.equal((await texts(`${card} [data-testid="app-state-cursor"]`))[0], 'Connected');
  await app.shot('apps-page-attached');

  // ---- Pause it: its next call is refused, and says why.
  await app.b.execute((s) => document.querySelector(`${s} [data-testid="app-pause"]`).click(), card);
  await waitFor('paused', async () => (await attr(card, 'data-paused')) === 'true');
  assert.equal(app.cliJson('apps', 'show', 'cursor').paused, true, 'stored: the CLI sees it');
  fs.writeFileSync(go, '');
  assert.equal(await exited, 0, `the app ended cleanly: ${err}`);
  const replies = out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(replies[0].result?.isError ?? false, false, JSON.stringify(replies[0]));
  const refused = replies[2];
  assert.equal(refused.result?.isError, true, JSON.stringify(refused));
  assert.match(JSON.stringify(refused.result), /paused in Airlock/);
  const logs = app.cli('logs', 'py');
  assert.match(logs, /first-call-5e1d/);
  assert.doesNotMatch(logs, /while-paused-0b9c/, 'nothing reached the server');
  await waitFor('the refusal in its last calls', async () => (await attr(`${card} [data-testid="app-call"]`, 'data-outcome')) === 'failed');
  assert.match((await texts(`${card} [data-testid="app-call"]`))[0], /paused in Airlock/);
  await waitFor('not attached any more', async () => (await attr(card, 'data-attached')) === '0');
  await app.shot('apps-page-paused');

  // ---- History: the App column and filter.
  await app.click('app-all-calls');
  await waitFor('history filtered to cursor', async () => (await app.b.execute(() => document.querySelector('[data-testid="history-filter-app"]')?.value)) === 'cursor');
  await waitFor('two rows', async () => (await texts('[data-testid="history-app"]')).length === 2);
  assert.deepEqual(await texts('[data-testid="history-app"]'), ['cursor', 'cursor']);

  // ---- The audit trail by app: the pause is there, under cursor.
  await app.click('history-tab-audit');
  await waitFor('cursor in the audit filter', () => app.b.execute(() => !!document.querySelector('[data-testid="audit-filter-app"] option[value="cursor"]')));
  await app.b.execute(() => {
    const s = document.querySelector('[data-testid="audit-filter-app"]');
    s.value = 'cursor';
    s.dispatchEvent(new Event('change'));
  });
  await waitFor('only cursor events', async () => {
    const kinds = await texts('[data-testid="audit-table"] td.c-kind');
    return kinds.includes('client_paused') && kinds.every((k) => k.startsWith('client_'));
  });

  // ---- Activity: seed requests through the CLI (one accepted and opened, one declined).
  app.cli('--consent', 'accept', 'call', 'py', 'connect_account', '--args', JSON.stringify({ url: 'https://example.com/connect?e2e=1' }));
  try {
    app.cli('--consent', 'decline', 'call', 'py', 'connect_account', '--args', JSON.stringify({ url: 'https://login.example.org/start' }));
  } catch {
    // A declined request is a failed call for the CLI: that is the point.
  }
  await app.click('history-tab-activity');
  await app.waitExists('activity-calls');
  await waitFor('the counts', async () => (await attr('[data-testid="activity-requests"]', 'data-total')) === '2');
  const today = '[data-testid="activity-requests-day"]:last-of-type';
  assert.equal(await attr(`${today} rect[data-kind="allowed"]`, 'data-count'), '1');
  assert.equal(await attr(`${today} rect[data-kind="declined"]`, 'data-count'), '1');
  // Calls: cursor's two (one refused) and the CLI's two.
  assert.equal(await attr('[data-testid="activity-calls"]', 'data-total'), '4');
  assert.equal(await attr('[data-testid="activity-apps"] li[data-name="cursor"]', 'data-count'), '2');
  assert.equal(await attr('[data-testid="activity-servers"] li[data-name="py"]', 'data-count'), '2');
  // Both requests came from the CLI, not from an app's call: no app is ranked for them.
  assert.deepEqual(await texts('[data-testid="activity-app-requests"] li'), []);
  assert.equal(await attr('[data-testid="activity-domains"] tr[data-domain="example.com"] ', 'data-domain'), 'example.com');
  await app.shot('activity-overview');

  // ---- The profile is editable on its card: cursor sees no server any more.
  await goTo(app, 'apps');
  await app.b.execute((s) => document.querySelector(`${s} [data-testid="app-edit-profile"]`).click(), card);
  await app.waitExists('profile-editor');
  await app.click('profile-all');
  await app.click('profile-server-py');
  await app.click('profile-save');
  await waitFor('sees nothing', async () => (await texts(`${card} [data-testid="app-sees"]`))[0] === 'No servers');
  assert.deepEqual(app.cliJson('apps', 'show', 'cursor').profile.servers, []);
  await app.shot('apps-page-profile-limited');
  // The card of an app with calls, paused, at the smallest window.
  await smallestWindow(app);
  await app.b.execute((c) => document.querySelector(c).scrollIntoView(), card);
  await app.shot('apps-card-900x600');

  // ---- The page links to the activity overview.
  await app.click('apps-activity');
  await app.waitExists('activity-calls');
});
