// Connecting an app from the Apps page: the page lists the supported apps
// (detected or not) under the apps you can connect; Connect shows the diff
// of the app's own config under it (moving the app's servers into Airlock
// is chosen there, and changes the diff) and writes it only after the user
// confirms; the app then has its card among the apps in use; Disconnect
// puts the file back byte for byte. Single instance: a second launch exits
// and brings the running window forward.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, waitFor } from './lib/harness.mjs';
import { goTo, sidewaysOverflow, smallestWindow } from './lib/steps.mjs';

let app;
after(() => app?.close());

const CURSOR = '{\n  "mcpServers": {\n    "notes": {"command": "notes-server"}\n  }\n}\n';

/** Which list of the Apps page shows the app: `in-use`, `available`, or null. */
function sectionOf(id) {
  return app.b.execute((i) => {
    const el = document.querySelector(`[data-testid="app-${i}"]`);
    return el?.closest('[data-testid="apps-in-use"]') ? 'in-use' : el?.closest('[data-testid="apps-available"]') ? 'available' : null;
  }, id);
}

/** An element's text as shown (one line per diff line), or null when it is not there. */
async function shownText(testid) {
  const el = await app.b.$(`[data-testid="${testid}"]`);
  return (await el.isExisting()) ? el.getText() : null;
}

/** At 900×600 the page does not scroll sideways (a review's diff scrolls in its own box). */
async function fitsSideways(step) {
  const o = await sidewaysOverflow(app);
  assert.ok(o.scrollWidth <= o.clientWidth, `${step}: the document scrolls sideways (${o.scrollWidth} > ${o.clientWidth})`);
  assert.deepEqual(o.wide, [], `${step}: a scrolling container is wider than its box`);
}

function stateOf(id) {
  return app.b.execute((i) => document.querySelector(`[data-testid="app-state-${i}"]`)?.textContent?.trim(), id);
}

/** The airlock-desktop processes of this test (other runs may share the machine). */
function desktopPids() {
  let pids = [];
  try {
    pids = execFileSync('pgrep', ['-x', 'airlock-desktop'], { encoding: 'utf8' }).split('\n').filter(Boolean);
  } catch {
    return [];
  }
  return pids.filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`AIRLOCK_DATA_DIR=${app.dataDir}`);
    } catch {
      return false;
    }
  });
}

test('connect and disconnect Cursor from the Apps page', { timeout: 120_000 }, async () => {
  app = await App.launch('12-connect-apps', {
    before: (a) => {
      fs.mkdirSync(path.join(a.home, '.cursor'), { recursive: true });
      fs.writeFileSync(path.join(a.home, '.cursor/mcp.json'), CURSOR);
    },
  });
  const cursorFile = path.join(app.home, '.cursor/mcp.json');
  // The smallest window: the page must read there (the screenshots are of it).
  await smallestWindow(app);
  await goTo(app, 'apps');
  await waitFor('Cursor config found', async () => (await stateOf('cursor')) === 'Config found');
  assert.equal(await stateOf('zed'), 'Not found');
  assert.equal(await sectionOf('cursor'), 'available');
  assert.equal(await sectionOf('zed'), 'available');
  // Nothing uses Airlock yet; the page says where to start.
  assert.equal(await app.exists('apps-empty'), true);
  await app.shot('apps-page');

  await app.click('app-connect-cursor');
  const diff = await waitFor('the diff', async () => {
    const el = await app.b.$('[data-testid="apps-diff"]');
    return (await el.isExisting()) && (await el.getText());
  });
  assert.match(diff, /\+\s+"airlock": \{/);
  assert.match(diff, /"--app", "cursor"/);
  // Shown, not written.
  assert.equal(fs.readFileSync(cursorFile, 'utf8'), CURSOR);
  await fitsSideways('the review');
  await app.shot('connect-diff');

  // Moving Cursor's own servers is chosen in the review: the diff shown changes with it.
  await app.click('apps-move-servers');
  await waitFor('the diff with notes moved', async () => /Moves into Airlock: notes/.test((await shownText('apps-moved')) ?? '') && /^-.*"notes"/m.test((await shownText('apps-diff')) ?? ''));
  await app.shot('connect-diff-moving-servers');
  await app.click('apps-move-servers');
  await waitFor('the diff without moving', async () => (await shownText('apps-moved')) === null && (await shownText('apps-diff')) === diff);
  assert.equal(fs.readFileSync(cursorFile, 'utf8'), CURSOR);

  await app.click('apps-apply');
  await waitFor('Cursor connected', async () => (await stateOf('cursor')) === 'Connected');
  // Now it is among the apps that reach the servers through Airlock, with its card.
  await waitFor('Cursor in use', async () => (await sectionOf('cursor')) === 'in-use');
  assert.equal(await app.exists('apps-empty'), false);
  await app.b.execute(() => document.querySelector('[data-testid="apps-in-use"]').scrollIntoView());
  await fitsSideways('the card');
  const config = JSON.parse(fs.readFileSync(cursorFile, 'utf8'));
  assert.equal(config.mcpServers.airlock.command, fs.realpathSync(BIN.cli));
  assert.deepEqual(config.mcpServers.airlock.args, ['gateway', '--stdio', '--app', 'cursor']);
  assert.equal(config.mcpServers.notes.command, 'notes-server');
  // The CLI sees the same.
  const listed = app.cliJson('apps', 'available').find((a) => a.app === 'cursor');
  assert.equal(listed.connected, true);
  await app.shot('connected');

  // What Cursor would run attaches to this window (no daemon is started).
  const entry = config.mcpServers.airlock;
  const shim = spawn(entry.command, ['--data-dir', app.dataDir, ...entry.args, '--no-start'], { env: app.env, stdio: ['pipe', 'pipe', 'pipe'] });
  shim.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'cursor-e2e', version: '0' } } })}\n`);
  const reply = await new Promise((resolve, reject) => {
    let out = '';
    shim.stdout.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]));
    });
    shim.on('exit', (code) => reject(new Error(`the shim exited (${code})`)));
  });
  shim.kill();
  assert.ok(reply.result?.serverInfo, JSON.stringify(reply));
  const host = fs.readFileSync(path.join(app.dataDir, 'gateway.lock'), 'utf8').trim();
  assert.deepEqual(desktopPids(), [host], 'the window owns the gateway socket');

  await app.click('app-disconnect-cursor');
  await app.waitExists('apps-diff');
  await app.click('apps-apply');
  await waitFor('Cursor disconnected', async () => (await stateOf('cursor')) === 'Config found');
  assert.equal(fs.readFileSync(cursorFile, 'utf8'), CURSOR);
});

test('a second launch exits and brings the first window forward', { timeout: 60_000 }, async () => {
  const before = desktopPids();
  assert.equal(before.length, 1, `one Airlock runs (${before.join(' ')})`);
  const second = spawn(BIN.desktop, [], { env: app.env, stdio: 'ignore' });
  const code = await new Promise((resolve) => second.on('exit', resolve));
  assert.equal(code, 0, 'the second launch exits cleanly');
  assert.deepEqual(desktopPids(), before, 'still the one process');
  assert.equal(await app.b.execute(() => document.visibilityState), 'visible');
});
