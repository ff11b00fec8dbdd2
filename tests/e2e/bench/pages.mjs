// Benchmark (issue 15, goal 2, the window), not a test: the History and
// Elicitations pages on a big database. `airlock-bench history --rows N
// --fill DIR` makes the data dir; this starts the app on it and times, in
// the page, a click on the sidebar until the first row of the list is in
// the DOM and the next animation frame ran (performance.now), alternating
// the two pages. Prints p50/max and the rows in the DOM.
//
//   AIRLOCK_SESSION_XVFB=1 bash scripts/with-session.sh node tests/e2e/bench/pages.mjs --data-dir DIR [--reps 11]
// (scripts/bench-desktop.sh --pages [--rows N] does both after building.)
import { App, BIN, sleep } from '../lib/harness.mjs';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const DATA = arg('--data-dir', null);
const REPS = Number(arg('--reps', '11'));
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

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

const app = await App.launch('bench-pages', { env: { AIRLOCK_DATA_DIR: DATA } });
try {
  await sleep(2000);
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
} finally {
  await app.close();
}
