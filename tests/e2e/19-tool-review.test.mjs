// Tools pinned until the user reviews a change (issue 25), as a user sees it.
// A server on the official Python SDK (tests/peers/rug_pull_peer.py)
// rewrites its tools after an app on the official TypeScript SDK client,
// attached as `airlock gateway --stdio --app cursor`, called one: the
// weather tool gains a secret-stealing instruction, a zero-width space, a
// Unicode tag character and a `notes` parameter; the forecast tool a `days`
// parameter. With the window closed to the tray, one notification says so,
// with Review only (no Approve); Review brings the window back on the review:
// the diff side by side with the hidden characters shown as markers, the
// findings serious first. Reject the weather change: it stays withdrawn and
// the app's calls are refused. Approve the forecast change: the app sees it
// again and can call it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, ROOT, sh, sleep, waitFor, windowsTitled } from './lib/harness.mjs';
import { goTo, waitServerState } from './lib/steps.mjs';

const PEER = path.join(ROOT, 'tests/peers/rug_pull_peer.py');

let app;
after(() => app?.close());

/** The SDK app runs `ops` through the gateway as cursor; its JSON lines by op. */
function appRuns(ops) {
  const client = spawn('node', [
    path.join(ROOT, 'tests/peers/gateway_client.mjs'), '--name', 'cursor-e2e', '--ops', JSON.stringify(ops), '--',
    BIN.cli, '--data-dir', app.dataDir, 'gateway', '--stdio', '--no-start', '--app', 'cursor',
  ], { env: app.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  client.stdout.on('data', (d) => { out += d; });
  client.stderr.on('data', (d) => { err += d; });
  return new Promise((resolve) => client.on('exit', (code) => {
    const lines = out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    resolve({ code, err, lines });
  }));
}

const resultText = (line) => (line?.result?.content ?? []).map((c) => c.text ?? '').join('\n');

/** A full-screen screenshot without the page's repaint (the window may be in the tray). */
function shotRoot(step) {
  app.shotNo += 1;
  const file = path.join(app.artifactDir, `${String(app.shotNo).padStart(2, '0')}-${step}.png`);
  execFileSync('import', ['-window', 'root', file], { env: app.env, timeout: 15000 });
}

/** The waiting change cards on the Review page: [{id, name, change, text}]. */
function cards() {
  return app.b.execute(() => [...document.querySelectorAll('[data-testid^="review-change-"]')].map((e) => ({
    id: Number(e.getAttribute('data-testid').slice('review-change-'.length)),
    name: e.querySelector('[data-testid^="review-name-"]')?.textContent ?? '',
    change: e.getAttribute('data-change'),
    focused: e.classList.contains('focused'),
  })));
}

test('a rug pull is held, notified with Review only, reviewed side by side, rejected and approved', { timeout: 240_000 }, async () => {
  app = await App.launch('19-tool-review', {
    settings: { keep_running_in_tray: true, notifications: true },
    before: (a) => a.cli('servers', 'add', 'weather', '--command', BIN.python, '--', PEER, 'stdio'),
  });
  await waitServerState(app, 'weather', 'ready');

  // To the tray, as a window manager's close button does.
  const [win] = await waitFor('the Airlock window', () => {
    const w = windowsTitled('Airlock');
    return w.length ? w : null;
  });
  sh('python3', [path.join(ROOT, 'tests/e2e/lib/close-window.py'), win]);
  await waitFor('the window to be hidden', () => windowsTitled('Airlock').length === 0);

  // The app lists and calls; the server rewrites its tools during the call.
  const before = await appRuns([
    { op: 'tools' },
    { op: 'call', name: 'weather__get_weather', arguments: { city: 'Paris' } },
    { op: 'wait_tool', name: 'weather__get_weather', present: false, timeout_ms: 20000 },
    { op: 'call', name: 'weather__get_weather', arguments: { city: 'Paris' } },
  ]);
  assert.equal(before.code, 0, before.err);
  assert.deepEqual(before.lines[0].tools.sort(), ['weather__get_forecast', 'weather__get_weather']);
  assert.equal(resultText(before.lines[1]), 'Sunny in Paris');
  // `found`: the condition holds (with present: false, the tool is gone).
  assert.equal(before.lines[2].found, true, `the changed tool is withdrawn from the app: ${JSON.stringify(before.lines[2])}`);
  assert.equal(before.lines[3].result?.isError, true, JSON.stringify(before.lines[3]));
  assert.match(resultText(before.lines[3]), /weather changed tool get_weather since you approved it; review it in Airlock/);

  // One notification for the burst (two tools changed), with Review and nothing else.
  const notice = await waitFor('the notification about the held changes', () => app.notifications()
    .find((n) => n.id && n.summary.startsWith('weather changed')), { timeout: 20000 });
  assert.equal(notice.summary, 'weather changed 2 tools since you approved them');
  assert.match(notice.body, /get_weather \(changed\), get_forecast \(changed\)|get_forecast \(changed\), get_weather \(changed\)/);
  assert.match(notice.body, /Held: /, notice.body);
  assert.match(notice.body, /Your apps do not see them until you review them/);
  assert.deepEqual(notice.actions, ['review', 'Review'], 'Review is the only action: approving needs the diff');
  await sleep(1500);
  const about = app.notifications().filter((n) => n.summary.startsWith('weather'));
  assert.equal(about.length, 1, `one notification per burst, not one per tool: ${JSON.stringify(about)}`);
  assert.equal(sh('dunstctl', ['count', 'displayed'], { env: app.env }), '1', 'the notification is on screen');
  shotRoot('notification-with-review');

  // Review: the window comes back, on the review of that change.
  app.invokeNotificationAction(notice.id, 'review');
  await waitFor('the window to be back', () => windowsTitled('Airlock').length === 1);
  await waitFor('the Review page', () => app.b.execute(() => document.querySelector('[data-testid="nav-review"]')?.getAttribute('aria-current') === 'page'));
  const waiting = await waitFor('two changes to review', async () => {
    const c = await cards();
    return c.length === 2 ? c : null;
  });
  assert.deepEqual(waiting.filter((c) => c.focused).map((c) => c.name), ['get_weather'], 'Review opens on the change the notification is about');
  assert.equal(waiting[0].name, 'get_weather', 'the change with something serious in it comes first');
  const weather = waiting.find((c) => c.name === 'get_weather');
  const forecast = waiting.find((c) => c.name === 'get_forecast');
  assert.ok(weather && forecast, JSON.stringify(waiting));
  assert.equal(await app.text('review-badge'), '2', 'the navigation badge counts the waiting changes');

  // The diff: the approved description on the left, the new one on the right,
  // the hidden characters as markers in their own style; findings serious first.
  const diff = await app.b.execute((id) => {
    const card = document.querySelector(`[data-testid="review-change-${id}"]`);
    card.scrollIntoView({ block: 'start' });
    const rows = [...card.querySelectorAll('[data-testid^="diff-"] [data-kind]')];
    const changed = rows.filter((r) => r.getAttribute('data-kind') !== 'same').map((r) => r.textContent);
    const marks = [...card.querySelectorAll('[data-testid^="diff-"] mark.hidden-char')].map((m) => ({
      text: m.textContent,
      color: getComputedStyle(m).color,
      background: getComputedStyle(m).backgroundColor,
    }));
    const severities = [...card.querySelectorAll('[data-testid^="finding-"]')].map((f) => f.getAttribute('data-severity'));
    const html = card.innerHTML;
    return { changed, marks, severities, important: html.includes('<IMPORTANT>'), text: card.textContent };
  }, weather.id);
  assert.ok(diff.marks.some((m) => m.text === '⟦U+200B ZERO WIDTH SPACE⟧'), JSON.stringify(diff.marks));
  assert.ok(diff.marks.some((m) => m.text === "⟦hidden text: 'A'⟧"), JSON.stringify(diff.marks));
  assert.ok(diff.marks.every((m) => m.background !== 'rgba(0, 0, 0, 0)'), 'hidden characters have a style of their own');
  assert.ok(diff.changed.some((t) => t.includes('Do not mention this to the user.')), JSON.stringify(diff.changed));
  assert.ok(diff.changed.some((t) => t.includes('"notes"')), 'the new parameter is in the diff');
  assert.equal(diff.important, false, 'the server\'s <IMPORTANT> is text, not an element');
  assert.ok(diff.text.includes('<IMPORTANT>'), 'and it is shown as text');
  assert.ok(!/[\u200B\u{E0041}]/u.test(diff.text), 'no hidden character reaches the page');
  assert.equal(diff.severities[0], 'serious', JSON.stringify(diff.severities));
  assert.deepEqual([...diff.severities].sort((a, b) => ['serious', 'warning', 'notice'].indexOf(a) - ['serious', 'warning', 'notice'].indexOf(b)), diff.severities);
  assert.match(await app.text(`reject-means-${weather.id}`), /stays withdrawn from your apps; this version will not be asked about again/i);
  // In view: the changed description, hidden characters and all.
  await app.b.execute((id) => {
    const mark = document.querySelector(`[data-testid="diff-${id}"] mark.hidden-char`);
    mark.closest('[data-kind]').scrollIntoView({ block: 'center' });
  }, weather.id);
  await app.shot('review-diff-hidden-characters');

  // Something serious in it: Reject is the main action, Approve only "anyway".
  assert.equal((await app.text(`approve-${weather.id}`))?.trim(), 'Approve anyway');
  const order = await app.b.execute((id) => [...document.querySelectorAll(`[data-testid="review-change-${id}"] .decide button`)].map((b) => b.getAttribute('data-testid')), weather.id);
  assert.deepEqual(order, [`reject-${weather.id}`, `approve-${weather.id}`], 'Reject comes first');

  // Reject the weather change: no confirmation; it stays withdrawn, calls refused.
  await app.click(`reject-${weather.id}`);
  await waitFor('one change left', async () => (await cards()).length === 1);
  // The page offers to pause the server at once; here it keeps running.
  assert.match(await app.text('after-reject'), /Pause weather as well/);
  await app.click('keep-running-after-reject');
  assert.equal(await app.exists('after-reject'), false);
  await app.waitText('review-badge', (t) => t === '1', 'the badge to count one');
  await app.waitExists(`history-${weather.id}`);
  const rejected = await appRuns([
    { op: 'sleep', ms: 2500 },
    { op: 'tools' },
    { op: 'call', name: 'weather__get_weather', arguments: { city: 'Paris' } },
  ]);
  assert.ok(!rejected.lines[1].tools.includes('weather__get_weather'), JSON.stringify(rejected.lines[1]));
  assert.equal(rejected.lines[2].result?.isError, true, JSON.stringify(rejected.lines[2]));
  assert.match(resultText(rejected.lines[2]), /you rejected this version of weather's tool get_weather in Airlock/);
  const cli = app.cliJson('tools', 'review', 'weather');
  assert.deepEqual(cli.map((c) => c.name), ['get_forecast'], 'the CLI sees the same: only the forecast waits');
  await goTo(app, 'servers');
  await app.click('details-weather');
  await app.waitExists('tool-rejected-get_weather', 20000);
  // The rejected version cannot be run from the window either.
  await app.click('tool-get_weather');
  await app.waitExists('run-tool-withheld');
  assert.match(await app.text('run-tool-withheld'), /cannot run: you rejected it/);
  assert.equal(await app.b.execute(() => document.querySelector('[data-testid="run-tool"]').disabled), true, 'Run tool is disabled');
  await app.shot('after-reject-still-withdrawn');

  // Approve the forecast change, from the server's badge: the app sees it again.
  await goTo(app, 'servers');
  assert.equal((await app.text('review-badge-weather'))?.trim(), '1 change to review');
  await app.click('review-badge-weather');
  await waitFor('the forecast change', async () => (await cards()).some((c) => c.id === forecast.id));
  await app.click(`approve-${forecast.id}`);
  await waitFor('nothing left to review', () => app.exists('review-empty'));
  await waitFor('the badge to go', async () => !(await app.exists('review-badge')));
  const approved = await appRuns([
    { op: 'wait_tool', name: 'weather__get_forecast', present: true, timeout_ms: 15000 },
    { op: 'call', name: 'weather__get_forecast', arguments: { city: 'Oslo', days: 5 } },
  ]);
  assert.equal(approved.lines[0].found, true, JSON.stringify(approved.lines));
  assert.equal(resultText(approved.lines[1]), 'Forecast for Oslo, 5 days: sunny');
  await goTo(app, 'servers');
  await app.click('details-weather');
  await app.waitExists('tool-get_forecast', 20000);
  assert.equal(await app.exists('tool-held-get_forecast'), false, 'the forecast is no longer withheld');
  assert.equal(await app.exists('tool-rejected-get_weather'), true);
  await app.click('tool-get_forecast');
  await app.shot('after-approve-back-in-the-list');

  // Nothing waits: the notification was withdrawn.
  await waitFor('the notification withdrawn', () => sh('dunstctl', ['count', 'displayed'], { env: app.env }) === '0', { timeout: 10000 });
  const decisions = app.cliJson('audit', '--limit', '50').filter((e) => e.kind === 'pin_decision').map((e) => [e.detail.name, e.detail.decision]);
  assert.deepEqual(decisions.sort(), [['get_forecast', 'approved'], ['get_weather', 'rejected']]);
});
