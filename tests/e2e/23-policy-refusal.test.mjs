// A server the team's policy refuses (issue 36), in the window: its page
// names the rule and the file, and prepares the request for an exception
// (the server, its command, the rule, the person's reason, the address).
// The policy is a file in a folder of the test's own (read by debug builds
// only, through AIRLOCK_TEST_POLICY_ROOT; a release build reads
// /etc/airlock and nothing moves it).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, BIN, waitFor } from './lib/harness.mjs';
import { fill, goTo } from './lib/steps.mjs';

let app;
after(() => app?.close());

test('a refused server says which rule and prepares the exception request', { timeout: 120_000 }, async () => {
  let root;
  app = await App.launch('23-policy-refusal', {
    env: { AIRLOCK_TEST_POLICY_ROOT: '/nonexistent-yet' },
    before: (a) => {
      // Added before the policy says no (the folder is empty then).
      root = path.join(a.dir, 'etc-airlock');
      fs.mkdirSync(root, { recursive: true, mode: 0o755 });
      a.env.AIRLOCK_TEST_POLICY_ROOT = root;
      a.cli('servers', 'add', 'ev', '--command', 'node', '--', BIN.everything, 'stdio');
      fs.writeFileSync(path.join(root, 'policy.json'), JSON.stringify({
        deniedServers: [{ command: ['node', BIN.everything, 'stdio'] }],
        contact: { name: 'IT', email: 'it@corp.example' },
      }), { mode: 0o644 });
    },
  });
  await goTo(app, 'servers');
  await app.click('details-ev');
  await app.waitExists('policy-refusal', 30_000);
  const said = await app.text('policy-refusal');
  assert.match(said, /deniedServers\[0\]/);
  assert.match(said, /policy\.json/);
  await fill(app, 'policy-why', 'I test MCP clients');
  await app.click('policy-prepare');
  await app.waitExists('policy-request');
  const request = await app.text('policy-request');
  assert.match(request, /Server: ev/);
  assert.match(request, /deniedServers\[0\]/);
  assert.match(request, /I test MCP clients/);
  assert.equal((await app.text('policy-contact')).trim(), 'it@corp.example');
  await app.shot('policy-refusal');
  // The refusal is in its log too.
  await waitFor('the refusal in its log', async () => app.cli('logs', 'ev').includes("organization's policy"));
});
