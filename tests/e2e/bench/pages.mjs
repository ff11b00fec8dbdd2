// Benchmark (issue 15, goal 2, the window), not a test: the History and
// Elicitations pages on a big database. `airlock-bench history --rows N
// --fill DIR` makes the data dir; this starts the app on it and measures,
// in the page:
//   1. a click on the sidebar until the first row of the list is in the
//      DOM and the next animation frame ran (performance.now), alternating
//      the two pages: median and max of --reps rounds;
//   2. a programmatic scroll of the page (--px pixels a frame) until the
//      list's row at the viewport's top is row --scroll-rows: the time
//      between animation frames meanwhile (p50, p95, max, frames over 50 ms),
//      the rows in the DOM (most seen, and at the end), the rows loaded, and
//      the app's memory (PSS of the app and its WebKit processes) with the
//      list on screen; then the same with every loaded row in the DOM (the
//      peer: the list as it was before virtualization, same data, same run).
//
//   AIRLOCK_SESSION_XVFB=1 bash scripts/with-session.sh node tests/e2e/bench/pages.mjs --data-dir DIR [--reps 11] [--scroll-rows 5000] [--px 400]
// (scripts/bench-desktop.sh --pages [--rows N] does both after building.)
import fs from 'node:fs';

import { App, BIN, PROFILE, descendants, sleep } from '../lib/harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const DATA = arg('--data-dir', null);
const REPS = Number(arg('--reps', '11'));
const SCROLL_ROWS = Number(arg('--scroll-rows', '5000'));
const PX = Number(arg('--px', '400'));
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

/**
 * Scroll the page `px` a frame until the list's row at the viewport's top is
 * `target` (or the list ends); frame times and DOM rows. In slices of at
 * most 15 s: one WebDriver call must not outlast the client's time-out.
 */
