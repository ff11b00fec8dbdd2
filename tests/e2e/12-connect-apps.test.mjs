// Connect apps: the page lists the supported apps (detected or not), Connect
// shows the diff of the app's own config and writes it only after the user
// confirms, Disconnect puts the file back byte for byte. Single instance: a
// second launch exits and brings the running window forward.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, waitFor } from './lib/harness.mjs';
import { goTo } from './lib/steps.mjs';

let app;
after(() => app?.close());

const CURSOR = '{\n  "mcpServers": {\n    "notes": {"command": "notes-server"}\n  }\n}\n';

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

test('connect and disconnect Cursor from the Connect apps page', { timeout: 120_000 }, async () => {
  app = await App.launch('12-connect-apps', {
    before: (a) => {
      fs.mkdirSync(path.join(a.home, '.cursor'), { recursive: true });
      fs.writeFileSync(path.join(a.home, '.cursor/mcp.json'), CURSOR);
    },
  });
  const cursorFile = path.join(app.home, '.cursor/mcp.json');
  await goTo(app, 'apps');
  await waitFor('Cursor config found', async () => (await stateOf('cursor')) === 'Config found');
  assert.equal(await stateOf('zed'), 'Not found');
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
  await app.shot('connect-diff');

  await app.click('apps-apply');
  await waitFor('Cursor connected', async () => (await stateOf('cursor')) === 'Connected');
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
