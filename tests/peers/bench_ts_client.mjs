#!/usr/bin/env node
// Baseline: the official TypeScript SDK client making sequential tools/call of
// server-everything's `echo` tool.
//
//   node bench_ts_client.mjs [--transport stdio|http] [--url URL] [--calls N] [--warmup N] [--prefix JSON]
//
// --prefix: a JSON array of words run in front of the server's command line
// (scripts/bench-gateway.sh puts one or two do-nothing relays there:
// `["airlock-bench","relay","--"]`).
// stdio (default) spawns `node <peers>/node_modules/@modelcontextprotocol/server-everything/dist/index.js stdio`;
// http needs --url (e.g. http://127.0.0.1:3001/mcp of `PORT=3001 node .../dist/index.js streamableHttp`).
// Prints ONE JSON line:
//   {"client":"typescript-sdk","transport":"stdio","calls":3000,"calls_per_sec":x,"p50_ms":x,"p99_ms":x}
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { values } = parseArgs({
  options: {
    transport: { type: 'string', default: 'stdio' },
    url: { type: 'string' },
    calls: { type: 'string', default: '3000' },
    warmup: { type: 'string', default: '200' },
    prefix: { type: 'string', default: '[]' },
  },
});
const calls = Number.parseInt(values.calls, 10);
const warmup = Number.parseInt(values.warmup, 10);
if (!(calls > 0) || !(warmup >= 0)) throw new Error('--calls must be > 0 and --warmup >= 0');

let transport;
if (values.transport === 'stdio') {
  const prefix = JSON.parse(values.prefix);
  if (!Array.isArray(prefix) || !prefix.every((w) => typeof w === 'string')) {
    throw new Error('--prefix must be a JSON array of strings');
  }
  const line = [
    ...prefix,
    process.execPath,
    join(here, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
    'stdio',
  ];
  transport = new StdioClientTransport({
    command: line[0],
    args: line.slice(1),
    stderr: 'ignore',
  });
} else if (values.transport === 'http') {
  if (!values.url) throw new Error('--url is required with --transport http');
  transport = new StreamableHTTPClientTransport(new URL(values.url));
} else {
  throw new Error(`unknown --transport ${values.transport} (stdio|http)`);
}

const client = new Client({ name: 'airlock-bench-ts', version: '0.0.0' }, { capabilities: {} });
await client.connect(transport);

const call = async (i) => {
  const r = await client.callTool({ name: 'echo', arguments: { message: `hello ${i}` } });
  if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r)}`);
};

for (let i = 0; i < warmup; i++) await call(i);

const lat = new Float64Array(calls);
const t0 = process.hrtime.bigint();
for (let i = 0; i < calls; i++) {
  const s = process.hrtime.bigint();
  await call(i);
  lat[i] = Number(process.hrtime.bigint() - s) / 1e6;
}
const totalS = Number(process.hrtime.bigint() - t0) / 1e9;
lat.sort();
const pct = (p) => lat[Math.min(calls - 1, Math.ceil((p / 100) * calls) - 1)];
const round = (x, d) => Number(x.toFixed(d));

console.log(
  JSON.stringify({
    client: 'typescript-sdk',
    transport: values.transport,
    calls,
    calls_per_sec: round(calls / totalS, 1),
    p50_ms: round(pct(50), 3),
    p99_ms: round(pct(99), 3),
  }),
);
await client.close();
process.exit(0);
