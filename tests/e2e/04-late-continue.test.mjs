// The late path, continued from the desktop notification: the Settings page
// sets "late after" to 5 s (applies on the next start), a tool's URL
// elicitation never signals completion, Airlock marks it late and notifies,
// the user presses the notification's Continue, and the call is retried.
//
// Peer: py-peer's needs_auth fails with -32042 until its authorization flag
// flips (0.5 s after the elicitation). Airlock and py-peer speak 2026-07-28,
// which has no completion notification, so from Airlock's side the
// elicitation never completes: only the user's Continue retries the call,
// and the retry returns the real result ("authorized").
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, focusAndKey, sh, sleep, waitFor, waitForNoWindow, waitForWindow } from './lib/harness.mjs';
import { fill, goTo, openTool, runTool, toolResult, waitElicitationState, waitServerState } from './lib/steps.mjs';

const URL = 'https://example.com/authorize';
const DIALOG = 'Airlock: py asks you to open a web page';
const LATE_AFTER = 5;

let app;
after(() => app?.close());

test('late after 5 s (set in Settings), Continue from the notification retries the call', { timeout: 150_000 }, async () => {
  app = await App.launch('04-late-continue', {
    before: (a) => a.cli('servers', 'add', 'py', '--command', BIN.python, '--', BIN.pyServer, 'stdio'),
  });

  // Settings: late after 5 s, saved to desktop-settings.json.
  await goTo(app, 'settings');
  await fill(app, 'settings-late_after_secs', String(LATE_AFTER));
  await app.shot('settings-late-after-5');
  await app.click('settings-save');
  const file = path.join(app.dataDir, 'desktop-settings.json');
  // (The file exists from the first start, with the person's mark: wait for the saved value.)
  const saved = await waitFor('the settings file', () => {
    try {
      const s = JSON.parse(fs.readFileSync(file, 'utf8'));
      return s.late_after_secs === LATE_AFTER ? s : null;
    } catch {
      return null;
    }
  });
  assert.equal(saved.late_after_secs, LATE_AFTER);
  await app.shot('settings-saved');

  // Deadlines apply on the next start.
  await app.restart();
  await goTo(app, 'settings');
  assert.equal(await (await app.$('settings-late_after_secs')).getValue(), String(LATE_AFTER), 'the setting survived the restart');

  await waitServerState(app, 'py', 'ready');
  await openTool(app, 'py', 'needs_auth');
  await runTool(app, { url: URL });

  const win = await waitForWindow(DIALOG);
  await app.shot('native-consent-dialog');
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(DIALOG);
  const acceptedAt = Date.now();
  await waitFor('the browser to get the URL', () => app.opened().length === 1);
  assert.deepEqual(app.opened(), [URL]);

  // Late: a notification with Continue / Cancel, after the deadline and not before.
  const late = await waitFor('the late notification', () => app.notifications().find((n) => n.actions.includes('continue')), { timeout: (LATE_AFTER + 10) * 1000 });
  const lateAfterMs = Date.now() - acceptedAt;
  assert.ok(lateAfterMs >= (LATE_AFTER - 1) * 1000, `late after ${lateAfterMs} ms, not before the ${LATE_AFTER} s deadline`);
  assert.match(late.summary, /Still waiting for example\.com/);
  assert.deepEqual(late.actions, ['continue', 'Continue', 'cancel', 'Cancel']);
  assert.ok(late.id > 0, 'the notification id is known');
  const displayed = Number(sh('dunstctl', ['count', 'displayed'], { env: app.env }));
  assert.ok(displayed >= 1, `dunst shows the notification (displayed: ${displayed})`);
  const [record] = await app.elicitations();
  assert.equal(record.state, 'late');
  await sleep(300);
  await app.shot('late-notification');

  // The user presses Continue on the notification.
  app.invokeNotificationAction(late.id, 'continue');

  const result = await toolResult(app, () => true, 20000);
  assert.match(result, /authorized/, 'the retried call returned the real result');
  await app.shot('tool-result-after-continue');

  assert.deepEqual(await app.statesOf(record.id), ['requested', 'accepted', 'opened', 'late', 'continued']);
  assert.deepEqual(app.opened(), [URL], 'Continue did not open the page again');
  await waitElicitationState(app, record.id, 'continued');
  await app.shot('elicitation-history-continued');
});
