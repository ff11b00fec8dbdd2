// Test harness for Airlock's desktop end-to-end tests.
//
// One `App` per test: a fresh data dir, HOME and XDG dirs (temp), a browser
// recorder ($BROWSER, which xdg-open honours in generic mode), a D-Bus monitor
// that records desktop notifications, and its own tauri-driver on free ports,
// started with that environment (the driver, WebKitWebDriver and the app
// inherit it). The display, the session bus, the unlocked keyring and dunst
// come from scripts/with-session.sh (AIRLOCK_SESSION_XVFB=1), see scripts/e2e.sh.

import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { remote } from 'webdriverio';

const execFileP = promisify(execFile);

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const ARTIFACTS = path.join(ROOT, 'test-artifacts', 'e2e');
// Where cargo put the binaries: CARGO_TARGET_DIR (CI keeps it outside the clone) or ./target.
const TARGET_DIR = process.env.CARGO_TARGET_DIR
  ? path.resolve(ROOT, process.env.CARGO_TARGET_DIR)
  : path.join(ROOT, 'target');
// Benchmarks may drive the release build of the app (bench-desktop.sh --release).
export const PROFILE = process.env.AIRLOCK_E2E_PROFILE === 'release' ? 'release' : 'debug';
export const BIN = {
  desktop: path.join(TARGET_DIR, PROFILE, 'airlock-desktop'),
  cli: path.join(TARGET_DIR, 'debug/airlock'),
  demo: path.join(TARGET_DIR, 'debug/airlock-demo-server'),
  python: path.join(ROOT, 'tests/peers/.venv/bin/python'),
  pyServer: path.join(ROOT, 'tests/peers/py_server.py'),
  everything: path.join(ROOT, 'tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
  tauriDriver: findTauriDriver(),
};

function findTauriDriver() {
  const cargoBin = path.join(process.env.CARGO_HOME || path.join(os.homedir(), '.cargo'), 'bin', 'tauri-driver');
  if (fs.existsSync(cargoBin)) return cargoBin;
  return 'tauri-driver';
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Poll `fn` until it returns a truthy value; throw with `what` on timeout. */
export async function waitFor(what, fn, { timeout = 15000, interval = 150 } = {}) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${detail})`);
    }
    await sleep(interval);
  }
}

export function randomHex(n = 16) {
  let s = '';
  while (s.length < n) s += Math.random().toString(16).slice(2);
  return s.slice(0, n);
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function portOpen(port) {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** Run a command, return stdout (trimmed); never throws (returns null on failure). */
export function sh(cmd, args, opts = {}) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 15000, ...opts }).trim();
  } catch {
    return null;
  }
}

const regexQuote = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// ---------------------------------------------------------------- X11 windows

/** Mapped X windows whose title is exactly `title`. */
export function windowsTitled(title) {
  const out = sh('xdotool', ['search', '--onlyvisible', '--name', `^${regexQuote(title)}( \\(request [0-9]+\\))?$`]);
  return out ? out.split('\n').filter(Boolean) : [];
}

export async function waitForWindow(title, timeout = 15000) {
  const ids = await waitFor(`a window titled "${title}"`, () => {
    const w = windowsTitled(title);
    return w.length ? w : null;
  }, { timeout });
  return ids[ids.length - 1];
}

export async function waitForNoWindow(title, timeout = 10000) {
  await waitFor(`no window titled "${title}"`, () => windowsTitled(title).length === 0, { timeout });
}

/** Focus a window (no window manager under Xvfb: windowactivate does not work) and type keys. */
export function focusAndKey(win, ...keys) {
  execFileSync('xdotool', ['windowfocus', '--sync', win, 'key', '--delay', '120', ...keys], { timeout: 15000 });
}

// --------------------------------------------------------------- the app

export class App {
  /**
   * Launch the app for one test.
   * @param {string} testName  folder name under test-artifacts/e2e/
   * @param {object} [opts]
   * @param {object} [opts.settings]  written to desktop-settings.json before start
   * @param {boolean} [opts.demo]     let the first run configure the bundled demo server (default: no)
   * @param {(app: App) => void|Promise<void>} [opts.before]  runs before the app starts (e.g. CLI setup)
   * @param {object} [opts.env]       extra environment
   */
  static async launch(testName, opts = {}) {
    const app = new App(testName, opts);
    if (opts.before) await opts.before(app);
    await app.start();
    return app;
  }

  constructor(testName, opts) {
    this.name = testName;
    this.opts = opts;
    const base = process.env.AIRLOCK_SESSION_DIR || os.tmpdir();
    this.dir = fs.mkdtempSync(path.join(base, `e2e-${testName}-`));
    this.dataDir = path.join(this.dir, 'data');
    this.home = path.join(this.dir, 'home');
    for (const d of [this.dataDir, this.home, path.join(this.home, '.cache'), path.join(this.home, '.config'), path.join(this.home, '.local/share')]) {
      fs.mkdirSync(d, { recursive: true, mode: 0o700 });
    }
    if (!opts.demo) fs.writeFileSync(path.join(this.dataDir, '.demo-configured'), '');
    if (opts.settings) this.writeSettings(opts.settings);
    this.recorderScript = path.join(this.dir, 'record-browser.sh');
    this.recorderLog = path.join(this.dir, 'opened.txt');
    fs.writeFileSync(this.recorderScript, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${this.recorderLog}'\n`);
    this.env = { ...process.env };
    for (const k of ['KDE_FULL_SESSION', 'GNOME_DESKTOP_SESSION_ID', 'MATE_DESKTOP_SESSION_ID', 'DESKTOP_SESSION', 'LXQT_SESSION_CONFIG', 'WAYLAND_DISPLAY']) delete this.env[k];
    Object.assign(this.env, {
      AIRLOCK_DATA_DIR: this.dataDir,
      HOME: this.home,
      XDG_CACHE_HOME: path.join(this.home, '.cache'),
      XDG_CONFIG_HOME: path.join(this.home, '.config'),
      XDG_DATA_HOME: path.join(this.home, '.local/share'),
      // xdg-open in generic mode runs $BROWSER with %s replaced by the URL.
      XDG_CURRENT_DESKTOP: 'X-Generic',
      BROWSER: `sh ${this.recorderScript} %s`,
      NO_AT_BRIDGE: '1',
      ...(opts.env || {}),
    });
    this.artifactDir = path.join(ARTIFACTS, testName);
    fs.rmSync(this.artifactDir, { recursive: true, force: true });
    fs.mkdirSync(this.artifactDir, { recursive: true });
    this.shotNo = 0;
    this.children = [];
    this.startMonitor();
    // Notifications left over from an earlier test would be in the screenshots.
    sh('dunstctl', ['close-all'], { env: this.env });
  }

  writeSettings(settings) {
    fs.writeFileSync(path.join(this.dataDir, 'desktop-settings.json'), JSON.stringify(settings, null, 2));
  }

  /** D-Bus monitor for Notify calls (with their ids) and ActionInvoked signals. */
  startMonitor() {
    if (!process.env.DBUS_SESSION_BUS_ADDRESS) return;
    this.monitorLog = path.join(this.dir, 'dbus-monitor.txt');
    const fd = fs.openSync(this.monitorLog, 'w');
    this.monitor = spawn('dbus-monitor', ['--session',
      "type='method_call',interface='org.freedesktop.Notifications',member='Notify'",
      // Only the daemon's replies (they carry the ids): never the keyring's.
      "type='method_return',sender='org.freedesktop.Notifications'",
      "type='signal',interface='org.freedesktop.Notifications'"], { stdio: ['ignore', fd, 'ignore'], env: this.env });
    fs.closeSync(fd);
  }

  async start() {
    this.port = await freePort();
    this.nativePort = await freePort();
    const log = fs.openSync(path.join(this.dir, 'tauri-driver.log'), 'a');
    this.driver = spawn(BIN.tauriDriver, ['--port', String(this.port), '--native-port', String(this.nativePort)], {
      env: this.env, stdio: ['ignore', log, log], detached: true,
    });
    fs.closeSync(log);
    await waitFor(`tauri-driver on port ${this.port}`, () => portOpen(this.port), { timeout: 15000 });
    this.b = await remote({
      hostname: '127.0.0.1',
      port: this.port,
      logLevel: 'silent',
      connectionRetryCount: 1,
      capabilities: { 'tauri:options': { application: BIN.desktop } },
    });
    await waitFor('the UI to render', () => this.b.execute(() => document.readyState === 'complete' && (document.querySelector('#app')?.children.length ?? 0) > 0), { timeout: 20000 });
  }

  /** End the session, the driver and every process they started. */
  async stop() {
    const kids = this.driver ? descendants(this.driver.pid) : [];
    if (this.b) {
      try { await this.b.deleteSession(); } catch { /* already gone */ }
      this.b = null;
    }
    if (this.driver) {
      try { process.kill(-this.driver.pid, 'SIGTERM'); } catch { /* gone */ }
      this.driver = null;
    }
    // Whatever outlived its parent (an MCP server in its own process group).
    await sleep(300);
    for (const pid of kids) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
  }

  async restart() {
    await this.stop();
    await this.start();
  }

  async close() {
    await this.stop();
    for (const c of this.children) {
      try { c.kill('SIGKILL'); } catch { /* gone */ }
    }
    if (this.monitor) this.monitor.kill();
  }

  /** Start a helper process (e.g. an HTTP MCP server); killed on close. */
  spawnChild(cmd, args, opts = {}) {
    const c = spawn(cmd, args, { env: this.env, stdio: ['ignore', 'pipe', 'pipe'], ...opts });
    this.children.push(c);
    return c;
  }

  // ------------------------------------------------------------ CLI oracle

  /** Run the airlock CLI on this test's data dir (an independent view of the stored state). */
  cli(...args) {
    return execFileSync(BIN.cli, ['--data-dir', this.dataDir, ...args], { env: this.env, encoding: 'utf8', timeout: 30000 });
  }

  cliJson(...args) {
    return JSON.parse(this.cli('--json', ...args));
  }

  async elicitations() {
    const { stdout } = await execFileP(BIN.cli, ['--data-dir', this.dataDir, '--json', 'elicitations'], { env: this.env, timeout: 30000 });
    return JSON.parse(stdout);
  }

  /** The states one elicitation went through, oldest first (from the audit trail). */
  async statesOf(recordId) {
    const { stdout } = await execFileP(BIN.cli, ['--data-dir', this.dataDir, '--json', 'audit', '--limit', '1000'], { env: this.env, timeout: 30000 });
    return JSON.parse(stdout)
      .filter((e) => e.kind === 'elicitation' && e.detail?.record_id === recordId)
      .sort((a, b) => a.id - b.id)
      .map((e) => e.detail.state);
  }

  // ------------------------------------------------------------ browser recorder

  opened() {
    try {
      return fs.readFileSync(this.recorderLog, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  }

  // ------------------------------------------------------------ screenshots

  /** Full-screen screenshot NN-<step>.png after two animation frames. */
  async shot(step) {
    this.shotNo += 1;
    const file = path.join(this.artifactDir, `${String(this.shotNo).padStart(2, '0')}-${step}.png`);
    if (this.b) {
      try {
        await this.repaint();
      } catch { /* never block a screenshot */ }
      // Two frames ran in the page, but WebKit may present the frame to X a
      // little later (seen: a stale "Running…" after a fast tool result).
      await sleep(200);
    }
    await execFileP('import', ['-window', 'root', file], { env: this.env, timeout: 15000 });
    return file;
  }

  /**
   * Make the webview repaint everything, then wait two animation frames (a
   * screenshot right after a DOM change can show the old frame). Without a
   * window manager, the area a closed native dialog covered stays stale until
   * something redraws it: toggling an outline on the root redraws it all.
   */
  async repaint() {
    await this.b.executeAsync((done) => {
      const el = document.documentElement;
      el.style.outline = '1px solid transparent';
      requestAnimationFrame(() => {
        el.style.outline = '';
        requestAnimationFrame(() => done());
      });
    });
  }

  // ------------------------------------------------------------ DOM helpers

  $(testid) {
    return this.b.$(`[data-testid="${testid}"]`);
  }

  async exists(testid) {
    return this.b.execute((id) => !!document.querySelector(`[data-testid="${id}"]`), testid);
  }

  async text(testid) {
    return this.b.execute((id) => document.querySelector(`[data-testid="${id}"]`)?.textContent ?? null, testid);
  }

  async waitText(testid, predicate, what, timeout = 15000) {
    return waitFor(what || `${testid} text`, async () => {
      const t = await this.text(testid);
      return t !== null && predicate(t) ? t : null;
    }, { timeout });
  }

  async waitExists(testid, timeout = 15000) {
    try {
      await waitFor(`[data-testid="${testid}"]`, () => this.exists(testid), { timeout });
    } catch (e) {
      // Say what the window showed instead: a screenshot and the page's text.
      try { await this.shot(`missing-${testid}`); } catch { /* no screenshot */ }
      try {
        const shown = await this.b.execute(() => document.querySelector('main')?.innerText ?? document.body.innerText);
        e.message += `; the page showed: ${JSON.stringify(String(shown).slice(0, 600))}`;
      } catch { /* the page is gone */ }
      throw e;
    }
    return this.$(testid);
  }

  async click(testid, timeout = 15000) {
    const el = await this.waitExists(testid, timeout);
    await el.waitForClickable({ timeout });
    await el.click();
  }

  /** Test ids present in the page that start with `prefix`. */
  async testids(prefix = '') {
    return this.b.execute((p) => [...document.querySelectorAll('[data-testid]')].map((e) => e.getAttribute('data-testid')).filter((t) => t.startsWith(p)), prefix);
  }

  /** Call one of the app's own Tauri commands (diagnostics only; tests drive the GUI). */
  async invoke(cmd, args = {}) {
    const r = await this.b.executeAsync((c, a, done) => {
      window.__TAURI_INTERNALS__.invoke(c, a).then((ok) => done({ ok }), (err) => done({ err }));
    }, cmd, args);
    if ('err' in r) throw new Error(`${cmd}: ${JSON.stringify(r.err)}`);
    return r.ok;
  }

  // ------------------------------------------------------------ notifications

  /** Notifications the app sent during this test: [{id, summary, body, actions: [id, label,...]}]. */
  notifications() {
    if (!this.monitorLog) return [];
    const text = fs.readFileSync(this.monitorLog, 'utf8');
    // One message per block: a header line at column 0, then indented arguments
    // (a string argument may span lines).
    const blocks = text.split(/\n(?=(?:method call|method return|signal|error) )/);
    const strings = (s) => [...s.matchAll(/string "((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]);
    const calls = [];
    const returns = new Map();
    for (const block of blocks) {
      const nl = block.indexOf('\n');
      const head = nl < 0 ? block : block.slice(0, nl);
      const body = nl < 0 ? '' : block.slice(nl + 1);
      let m = head.match(/^method call .* sender=(\S+) -> destination=\S+ serial=(\d+) .*member=Notify$/);
      if (m) {
        const open = body.indexOf('array [');
        const close = body.indexOf('\n   ]', open);
        const before = strings(body.slice(0, open));
        const actions = strings(body.slice(open, close));
        calls.push({ sender: m[1], serial: m[2], app: before[0], summary: before[2], body: before[3], actions });
        continue;
      }
      m = head.match(/^method return .* destination=(\S+) serial=\d+ reply_serial=(\d+)$/);
      if (m) {
        const v = body.match(/^\s+uint32 (\d+)\s*$/);
        if (v) returns.set(`${m[1]}/${m[2]}`, Number(v[1]));
      }
    }
    return calls.map((c) => ({ ...c, id: returns.get(`${c.sender}/${c.serial}`) }));
  }

  /** A user's click on a notification's action button, as the daemon reports it. */
  invokeNotificationAction(id, action) {
    execFileSync('gdbus', ['emit', '--session', '--object-path', '/org/freedesktop/Notifications',
      '--signal', 'org.freedesktop.Notifications.ActionInvoked', `uint32 ${id}`, `'${action}'`], { env: this.env, timeout: 10000 });
  }
}

/** Every live descendant pid of `pid` (from /proc). */
export function descendants(pid) {
  const parent = new Map();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(d), ppid);
    } catch { /* exited */ }
  }
  const out = [];
  const queue = [pid];
  while (queue.length) {
    const p = queue.shift();
    for (const [c, pp] of parent) {
      if (pp === p) {
        out.push(c);
        queue.push(c);
      }
    }
  }
  return out;
}

/** Every file under `dir` (recursively) whose bytes contain `needle`. */
export function filesContaining(dir, needle) {
  const hits = [];
  const buf = Buffer.from(needle);
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        try {
          if (fs.readFileSync(p).includes(buf)) hits.push(p);
        } catch { /* unreadable (socket, vanished) */ }
      }
    }
  };
  walk(dir);
  return hits;
}

export function listFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}
