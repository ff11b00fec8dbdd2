// Form-mode elicitation in the window: server-everything's
// trigger-elicitation-request asks for a form with every schema type (text,
// boolean, email, uri, date, integer, number, single and multi select, titled
// and legacy-titled choices). The form appears under the running tool; the
// defaults are pre-filled, a wrong value gets its inline error, nothing is
// sent until it is fixed, and Accept sends exactly what was entered (the
// server echoes it back in the tool's result). Decline sends decline.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { App, BIN, waitFor } from './lib/harness.mjs';
import { fill, openTool, runTool, toolResult, waitElicitationState, waitServerState } from './lib/steps.mjs';

const TOOL = 'trigger-elicitation-request';

const apps = [];
after(async () => {
  for (const a of apps) await a.close();
});

async function launch(name) {
  const app = await App.launch(name, {
    before: (a) => a.cli('servers', 'add', 'everything', '--command', 'node', '--', BIN.everything, 'stdio'),
  });
  apps.push(app);
  return app;
}

/** Run the tool from the server's page; returns the record id of the form card shown under it. */
async function openForm(app) {
  await waitServerState(app, 'everything', 'ready');
  await openTool(app, 'everything', TOOL);
  await runTool(app, {});
  const id = await waitFor('the form card under the running tool', () => app.b.execute(() => {
    const el = [...document.querySelectorAll('[data-testid="tool-result"] [data-testid^="form-"]')]
      .find((e) => /^form-\d+$/.test(e.getAttribute('data-testid')));
    return el ? Number(el.getAttribute('data-testid').slice('form-'.length)) : null;
  }), { timeout: 30000 });
  return id;
}

/** Scroll a test id into the middle of the view (for the screenshots). */
async function scrollTo(app, testid, block = 'center') {
  await app.b.execute((t, b) => document.querySelector(`[data-testid="${t}"]`)?.scrollIntoView({ block: b }), testid, block);
}

/** The values the form controls hold now: text/select values, checkbox states. */
async function controls(app, id) {
  return app.b.execute((rid) => {
    const card = document.querySelector(`[data-testid="form-${rid}"]`);
    const out = {};
    for (const el of card.querySelectorAll('[data-testid^="form-field-"]')) {
      const name = el.getAttribute('data-testid').slice('form-field-'.length);
      if (el.tagName === 'FIELDSET') {
        out[name] = [...el.querySelectorAll('input[type="checkbox"]')].filter((c) => c.checked).map((c) => c.parentElement.textContent.trim());
      } else if (el.tagName === 'SELECT') {
        out[name] = el.selectedOptions[0]?.textContent.trim() ?? null;
      } else if (el.type === 'checkbox') {
        out[name] = el.checked;
      } else {
        out[name] = el.value;
      }
    }
    return out;
  }, id);
}

/** Choose the option of a <select> whose text is `label`. */
async function choose(app, testid, label) {
  const el = await app.waitExists(testid);
  await el.selectByVisibleText(label);
  const got = await app.b.execute((t) => document.querySelector(`[data-testid="${t}"]`).selectedOptions[0]?.textContent.trim(), testid);
  assert.equal(got, label, `${testid} shows ${label}`);
}

/**
 * Type a date (YYYY-MM-DD) into an <input type="date"> the way a person does:
 * WebKit shows it as month, day and year segments in the locale's order, and
 * a separator moves on to the next segment (WebDriver's element send-keys
 * leaves a date input empty: keystrokes go to the focused field instead).
 */
async function fillDate(app, testid, iso) {
  const [year, month, day] = iso.split('-');
  const el = await app.waitExists(testid);
  await el.scrollIntoView({ block: 'center' });
  await el.click();
  const order = await app.b.execute(() => new Intl.DateTimeFormat(undefined, { year: 'numeric', month: '2-digit', day: '2-digit' })
    .formatToParts(new Date(2000, 0, 2)).filter((p) => p.type !== 'literal').map((p) => p.type));
  const parts = { year, month, day };
  // Typed as keystrokes on the focused field, each segment closed by its separator.
  await app.b.keys([...order.map((p) => parts[p]).join('/')]);
  assert.equal(await el.getValue(), iso, `${testid} holds ${iso} (typed in the order ${order.join('/')})`);
}

/** Set a checkbox of a multi-select to `on` by clicking it. */
async function check(app, testid, on) {
  const el = await app.waitExists(testid);
  if ((await el.isSelected()) !== on) await el.click();
  assert.equal(await el.isSelected(), on, `${testid} is ${on ? 'checked' : 'unchecked'}`);
}

/** The JSON after "Raw result:" in server-everything's answer. */
function rawResult(text) {
  const m = text.match(/Raw result: (\{[\s\S]*\})/);
  assert.ok(m, `the result carries the raw elicitation result: ${text}`);
  return JSON.parse(m[1]);
}

/** Elements that would make server-supplied text clickable, anywhere in the page. */
async function linksTo(app, needle) {
  return app.b.execute((n) => [...document.querySelectorAll('a, [href]')]
    .filter((a) => (a.getAttribute('href') || '').includes(n) || a.textContent.includes(n))
    .map((a) => a.outerHTML.slice(0, 200)), needle);
}

