// Package registries for the desktop e2e tests, run here on loopback with
// nothing leaving this computer: Verdaccio (npm, tests/registries from
// scripts/setup.sh) holding a package the test publishes, and a FAKE MCP
// Registry of ours on the published /v0.1 API (the real one, Go and
// PostgreSQL, cannot run here).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';

import { ROOT, sleep } from './harness.mjs';

async function freePort() {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

async function waitPort(port, what, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const ok = await new Promise((r) => {
      const c = net.connect(port, '127.0.0.1', () => { c.end(); r(true); });
      c.on('error', () => r(false));
    });
    if (ok) return;
    await sleep(200);
  }
  throw new Error(`${what} did not listen on ${port}`);
}

/** Verdaccio with no uplink in `dir`; { url, token, stop }. */
export async function verdaccio(dir) {
  const port = await freePort();
  const config = path.join(dir, 'verdaccio.yaml');
  fs.writeFileSync(config, `storage: ${dir}/storage\nauth:\n  htpasswd:\n    file: ${dir}/htpasswd\nuplinks: {}\npackages:\n  '**':\n    access: $all\n    publish: $all\nlog: { type: stdout, format: pretty, level: warn }\n`);
  const bin = path.join(ROOT, 'tests/registries/node_modules/.bin/verdaccio');
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run bash scripts/setup.sh --test`);
  const child = spawn(bin, ['--config', config, '--listen', `127.0.0.1:${port}`], { stdio: 'ignore', detached: true });
  await waitPort(port, 'Verdaccio');
  const res = await fetch(`http://127.0.0.1:${port}/-/user/org.couchdb.user:publisher`, {
    method: 'PUT', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'publisher', password: 'publisher-password' }),
  });
  const { token } = await res.json();
  return { url: `http://127.0.0.1:${port}/`, port, token, stop: () => { try { process.kill(-child.pid); } catch { child.kill(); } } };
}

/**
 * Publish server-everything (the official reference server, its packages
 * bundled) as `name@version`; `echoDescription` changes its echo tool's
 * description (a new version whose tool changed).
 */
export function publishEverything(dir, reg, name, version, echoDescription = null) {
  const pkg = path.join(dir, `pkg-${name}-${version}`);
  fs.mkdirSync(pkg, { recursive: true });
  fs.writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({
    name, version, type: 'module', bin: { [name]: 'bin.js' },
    dependencies: { '@modelcontextprotocol/server-everything': '2026.8.31' },
    bundleDependencies: ['@modelcontextprotocol/server-everything'],
  }));
  fs.writeFileSync(path.join(pkg, 'bin.js'), '#!/usr/bin/env node\nprocess.argv.splice(2, 0, "stdio");\nawait import("@modelcontextprotocol/server-everything/dist/index.js");\n');
  execFileSync('cp', ['-rL', path.join(ROOT, 'tests/peers/node_modules'), path.join(pkg, 'node_modules')]);
  if (echoDescription !== null) {
    const echo = path.join(pkg, 'node_modules/@modelcontextprotocol/server-everything/dist/tools/echo.js');
    const text = fs.readFileSync(echo, 'utf8');
    if (!text.includes('Echoes back the input string')) throw new Error(`${echo}: the echo tool's description moved`);
    fs.writeFileSync(echo, text.replace('Echoes back the input string', echoDescription));
  }
  const npmrc = path.join(dir, 'publish.npmrc');
  fs.writeFileSync(npmrc, `//127.0.0.1:${reg.port}/:_authToken=${reg.token}\n`);
  execFileSync('npm', ['publish', '--registry', reg.url, '--userconfig', npmrc], {
    cwd: pkg, stdio: 'ignore', env: { ...process.env, npm_config_cache: path.join(dir, 'publish-cache') },
  });
}

/** A FAKE MCP Registry serving `items` ({server, _meta}) on /v0.1/servers, one page. */
export async function fakeMcpRegistry(initial) {
  let items = initial;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    if (u.pathname !== '/v0.1/servers') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ servers: items, metadata: { count: items.length } }));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    stop: () => server.close(),
    /** Replace what it serves. */
    set: (next) => {
      items = next;
    },
  };
}

/** A registry entry (the official registry's shape). */
export function entry(name, version, packages, meta = {}) {
  return {
    server: { name, version, description: meta.description ?? `${name}, for the e2e tests`, packages },
    _meta: { 'io.modelcontextprotocol.registry/official': { status: meta.status ?? 'active', isLatest: true, publishedAt: '2026-12-01T00:00:00Z', ...(meta.statusMessage ? { statusMessage: meta.statusMessage } : {}) } },
  };
}
