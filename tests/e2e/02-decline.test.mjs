// The decline path: a reflexive Return on the native consent dialog declines.
// Nothing reaches the browser, the server hears "decline", the window shows
// the elicitation as declined.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { App, BIN, focusAndKey, waitForNoWindow, waitForWindow } from './lib/harness.mjs';
import { openTool, runTool, settleOpened, toolResult, waitElicitationState, waitServerState } from './lib/steps.mjs';

const URL = 'https://example.com/decline-me';
const DIALOG = 'Airlock: everything asks you to open a web page';

let app;
after(() => app?.close());

test('Return on the native dialog declines: nothing opens, the state is declined', { timeout: 90_000 }, async () => {
  app = await App.launch('02-decline', {
    before: (a) => a.cli('servers', 'add', 'everything', '--command', 'node', '--', BIN.everything, 'stdio'),
  });
  await waitServerState(app, 'everything', 'ready');
  await openTool(app, 'everything', 'trigger-url-elicitation');
  await runTool(app, { url: URL, message: 'Please sign in to continue' });

  const win = await waitForWindow(DIALOG);
  await app.shot('native-consent-dialog');
  focusAndKey(win, 'Return');
  await waitForNoWindow(DIALOG);

  // The server hears the decline in the tool's own result.
  const result = await toolResult(app);
  assert.match(result, /"?action"?\s*[:=]\s*\\?"?decline/);
  await app.shot('tool-result-declined');

  assert.deepEqual(await settleOpened(app), [], 'nothing was opened');

  const records = await app.elicitations();
  assert.equal(records.length, 1);
  assert.equal(records[0].state, 'declined');
  assert.deepEqual(await app.statesOf(records[0].id), ['requested', 'declined']);

  const row = await waitElicitationState(app, records[0].id, 'declined');
  assert.match(row.text, /example\.com/);
  assert.match(row.text, /[Dd]eclined/);
  await app.shot('elicitation-history-declined');
});
