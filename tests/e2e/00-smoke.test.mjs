// Smoke: on a first run the window renders with the bundled demo server
// configured and connected, every page of the sidebar opens, and at the
// minimum window size (900×600) nothing scrolls sideways.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { App, waitFor } from './lib/harness.mjs';
import { PAGES, clippedText, goTo, sidewaysOverflow, smallestWindow, waitServerState } from './lib/steps.mjs';

let app;
after(() => app?.close());

test('the window renders at 900×600 without horizontal scrollbars', { timeout: 90_000 }, async () => {
  // A first run: Airlock configures its demo server (it sits next to the binary).
  app = await App.launch('00-smoke-900x600', { demo: true });
  const { b } = app;
  const demo = await waitServerState(app, 'demo', 'ready');
  assert.match(demo.text, /Ready/);

  assert.equal(await b.getTitle(), 'Airlock');
  await smallestWindow(app);

  for (const page of PAGES) {
    await goTo(app, page);
    await app.shot(`page-${page}`);
    if (page === 'settings') {
      // About: the same version and MCP revisions as `airlock --version`.
      const about = await waitFor('the About line', async () => {
        const el = await b.$('[data-testid="about"]');
        return (await el.isExisting()) && (await el.getText());
      });
      const [, version, revisions] = app.cli('--version').trim().match(/^airlock (\S+) \(MCP (.+)\)$/);
      assert.equal(about.replace(/\s+/g, ' '), `Airlock ${version} · MCP protocol revisions ${revisions}`);
      await b.execute(() => document.querySelector('[data-testid="about"]').scrollIntoView());
      await app.shot('settings-about');
    }
    const overflow = await sidewaysOverflow(app);
    assert.ok(
      overflow.scrollWidth <= overflow.clientWidth,
      `${page}: the document scrolls sideways at 900×600 (scrollWidth ${overflow.scrollWidth} > clientWidth ${overflow.clientWidth})`,
    );
    assert.deepEqual(overflow.wide, [], `${page}: a scrolling container is wider than its box at 900×600`);
    assert.deepEqual(await clippedText(app), [], `${page}: text cut off at 900×600`);
  }
  // Ctrl+K: the command palette finds the demo server's tool and goes there.
  await goTo(app, 'settings');
  await b.keys(['Control', 'k']);
  const input = await app.waitExists('palette-input');
  await input.setValue('connect_demo');
  await waitFor('the tool in the palette', async () => /demo › connect_demo_account/.test((await app.text('palette-row-0')) || ''));
  await app.shot('command-palette');
  await b.keys(['Enter']);
  await waitFor('the demo server page', async () => !(await app.exists('palette')) && (await app.exists('tool-runner')));
  // Test connection: a timed round trip to the server, with what it offers.
  await app.click('detail-test');
  await app.waitExists('detail-test-result');
  assert.match(await app.text('detail-test-result'), /^It answered in \d+ ms: \d+ tools?, \d+ prompts?, \d+ resources?/);

  // The server's own page too, and every page again at 1280×800.
  await goTo(app, 'servers');
  await app.click('details-demo');
  await app.waitExists('tool-runner', 20000);
  await app.shot('page-server-900x600');
  assert.deepEqual(await clippedText(app), [], 'the server page: text cut off at 900×600');
  assert.ok((await sidewaysOverflow(app)).scrollWidth <= 900, 'the server page scrolls sideways at 900×600');
  // The form to add a server (its selects among them).
  await goTo(app, 'servers');
  await app.click('add-server');
  await app.waitExists('server-form');
  await app.shot('add-server-form-900x600');
  assert.deepEqual(await clippedText(app), [], 'the server form: text cut off at 900×600');
  assert.ok((await sidewaysOverflow(app)).scrollWidth <= 900, 'the server form scrolls sideways at 900×600');
  await b.setWindowSize(1280, 800);
  await waitFor('the viewport to be 1280×800', async () => {
    const [w, h] = await b.execute(() => [window.innerWidth, window.innerHeight]);
    return w === 1280 && h === 800;
  });
  for (const page of PAGES) {
    await goTo(app, page);
    await app.shot(`page-${page}-1280x800`);
    const overflow = await sidewaysOverflow(app);
    assert.ok(overflow.scrollWidth <= overflow.clientWidth, `${page}: the document scrolls sideways at 1280×800`);
    assert.deepEqual(overflow.wide, [], `${page}: a scrolling container is wider than its box at 1280×800`);
    assert.deepEqual(await clippedText(app), [], `${page}: text cut off at 1280×800`);
  }
});

test('the isolation hook lets Airlock commands through and refuses anything else', { timeout: 90_000 }, async () => {
  const iso = await App.launch('00-smoke-isolation');
  try {
    const { b } = iso;
    // A script in the page (say, a compromised dependency) calls IPC directly.
    // A call the hook refuses never reaches Rust, so it never settles: give
    // each call 3 s and record "no answer" as its own status.
    const outcome = await b.executeAsync((done) => {
      const invoke = window.__TAURI_INTERNALS__.invoke;
      const within = (p) => Promise.race([
        p.then(() => 'fulfilled', () => 'rejected'),
        new Promise((r) => setTimeout(() => r('no answer'), 3000)),
      ]);
      Promise.all([
        within(invoke('app_info')),
        within(invoke('plugin:dialog|message', { message: 'x' })),
        within(invoke('not_a_command')),
      ]).then(done);
    });
    assert.equal(outcome[0], 'fulfilled', `app_info passes: ${JSON.stringify(outcome)}`);
    assert.notEqual(outcome[1], 'fulfilled', `a dialog plugin call is refused: ${JSON.stringify(outcome)}`);
    assert.notEqual(outcome[2], 'fulfilled', `an unknown command is refused: ${JSON.stringify(outcome)}`);
    // Refused by the hook (never answered), not merely by a capability check.
    assert.equal(outcome[1], 'no answer', `the hook stopped the dialog call: ${JSON.stringify(outcome)}`);
  } finally {
    await iso.close();
  }
});
