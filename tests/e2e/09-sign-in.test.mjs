// MCP authorization (OAuth) in the window, against the TypeScript SDK's
// elicitationUrlExample server and its demo authorization server (which
// approves at once and redirects back):
// - at start the server shows "Sign-in required" and a Sign in button (no
//   prompt out of the blue);
// - Sign in raises the native dialog "asks you to sign in" with the
//   authorization server's domain; Cancel there opens nothing;
// - after "Open in browser" the row waits ("Signing in…", Cancel sign-in),
//   and Cancel sign-in stops the wait;
// - with a browser that follows the redirect, one consented round trip
//   signs in; tokens are in the keychain only, and survive a restart;
// - third-party-auth takes the -32042 path; its completion notification
//   arrives 5 s later and Airlock retries;
// - Sign out forgets the tokens.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, ROOT, filesContaining, focusAndKey, freePort, sh, sleep, waitFor, waitForNoWindow, waitForWindow, windowsTitled } from './lib/harness.mjs';
import { fill, goTo, openTool, runTool, toolResult, waitServerState } from './lib/steps.mjs';

const EXAMPLE = path.join(ROOT, 'tests/peers/node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/elicitationUrlExample.js');
const SIGN_IN = 'Airlock: ex asks you to sign in';
const OPEN_PAGE = 'Airlock: ex asks you to open a web page';
const THIRD_PARTY = 'https://www.example.com/oauth/authorize';

let app;
after(() => app?.close());

/**
 * The example also asks each new session for an API key (a URL elicitation
 * of its own api-key-form page) once its event stream is open, which may be
 * a little later or not at all: decline any such dialog, found by its
 * request number.
 */
async function declineApiKeyRequests() {
  await sleep(1500);
  const waiting = (await app.elicitations()).filter((r) => r.url?.includes('/api-key-form') && r.state === 'requested');
  for (const r of waiting) {
    const title = `${OPEN_PAGE} (request ${r.id})`;
    const win = await waitForWindow(title);
    focusAndKey(win, 'Return');
    await waitForNoWindow(title);
  }
}

