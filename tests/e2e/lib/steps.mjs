// GUI steps shared by the tests: they drive the window the way a person
// does (sidebar, forms, buttons), through the UI's data-testid hooks.
import assert from 'node:assert/strict';

import { sh, sleep, waitFor } from './harness.mjs';

export const PAGES = ['servers', 'review', 'apps', 'elicitations', 'history', 'settings'];

export async function goTo(app, page) {
  await app.click(`nav-${page}`);
  await waitFor(`the ${page} page`, () => app.b.execute((p) => document.querySelector(`[data-testid="nav-${p}"]`)?.getAttribute('aria-current') === 'page', page));
}

/**
 * What scrolls sideways in the window: the document's widths, and every
 * scrolling container (but a <pre> or <textarea>) wider than its box.
 */
export function sidewaysOverflow(app) {
  return app.b.execute(() => {
    const doc = document.documentElement;
    const wide = [];
    for (const el of document.querySelectorAll('body *')) {
      const style = getComputedStyle(el);
      const scrolls = style.overflowX === 'auto' || style.overflowX === 'scroll';
      if (scrolls && el.scrollWidth > el.clientWidth + 1 && el.tagName !== 'PRE' && el.tagName !== 'TEXTAREA') {
        wide.push(`${el.tagName.toLowerCase()}.${el.className || ''}[${el.getAttribute('data-testid') || ''}] ${el.scrollWidth}>${el.clientWidth}`);
      }
    }
    return { scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, wide };
  });
}

/**
 * Text the user must read that is cut on screen: an element whose text is
 * cut with an ellipsis or hidden overflow and is wider than its box, with
 * no tooltip (title) holding the whole text; a <select> whose chosen
 * option's text runs under its arrow. Each as `tag[testid] "text"`.
 */
export function clippedText(app) {
  return app.b.execute(() => {
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      if (!el.getClientRects().length) continue;
      // Text for screen readers only (1 px, clipped on purpose).
      if (el.classList.contains('visually-hidden') || el.getBoundingClientRect().width <= 1) continue;
      const style = getComputedStyle(el);
      const name = `${el.tagName.toLowerCase()}[${el.getAttribute('data-testid') || el.className || ''}]`;
      if (el.tagName === 'SELECT') {
        const option = el.options[el.selectedIndex];
        if (!option) continue;
        const probe = document.createElement('span');
        probe.style.cssText = `position:absolute;visibility:hidden;white-space:pre;font:${style.font}`;
        probe.textContent = option.text;
        document.body.appendChild(probe);
        const needed = probe.getBoundingClientRect().width + parseFloat(style.paddingLeft) + parseFloat(style.paddingRight);
        probe.remove();
        if (needed > el.getBoundingClientRect().width + 1) out.push(`${name} "${option.text}" needs ${Math.ceil(needed)} px`);
        continue;
      }
      const cuts = style.textOverflow === 'ellipsis' || (style.overflowX === 'hidden' && style.whiteSpace === 'nowrap');
      if (cuts && el.scrollWidth > el.clientWidth + 1 && !el.getAttribute('title')) {
        out.push(`${name} "${el.textContent.trim().slice(0, 60)}"`);
      }
    }
    return out;
  });
}

/** The window at the smallest size Airlock allows (900×600). */
export async function smallestWindow(app) {
  await app.b.setWindowSize(900, 600);
  await waitFor('the viewport to be 900×600', async () => {
    const [w, h] = await app.b.execute(() => [window.innerWidth, window.innerHeight]);
    return w === 900 && h === 600;
  });
}

/** Replace an input's value the way typing does (fires input events). */
export async function fill(app, testid, value) {
  const el = await app.waitExists(testid);
  await el.waitForDisplayed();
  await el.clearValue();
  // WebKitWebDriver drops "\n" in typed text: press Enter between lines.
  const lines = value.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (i > 0) await el.addValue('\uE007');
    if (lines[i] !== '') await el.addValue(lines[i]);
  }
  const got = await el.getValue();
  assert.equal(got, value, `${testid} holds what was typed`);
}

