// kill -9 of the desktop app with a URL elicitation waiting for consent and
// another one opened and waiting for its completion: on the next start the
// database is intact and both records are shown as interrupted in the window
// (and the CLI); nothing else is lost.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, test } from 'node:test';

import { App, BIN, descendants, focusAndKey, sleep, waitFor, waitForWindow, windowsTitled } from './lib/harness.mjs';
import { openTool, runTool, waitElicitationState, waitServerState } from './lib/steps.mjs';

const DIALOG = 'Airlock: everything asks you to open a web page';

let app;
after(() => app?.close());

/** The pid of the running desktop app (a descendant of tauri-driver). */
function desktopPid(app) {
  return descendants(app.driver.pid).find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim().startsWith('airlock-deskto');
    } catch {
      return false;
    }
  });
}

test('kill -9 with a consent open and a page opened: the next start shows both interrupted, nothing else lost', { timeout: 120_000 }, async () => {
  app = await App.launch('11-crash', {
    before: (a) => a.cli('servers', 'add', 'everything', '--command', 'node', '--', BIN.everything, 'stdio'),
  });
  await waitServerState(app, 'everything', 'ready');
  // Something that must survive: a finished call in history.
  await openTool(app, 'everything', 'echo');
  await runTool(app, { message: 'before the crash' });
  await waitFor('the echo call in history', () => app.cliJson('history').calls.some((h) => h.tool === 'echo'));

  // One URL opened (accepted; server-everything never sends a completion).
  await openTool(app, 'everything', 'trigger-url-elicitation');
  await runTool(app, { url: 'https://example.com/opened', message: 'Open me' });
  const first = await waitForWindow(DIALOG);
  focusAndKey(first, 'Tab', 'space');
  await waitFor('the first page to open', () => app.opened().length === 1);
  // A second one left waiting for consent.
  await runTool(app, { url: 'https://example.com/waiting', message: 'Still asking' });
  await waitFor('the second dialog', () => windowsTitled(DIALOG).length === 1 && app.cliJson('elicitations').some((r) => r.state === 'requested'));
  await app.shot('before-the-kill');

  const pid = desktopPid(app);
  assert.ok(pid, 'the desktop process is found');
  process.kill(pid, 'SIGKILL');
  await waitFor('the app to be gone', () => !fs.existsSync(`/proc/${pid}`), { timeout: 10000 });
  await sleep(500);

  await app.restart();
  const records = app.cliJson('elicitations');
  const opened = records.find((r) => r.url === 'https://example.com/opened');
  const waiting = records.find((r) => r.url === 'https://example.com/waiting');
  assert.equal(opened?.state, 'interrupted', JSON.stringify(records));
  assert.equal(waiting?.state, 'interrupted', JSON.stringify(records));
  const row = await waitElicitationState(app, waiting.id, 'interrupted');
  assert.match(row.text, /Interrupted/);
  await waitElicitationState(app, opened.id, 'interrupted');
  await app.shot('after-restart-interrupted');
  assert.deepEqual(app.opened(), ['https://example.com/opened'], 'nothing opened again');
  assert.ok(app.cliJson('history').calls.some((h) => h.tool === 'echo'), 'the earlier call is still in history');
  assert.equal(windowsTitled(DIALOG).length, 0, 'no consent dialog comes back for an interrupted request');
});
