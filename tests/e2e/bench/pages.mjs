// Benchmark (issue 15, goal 2, the window), not a test: the History and
// Elicitations pages on a big database. `airlock-bench history --rows N
// --fill DIR` makes the data dir; this starts the app on it and measures,
// in the page:
//   1. a click on the sidebar until the first row of the list is in the
//      DOM and the next animation frame ran (performance.now), alternating
//      the two pages: median and max of --reps rounds;
//   2. a programmatic scroll of the page (--px pixels a frame) until the
//      virtual list's first rendered row is row --scroll-rows: the time
//      between animation frames meanwhile (p50, p95, max, frames over 50 ms),
//      the rows in the DOM (most seen, and at the end) against the rows
//      loaded (what a list without virtualization would hold);
//   3. the app's memory (PSS of the app and its WebKit processes) before
//      and after those scrolls.
//
//   AIRLOCK_SESSION_XVFB=1 bash scripts/with-session.sh node tests/e2e/bench/pages.mjs --data-dir DIR [--reps 11] [--scroll-rows 5000] [--px 240]
// (scripts/bench-desktop.sh --pages [--rows N] does both after building.)
import fs from 'node:fs';

import { App, BIN, descendants, sleep } from '../lib/harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const DATA = arg('--data-dir', null);
const REPS = Number(arg('--reps', '11'));
const SCROLL_ROWS = Number(arg('--scroll-rows', '5000'));
const PX = Number(arg('--px', '240'));
if (!DATA) throw new Error('--data-dir DIR is required');

const ROW = { history: 'history-row-', elicitations: 'elicitation-row-' };

/** Click a page; ms until its first list row is in the DOM and a frame went by. */
function firstRows(app, page) {
  return app.b.executeAsync((p, prefix, done) => {
    // Leave the page first, so the list is built anew.
    document.querySelector('[data-testid="nav-settings"]').click();
    setTimeout(() => {
      const t0 = performance.now();
      document.querySelector(`[data-testid="nav-${p}"]`).click();
      const check = () => {
        if (document.querySelector(`[data-testid^="${prefix}"]`)) {
          requestAnimationFrame(() => done({ ms: performance.now() - t0, rows: document.querySelectorAll(`[data-testid^="${prefix}"]`).length }));
        } else if (performance.now() - t0 > 20000) {
          done({ ms: NaN, rows: 0 });
        } else {
          requestAnimationFrame(check);
        }
      };
      check();
    }, 300);
  }, page, ROW[page]);
}

/** Scroll the page `px` a frame until the list's first rendered row is `target`; frame times and DOM rows. */
function scrollThrough(app, prefix, target, px) {
  return app.b.executeAsync((prefix, target, px, done) => {
    const s = document.querySelector('[data-scroll-root]');
    const frames = [];
    let maxDom = 0;
    const t0 = performance.now();
    let last = t0;
    const step = () => {
      const now = performance.now();
      frames.push(now - last);
      last = now;
      const dom = document.querySelectorAll(`[data-testid^="${prefix}"]`).length;
      maxDom = Math.max(maxDom, dom);
      const body = document.querySelector('tbody[data-first]');
      const first = Number(body?.dataset.first ?? 0);
      if (first >= target || now - t0 > 150000) {
        done({ frames: frames.slice(1), maxDom, dom, first, loaded: Number(body?.dataset.count ?? 0), trs: document.querySelectorAll('tbody tr').length, ms: now - t0 });
        return;
      }
      s.scrollTop += px;
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  }, prefix, target, px);
}

function appPid(app) {
  return descendants(app.driver.pid).find((p) => {
    try {
      return fs.readlinkSync(`/proc/${p}/exe`) === BIN.desktop;
    } catch {
      return false;
    }
  });
}

function pssMb(root) {
  let kb = 0;
  for (const p of [root, ...descendants(root)]) {
    try {
      const m = fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8').match(/^Pss:\s+(\d+)/m);
      if (m) kb += Number(m[1]);
    } catch { /* exited */ }
  }
  return kb / 1024;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

const app = await App.launch('bench-pages', { env: { AIRLOCK_DATA_DIR: DATA } });
try {
  await app.b.setTimeout({ script: 200000 });
  await sleep(2000);
  const pid = appPid(app);
  const r = { history: [], elicitations: [] };
  let rows = {};
  for (let i = 0; i < REPS; i++) {
    for (const page of ['history', 'elicitations']) {
      const x = await firstRows(app, page);
      r[page].push(x.ms);
      rows[page] = x.rows;
    }
  }
  console.log(`first page of a list, click to rows on screen (${DATA}; debug build ${BIN.desktop}), ${REPS} each:`);
  for (const page of ['history', 'elicitations']) {
    console.log(`  ${page}: median ${median(r[page]).toFixed(1)} ms, max ${Math.max(...r[page]).toFixed(1)} ms, ${rows[page]} rows in the DOM`);
  }

  await sleep(1000);
  const memBefore = pssMb(pid);
  console.log(`scrolling ${PX} px a frame until the list's first rendered row is row ${SCROLL_ROWS}:`);
  for (const page of ['history', 'elicitations']) {
    await app.b.execute((p) => document.querySelector(`[data-testid="nav-${p}"]`).click(), page);
    await sleep(1500);
    const x = await scrollThrough(app, ROW[page], SCROLL_ROWS, PX);
    const f = x.frames;
    console.log(`  ${page}: ${x.first} rows scrolled past in ${(x.ms / 1000).toFixed(1)} s; frame time p50 ${pct(f, 0.5).toFixed(1)} ms, p95 ${pct(f, 0.95).toFixed(1)} ms, max ${Math.max(...f).toFixed(1)} ms, ${f.filter((t) => t > 50).length} of ${f.length} frames over 50 ms`);
    console.log(`    rows loaded ${x.loaded} (a plain list would hold them all in the DOM); list rows in the DOM: at most ${x.maxDom} during the scroll, ${x.dom} at the end (${x.trs} <tr> with spacers); ratio DOM/loaded ${(x.dom / Math.max(1, x.loaded)).toFixed(4)}`);
    await app.shot(`${page}-after-scroll`);
  }
  await sleep(1000);
  const memAfter = pssMb(pid);
  console.log(`app memory (PSS, app + WebKit processes): ${memBefore.toFixed(0)} MB before the scrolls, ${memAfter.toFixed(0)} MB after (${(memAfter - memBefore >= 0 ? '+' : '')}${(memAfter - memBefore).toFixed(0)} MB)`);
} finally {
  await app.close();
}
