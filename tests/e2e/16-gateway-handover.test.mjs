// "Always there" (issue 13): an app (the official TypeScript SDK client,
// `airlock gateway --stdio --app cursor`) starts before the window, so its
// shim starts `airlock daemon` (an app's config cannot set its consent:
// it asks in desktop notifications, or declines when no one can). Then the
// window starts: it asks the daemon to hand the socket over, the daemon
// exits, the shim attaches to the window and replays the app's handshake.
// The app's next call asks to open a page: the consent is the window's
// native dialog (not the daemon's notification), the app gets the real
// result, and it saw exactly one initialize answer.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, ROOT, focusAndKey, waitFor, waitForNoWindow, waitForWindow } from './lib/harness.mjs';
import { settleOpened, waitPendingCard, waitServerState } from './lib/steps.mjs';

const URL = 'https://example.com/connect?from=handover';
const DIALOG = 'Airlock: py asks you to open a web page';

let app;
let daemonPid;
after(async () => {
  await app?.close();
  // The daemon the shim started, should the handover have failed.
  try { if (daemonPid) process.kill(daemonPid, 'SIGKILL'); } catch { /* gone, as it should be */ }
});

const hostPid = (dataDir) => {
  try { return Number(fs.readFileSync(path.join(dataDir, 'gateway.lock'), 'utf8').trim()) || null; } catch { return null; }
};
const alive = (pid) => { try { process.kill(pid, 0); return true; } catch { return false; } };
const resultText = (line) => (line?.result?.content ?? []).map((c) => c.text ?? '').join('\n');

test('an app attached to the daemon gets the window\'s consent once the window starts', { timeout: 150_000 }, async () => {
  let out = '';
  let err = '';
  let exited;
  let ready;
  let go;
  app = await App.launch('16-gateway-handover', {
    before: async (a) => {
      a.cli('servers', 'add', 'py', '--command', BIN.python, '--', BIN.pyServer, 'stdio');
      ready = path.join(a.dir, 'first-call-done');
      go = path.join(a.dir, 'go-on');
      const ops = [
        { op: 'call', name: 'py__add', arguments: { a: 2, b: 40 } },
        { op: 'touch', path: ready },
        { op: 'wait_file', path: go, timeout_ms: 90000 },
        { op: 'call', name: 'py__connect_account', arguments: { url: URL } },
        { op: 'wire' },
      ];
      const client = spawn('node', [
        path.join(ROOT, 'tests/peers/gateway_client.mjs'), '--name', 'cursor-e2e', '--ops', JSON.stringify(ops), '--',
        BIN.cli, '--data-dir', a.dataDir, 'gateway', '--stdio', '--app', 'cursor',
      ], { env: a.env, stdio: ['ignore', 'pipe', 'pipe'] });
      client.stdout.on('data', (d) => { out += d; });
      client.stderr.on('data', (d) => { err += d; });
      exited = new Promise((resolve) => client.on('exit', resolve));
      await waitFor('the app\'s first call, through the daemon its shim started', () => fs.existsSync(ready), { timeout: 60000 });
      daemonPid = hostPid(a.dataDir);
      assert.ok(daemonPid, 'a daemon owns the socket before the window starts');
    },
  });
  await waitServerState(app, 'py', 'ready');

  // The window asked the daemon to hand over: the daemon is gone, the window owns the socket.
  await waitFor('the window to own the socket', () => {
    const pid = hostPid(app.dataDir);
    return pid && pid !== daemonPid;
  }, { timeout: 60000 });
  await waitFor('the daemon to exit', () => !alive(daemonPid), { timeout: 15000 });
  await app.shot('window-took-over-from-the-daemon');

  // The app's next call: the window's dialog, not the daemon's refusal.
  fs.writeFileSync(go, '');
  const win = await waitForWindow(DIALOG);
  await app.shot('consent-in-the-window-for-the-daemons-app');
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(DIALOG);
  assert.deepEqual(await settleOpened(app), [URL], 'the browser got the URL exactly once');
  const card = await waitPendingCard(app, (c) => c.kind === 'late');
  await app.click(`continue-${card.id}`);

  assert.equal(await exited, 0, `the app ended cleanly: ${err}`);
  const lines = out.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(resultText(lines[0]), '42', JSON.stringify(lines[0]));
  const call = lines.filter((l) => l.op === 'call').pop();
  assert.equal(call.result?.isError ?? false, false, JSON.stringify(call));
  assert.match(JSON.stringify(call.result), /action=accept id=/, 'the real result reached the app');
  const wire = lines.find((l) => l.op === 'wire');
  assert.equal(wire.initialize_results, 1, JSON.stringify(wire));
  assert.deepEqual(wire.errors, []);

  const { calls } = app.cliJson('history', '--app', 'cursor');
  assert.equal(calls.length, 2, JSON.stringify(calls));
  assert.ok(calls.every((c) => c.outcome === 'ok'), JSON.stringify(calls));
});