const HOMEPAGE = 'https://ada.example/portfolio?x=1';

test('the form: defaults pre-filled, inline errors, every type filled in, Accept sends each value', { timeout: 120_000 }, async () => {
  const app = await launch('07-form');
  const id = await openForm(app);
  await scrollTo(app, `form-${id}`, 'start');
  await app.shot('form-under-running-tool');

  // The card names the server and shows its message.
  assert.equal((await app.text(`form-server-${id}`)).trim(), 'everything');
  assert.equal((await app.text(`form-message-${id}`)).trim(), 'Please provide inputs for the following fields:');

  // The server's defaults are pre-filled; fields without one are empty.
  assert.deepEqual(await controls(app, id), {
    name: '',
    check: '(not set)',
    firstLine: 'It was a dark and stormy night.',
    email: '',
    homepage: '',
    birthdate: '',
    integer: '42',
    number: '3.14',
    untitledSingleSelectEnum: 'Monica',
    untitledMultipleSelectEnum: ['Guitar'],
    titledSingleSelectEnum: 'Superman',
    titledMultipleSelectEnum: ['Tuna'],
    legacyTitledEnum: 'Cats',
  }, 'the defaults are pre-filled');
  // The uri field is typed, never a link.
  assert.equal(await (await app.$('form-field-homepage')).getAttribute('type'), 'url');
  assert.equal(await (await app.$('form-field-email')).getAttribute('type'), 'email');
  assert.equal(await (await app.$('form-field-birthdate')).getAttribute('type'), 'date');

  // Wrong values: the inline error appears as the person types.
  await fill(app, 'form-field-integer', '150');
  await fill(app, 'form-field-email', 'not-an-email');
  await app.waitText('form-error-integer', (t) => t.length > 0, 'the integer error');
  assert.equal((await app.text('form-error-integer')).trim(), 'Integer must be from 1 to 100');
  assert.equal((await app.text('form-error-email')).trim(), 'String with email format must be an email address, like name@example.com');
  // Accept with errors (and the required name missing) sends nothing.
  await app.click(`form-accept-${id}`);
  await app.waitExists(`form-invalid-${id}`);
  assert.equal((await app.text(`form-invalid-${id}`)).trim(), '3 answers need fixing before anything is sent.');
  assert.equal((await app.text('form-error-name')).trim(), 'String is required: give a value');
  assert.ok(await app.exists('tool-running'), 'nothing was sent: the tool is still running');
  assert.equal((await app.elicitations())[0].state, 'requested', 'the record still waits');
  await scrollTo(app, 'form-error-integer');
  await app.shot('inline-errors');

  // Fix them, fill in every field with something other than its default.
  await fill(app, 'form-field-integer', '7');
  await fill(app, 'form-field-email', 'ada@example.com');
  await fill(app, 'form-field-name', 'Ada Lovelace');
  await waitFor('the inline errors to go', async () => !(await app.exists('form-error-integer')) && !(await app.exists('form-error-email')) && !(await app.exists('form-error-name')));
  await choose(app, 'form-field-check', 'Yes');
  await fill(app, 'form-field-firstLine', 'Call me Ishmael.');
  await fill(app, 'form-field-homepage', HOMEPAGE);
  await fillDate(app, 'form-field-birthdate', '1815-12-10');
  await fill(app, 'form-field-number', '2.5');
  await choose(app, 'form-field-untitledSingleSelectEnum', 'Phoebe');
  await check(app, 'form-option-untitledMultipleSelectEnum-0', false); // Guitar
  await check(app, 'form-option-untitledMultipleSelectEnum-1', true); // Piano
  await check(app, 'form-option-untitledMultipleSelectEnum-3', true); // Drums
  await choose(app, 'form-field-titledSingleSelectEnum', 'Wonder Woman');
  await check(app, 'form-option-titledMultipleSelectEnum-2', true); // Trout
  await choose(app, 'form-field-legacyTitledEnum', 'Birds');
  assert.deepEqual(await controls(app, id), {
    name: 'Ada Lovelace',
    check: 'Yes',
    firstLine: 'Call me Ishmael.',
    email: 'ada@example.com',
    homepage: HOMEPAGE,
    birthdate: '1815-12-10',
    integer: '7',
    number: '2.5',
    untitledSingleSelectEnum: 'Phoebe',
    untitledMultipleSelectEnum: ['Piano', 'Drums'],
    titledSingleSelectEnum: 'Wonder Woman',
    titledMultipleSelectEnum: ['Tuna', 'Trout'],
    legacyTitledEnum: 'Birds',
  }, 'every field holds what was entered');
  assert.ok(!(await app.exists(`form-invalid-${id}`)), 'no answer needs fixing');

  // The uri value is never a link: no <a> in the card, none anywhere for it.
  const card = await app.b.execute((rid) => {
    const el = document.querySelector(`[data-testid="form-${rid}"]`);
    return { anchors: el.querySelectorAll('a').length, hrefs: el.querySelectorAll('[href]').length };
  }, id);
  assert.deepEqual(card, { anchors: 0, hrefs: 0 }, 'no <a> (or href) in the form card');
  assert.deepEqual(await linksTo(app, 'ada.example'), [], 'the homepage is not a link anywhere');
  await scrollTo(app, 'form-field-homepage');
  await app.shot('form-filled-top');
  await scrollTo(app, `form-accept-${id}`);
  await app.shot('form-filled-bottom');

  await app.click(`form-accept-${id}`);
  const result = await toolResult(app, (t) => t.includes('Raw result'));
  await app.shot('tool-result-accepted');
  assert.ok(!(await app.exists(`form-${id}`)), 'the form card is gone');

  // The server got each value, with its JSON type.
  const raw = rawResult(result);
  assert.equal(raw.action, 'accept');
  assert.deepEqual(raw.content, {
    name: 'Ada Lovelace',
    check: true,
    firstLine: 'Call me Ishmael.',
    email: 'ada@example.com',
    homepage: HOMEPAGE,
    birthdate: '1815-12-10',
    integer: 7,
    number: 2.5,
    untitledSingleSelectEnum: 'Phoebe',
    untitledMultipleSelectEnum: ['Piano', 'Drums'],
    titledSingleSelectEnum: 'hero-3',
    titledMultipleSelectEnum: ['fish-1', 'fish-3'],
    legacyTitledEnum: 'pet-3',
  });
  for (const line of ['- Name: Ada Lovelace', '- Agreed to terms: true', '- Email: ada@example.com', `- Homepage: ${HOMEPAGE}`,
    '- Birthdate: 1815-12-10', '- Favorite Integer: 7', '- Favorite Number: 2.5']) {
    assert.ok(result.includes(line), `the result says "${line}"`);
  }
  assert.deepEqual(await linksTo(app, 'ada.example'), [], 'the homepage in the result is not a link either');

  // Stored state: accepted; the values typed are not stored with the record or in its audit trail.
  const records = await app.elicitations();
  assert.equal(records.length, 1);
  assert.equal(records[0].mode, 'form');
  assert.equal(records[0].state, 'accepted');
  assert.deepEqual(await app.statesOf(records[0].id), ['requested', 'accepted']);
  const trail = JSON.stringify(app.cliJson('audit', '--limit', '1000').filter((e) => e.kind === 'elicitation'));
  for (const typed of ['Ada Lovelace', 'ada@example.com', 'ada.example', 'Ishmael']) {
    assert.ok(!trail.includes(typed), `the audit trail does not hold "${typed}"`);
    assert.ok(!JSON.stringify(records).includes(typed), `the record does not hold "${typed}"`);
  }
  const row = await waitElicitationState(app, records[0].id, 'accepted');
  assert.match(row.text, /Form/);
  assert.match(row.text, /Please provide inputs/);
  await app.shot('elicitation-history-accepted');
});

