// A confined server reaches for a host its room does not list (issue 33):
// the native dialog asks, naming the server, the host, the port and the
// registrable domain; Return denies and the host never hears of it; Always
// lets it through, the window's room card lists the host as allowed when
// asked, and after a restart it goes through without a question.
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, ROOT, focusAndKey, sleep, waitForNoWindow, waitForWindow, windowsTitled } from './lib/harness.mjs';
import { openTool, runTool, toolResult, waitServerState } from './lib/steps.mjs';

const PEER = path.join(ROOT, 'tests/peers/escape_server.py');

let app;
let server;
after(() => {
  server?.close();
  return app?.close();
});

test('a host outside the room is asked about; Deny holds, Always is kept', { timeout: 180_000 }, async () => {
  let hits = 0;
  server = http.createServer((_req, res) => {
    hits += 1;
    res.end('hello from the host');
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const port = server.address().port;
  const url = `http://127.0.0.1:${port}/`;
  const DIALOG = `Airlock: esc wants to reach 127.0.0.1:${port}`;

  app = await App.launch('20-room-host', {
    before: (a) => a.cli('servers', 'add', 'esc', '--command', BIN.python, '--', PEER, 'stdio'),
  });
  await waitServerState(app, 'esc', 'ready');

  // Deny: a reflexive Return.
  await openTool(app, 'esc', 'http_get');
  await app.waitExists('server-room');
  assert.equal(await app.b.execute(() => document.querySelector('[data-testid="server-room"]')?.getAttribute('data-state')), 'confined');
  await runTool(app, { url });
  const win = await waitForWindow(DIALOG);
  await app.shot('host-question');
  focusAndKey(win, 'Return');
  await waitForNoWindow(DIALOG);
  const denied = await toolResult(app, (t) => t.includes('403'));
  assert.match(denied, /403/);
  assert.equal(hits, 0, 'denied: the host never heard of it');

  // A Deny holds until the server restarts (a looping server cannot flood
  // the person): ask again after a restart. Always: the third button.
  await app.restart();
  await waitServerState(app, 'esc', 'ready');
  await openTool(app, 'esc', 'http_get');
  await runTool(app, { url });
  focusAndKey(await waitForWindow(DIALOG), 'Tab', 'Tab', 'space');
  await waitForNoWindow(DIALOG);
  const allowed = await toolResult(app, (t) => t.includes('hello from the host'));
  assert.match(allowed, /hello from the host/);
  assert.equal(hits, 1);

  // The room keeps it, and says who allowed it.
  const room = JSON.parse(app.cli('--json', 'servers', 'sandbox', 'esc'));
  assert.deepEqual(room.settings.hosts, [{ host: '127.0.0.1', port, source: 'asked' }]);
  await app.restart();
  await waitServerState(app, 'esc', 'ready');
  await openTool(app, 'esc', 'http_get');
  await app.waitText('server-room', (t) => t.includes('allowed when asked'), 'the room card lists the host');
  // The attempt denied earlier is not listed as blocked any more: the host is allowed now.
  const blockedNow = (await app.exists('room-blocked')) ? await app.text('room-blocked') : '';
  assert.ok(!blockedNow.includes(`127.0.0.1:${port}`), `an allowed host is not listed as blocked: ${blockedNow}`);
  await app.b.execute(() => document.querySelector('[data-testid="server-room"]')?.scrollIntoView({ block: 'start' }));
  await app.shot('room-card');

  // After a restart: no question.
  await runTool(app, { url });
  const again = await toolResult(app, (t) => t.includes('hello from the host'));
  assert.match(again, /hello from the host/);
  await sleep(500);
  assert.deepEqual(windowsTitled(DIALOG), [], 'nothing was asked');
  assert.equal(hits, 2);
});
