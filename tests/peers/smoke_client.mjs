#!/usr/bin/env node
// Smoke test of the peers with the official TypeScript SDK client.
//
//   node smoke_client.mjs py --transport stdio|http [--url URL]   # exercises every py-peer tool
//   node smoke_client.mjs list --transport stdio|http [--url URL] [--cmd "node ..."]
//        # prints the server's tools (name + argument names) as seen by a client
//        # that declares elicitation {form:{}, url:{}}
//
// For stdio, `py` spawns .venv/bin/python py_server.py stdio; `list` spawns
// server-everything unless --cmd is given. Exits non-zero on any failed check.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = dirname(fileURLToPath(import.meta.url));
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    transport: { type: 'string', default: 'stdio' },
    url: { type: 'string' },
    cmd: { type: 'string' },
    action: { type: 'string', default: 'accept' },
  },
});
const mode = positionals[0] ?? 'py';

function transportFor() {
  if (values.transport === 'http') {
    if (!values.url) throw new Error('--url is required for http');
    return new StreamableHTTPClientTransport(new URL(values.url));
  }
  let argv;
  if (values.cmd) argv = values.cmd.split(' ');
  else if (mode === 'py') argv = [join(here, '.venv/bin/python'), join(here, 'py_server.py'), 'stdio'];
  else argv = [process.execPath, join(here, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'];
  return new StdioClientTransport({ command: argv[0], args: argv.slice(1), env: process.env, stderr: 'inherit' });
}

const client = new Client(
  { name: 'airlock-smoke', version: '0.0.0' },
  { capabilities: { elicitation: { form: {}, url: {} } } },
);
const elicitations = [];
const completions = [];
const logs = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  elicitations.push(req.params);
  return { action: values.action };
});
client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => completions.push(n.params.elicitationId));
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => logs.push(n.params));

await client.connect(transportFor());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failed = 0;
function check(name, ok, detail) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail === undefined ? '' : ' ' + JSON.stringify(detail)}`);
  if (!ok) failed++;
}
const text = (r) => r.content?.map((c) => c.text).join('');

if (mode === 'list') {
  const v = client.getServerVersion();
  console.log(`server ${v.name} ${v.version}`);
  console.log('capabilities', JSON.stringify(client.getServerCapabilities()));
  const { tools } = await client.listTools();
  for (const t of tools) {
    const props = Object.keys(t.inputSchema?.properties ?? {});
    const req = new Set(t.inputSchema?.required ?? []);
    console.log(`tool ${t.name}(${props.map((p) => (req.has(p) ? p : p + '?')).join(', ')})`);
  }
} else {
  const v = client.getServerVersion();
  check('server name', v.name === 'py-peer', v);
  const { tools } = await client.listTools();
  check('tools', ['echo', 'add', 'log_something', 'connect_account', 'needs_auth'].every((n) => tools.some((t) => t.name === n)), tools.map((t) => t.name));
  check('echo', text(await client.callTool({ name: 'echo', arguments: { message: 'héllo' } })) === 'héllo');
  const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
  check('add', text(sum) === '42', sum);
  const logged = await client.callTool({ name: 'log_something', arguments: { text: 'a log line' } });
  await sleep(100);
  check('log_something', text(logged) === 'logged' && logs.some((l) => l.level === 'info' && l.data === 'a log line'), logs);

  const conn = text(await client.callTool({ name: 'connect_account', arguments: { url: 'https://example.com/connect' } }));
  const id = /id=(\S+)/.exec(conn)?.[1];
  check('connect_account result', conn.startsWith(`action=${values.action} id=`), conn);
  check('connect_account elicitation', elicitations.length === 1 && elicitations[0].mode === 'url' && elicitations[0].elicitationId === id && elicitations[0].url === 'https://example.com/connect', elicitations);
  await sleep(1000);
  check('connect_account completion', values.action === 'accept' ? completions.includes(id) : !completions.includes(id), completions);

  let err;
  try {
    await client.callTool({ name: 'needs_auth', arguments: { url: 'https://example.com/auth' } });
  } catch (e) {
    err = e;
  }
  const authId = err?.data?.elicitations?.[0]?.elicitationId;
  check('needs_auth -32042', err?.code === -32042 && err.data.elicitations[0].mode === 'url' && !!authId, err && { code: err.code, data: err.data });
  await sleep(1000);
  check('needs_auth completion', completions.includes(authId), completions);
  const retry = await client.callTool({ name: 'needs_auth', arguments: { url: 'https://example.com/auth' } }).catch((e) => e);
  check('needs_auth retry', text(retry) === 'authorized', retry instanceof Error ? { code: retry.code, message: retry.message } : retry);

  const res = await client.readResource({ uri: 'peer://greeting' });
  check('resource', res.contents[0]?.text === 'Hello from py-peer', res);
  const pr = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada' } });
  check('prompt', JSON.stringify(pr.messages).includes('Ada'), pr.messages);
}
await client.close();
process.exit(failed ? 1 : 0);