test('Decline sends decline; the record and the history say declined', { timeout: 90_000 }, async () => {
  const app = await launch('07-form-decline');
  const id = await openForm(app);
  // Decline is the default (focused) button.
  await waitFor('Decline to have the focus', () => app.b.execute(() => document.activeElement?.getAttribute('data-testid')).then((t) => t === `form-decline-${id}`), { timeout: 5000 });
  await fill(app, 'form-field-name', 'Never sent');
  await scrollTo(app, `form-decline-${id}`);
  await app.shot('form-before-decline');
  await app.click(`form-decline-${id}`);

  const result = await toolResult(app, (t) => t.includes('Raw result'));
  await app.shot('tool-result-declined');
  assert.ok(result.includes('User declined to provide the requested information'), result);
  const raw = rawResult(result);
  assert.equal(raw.action, 'decline');
  assert.equal(raw.content, undefined, 'no content is sent with a decline');
  assert.ok(!result.includes('Never sent'), 'what was typed did not reach the server');

  const records = await app.elicitations();
  assert.equal(records.length, 1);
  assert.equal(records[0].mode, 'form');
  assert.equal(records[0].state, 'declined');
  assert.deepEqual(await app.statesOf(records[0].id), ['requested', 'declined']);
  const row = await waitElicitationState(app, records[0].id, 'declined');
  assert.match(row.text, /Declined/);
  assert.match(row.text, /Form/);
  await app.shot('elicitation-history-declined');
});

test('an accepted form is not listed as "Opened, waiting for the server"', {
  timeout: 90_000,
}, async () => {
  const app = await launch('07-form-accepted-not-waiting');
  const id = await openForm(app);
  await fill(app, 'form-field-name', 'Ada Lovelace');
  await app.click(`form-accept-${id}`);
  await toolResult(app, (t) => t.includes('Raw result'));
  await waitElicitationState(app, id, 'accepted');
  await app.shot('elicitations-after-accepted-form');
  assert.equal(await app.exists(`waiting-${id}`), false, 'the accepted form is not "Opened, waiting for the server"');
  assert.deepEqual(await app.testids('waiting-'), [], 'nothing waits for the server');
});
