// Start (issue 15, goal 5): the window is created hidden and shown once its
// page has loaded (src-tauri/src/startup.rs), so that WebKit's first draw
// does not wait on a web process that has nothing yet. What a user checks:
// a plain start shows the window with the server list in it, and prints how
// long that took; a start at login (`--hidden`) stays in the tray, also
// after the page has loaded and after the fallback delay, until the user
// launches Airlock again.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, sleep, waitFor, windowsTitled } from './lib/harness.mjs';

const started = [];
let app;
after(async () => {
  for (const p of started) {
    try { p.kill('SIGTERM'); } catch { /* gone */ }
  }
  await app?.close();
});

/** Start the desktop app as a user or the login entry does (no WebDriver). */
function launch(args) {
  const err = path.join(app.dir, `stderr-${started.length}.txt`);
  const p = spawn(BIN.desktop, args, { env: app.env, stdio: ['ignore', 'ignore', fs.openSync(err, 'w')] });
  started.push(p);
  return { p, err };
}

function shotRoot(step) {
  app.shotNo += 1;
  const file = path.join(app.artifactDir, `${String(app.shotNo).padStart(2, '0')}-${step}.png`);
  execFileSync('import', ['-window', 'root', file], { env: app.env, timeout: 15000 });
}

test('a start at login stays in the tray; a plain start shows the list and says how long it took', { timeout: 90_000 }, async () => {
  app = new App('18-start', {});
  app.cli('servers', 'add', 'py', '--command', BIN.python, '--', BIN.pyServer, 'stdio');

  // At login: the page loads (the gateway socket appears once the core
  // runs), the fallback delay (3 s) passes, and still no window.
  const login = launch(['--hidden']);
  await waitFor('the host to serve apps', () => fs.existsSync(path.join(app.dataDir, 'gateway.sock')));
  await sleep(4000);
  assert.equal(login.p.exitCode, null, 'the login start keeps running');
  assert.deepEqual(windowsTitled('Airlock'), [], 'no window after a start at login');
  shotRoot('login-start-in-the-tray');

  // The user launches Airlock: the running one shows its window.
  const second = launch([]);
  assert.equal(await new Promise((resolve) => second.p.on('exit', resolve)), 0, 'the second launch hands over and exits');
  await waitFor('the window', () => windowsTitled('Airlock').length === 1);
  await sleep(500);
  shotRoot('brought-forward');

  // A plain start on its own: the window shows, the server list is drawn
  // and the shell prints when.
  login.p.kill('SIGTERM');
  await waitFor('the login start to end', () => login.p.exitCode !== null || login.p.signalCode !== null);
  await waitFor('no window', () => windowsTitled('Airlock').length === 0);
  const plain = launch([]);
  await waitFor('the window', () => windowsTitled('Airlock').length === 1);
  const line = await waitFor('the start line', () => {
    const text = fs.readFileSync(plain.err, 'utf8');
    return text.match(/the window showed its data (\d+) ms after main\(\) began \(unix ms (\d+)\)/);
  });
  const ms = Number(line[1]);
  assert.ok(ms > 0 && ms < 30_000, `a plausible start time: ${ms} ms`);
  await sleep(500);
  shotRoot('plain-start');
  // Exactly one such line: a later paint of the list prints nothing.
  assert.equal(fs.readFileSync(plain.err, 'utf8').match(/showed its data/g).length, 1);
});