/**
 * Add a server through the form on the Servers page.
 * stdio: { name, command, args: [] }; http: { name, url, headers: [{ key, value, secret }] }.
 * `beforeSubmit` runs with the form filled in (e.g. for a screenshot).
 */
export async function addServer(app, server, { beforeSubmit } = {}) {
  await goTo(app, 'servers');
  await app.click('add-server');
  await app.waitExists('server-form');
  await fill(app, 'server-form-name', server.name);
  if (server.url) {
    await app.click('server-form-transport-http');
    await fill(app, 'server-form-url', server.url);
  } else {
    await app.click('server-form-transport-stdio');
    await fill(app, 'server-form-command', server.command);
    await fill(app, 'server-form-args', (server.args || []).join('\n'));
  }
  const rows = server.headers || server.env || [];
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    await app.click('server-form-add-row');
    await fill(app, `server-form-key-${i}`, r.key);
    await fill(app, `server-form-value-${i}`, r.value);
    const toggle = await app.waitExists(`server-form-secret-${i}`);
    if ((await toggle.isSelected()) !== !!r.secret) await toggle.click();
    assert.equal(await toggle.isSelected(), !!r.secret, `the secret toggle of ${r.key} is ${r.secret ? 'on' : 'off'}`);
  }
  if (beforeSubmit) await beforeSubmit();
  await app.click('server-form-submit');
  await waitFor('the form to close', async () => !(await app.exists('server-form')), { timeout: 15000 });
}

/** Wait until the server's status pill says `state` (ready by default); returns the pill text. */
export async function waitServerState(app, name, state = 'ready', timeout = 30000) {
  await goTo(app, 'servers');
  await app.waitExists(`server-row-${name}`, timeout);
  let seen = null;
  try {
    return await waitFor(`${name} to be ${state}`, async () => {
      const s = await app.b.execute((n) => {
        const el = document.querySelector(`[data-testid="status-${n}"]`);
        const reason = document.querySelector(`[data-testid="status-reason-${n}"]`);
        return el ? { state: el.getAttribute('data-state'), text: el.textContent.trim(), protocol: el.getAttribute('data-protocol'), reason: reason?.textContent.trim() ?? null } : null;
      }, name);
      seen = s;
      return s && s.state === state ? s : null;
    }, { timeout });
  } catch (e) {
    // What else was on screen (a dialog or prompt in the way?) and what the server log says.
    const windows = (sh('xdotool', ['search', '--onlyvisible', '--name', '.']) || '').split('\n').filter(Boolean)
      .map((w) => sh('xdotool', ['getwindowname', w])).filter(Boolean);
    let log = '';
    try { log = app.cli('logs', name).split('\n').slice(-8).join(' | '); } catch { /* the CLI failed too */ }
    try { await app.shot(`timed-out-waiting-for-${name}-${state}`); } catch { /* no screenshot */ }
    e.message += `; the row showed ${JSON.stringify(seen)}; windows: ${JSON.stringify(windows)}; log: ${log}`;
    throw e;
  }
}

/** Open a server's page and select one of its tools. */
export async function openTool(app, server, tool) {
  await goTo(app, 'servers');
  await app.click(`details-${server}`);
  try {
    await app.click(`tool-${tool}`, 30000);
  } catch (e) {
    try { e.message += `; log of ${server}: ${app.cli('logs', server).split('\n').slice(-60).join(' | ')}`; } catch { /* the CLI failed too */ }
    throw e;
  }
  await app.waitExists('tool-runner');
  await app.waitExists('run-tool');
}

/** Fill the tool form's arguments ({name: value}) and press Run. */
export async function runTool(app, args = {}) {
  for (const [k, v] of Object.entries(args)) {
    await fill(app, `arg-${k}`, String(v));
  }
  await app.click('run-tool');
}

/**
 * Wait for the tool runner to show an outcome (a result or an error) matching
 * `predicate`; returns its text.
 */
