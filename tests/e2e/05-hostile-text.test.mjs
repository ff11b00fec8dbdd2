// A hostile server's message stays inert: markup, a Markdown link and a
// right-to-left override reach the inbox card as literal text. No element is
// created from them, no script runs, no dialog or alert fires.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';

import { App, BIN, focusAndKey, waitFor, waitForNoWindow, waitForWindow, windowsTitled } from './lib/harness.mjs';
import { openTool, pendingCards, runTool, settleOpened, waitElicitationState, waitPendingCard, waitServerState } from './lib/steps.mjs';

const HOSTILE = '<img src=x onerror=alert(1)> [click](https://evil.example) \u202Egnp.exe';
const URL = 'https://example.com/hostile';
const DIALOG = 'Airlock: everything asks you to open a web page';

let app;
after(() => app?.close());

test('a hostile message is shown as literal text, nothing runs', { timeout: 90_000 }, async () => {
  app = await App.launch('05-hostile-text', {
    before: (a) => a.cli('servers', 'add', 'everything', '--command', 'node', '--', BIN.everything, 'stdio'),
  });
  const { b } = app;
  await waitServerState(app, 'everything', 'ready');
  // Record any alert/confirm/prompt and any <img>/<a> created anywhere, from now on.
  await b.execute(() => {
    window.__fired = [];
    for (const k of ['alert', 'confirm', 'prompt']) {
      const orig = window[k];
      window[k] = (...a) => { window.__fired.push(`${k}(${a.join(',')})`); return orig.apply(window, a); };
    }
    window.__created = [];
    new MutationObserver((muts) => {
      for (const m of muts) {
        for (const n of m.addedNodes) {
          if (n.nodeType !== 1) continue;
          for (const el of [n, ...n.querySelectorAll('img,a,script,iframe')]) {
            if (['IMG', 'A', 'SCRIPT', 'IFRAME'].includes(el.tagName)) window.__created.push(el.outerHTML.slice(0, 200));
          }
        }
      }
    }).observe(document.body, { childList: true, subtree: true });
  });

  await openTool(app, 'everything', 'trigger-url-elicitation');
  await runTool(app, { url: URL, message: HOSTILE });

  // The native dialog shows the text neutralised (the screenshot records it).
  const win = await waitForWindow(DIALOG);
  await app.shot('native-dialog-hostile-text');

  const card = await waitPendingCard(app, (c) => c.kind === 'consent');
  await app.shot('inbox-card-hostile-text');
  const info = await b.execute((id) => {
    const el = document.querySelector(`[data-testid="pending-${id}"]`);
    return {
      text: el.textContent,
      imgs: el.querySelectorAll('img').length,
      links: [...el.querySelectorAll('a')].map((a) => a.outerHTML),
      html: el.innerHTML,
    };
  }, card.id);
  assert.ok(info.text.includes('<img src=x onerror=alert(1)>'), `the markup is shown as text: ${info.text}`);
  assert.ok(info.text.includes('[click](https://evil.example)'), `the Markdown link is shown as text: ${info.text}`);
  assert.equal(info.imgs, 0, 'no <img> element in the card');
  assert.deepEqual(info.links, [], 'no link in the card');
  assert.ok(!info.text.includes('\u202E'), 'the right-to-left override does not reach the screen raw');
  assert.match(info.text, /\\u\{202E\}gnp\.exe/, 'the right-to-left override is shown as a visible escape');
  assert.equal(card.domain, 'example.com', 'the registrable domain is shown on its own');

  // Answer in the window with the key for "Don't open" (D): no key opens.
  await b.execute(() => document.activeElement?.blur());
  await b.keys(['d']);
  await waitFor('the card to leave the inbox', async () => !(await pendingCards(app)).some((c) => c.id === card.id));
  await waitElicitationState(app, card.id, 'declined');
  await app.shot('declined-from-the-window');

  assert.deepEqual(await b.execute(() => window.__fired), [], 'no alert, confirm or prompt fired');
  assert.deepEqual(await b.execute(() => window.__created), [], 'no img/a/script/iframe element was created from server text');
  let alertText = null;
  try {
    alertText = await b.getAlertText();
  } catch { /* no alert open: expected */ }
  assert.equal(alertText, null, 'no JavaScript alert is open');
  assert.deepEqual(await settleOpened(app, 500), [], 'nothing was opened');

  // The native dialog of the answered request closes (tested below); if it
  // were still up, it must not be able to open the page.
  await app.shot('after-decline');
  if (windowsTitled(DIALOG).length > 0) {
    focusAndKey(win, 'Tab', 'space');
    await waitForNoWindow(DIALOG);
    assert.deepEqual(await settleOpened(app), [], 'Open in browser on the stale dialog opened nothing');
    assert.equal((await app.elicitations())[0].state, 'declined', 'the stale dialog did not change the answer');
  }
});

test('answering in the window closes the native dialog of that request', {
  timeout: 60_000,
}, async () => {
  const app2 = await App.launch('05-hostile-text-dialog-closes', {
    before: (a) => a.cli('servers', 'add', 'everything', '--command', 'node', '--', BIN.everything, 'stdio'),
  });
  try {
    await waitServerState(app2, 'everything', 'ready');
    await openTool(app2, 'everything', 'trigger-url-elicitation');
    await runTool(app2, { url: URL, message: 'answer me in the window' });
    const win = await waitForWindow(DIALOG);
    const card = await waitPendingCard(app2, (c) => c.kind === 'consent');
    await app2.click(`decline-${card.id}`);
    await waitElicitationState(app2, card.id, 'declined');
    try {
      await waitForNoWindow(DIALOG, 5000);
    } finally {
      await app2.shot('dialog-after-answer-in-window');
      if (windowsTitled(DIALOG).length > 0) focusAndKey(win, 'Escape');
    }
  } finally {
    await app2.close();
  }
});
