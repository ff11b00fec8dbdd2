// Benchmark (issue 15, goal 4), not a test: the window under a flood. The
// hostile peer (tests/e2e/peers/hostile_peer.py) sends a URL elicitation
// every 10 ms for `--seconds` (default 60) while this clicks through the
// sidebar and measures click-to-render in the page: performance.now() at
// the click, until the new page's heading is in the DOM and the next
// animation frame ran. Prints p50/p95/max per phase, and the PSS of the app
// and all its processes (WebKit's too) before, during and after, the
// mappings that grew most (a profile of what the app keeps) and the page's
// element count before and after.
//
//   AIRLOCK_SESSION_XVFB=1 bash scripts/with-session.sh node tests/e2e/bench/flood.mjs [--seconds 60]
// (scripts/bench-desktop.sh --flood does that after building.)
import fs from 'node:fs';
import path from 'node:path';

import { App, BIN, PROFILE, ROOT, descendants, sleep } from '../lib/harness.mjs';
import { goTo, openTool, runTool, waitServerState } from '../lib/steps.mjs';

const PEER = path.join(ROOT, 'tests/e2e/peers/hostile_peer.py');
const argSeconds = process.argv.indexOf('--seconds');
const SECONDS = argSeconds > 0 ? Number(process.argv[argSeconds + 1]) : 60;
const HEADINGS = { servers: 'Servers', elicitations: 'Elicitations', history: 'History', settings: 'Settings' };
const CYCLE = ['elicitations', 'history', 'servers', 'elicitations', 'settings', 'servers'];

/** The desktop app's process and every process under it (none once it exited). */
function appProcesses(app) {
  const root = descendants(app.driver.pid).find((p) => {
    try {
      return fs.readlinkSync(`/proc/${p}/exe`) === BIN.desktop;
    } catch {
      return false;
    }
  });
  return root === undefined ? [] : [root, ...descendants(root)];
}

/** PSS (MB) of the desktop app and every process under it, by process name. */
function pssByProcess(app) {
  const by = {};
  for (const p of appProcesses(app)) {
    try {
      const m = fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m);
      const name = fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim();
      if (m) by[name] = (by[name] ?? 0) + Number(m[1]) / 1024;
    } catch { /* exited */ }
  }
  return by;
}

/** PSS (MB) of the desktop app and every process under it. */
function pssMb(app) {
  const by = Object.values(pssByProcess(app));
  return by.length ? by.reduce((a, b) => a + b, 0) : NaN;
}

/** PSS (kB) by process name and mapping (a library's path, [heap], [anon]...). */
function pssByMapping(app) {
  const by = {};
  for (const p of appProcesses(app)) {
    try {
      const name = fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim();
      let mapping = '[anon]';
      for (const l of fs.readFileSync(`/proc/${p}/smaps`, 'utf8').split('\n')) {
        const head = l.match(/^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/);
        if (head) mapping = path.basename(head[1].trim()) || '[anon]';
        const pss = l.match(/^Pss:\s+(\d+)/);
        if (pss) by[`${name} ${mapping}`] = (by[`${name} ${mapping}`] ?? 0) + Number(pss[1]);
      }
    } catch { /* exited */ }
  }
  return by;
}

/** The mappings that grew most from `a` to `b`, in MB. */
function grown(a, b, n = 6) {
  return Object.keys(b)
    .map((k) => [k, ((b[k] ?? 0) - (a[k] ?? 0)) / 1024])
    .sort((x, y) => y[1] - x[1])
    .slice(0, n)
    .map(([k, mb]) => `${k} ${mb >= 0 ? '+' : ''}${mb.toFixed(1)}`)
    .join(', ');
}

/** Elements in the page's DOM. */
const domNodes = (app) => app.b.execute(() => document.getElementsByTagName('*').length);

const perProcess = (app) => Object.entries(pssByProcess(app)).map(([n, mb]) => `${n} ${Math.round(mb)}`).join(', ');