export async function toolResult(app, predicate = () => true, timeout = 30000) {
  return waitFor('the tool result', async () => {
    const r = await app.b.execute(() => {
      const body = document.querySelector('[data-testid="tool-result-body"]');
      const err = document.querySelector('[data-testid="tool-error"]');
      // In view for the screenshots that follow.
      (body || err)?.scrollIntoView({ block: 'center' });
      return body ? body.textContent : err ? `error: ${err.textContent}` : null;
    });
    return r !== null && predicate(r) ? r : null;
  }, { timeout });
}

/** Pending cards in the inbox: [{ id, kind: 'consent'|'late', text, domain }]. */
export async function pendingCards(app) {
  return app.b.execute(() => [...document.querySelectorAll('[data-testid^="pending-"]')]
    .filter((e) => /^pending-\d+$/.test(e.getAttribute('data-testid')))
    .map((e) => ({
      id: Number(e.getAttribute('data-testid').slice('pending-'.length)),
      kind: e.querySelector('[data-testid^="continue-"]') ? 'late' : 'consent',
      text: e.textContent,
      domain: e.querySelector('[data-testid="registrable-domain"]')?.textContent.trim() ?? null,
    })));
}

export async function waitPendingCard(app, predicate = () => true, timeout = 20000) {
  await goTo(app, 'elicitations');
  return waitFor('a pending card', async () => (await pendingCards(app)).find(predicate), { timeout });
}

// The labels the UI shows for each state (ui/src/lib/format.ts stateLabel).
const STATE_LABELS = {
  requested: 'Waiting for you',
  accepted: 'Accepted',
  opened: 'Opened in browser',
  open_failed: 'Browser failed to open',
  completed: 'Completed',
  late: 'Late',
  continued: 'Continued',
  declined: 'Declined',
  cancelled: 'Cancelled',
  expired: 'Expired',
  blocked: 'Blocked',
};

/** Rows of the elicitations history: [{ id, state, label, text }]. */
export async function elicitationRows(app) {
  const rows = await app.b.execute(() => [...document.querySelectorAll('[data-testid^="elicitation-row-"]')]
    .map((e) => ({
      id: Number(e.getAttribute('data-testid').slice('elicitation-row-'.length)),
      state: e.getAttribute('data-state'),
      label: (e.querySelector('.c-state') || e.querySelector('.pill'))?.textContent.trim() ?? '',
      text: e.textContent,
    })));
  for (const r of rows) {
    if (!r.state) r.state = Object.keys(STATE_LABELS).find((k) => STATE_LABELS[k] === r.label) ?? r.label;
  }
  return rows;
}

export async function waitElicitationState(app, id, state, timeout = 20000) {
  await goTo(app, 'elicitations');
  return waitFor(`elicitation ${id} to show ${state}`, async () => (await elicitationRows(app)).find((r) => r.id === id && r.state === state), { timeout });
}

/**
 * Every elicitation row of the history, which is virtualized (only the rows
 * in view are in the DOM): scrolls the page from the top to the bottom a
 * screen at a time, collecting the rows by id.
 */
export async function allElicitationRows(app) {
  const seen = new Map();
  await app.b.execute(() => document.querySelector('[data-scroll-root]').scrollTo({ top: 0 }));
  for (let i = 0; i < 1000; i++) {
    const atBottom = await app.b.executeAsync((done) => {
      const s = document.querySelector('[data-scroll-root]');
      requestAnimationFrame(() => requestAnimationFrame(() => done(s.scrollTop + s.clientHeight >= s.scrollHeight - 2)));
    });
    for (const r of await elicitationRows(app)) seen.set(r.id, r);
    if (atBottom) break;
    await app.b.execute(() => {
      const s = document.querySelector('[data-scroll-root]');
      s.scrollTop += Math.max(100, s.clientHeight * 0.7);
    });
  }
  return [...seen.values()];
}

/** Wait until nothing new reaches the browser recorder for a while; returns what it got. */
export async function settleOpened(app, ms = 1500) {
  await sleep(ms);
  return app.opened();
}
