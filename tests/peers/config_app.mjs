#!/usr/bin/env node
// An app on the official TypeScript SDK that reads an MCP config the way AI
// apps do ({"mcpServers": {NAME: {command, args, env}}}, the shape Claude
// Desktop and Claude Code write), connects every server in it at once (each
// its own stdio child) and lists all their tools; for scripts/bench-apps.sh.
//
//   node config_app.mjs --config FILE [--name NAME] [--hold]
//
// Prints ONE JSON line once every server's tools are listed (all pages):
//   {"app":NAME,"servers":N,"tools":T,"listed_at":UNIX_TIME,"failed":[NAME...]}
// listed_at is the wall clock (seconds), so the caller subtracts the time it
// started this process. With --hold it then keeps every session open until
// its stdin closes (the bench measures memory meanwhile).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

// The longest one server may take to start and list (a bench bound, not a test).
const LIST_TIMEOUT_MS = 120_000;

const { values } = parseArgs({
  options: {
    config: { type: 'string' },
    name: { type: 'string', default: 'config-app' },
    hold: { type: 'boolean', default: false },
  },
});
if (!values.config) throw new Error('--config FILE is required');
const servers = JSON.parse(readFileSync(values.config, 'utf8')).mcpServers;

const clients = [];
const one = async (name, entry) => {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args ?? [],
    env: { ...process.env, ...(entry.env ?? {}) },
    stderr: 'ignore',
  });
  const client = new Client({ name: values.name, version: '0.0.0' }, { capabilities: {} });
  clients.push(client);
  await client.connect(transport);
  let tools = 0;
  let cursor;
  do {
    const r = await client.listTools(cursor ? { cursor } : undefined);
    tools += r.tools.length;
    cursor = r.nextCursor;
  } while (cursor);
  return tools;
};
const timeout = (ms) =>
  new Promise((_, reject) => setTimeout(() => reject(new Error('timed out')), ms).unref());

const names = Object.keys(servers);
const results = await Promise.allSettled(
  names.map((n) => Promise.race([one(n, servers[n]), timeout(LIST_TIMEOUT_MS)])),
);
const at = Date.now() / 1000;
let tools = 0;
const failed = [];
results.forEach((r, i) => (r.status === 'fulfilled' ? (tools += r.value) : failed.push(names[i])));
console.log(
  JSON.stringify({ app: values.name, servers: names.length, tools, listed_at: at, failed }),
);
if (values.hold) {
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.on('end', resolve));
}
await Promise.allSettled(clients.map((c) => c.close()));
process.exit(failed.length ? 1 : 0);
