// The -32042 path (URLElicitationRequiredError, MCP 2025-11-25) ending in the
// tool's real result, against Airlock's own demo server: the first call fails
// with -32042, the user approves in the native dialog, the "browser" (this
// test, reading the recorded URL) presses the page's button, the server sends
// notifications/elicitation/complete, and Airlock's retry returns the data.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { App, BIN, focusAndKey, waitFor, waitForNoWindow, waitForWindow } from './lib/harness.mjs';
import { openTool, runTool, settleOpened, toolResult, waitElicitationState, waitServerState } from './lib/steps.mjs';

const DIALOG = 'Airlock: demo asks you to open a web page';
const DATA = 'Your private demo data: 42 records';

let app;
after(() => app?.close());

test('-32042: approve, finish the page, the retry returns the real result', { timeout: 90_000 }, async () => {
  app = await App.launch('03-required-error', {
    before: (a) => a.cli('servers', 'add', 'demo', '--host-network', '--env', 'AIRLOCK_DEMO_PROTOCOL=2025-11-25', '--command', BIN.demo),
  });
  const status = await waitServerState(app, 'demo', 'ready');
  assert.equal(status.protocol, '2025-11-25', 'the demo server is pinned to 2025-11-25');
  await openTool(app, 'demo', 'fetch_private_data');
  await app.shot('tool-form');
  await runTool(app, {});

  const win = await waitForWindow(DIALOG);
  await app.shot('native-consent-dialog');
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(DIALOG);

  // The page the server asked for reached the browser, once.
  await waitFor('the browser to get the page', () => app.opened().length >= 1);
  const [page] = app.opened();
  assert.match(page, /^http:\/\/127\.0\.0\.1:\d+\/connect\?id=[A-Za-z0-9-]+$/);
  await app.shot('waiting-for-completion');

  // Be the browser: load the page, press its button.
  const html = await (await fetch(page)).text();
  assert.match(html, /Connect demo account/);
  const action = html.match(/action="(\/complete\?id=[^"]+)"/)?.[1];
  assert.ok(action, 'the page has the completion form');
  const done = await fetch(new URL(action, page), { method: 'POST' });
  assert.equal(done.status, 200);

  const result = await toolResult(app, () => true, 20000);
  assert.ok(result.includes(DATA), `the retry returned the data: ${result}`);
  await app.shot('tool-result-data');
  assert.deepEqual(await settleOpened(app, 500), [page], 'the page was opened once');

  const records = await app.elicitations();
  assert.equal(records.length, 1);
  assert.equal(records[0].origin, 'required_error');
  assert.equal(records[0].state, 'completed');
  assert.deepEqual(await app.statesOf(records[0].id), ['requested', 'accepted', 'opened', 'completed']);
  const calls = app.cliJson('history').calls;
  assert.equal(calls.length, 1, 'one call in the history (the retry is part of it)');
  assert.equal(calls[0].outcome, 'ok');

  await waitElicitationState(app, records[0].id, 'completed');
  await app.shot('elicitation-history-completed');
});
