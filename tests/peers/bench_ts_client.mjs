#!/usr/bin/env node
// Baseline: the official TypeScript SDK client making tools/call of
// server-everything's `echo` tool, one at a time or N in flight.
//
//   node bench_ts_client.mjs [--transport stdio|http] [--url URL] [--calls N] [--warmup N] [--prefix JSON]
//                            [--in-flight N] [--server JSON] [--tool NAME]
//
// --in-flight N: N calls outstanding at once (N workers on the one client,
// each starting its next call when its last one returns), as an app issuing a
// batch of tool calls per model turn does; latencies are per call.
// --server: a JSON array, the whole command line to run instead of
// server-everything (say `["airlock","gateway","--stdio"]`), with --tool the
// name echo has there (`everything__echo`).
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
    'in-flight': { type: 'string', default: '1' },
    server: { type: 'string' },
    tool: { type: 'string', default: 'echo' },
  },
});
const calls = Number.parseInt(values.calls, 10);
const warmup = Number.parseInt(values.warmup, 10);
const inFlight = Number.parseInt(values['in-flight'], 10);
if (!(calls > 0) || !(warmup >= 0)) throw new Error('--calls must be > 0 and --warmup >= 0');
if (!(inFlight >= 1 && inFlight <= 256)) throw new Error('--in-flight must be 1..256');
const words = (flag, json) => {
  const v = JSON.parse(json);
  if (!Array.isArray(v) || !v.every((w) => typeof w === 'string')) {
    throw new Error(`${flag} must be a JSON array of strings`);
  }
  return v;
};

let transport;
if (values.transport === 'stdio') {
  const prefix = words('--prefix', values.prefix);
  const server = values.server
    ? words('--server', values.server)
    : [
        process.execPath,
        join(here, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'),
        'stdio',
      ];
  if (server.length === 0) throw new Error('--server must name a command');
  const line = [...prefix, ...server];
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
  const r = await client.callTool({ name: values.tool, arguments: { message: `hello ${i}` } });
  if (r.isError) throw new Error(`echo failed: ${JSON.stringify(r)}`);
};

// `n` calls, `inFlight` at a time; each call's latency into `lat` if given.
const run = async (n, lat) => {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const s = process.hrtime.bigint();
      await call(i);
      if (lat) lat[i] = Number(process.hrtime.bigint() - s) / 1e6;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, worker));
};
await run(warmup, null);

const lat = new Float64Array(calls);
const t0 = process.hrtime.bigint();
await run(calls, lat);
const totalS = Number(process.hrtime.bigint() - t0) / 1e9;
lat.sort();
const pct = (p) => lat[Math.min(calls - 1, Math.ceil((p / 100) * calls) - 1)];
const round = (x, d) => Number(x.toFixed(d));

console.log(
  JSON.stringify({
    client: 'typescript-sdk',
    transport: values.transport,
    calls,
    in_flight: inFlight,
    calls_per_sec: round(calls / totalS, 1),
    p50_ms: round(pct(50), 3),
    p99_ms: round(pct(99), 3),
  }),
);
await client.close();
process.exit(0);
