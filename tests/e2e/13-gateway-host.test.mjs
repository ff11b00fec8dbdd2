// The window is the gateway host: an app on the official TypeScript SDK
// client, started as `airlock gateway --stdio --app cursor` (what a
// connected app runs), calls a tool whose server asks to open a web page.
// The consent is the window's native dialog; the browser gets the URL once;
// after Continue the app receives the tool's real result, and History has
// the call under the app's name.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, ROOT, focusAndKey, waitFor, waitForNoWindow, waitForWindow } from './lib/harness.mjs';
import { settleOpened, waitPendingCard, waitServerState } from './lib/steps.mjs';

const URL = 'https://example.com/connect?from=gateway';
const DIALOG = 'Airlock: py asks you to open a web page';

let app;
after(() => app?.close());

test('an app attached through the gateway gets the real result after consent in the window', { timeout: 120_000 }, async () => {
  app = await App.launch('13-gateway-host', {
    before: (a) => a.cli('servers', 'add', 'py', '--command', BIN.python, '--', BIN.pyServer, 'stdio'),
  });
  await waitServerState(app, 'py', 'ready');

  const ops = [{ op: 'call', name: 'py__connect_account', arguments: { url: URL } }];
  const client = spawn('node', [
    path.join(ROOT, 'tests/peers/gateway_client.mjs'), '--name', 'cursor-e2e', '--ops', JSON.stringify(ops), '--',
    BIN.cli, '--data-dir', app.dataDir, 'gateway', '--stdio', '--no-start', '--app', 'cursor',
  ], { env: app.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  client.stdout.on('data', (d) => { out += d; });
  client.stderr.on('data', (d) => { err += d; });
  const exited = new Promise((resolve) => client.on('exit', resolve));

  // The consent is the window's: Return would decline, so Tab to "Open in browser".
  const win = await waitForWindow(DIALOG);
  await app.shot('consent-for-an-attached-app');
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(DIALOG);
  assert.deepEqual(await settleOpened(app), [URL], 'the browser got the URL exactly once');

  // 2026-07-28 has no completion signal: the inbox offers Continue.
  const card = await waitPendingCard(app, (c) => c.kind === 'late');
  await app.click(`continue-${card.id}`);

  assert.equal(await exited, 0, `the app ended cleanly: ${err}`);
  const line = JSON.parse(out.trim().split('\n').pop());
  assert.equal(line.result?.isError ?? false, false, JSON.stringify(line));
  assert.match(JSON.stringify(line.result), /action=accept id=/, 'the real result reached the app');

  const { calls } = app.cliJson('history', '--app', 'cursor');
  assert.equal(calls.length, 1);
  assert.equal(calls[0].tool, 'connect_account');
  assert.equal(calls[0].outcome, 'ok');
});
