// A secret header typed into the GUI goes to the OS keychain and nowhere
// else: not the database (nor its -wal), not the settings, not WebKit's
// storage under HOME, not the logs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { after, test } from 'node:test';

import { App, BIN, filesContaining, freePort, listFiles, randomHex, waitFor } from './lib/harness.mjs';
import { addServer, openTool, runTool, toolResult, waitServerState } from './lib/steps.mjs';

let app;
let proxy;
after(async () => {
  proxy?.close();
  proxy?.closeAllConnections();
  await app?.close();
});

/**
 * A pass-through HTTP proxy that notes, in memory only, whether each request
 * carried exactly the expected Authorization header.
 */
function authProbe(upstreamPort, expected) {
  const seen = { match: 0, other: 0, none: 0 };
  const server = http.createServer((req, res) => {
    const auth = req.headers.authorization;
    seen[auth === undefined ? 'none' : auth === expected ? 'match' : 'other'] += 1;
    const up = http.request({ host: '127.0.0.1', port: upstreamPort, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return { server, seen };
}

function keychain(env) {
  return execFileSync('secret-tool', ['search', '--all', 'service', 'dev.airlock'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

test('a secret header entered in the GUI lands in the keychain only', { timeout: 120_000 }, async () => {
  const canary = `CANARY-${randomHex(24)}`;
  const secret = `Bearer ${canary}`;
  app = await App.launch('06-secret-header');

  // py-peer over streamable HTTP on a free port.
  const port = await freePort();
  const peer = app.spawnChild(BIN.python, [BIN.pyServer, 'http', '--port', String(port)]);
  let peerErr = '';
  peer.stderr.on('data', (d) => { peerErr += d; });
  await waitFor('py-peer http to listen', () => peerErr.includes('py-peer ready http://'), { timeout: 20000 });
  const probe = authProbe(port, secret);
  proxy = probe.server;
  await new Promise((r) => proxy.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${proxy.address().port}/mcp`;

  await addServer(app, { name: 'secure', url, headers: [{ key: 'Authorization', value: secret, secret: true }] }, {
    beforeSubmit: async () => {
      const type = await (await app.$('server-form-value-0')).getAttribute('type');
      assert.equal(type, 'password', 'a secret value is masked while typed');
      await app.shot('form-with-secret-header');
    },
  });
  await waitServerState(app, 'secure', 'ready');
  await app.shot('server-ready');
  const rowText = await app.text('server-row-secure');
  assert.ok(!rowText.includes(canary), 'the server row does not show the secret');

  // The connection works with it: call a tool over HTTP.
  await openTool(app, 'secure', 'echo');
  await runTool(app, { message: 'hello over http' });
  const echoed = await toolResult(app);
  assert.ok(echoed.includes('hello over http'), echoed);
  await app.shot('tool-call-over-http');
  assert.ok(probe.seen.match > 0, `the server got the header from the keychain: ${JSON.stringify(probe.seen)}`);
  assert.equal(probe.seen.other + probe.seen.none, 0, `every request carried it: ${JSON.stringify(probe.seen)}`);

  // The keychain holds it, under Airlock's service name.
  const kc = keychain(app.env);
  assert.ok(kc.includes(`secret = ${secret}`), `secret-tool lists the secret under service dev.airlock:\n${kc.replace(canary, '<canary>')}`);
  // The stored definition holds a reference, not the value.
  const def = app.cliJson('servers', 'show', 'secure');
  assert.ok(def.transport.headers.Authorization.secret_ref, `the definition holds a keychain reference: ${JSON.stringify(def).replace(canary, '<canary>')}`);

  // Nowhere else: every file the app wrote (database, -wal, -shm, settings,
  // WebKit storage and caches under HOME, XDG dirs), while the app still runs
  // (the -wal is live) and after it stopped.
  const files = listFiles(app.dir);
  assert.ok(files.some((f) => f.endsWith('.db') || f.endsWith('.sqlite') || f.endsWith('.sqlite3')), `a database exists: ${files.join(', ')}`);
  assert.deepEqual(filesContaining(app.dir, canary), [], 'no file holds the secret while the app runs');
  await app.stop();
  assert.deepEqual(filesContaining(app.dir, canary), [], 'no file holds the secret after the app stopped');
  assert.deepEqual(filesContaining(app.artifactDir, canary), [], 'no artifact holds the secret');
});
