// Benchmark (issue 15, goal 5), not a test: start to the first frame showing
// data. Each run starts the app on a fresh data dir with the demo server
// (configured and connected on first run); the servers page marks
// `airlock:servers-painted` (performance.mark) in the frame after the one
// that drew the list. Start = the app process's start time (/proc, 10 ms
// resolution); data = performance.timeOrigin + the mark. Then idle PSS of
// the app and all its processes 5 s later. Runs alternate Airlock as shipped
// and stock Tauri settings (WebKit compositing on), medians printed.
//
//   AIRLOCK_SESSION_XVFB=1 bash scripts/with-session.sh node tests/e2e/bench/start.mjs [--runs 5]
// (scripts/bench-desktop.sh --data does that after building.)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

import { App, BIN, descendants, sleep, waitFor } from '../lib/harness.mjs';

const argRuns = process.argv.indexOf('--runs');
const RUNS = argRuns > 0 ? Number(process.argv[argRuns + 1]) : 5;
const TICK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
const BOOT = Number(fs.readFileSync('/proc/stat', 'utf8').match(/^btime (\d+)/m)[1]);

function appPid(app) {
  return descendants(app.driver.pid).find((p) => {
    try {
      return fs.readlinkSync(`/proc/${p}/exe`) === BIN.desktop;
    } catch {
      return false;
    }
  });
}

/** When a process started, in ms since the epoch (10 ms resolution). */
function startedAt(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (BOOT + Number(fields[19]) / TICK) * 1000;
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

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const variants = { airlock: {}, stock: { WEBKIT_DISABLE_COMPOSITING_MODE: '0' } };
const results = { airlock: { start: [], mem: [] }, stock: { start: [], mem: [] } };
for (let i = 1; i <= RUNS; i++) {
  for (const [name, env] of Object.entries(variants)) {
    const app = await App.launch(`bench-start-${name}`, { demo: true, env });
    try {
      const pid = appPid(app);
      const painted = await waitFor('the server list painted', () => app.b.execute(() => {
        const m = performance.getEntriesByName('airlock:servers-painted')[0];
        const nav = performance.getEntriesByType('navigation')[0];
        if (!m) return null;
        // The page's own timeline: its marks (ui/src/lib/app.svelte.ts).
        // (Resource Timing lists nothing here: the page's files and IPC go
        // through custom schemes.)
        const marks = performance.getEntriesByType('mark').map((e) => `${e.name.replace('airlock:', '')} ${Math.round(e.startTime)}`);
        return { at: performance.timeOrigin + m.startTime, origin: performance.timeOrigin, mark: m.startTime, loaded: nav?.loadEventEnd ?? null, dcl: nav?.domContentLoadedEventEnd ?? null, marks };
      }), { timeout: 30000, interval: 50 });
      const ms = Math.round(painted.at - startedAt(pid));
      // Where it goes: process start to the page's navigation, page load, load to the list drawn.
      results[name].split ??= [];
      results[name].split.push(`${Math.round(painted.origin - startedAt(pid))}+${Math.round(painted.loaded ?? NaN)}+${Math.round(painted.mark - (painted.loaded ?? 0))}`);
      if (i === 1) {
        console.log(`${name}, run 1, the page's timeline in ms after its navigation began: DOMContentLoaded ${Math.round(painted.dcl ?? NaN)}, load ${Math.round(painted.loaded ?? NaN)}; marks: ${painted.marks.join(', ')}`);
      }
      await sleep(5000);
      const mem = Math.round(pssMb(pid));
      results[name].start.push(ms);
      results[name].mem.push(mem);
      console.error(`run ${i} ${name}: first frame with the server list ${ms} ms after the process started; idle PSS ${mem} MB`);
    } finally {
      await app.close();
    }
  }
}
console.log(`airlock-desktop (${BIN.desktop}), ${RUNS} runs each, demo server configured on first run, under WebDriver:`);
for (const [name, r] of Object.entries(results)) {
  const label = name === 'airlock' ? 'as shipped (compositing off)' : 'peer: compositing on (stock)';
  console.log(`  ${label}: process start to navigation + page load + load to list drawn, ms: ${(r.split ?? []).join(', ')}`);
  console.log(`  ${label}: start to server list painted median ${median(r.start)} ms (runs: ${r.start.join(' ')}); idle PSS median ${median(r.mem)} MB (runs: ${r.mem.join(' ')})`);
}