async function scrollThrough(app, prefix, target, px) {
  const all = { frames: [], maxDom: 0, ms: 0 };
  for (;;) {
    const x = await app.b.executeAsync((prefix, target, px, done) => {
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
        const first = Number(body?.dataset.top ?? 0);
        // The end of a list shorter than the target: at the bottom, nothing more to load.
        const end = s.scrollTop + s.clientHeight >= s.scrollHeight - 2
          && document.querySelector('[data-testid="history-all"], [data-testid="el-all"], [data-testid$="-full"]') !== null;
        if (first >= target || end || now - t0 > 15000) {
          done({ frames: frames.slice(1), maxDom, dom, first, finished: first >= target || end, loaded: Number(body?.dataset.count ?? 0), ms: now - t0 });
          return;
        }
        s.scrollTop += px;
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    }, prefix, target, px);
    all.frames.push(...x.frames);
    all.maxDom = Math.max(all.maxDom, x.maxDom);
    all.ms += x.ms;
    Object.assign(all, { dom: x.dom, first: x.first, loaded: x.loaded });
    if (x.finished || all.ms > 240000) return all;
  }
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

/** The floor: ms from a click to the Settings page (no list, no query) drawn and a frame gone by. */
function settingsDrawn(app) {
  return app.b.executeAsync((done) => {
    document.querySelector('[data-testid="nav-history"]').click();
    setTimeout(() => {
      const t0 = performance.now();
      document.querySelector('[data-testid="nav-settings"]').click();
      const check = () => {
        if (document.querySelector('h1')?.textContent?.trim() === 'Settings') requestAnimationFrame(() => done(performance.now() - t0));
        else requestAnimationFrame(check);
      };
      check();
    }, 300);
  });
}

/** The floor for scrolling: frame times while the Settings page jumps `px` up and down each frame. */
function settingsScroll(app, px, frames) {
  return app.b.executeAsync((px, n, done) => {
    const s = document.querySelector('[data-scroll-root]');
    const f = [];
    let last = performance.now();
    const step = () => {
      const now = performance.now();
      f.push(now - last);
      last = now;
      s.scrollTop = f.length % 2 ? px : 0;
      if (f.length < n) requestAnimationFrame(step);
      else done(f.slice(1));
    };
    requestAnimationFrame(step);
  }, px, frames);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

const app = await App.launch('bench-pages', { env: { AIRLOCK_DATA_DIR: DATA } });
try {
  await app.b.setTimeout({ script: 200000 });
  await sleep(2000);
  const pid = appPid(app);
  const r = { history: [], elicitations: [], settings: [] };
  let rows = {};
  for (let i = 0; i < REPS; i++) {
    r.settings.push(await settingsDrawn(app));
    for (const page of ['history', 'elicitations']) {
      const x = await firstRows(app, page);
      r[page].push(x.ms);
      rows[page] = x.rows;
    }
  }
  console.log(`first page of a list, click to rows on screen (${DATA}; ${PROFILE} build ${BIN.desktop}), ${REPS} each:`);
  for (const page of ['history', 'elicitations']) {
    console.log(`  ${page}: median ${median(r[page]).toFixed(1)} ms, max ${Math.max(...r[page]).toFixed(1)} ms, ${rows[page]} rows in the DOM; ratio to the floor ${(median(r[page]) / median(r.settings)).toFixed(2)}`);
  }
  console.log(`  floor, the Settings page (no list, no query): median ${median(r.settings).toFixed(1)} ms, max ${Math.max(...r.settings).toFixed(1)} ms`);
  await app.b.execute(() => document.querySelector('[data-testid="nav-settings"]').click());
  await sleep(800);
  const floor = await settingsScroll(app, Math.min(PX, 300), 60);
  console.log(`  floor for scrolling, the Settings page scrolled up and down (up to ${Math.min(PX, 300)} px) each frame: frame time p50 ${pct(floor, 0.5).toFixed(1)} ms, p95 ${pct(floor, 0.95).toFixed(1)} ms`);

  // Each list scrolled virtualized (as shipped), then again with every
  // loaded row in the DOM (the peer: the list as it was before, same data,
  // same run), each from a fresh page. Memory is read around each.
  console.log(`scrolling ${PX} px a frame until the row at the top of the viewport is row ${SCROLL_ROWS}:`);
  const mem = [pssMb(pid)];
  for (const variant of ['virtual', 'plain']) {
    await app.b.execute((v) => {
      globalThis.airlockBenchOverscan = v === 'plain' ? Infinity : undefined;
    }, variant);
    for (const page of ['history', 'elicitations']) {
      await app.b.execute(() => document.querySelector('[data-testid="nav-settings"]').click());
      await sleep(500);
      await app.b.execute((p) => document.querySelector(`[data-testid="nav-${p}"]`).click(), page);
      await sleep(1500);
      const x = await scrollThrough(app, ROW[page], SCROLL_ROWS, PX);
      await sleep(1000);
      const after = pssMb(pid);
      const f = x.frames;
      console.log(`  ${variant === 'virtual' ? 'virtual list' : 'peer, every loaded row in the DOM'}, ${page}: row ${x.first} reached in ${(x.ms / 1000).toFixed(1)} s; frame time p50 ${pct(f, 0.5).toFixed(1)} ms, p95 ${pct(f, 0.95).toFixed(1)} ms, max ${Math.max(...f).toFixed(1)} ms, ${f.filter((t) => t > 50).length} of ${f.length} frames over 50 ms; ${x.loaded} rows loaded, list rows in the DOM at most ${x.maxDom}, ${x.dom} at the end; app PSS ${after.toFixed(0)} MB with it on screen`);
      if (variant === 'virtual') await app.shot(`${page}-after-scroll`);
    }
  }
  console.log(`app memory (PSS of the app and its WebKit processes) before the scrolls, on the first page of Elicitations: ${mem[0].toFixed(0)} MB`);
} finally {
  await app.close();
}
