// A server from the catalog in one flow (issue 35): a registry read into
// the cache, an entry found by search, its install showing exactly what
// will run (the command with its own file, never npx; the package, its
// hash and the lock over every file; the room) with "Don't install" the
// default, then its first tools before any app sees them. Real parts:
// Verdaccio holding server-everything re-published; the MCP Registry is a
// FAKE of ours on its /v0.1 API.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';

import { App, waitFor } from './lib/harness.mjs';
import { entry, fakeMcpRegistry, publishEverything, verdaccio } from './lib/registries.mjs';
import { fill, goTo } from './lib/steps.mjs';

let app;
let npm;
let mcp;
after(async () => {
  npm?.stop();
  mcp?.stop();
  await app?.close();
});

test('find, check and install a server; its first tools shown before any app', { timeout: 300_000 }, async () => {
  const work = fs.mkdtempSync(path.join(process.env.AIRLOCK_SESSION_DIR || '/tmp', 'e2e-registries-'));
  npm = await verdaccio(work);
  publishEverything(work, npm, 'airlock-e2e-everything', '1.0.0');
  mcp = await fakeMcpRegistry([
    entry('io.github.airlock-e2e/everything', '1.0.0',
      [{ registryType: 'npm', identifier: 'airlock-e2e-everything', version: '1.0.0' }],
      { description: 'The MCP reference server: every feature of the protocol, to try a client with.' }),
    entry('io.github.airlock-e2e/weather', '2.1.0',
      [{ registryType: 'npm', identifier: 'airlock-e2e-weather', version: '2.1.0', environmentVariables: [{ name: 'WEATHER_API_KEY', isSecret: true, isRequired: true, description: 'Your key' }] }],
      { description: 'Forecasts\u200B for any city.' }),
    entry('io.github.airlock-e2e/old-maps', '0.9.0',
      [{ registryType: 'npm', identifier: 'airlock-e2e-maps', version: '0.9.0' }],
      { description: 'Maps.', status: 'deprecated', statusMessage: 'Use io.github.airlock-e2e/maps' }),
  ]);
  app = await App.launch('22-catalog-install', {
    before: (a) => fs.writeFileSync(path.join(a.home, '.npmrc'), `registry=${npm.url}\n`),
  });

  await goTo(app, 'catalog');
  await app.waitExists('catalog-empty');
  // The official registry is listed at first (nothing leaves this machine
  // here): take it out, add the test's own, read.
  assert.match(await app.text('catalog-registry-row'), /registry\.modelcontextprotocol\.io/);
  await app.click('catalog-remove-registry');
  await waitFor('no registry listed', async () => !(await app.exists('catalog-registry-row')));
  await fill(app, 'catalog-registry', mcp.url);
  await app.click('catalog-add-registry');
  await app.waitText('catalog-registry-row', (t) => t.includes(mcp.url), 'the registry kept');
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(app.dataDir, 'desktop-settings.json'), 'utf8')).registries, [mcp.url]);
  await app.click('catalog-read');
  await waitFor('three entries', async () => (await app.b.$$('[data-testid="catalog-entry"]')).length === 3);
  await app.shot('catalog');
  const listed = await app.b.execute(() => document.querySelector('main')?.innerText ?? '');
  assert.match(listed, /Deprecated/, 'a deprecated entry says so');
  assert.ok(await app.b.execute(() => !!document.querySelector('[data-testid="catalog-entry"] [data-testid="hidden-char"]')), 'a hidden character is shown');

  await fill(app, 'catalog-search', 'reference');
  await waitFor('one match', async () => (await app.b.$$('[data-testid="catalog-entry"]')).length === 1);
  await app.click('catalog-install');
  await app.waitExists('install-ask');
  await app.click('install-prepare');
  await app.waitExists('install-plan', 180_000);
  const command = await app.text('install-command');
  assert.match(command, /\/node \S+\/packages\/everything-[0-9a-f]+\/1\.0\.0\/node_modules\/airlock-e2e-everything\/bin\.js$/, command);
  assert.doesNotMatch(command, /npx/);
  const plan = await app.text('install-plan');
  assert.match(plan, /npm airlock-e2e-everything@1\.0\.0/);
  assert.match(plan, /sha512-/, "the package's hash");
  assert.match(plan, /sha256:[0-9a-f]{64}/, 'the lock over every file');
  assert.match(await app.text('install-room'), /Confined/);
  assert.equal(await app.b.execute(() => document.activeElement?.getAttribute('data-testid')), 'install-no', "Don't install is the default");
  if (await app.exists('toast-close')) await app.click('toast-close');
  await app.shot('install-plan');
  assert.equal(JSON.parse(app.cli('--json', 'servers', 'list')).length, 0, 'nothing added before the yes');

  await app.click('install-yes');
  await waitFor('its first tools', async () => (await app.b.$$('[data-testid="sight-item"]')).length > 5, { timeout: 120_000 });
  const sight = await app.text('install-sight');
  assert.match(sight, /echo/);
  if (await app.exists('toast-close')) await app.click('toast-close');
  await app.shot('first-sight');
  // Before the person's yes, no app sees them: every one waits for review.
  const waiting = JSON.parse(app.cli('--json', 'tools', 'review', 'everything'));
  assert.ok(waiting.length > 5 && waiting.every((c) => c.state === 'pending'), `held at first sight: ${waiting.length}`);
  await app.click('sight-approve');
  await waitFor('the server page', () => app.b.execute(() => document.querySelector('[data-testid="nav-servers"]')?.getAttribute('aria-current') === 'page'));
  await waitFor('all approved', async () => JSON.parse(app.cli('--json', 'tools', 'review', 'everything')).length === 0);
  const installed = JSON.parse(app.cli('--json', 'catalog', 'installed'));
  assert.equal(installed[0].server, 'everything');
  assert.equal(installed[0].first_sight, false);
  // The registry publishes 1.1.0, whose echo tool says something new: the
  // catalog says so after the next read, and installs nothing.
  publishEverything(work, npm, 'airlock-e2e-everything', '1.1.0', 'Echoes back the input string, and keeps a copy');
  mcp.set([entry('io.github.airlock-e2e/everything', '1.1.0',
    [{ registryType: 'npm', identifier: 'airlock-e2e-everything', version: '1.1.0' }])]);
  await goTo(app, 'catalog');
  await app.click('catalog-read');
  await app.waitText('catalog-updates', (t) => t.includes('1.0.0 → 1.1.0 available'), 'the update is shown');
  await app.waitText('catalog-badge', (t) => t.trim() === '1', 'the Catalog badge counts it');
  assert.match(await app.text('catalog-installed'), /Installed as everything \(1\.0\.0\)/);
  await app.shot('catalog-update');
  assert.equal(JSON.parse(app.cli('--json', 'catalog', 'installed'))[0].version, '1.0.0');

  // The update as one review: the changed tool side by side; Keep is the
  // default; Update moves the server and its pins.
  await app.click('catalog-review-update');
  await app.waitExists('update-plan', 180_000);
  assert.match(await app.text('update-summary'), /1 difference/);
  const change = await app.text('update-change');
  assert.match(change, /echo/);
  assert.match(change, /and keeps a copy/);
  assert.equal(await app.b.execute(() => document.activeElement?.getAttribute('data-testid')), 'update-keep', 'Keep is the default');
  if (await app.exists('toast-close')) await app.click('toast-close');
  await app.b.execute(() => document.querySelector('[data-testid="update-approve"]')?.scrollIntoView({ block: 'end' }));
  await app.shot('update-review');
  await app.click('update-approve');
  await waitFor('the update', async () => JSON.parse(app.cli('--json', 'catalog', 'installed'))[0].version === '1.1.0', { timeout: 30_000 });
  assert.equal(JSON.parse(app.cli('--json', 'tools', 'review', 'everything')).length, 0, 'its pins moved with it');

  // It runs, in its room, from its own folder.
  const call = JSON.parse(app.cli('--json', '--consent', 'decline', 'call', 'everything', 'echo', '--args', '{"message":"from the catalog"}'));
  assert.match(JSON.stringify(call.result), /from the catalog/);
});
