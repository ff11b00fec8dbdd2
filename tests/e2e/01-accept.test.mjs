// Add a server through the GUI, call a tool that asks to open a web page,
// approve in the NATIVE dialog, and see the browser get the URL exactly once.
//
// Airlock and py-peer (official Python SDK) agree on MCP 2026-07-28, where the
// URL elicitation rides an InputRequiredResult: there is no completion
// notification, so after "Open in browser" the inbox asks the user to
// Continue once done in the browser, and the retried call returns the real
// result. (The 2025-11-25 completion path is in 03-required-error.)
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { App, BIN, focusAndKey, sh, waitFor, waitForNoWindow, waitForWindow } from './lib/harness.mjs';
import { addServer, goTo, openTool, runTool, settleOpened, waitElicitationState, waitPendingCard, waitServerState } from './lib/steps.mjs';

const URL = 'https://example.com/connect?x=1';
const DIALOG = 'Airlock: py asks you to open a web page';

let app;
after(() => app?.close());

test('add a stdio server in the GUI, approve its URL in the native dialog, continue, see the result', { timeout: 120_000 }, async () => {
  app = await App.launch('01-add-server-and-accept');
  await goTo(app, 'servers');
  await app.shot('no-servers');

  await addServer(app, { name: 'py', command: BIN.python, args: [BIN.pyServer, 'stdio'] }, {
    beforeSubmit: () => app.shot('add-server-form'),
  });
  const status = await waitServerState(app, 'py', 'ready');
  await app.shot('server-ready');
  const stored = app.cliJson('servers', 'show', 'py');
  assert.equal(stored.transport.command, BIN.python, 'the form saved the command');
  assert.deepEqual(stored.transport.args, [BIN.pyServer, 'stdio'], 'the form saved one argument per line');
  assert.equal(status.text, 'Ready', 'the pill says Ready, no protocol jargon');
  assert.equal(status.protocol, '2026-07-28', 'py-peer and Airlock agree on 2026-07-28');

  await openTool(app, 'py', 'connect_account');
  await runTool(app, { url: URL });

  // The native dialog: Return would decline, so approve with Tab (to
  // "Open in browser") and Space.
  const win = await waitForWindow(DIALOG);
  await app.shot('native-consent-dialog');
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(DIALOG);

  await waitFor('the browser to be asked to open the URL', () => app.opened().length >= 1);
  assert.deepEqual(await settleOpened(app), [URL], 'the browser got the URL exactly once, unchanged');

  // No completion signal on 2026-07-28: the inbox offers Continue.
  const card = await waitPendingCard(app, (c) => c.kind === 'late');
  assert.match(card.text, /example\.com/);
  await app.shot('inbox-continue');
  await app.click(`continue-${card.id}`);

  const row = await waitElicitationState(app, card.id, 'continued');
  assert.match(row.text, /example\.com/);
  await app.shot('elicitation-history');

  const records = await app.elicitations();
  assert.equal(records.length, 1);
  assert.equal(records[0].url, URL);
  assert.equal(records[0].state, 'continued');
  assert.equal(records[0].origin, 'input_required');

  // The retried call returned the server's real answer: the History page shows it.
  const { calls } = app.cliJson('history');
  assert.equal(calls.length, 1);
  assert.equal(calls[0].tool, 'connect_account');
  assert.equal(calls[0].outcome, 'ok');
  assert.match(JSON.stringify(calls[0].result), /action=accept id=/);
  await goTo(app, 'history');
  await app.waitText(`history-row-${calls[0].id}`, (t) => t.includes('connect_account'), 'the call in the history');
  await app.click(`history-expand-${calls[0].id}`);
  await waitFor('the call result in the history', () => app.b.execute(() => document.querySelector('tr.details')?.textContent.includes('action=accept id=')));
  await app.shot('call-history-result');
});

test('answering in the window withdraws the notification of that request', {
  timeout: 60_000,
}, async () => {
  const app2 = await App.launch('01-notification-withdrawn', {
    before: (a) => a.cli('servers', 'add', 'py', '--command', BIN.python, '--', BIN.pyServer, 'stdio'),
  });
  try {
    await waitServerState(app2, 'py', 'ready');
    await openTool(app2, 'py', 'connect_account');
    await runTool(app2, { url: URL });
    focusAndKey(await waitForWindow(DIALOG), 'Tab', 'space');
    await waitForNoWindow(DIALOG);
    // 2026-07-28: "Still waiting for example.com" with Continue / Cancel at once.
    const n = await waitFor('the notification', () => app2.notifications().find((x) => x.actions.includes('continue')));
    const card = await waitPendingCard(app2, (c) => c.kind === 'late');
    await app2.click(`continue-${card.id}`);
    await waitElicitationState(app2, card.id, 'continued');
    // dunst would expire it by itself after 10 s: it must go well before.
    try {
      await waitFor(`notification ${n.id} to be withdrawn`, () => sh('dunstctl', ['count', 'displayed'], { env: app2.env }) === '0', { timeout: 3000 });
    } finally {
      await app2.shot('after-continue-in-window');
    }
  } finally {
    await app2.close();
  }
});