test('sign in through the consent dialog, tokens survive a restart, -32042 after sign-in, sign out', { timeout: 180_000 }, async () => {
  const mcpPort = await freePort();
  const authPort = await freePort();
  const authOrigin = `http://localhost:${authPort}`;
  const mcpUrl = `http://localhost:${mcpPort}/mcp`;
  let exampleLog = '';

  app = await App.launch('09-sign-in', {
    before: async (a) => {
      const ex = a.spawnChild('node', [EXAMPLE], { env: { ...a.env, MCP_PORT: String(mcpPort), MCP_AUTH_PORT: String(authPort) } });
      ex.stdout.on('data', (d) => { exampleLog += d; });
      ex.stderr.on('data', (d) => { exampleLog += d; });
      await waitFor('the example server to listen', () => exampleLog.includes('listening on port'), { timeout: 20000 });
      a.cli('servers', 'add', 'ex', '--url', mcpUrl);
    },
  });

  // 1. No prompt at start: the row says sign-in is required and offers it.
  const st = await waitServerState(app, 'ex', 'sign_in_required');
  assert.equal(st.text, 'Sign-in required');
  assert.match(st.reason ?? '', /requires you to sign in/);
  assert.ok(!/airlock login|`/.test(st.reason ?? ''), `the window's words, no command line: ${st.reason}`);
  assert.equal(windowsTitled(SIGN_IN).length, 0, 'no sign-in dialog nobody asked for');
  await app.waitExists('sign-in-ex');
  await app.shot('sign-in-required');

  // 2. Sign in -> native dialog with the authorization server's domain; Escape is "Don't open".
  await app.click('sign-in-ex');
  let win = await waitForWindow(SIGN_IN);
  await app.shot('native-sign-in-dialog');
  focusAndKey(win, 'Escape');
  await waitForNoWindow(SIGN_IN);
  await waitServerState(app, 'ex', 'sign_in_required');
  let records = await app.elicitations();
  assert.equal(records[0].origin, 'sign_in');
  assert.equal(records[0].state, 'declined');
  assert.equal(records[0].registrable_domain, 'localhost');
  assert.ok(records[0].url.startsWith(`${authOrigin}/authorize?`), records[0].url);
  assert.deepEqual(app.opened(), [], 'not opened: nothing opened');

  // 3. Sign in, Open in browser; this browser only records: the row waits; Cancel sign-in.
  await app.click('sign-in-ex');
  win = await waitForWindow(SIGN_IN);
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(SIGN_IN);
  await waitServerState(app, 'ex', 'signing_in');
  await app.waitText('status-reason-ex', (t) => t.includes('localhost'), 'the waiting line names the domain');
  assert.equal(app.opened().length, 1);
  assert.ok(app.opened()[0].startsWith(`${authOrigin}/authorize?`));
  await app.shot('waiting-for-browser');
  await app.click('cancel-sign-in-ex');
  await waitServerState(app, 'ex', 'sign_in_required');
  records = await app.elicitations();
  assert.equal(records[0].state, 'cancelled');

  // 4. Now a browser that follows the demo server's redirect back to Airlock.
  fs.writeFileSync(app.recorderScript, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${app.recorderLog}'\ncase "$1" in\n  '${authOrigin}'*) curl -s -L -o /dev/null --max-time 20 "$1" </dev/null >/dev/null 2>&1 & ;;\nesac\n`);
  await app.click('sign-in-ex');
  win = await waitForWindow(SIGN_IN);
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(SIGN_IN);
  const ready = await waitServerState(app, 'ex', 'ready');
  assert.match(ready.text, /^Ready/);
  await app.waitExists('signed-in-ex');
  await declineApiKeyRequests();
  await app.shot('signed-in-ready');
  const signIns = () => app.opened().filter((u) => u.startsWith(authOrigin));
  assert.equal(signIns().length, 2, 'one page per consented sign-in');
  records = await app.elicitations();
  const completed = records.find((r) => r.origin === 'sign_in' && r.state === 'completed');
  assert.ok(completed, JSON.stringify(records));

  // Tokens: in the keychain, not in Airlock's files.
  const found = sh('secret-tool', ['search', '--all', 'service', 'dev.airlock'], { env: app.env }) ?? '';
  // secret-tool prints the attributes on stderr; the label carries the reference.
  const user = (found.match(/label = (\S+\/server\/ex\/oauth\/credentials)@dev\.airlock/) || [])[1];
  assert.ok(user, `credentials in the keychain: ${found}`);
  const creds = JSON.parse(sh('secret-tool', ['lookup', 'service', 'dev.airlock', 'username', user], { env: app.env }));
  const access = creds.token_response.access_token;
  assert.ok(access && access.length >= 16);
  assert.deepEqual(filesContaining(app.dataDir, access), [], 'the access token is in no file of the data dir');

  // 5. third-party-auth: -32042 -> dialog -> browser -> completion 5 s later -> retry.
  await openTool(app, 'ex', 'third-party-auth');
  await runTool(app, { param1: 'x' });
  const asked = await waitFor('the third-party request', async () => (await app.elicitations()).find((r) => r.url === THIRD_PARTY));
  const thirdTitle = `${OPEN_PAGE} (request ${asked.id})`;
  win = await waitForWindow(thirdTitle);
  await app.shot('third-party-dialog');
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(thirdTitle);
  await waitFor('the third-party page in the browser', () => app.opened().includes(THIRD_PARTY));
  // The example asks again for the same URL on every call: the retry after the
  // completion ends in Airlock's loop guard (no second dialog for it).
  const result = await toolResult(app, (t) => t.startsWith('error:'), 30000);
  assert.match(result, /asked again for the same page/);
  await app.shot('third-party-loop-guard');
  records = await app.elicitations();
  const third = records.filter((r) => r.url === THIRD_PARTY);
  assert.equal(third[third.length - 1].state, 'completed', 'completed by the server notification');
  assert.equal(app.opened().filter((u) => u === THIRD_PARTY).length, 1);

  // 6. Restart: the stored tokens connect without a browser.
  await app.restart();
  await waitServerState(app, 'ex', 'ready');
  await declineApiKeyRequests();
  assert.equal(signIns().length, 2, 'no new sign-in after the restart');
  await app.shot('ready-after-restart');

  // 7. Sign out: tokens gone from the keychain, the badge goes.
  await goTo(app, 'servers');
  await app.click('sign-out-ex');
  await waitFor('the signed-in badge to go', async () => !(await app.exists('signed-in-ex')));
  assert.ok(!sh('secret-tool', ['lookup', 'service', 'dev.airlock', 'username', user], { env: app.env }), 'tokens removed');
  await waitServerState(app, 'ex', 'sign_in_required');
  await sleep(200);
  await app.shot('signed-out');

  // 8. A client registered with the provider by hand (as for providers
  // without dynamic registration), with a fixed redirect port.
  const port = await freePort();
  const redirect = `http://127.0.0.1:${port}/callback`;
  const reg = await (await fetch(`${authOrigin}/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'registered by hand', redirect_uris: [redirect], token_endpoint_auth_method: 'client_secret_post', grant_types: ['authorization_code'], response_types: ['code'] }),
  })).json();
  await app.click('oauth-client-edit-ex');
  await fill(app, 'oauth-client-id', reg.client_id);
  await fill(app, 'oauth-client-secret', reg.client_secret);
  await fill(app, 'oauth-client-port', String(port));
  await app.shot('oauth-client-form');
  await app.click('oauth-client-save');
  await app.waitText('oauth-client-ex', (t) => t.includes(reg.client_id) && t.includes('secret in OS keychain'), 'the row names the client');
  assert.deepEqual(filesContaining(app.dataDir, reg.client_secret), [], 'the client secret is in no file of the data dir');
  await app.click('sign-in-ex');
  win = await waitForWindow(SIGN_IN);
  focusAndKey(win, 'Tab', 'space');
  await waitForNoWindow(SIGN_IN);
  await waitServerState(app, 'ex', 'ready');
  const last = new URL(signIns().at(-1));
  assert.equal(last.searchParams.get('client_id'), reg.client_id, 'the registered client, no dynamic registration');
  assert.equal(last.searchParams.get('redirect_uri'), redirect);
  await declineApiKeyRequests();
  await app.shot('signed-in-with-registered-client');
});