/** Click a sidebar entry; ms until its page's heading is in the DOM and a frame went by. */
async function clickToRender(app, page) {
  return app.b.executeAsync((p, heading, done) => {
    const t0 = performance.now();
    document.querySelector(`[data-testid="nav-${p}"]`).click();
    const check = () => {
      const nav = document.querySelector(`[data-testid="nav-${p}"]`);
      if (nav?.getAttribute('aria-current') === 'page' && document.querySelector('h1')?.textContent.trim() === heading) {
        requestAnimationFrame(() => done(performance.now() - t0));
      } else {
        requestAnimationFrame(check);
      }
    };
    check();
  }, page, HEADINGS[page]);
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.round((s.length - 1) * p))] : NaN;
};
const line = (label, xs) => `${label}: ${xs.length} clicks, p50 ${pct(xs, 0.5).toFixed(1)} ms, p95 ${pct(xs, 0.95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

async function phase(app, ms, into, mem) {
  const end = Date.now() + ms;
  let i = 0;
  let nextMem = 0;
  while (Date.now() < end) {
    into.push(await clickToRender(app, CYCLE[i++ % CYCLE.length]));
    await sleep(100);
    if (mem && Date.now() >= nextMem) {
      mem.push(Math.round(pssMb(app)));
      nextMem = Date.now() + 5000;
    }
  }
}

const app = await App.launch('bench-flood', {
  before: (a) => a.cli('servers', 'add', 'hostile', '--command', BIN.python, '--', PEER, 'stdio'),
});
try {
  await waitServerState(app, 'hostile', 'ready');
  const before = [];
  await phase(app, 10_000, before);
  const memBefore = Math.round(pssMb(app));
  const splitBefore = perProcess(app);
  const mapsBefore = pssByMapping(app);
  await goTo(app, 'servers');
  const domBefore = await domNodes(app);

  await openTool(app, 'hostile', 'flood');
  await runTool(app, { seconds: SECONDS, interval_ms: 10 });
  const during = [];
  const memDuring = [];
  await phase(app, SECONDS * 1000, during, memDuring);
  const listed = app.cliJson('elicitations', '--limit', '1000').length;
  const records = listed >= 1000 ? 'over 1,000' : String(listed); // the CLI lists 1,000 at most

  // Answer the three that wait, so the flood call ends; then quiet.
  await goTo(app, 'elicitations');
  for (const id of await app.b.execute(() => [...document.querySelectorAll('[data-testid^="decline-"]')].map((e) => e.getAttribute('data-testid')))) {
    try { await app.click(id); } catch { /* answered meanwhile */ }
  }
  await sleep(5000);
  const after = [];
  await phase(app, 10_000, after);
  const memAfter = Math.round(pssMb(app));
  const splitAfter = perProcess(app);
  // Then nothing at all for 30 s: what the user's idle app keeps.
  await sleep(30_000);
  const memIdle = Math.round(pssMb(app));
  const splitIdle = perProcess(app);
  const mapsIdle = pssByMapping(app);
  await goTo(app, 'servers');
  const domIdle = await domNodes(app);

  console.log(`flood: one URL elicitation every 10 ms for ${SECONDS} s, ${records} recorded (${PROFILE} build of the app: ${BIN.desktop})`);
  console.log(`  ${line('click-to-render before', before)}`);
  console.log(`  ${line('click-to-render during', during)}`);
  console.log(`  ${line('click-to-render after ', after)}`);
  console.log(`  PSS of the app and its processes: before ${memBefore} MB; during (every 5 s) ${memDuring.join(', ')} MB; after ${memAfter} MB; 30 s idle later ${memIdle} MB`);
  console.log(`  by process (MB): before ${splitBefore}; after ${splitAfter}; idle ${splitIdle}`);
  console.log(`  grown most from before to idle (process, mapping, MB): ${grown(mapsBefore, mapsIdle)}`);
  console.log(`  elements in the page on the Servers page: before ${domBefore}, idle ${domIdle}`);
} finally {
  await app.close();
}
