// Benchmark (issue 15, goal 3, desktop), not a test: from the moment a
// server's URL elicitation is written to Airlock's pipe
// (tests/peers/consent_bench_peer.py logs the write time) to the native
// consent dialog being mapped (polled with xdotool search --onlyvisible, a
// few ms per poll: that is the resolution). Each dialog is answered with
// Return (decline), and the server sends the next. The broker allows 10
// requests per server per minute, so 5 servers send 10 each. Where the time
// goes: each record's created_at (the broker recorded the request, ms)
// splits it into "pipe to record" and "record to dialog mapped".
//
//   AIRLOCK_SESSION_XVFB=1 bash scripts/with-session.sh node tests/e2e/bench/consent.mjs [--requests 50]
// (scripts/bench-desktop.sh --consent does that after building.)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { App, BIN, PROFILE, ROOT, sleep, waitFor } from '../lib/harness.mjs';
import { openTool, runTool, waitServerState } from '../lib/steps.mjs';

const PEER = path.join(ROOT, 'tests/peers/consent_bench_peer.py');
const argN = process.argv.indexOf('--requests');
const REQUESTS = argN > 0 ? Number(process.argv[argN + 1]) : 50;
const PER_SERVER = 10;
const SERVERS = Math.ceil(REQUESTS / PER_SERVER);

const nowMs = () => performance.timeOrigin + performance.now();

function dialogOf(server) {
  try {
    const out = execFileSync('xdotool', ['search', '--onlyvisible', '--name', `^Airlock: ${server} asks`], { encoding: 'utf8' });
    return out.split('\n').filter(Boolean)[0] ?? null;
  } catch {
    return null; // exit 1: no such window
  }
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.round((s.length - 1) * p))];
};

const logs = {};
const app = await App.launch('bench-consent', {
  before: (a) => {
    for (let i = 1; i <= SERVERS; i++) {
      logs[`bench${i}`] = path.join(a.dir, `writes-${i}.log`);
      a.cli('servers', 'add', `bench${i}`, '--command', BIN.python, '--', PEER, 'stdio', logs[`bench${i}`]);
    }
  },
});
const ms = [];
const samples = [];
try {
  for (let i = 1; i <= SERVERS; i++) {
    const server = `bench${i}`;
    const count = Math.min(PER_SERVER, REQUESTS - (i - 1) * PER_SERVER);
    await waitServerState(app, server, 'ready');
    await openTool(app, server, 'ask');
    await runTool(app, { count });
    for (let k = 0; k < count; k++) {
      // Poll as fast as xdotool answers.
      let win = null;
      const deadline = Date.now() + 20000;
      while (win === null && Date.now() < deadline) win = dialogOf(server);
      const mapped = nowMs();
      if (win === null) throw new Error(`no dialog for request ${k + 1} of ${server}`);
      const writes = await waitFor('the write time', () => {
        const lines = fs.readFileSync(logs[server], 'utf8').split('\n').filter(Boolean);
        return lines.length > k ? lines : null;
      }, { timeout: 5000, interval: 5 });
      const written = Number(writes[k].split(' ')[1]) / 1e6;
      ms.push(mapped - written);
      samples.push({ server, message: `Bench request ${k + 1}`, written, mapped });
      execFileSync('xdotool', ['windowfocus', '--sync', win, 'key', 'Return']);
      await waitFor('the dialog to close', () => dialogOf(server) !== win, { timeout: 10000, interval: 5 });
    }
  }
  await sleep(500);
  const records = app.cliJson('elicitations', '--limit', '1000');
  for (const s of samples) {
    const r = records.find((x) => x.server === s.server && x.message === s.message);
    if (r) Object.assign(s, { toRecord: r.created_at - s.written, recordToDialog: s.mapped - r.created_at });
  }
} finally {
  await app.close();
}
console.log(`desktop consent latency (write of elicitation/create -> native dialog mapped; ${PROFILE} build ${BIN.desktop}), ${ms.length} requests:`);
console.log(`  p50 ${pct(ms, 0.5).toFixed(1)} ms  p99 ${pct(ms, 0.99).toFixed(1)} ms  max ${Math.max(...ms).toFixed(1)} ms`);
const split = samples.filter((s) => s.toRecord !== undefined);
console.log(`  where it goes (ms clock of the record): pipe to record p50 ${pct(split.map((s) => s.toRecord), 0.5).toFixed(1)} p99 ${pct(split.map((s) => s.toRecord), 0.99).toFixed(1)}; record to dialog mapped p50 ${pct(split.map((s) => s.recordToDialog), 0.5).toFixed(1)} p99 ${pct(split.map((s) => s.recordToDialog), 0.99).toFixed(1)}`);
console.log(`  first of each server: ${ms.filter((_, i) => i % PER_SERVER === 0).map((x) => x.toFixed(1)).join(', ')} ms`);
