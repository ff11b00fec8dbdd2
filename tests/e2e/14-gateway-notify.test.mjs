// Approve from a notification with no window (issues 12 and 13): the
// desktop app runs closed to the tray (Settings: keep running in the tray;
// the window gets a real close request, as from a title bar). An app on the
// official TypeScript SDK client, started as `airlock gateway --stdio
// --app claude-code`, calls py-peer's tools through the window's host.
// The dunst notification names Claude Code, the server and the domain; its
// Open opens the recorded browser once and the app gets the real result;
// Decline from the notification gives the app a clear tool error.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';

import { execFileSync } from 'node:child_process';

import { App, BIN, ROOT, sh, sleep, waitFor, windowsTitled } from './lib/harness.mjs';
import { settleOpened, waitServerState } from './lib/steps.mjs';

const URL = 'https://example.com/connect?from=claude-code';

let app;
after(() => app?.close());

/** The SDK app calling `tool` through the gateway as claude-code; resolves with its last JSON line. */
function appCalls(tool, args) {
  const ops = [{ op: 'call', name: tool, arguments: args }];
  const client = spawn('node', [
    path.join(ROOT, 'tests/peers/gateway_client.mjs'), '--name', 'claude-code-e2e', '--ops', JSON.stringify(ops), '--',
    BIN.cli, '--data-dir', app.dataDir, 'gateway', '--stdio', '--no-start', '--app', 'claude-code',
  ], { env: app.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  client.stdout.on('data', (d) => { out += d; });
  client.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve) => client.on('exit', (code) => {
    const last = out.trim().split('\n').pop() || '{}';
    resolve({ code, err, line: JSON.parse(last) });
  }));
}

/**
 * A full-screen screenshot without touching the page: with the window in the
 * tray, the page paints no frames, so the harness's repaint would wait for
 * one in vain.
 */
async function shotRoot(step) {
  await sleep(400);
  app.shotNo += 1;
  const file = path.join(app.artifactDir, `${String(app.shotNo).padStart(2, '0')}-${step}.png`);
  execFileSync('import', ['-window', 'root', file], { env: app.env, timeout: 15000 });
}

const resultText = (line) => (line.result?.content ?? []).map((c) => c.text ?? '').join('\n');

test('closed to the tray: Open and Decline in a notification that names Claude Code', { timeout: 150_000 }, async () => {
  app = await App.launch('14-gateway-notify', {
    settings: { keep_running_in_tray: true, notifications: true },
    before: (a) => a.cli('servers', 'add', 'py', '--command', BIN.python, '--', BIN.pyServer, 'stdio'),
  });
  await waitServerState(app, 'py', 'ready');

  // Close the window as a window manager would: it goes to the tray.
  const [win] = await waitFor('the Airlock window', () => {
    const w = windowsTitled('Airlock');
    return w.length ? w : null;
  });
  sh('python3', [path.join(ROOT, 'tests/e2e/lib/close-window.py'), win]);
  await waitFor('the window to be hidden', () => windowsTitled('Airlock').length === 0);
  await shotRoot('closed-to-tray');

  // Open from the notification.
  const first = appCalls('py__connect_account', { url: URL });
  const asked = await waitFor('a notification naming Claude Code', () => app.notifications()
    .find((n) => n.id && n.summary === 'Claude Code → py asks you to open example.com'), { timeout: 30000 });
  assert.ok(asked.actions.includes('open') && asked.actions.includes('decline'), JSON.stringify(asked));
  assert.ok(!asked.body.includes('connect?'), 'no URL in the notification');
  await shotRoot('notification-names-claude-code');
  assert.deepEqual(app.opened(), [], 'nothing opens before the click');
  app.invokeNotificationAction(asked.id, 'open');
  assert.deepEqual(await settleOpened(app), [URL], 'the browser got the URL exactly once');

  // 2026-07-28 has no completion signal: Continue, from its notification too.
  const late = await waitFor('the late notification', () => app.notifications()
    .find((n) => n.id && n.actions.includes('continue')), { timeout: 30000 });
  assert.match(late.body, /^Claude Code → py has not heard back yet/, JSON.stringify(late));
  await shotRoot('late-notification');
  app.invokeNotificationAction(late.id, 'continue');
  const done = await first;
  assert.equal(done.code, 0, `the app ended cleanly: ${done.err}`);
  assert.equal(done.line.result?.isError ?? false, false, JSON.stringify(done.line));
  assert.match(resultText(done.line), /^action=accept id=/, 'the real result reached the app');
  assert.equal(windowsTitled('Airlock').length, 0, 'the window stayed in the tray');

  // Decline from the notification: a clear tool error, nothing opened.
  // (Not example.org: it looks like example.com, opened above, and such a
  // page gets no one-click buttons, only Review.)
  const second = appCalls('py__needs_auth', { url: 'https://accounts.google.com/authorize' });
  const again = await waitFor('a second notification', () => app.notifications()
    .find((n) => n.id && n.summary === 'Claude Code → py asks you to open google.com'), { timeout: 30000 });
  await shotRoot('second-notification');
  app.invokeNotificationAction(again.id, 'decline');
  const declined = await second;
  assert.equal(declined.line.result?.isError, true, JSON.stringify(declined.line));
  assert.match(resultText(declined.line), /declined/, JSON.stringify(declined.line));
  assert.deepEqual(await settleOpened(app), [URL], 'nothing more opened');
  await shotRoot('after-decline');

  // History names the app.
  const records = await app.elicitations();
  assert.deepEqual(records.map((r) => [r.app, r.state]), [['claude-code', 'declined'], ['claude-code', 'continued']]);

  // The login entry's launch (`--hidden`, see src-tauri/src/autostart.rs)
  // while Airlock runs in the tray: it exits and the window stays put.
  const login = spawn(BIN.desktop, ['--hidden'], { env: app.env, stdio: 'ignore' });
  assert.equal(await new Promise((resolve) => login.on('exit', resolve)), 0, 'the login launch exits');
  await sleep(1000);
  assert.equal(windowsTitled('Airlock').length, 0, 'still in the tray after the login launch');
  // A launch by the user brings it back.
  const user = spawn(BIN.desktop, [], { env: app.env, stdio: 'ignore' });
  assert.equal(await new Promise((resolve) => user.on('exit', resolve)), 0);
  await waitFor('the window back', () => windowsTitled('Airlock').length === 1);
});
