#!/usr/bin/env node
// An app on the official TypeScript SDK client (1.32) that talks to a server
// over stdio and runs a script of operations; for Airlock's gateway tests.
//
//   node gateway_client.mjs --ops JSON [--name NAME] [--elicitation none|form|form-hang] [--form-answer JSON]
//                           [--sampling TEXT] [--roots URI,URI...] -- CMD [ARGS...]
//   (or `-- http://127.0.0.1:PORT/mcp`: Streamable HTTP, bearer token from AIRLOCK_GATEWAY_TOKEN;
//    with --session-id ID it takes over that session instead of initializing one: a thief's
//    app, for the ops "open_stream" and "terminate" below)
//
// It declares no elicitation capability unless --elicitation form; then it
// answers every form with accept and --form-answer as its content (or
// decline without it), and {"op":"elicitations"} lists the requests it got.
// --elicitation form-hang declares forms and never answers one: each waits
// until it is cancelled ({"op":"elicitations"} adds "cancelled": the reasons).
// --sampling TEXT declares sampling and answers every sampling/createMessage
// with TEXT (model "test-model"); --roots declares roots and lists those URIs;
// {"op":"samplings"} lists the sampling requests it got (and "cancelled": the
// reasons of those the server side withdrew). --sampling-hang declares sampling
// and never answers: each request waits until it is cancelled. Ops (a
// JSON list), each printed as one JSON line when done:
//   {"op":"info"}                                -> protocol version, server name, instructions
//   {"op":"tools"}                               -> {"tools":[names]}
//   {"op":"tool_defs"}                           -> {"tools":[each tool as listed]}
//   {"op":"call","name":N,"arguments":{...}}     -> {"result":CallToolResult} or {"error":{code,message}}
//     (with "abort_after_ms": M, the app cancels the call after M ms; with "progress": true
//      it asks for progress and the output adds {"progress":[{progress,total,message,at_ms}],"done_at_ms"})
//   {"op":"prompts"} {"op":"resources"} {"op":"read","uri":U} {"op":"prompt","name":N,"arguments":{}}
//     (call, read and prompt with "state_file": P and "input_responses": {..} send them as a
//      2026-07-28 retry, with the requestState read from P: an app trying another's state)
//   {"op":"start","key":K,"prompt":N} or {"op":"start","key":K,"uri":U} starts a prompts/get or
//     resources/read without waiting (like a call, below); {"op":"await","key":K} -> {"result":..}
//   {"op":"wait_list_changed","timeout_ms":T}    -> {"changed":true|false}
//   {"op":"list_changes"}                        -> {"count":N} (tools/list_changed received so far)
//   {"op":"wait_tool","name":N,"present":true|false,"timeout_ms":T} -> {"found":true|false,"changed":true|false}
//     (lists the tools after each list_changed until N is there, or gone with present:false;
//     changed: a list_changed came while waiting)
//   {"op":"sleep","ms":M}
//   {"op":"wait_file","path":P,"timeout_ms":T}   -> {"found":true|false} (waits until P exists)
//   {"op":"touch","path":P}                      -> creates P (tells a test or another app: go on)
//   {"op":"templates"} -> {"templates":[uriTemplate]}; {"op":"complete","ref":R,"argument":{name,value}} -> {"result":CompleteResult}
//   {"op":"set_level","level":L}                 -> logging/setLevel
//   {"op":"logs"}                                -> {"logs":[notifications/message params received]}
//   {"op":"subscribe","uri":U} {"op":"unsubscribe","uri":U} -> {} or {"error":{code,message}}
//   {"op":"wait_updated","uri":U,"timeout_ms":T,"from":N} -> {"updated":true|false} (a notifications/resources/updated
//     for U arriving after this op starts, or with "from" after the first N received);
//     {"op":"updates"} -> {"updates":[uris received]}
//   {"op":"start","key":K,"name":N,"arguments":{}} starts a call without waiting; {"op":"await","key":K} -> as "call"
//   {"op":"wire"} -> {"initialize_results":n,"errors":[..]}: initialize answers that reached the app
//     (a second one would be a duplicate) and the SDK's protocol errors (e.g. an answer to an unknown id)
//   {"op":"bench","name":N,"arguments":{},"calls":C,"warmup":W} -> {"calls_per_sec","p50_ms","p99_ms"}
//   {"op":"session","path":P} -> {"session":ID} (HTTP: this app's session id, also written to P)
//   {"op":"open_stream"} -> {"opened":true} (HTTP: the GET stream of its session); {"op":"terminate"}
//     -> {"terminated":true} (HTTP: DELETE of its session); either {"error":{code,message}}
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { parseArgs } from 'node:util';
import fs from 'node:fs';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    ops: { type: 'string' },
    name: { type: 'string', default: 'ts-gateway-client' },
    elicitation: { type: 'string', default: 'none' },
    'form-answer': { type: 'string' },
    sampling: { type: 'string' },
    'sampling-hang': { type: 'boolean', default: false },
    roots: { type: 'string' },
    'session-id': { type: 'string' },
  },
});
if (!values.ops || positionals.length === 0) {
  console.error('usage: node gateway_client.mjs --ops JSON -- CMD [ARGS...]');
  process.exit(2);
}
const ops = JSON.parse(values.ops);
const out = (o) => process.stdout.write(JSON.stringify(o) + '\n');

const formApp = values.elicitation === 'form' || values.elicitation === 'form-hang';
const capabilities = formApp ? { elicitation: { form: {} } } : {};
if (values.sampling !== undefined || values['sampling-hang']) capabilities.sampling = {};
if (values.roots !== undefined) capabilities.roots = {};
const client = new Client({ name: values.name, version: '0.0.0' }, { capabilities });
/**
 * A request handler whose user never answers: it records the request, then
 * waits until the SDK aborts its signal (notifications/cancelled for it) and
 * records the reason.
 */
function hangUntilCancelled(asked, cancels) {
  return (req, extra) => {
    asked.push(req.params);
    return new Promise((_resolve, reject) => {
      extra.signal.addEventListener('abort', () => {
        cancels.push(String(extra.signal.reason ?? 'cancelled'));
        reject(new Error('cancelled'));
      });
    });
  };
}
const samplings = [];
const samplingCancels = [];
if (values['sampling-hang']) {
  client.setRequestHandler(CreateMessageRequestSchema, hangUntilCancelled(samplings, samplingCancels));
} else if (values.sampling !== undefined) {
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    samplings.push(req.params);
    return { role: 'assistant', content: { type: 'text', text: values.sampling }, model: 'test-model' };
  });
}
if (values.roots !== undefined) {
  const roots = values.roots.split(',').filter(Boolean).map((uri) => ({ uri }));
  client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
}
const elicitations = [];
const elicitationCancels = [];
if (values.elicitation === 'form-hang') {
  client.setRequestHandler(ElicitRequestSchema, hangUntilCancelled(elicitations, elicitationCancels));
} else if (values.elicitation === 'form') {
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    elicitations.push(req.params);
    if (values['form-answer'] === undefined) return { action: 'decline' };
    return { action: 'accept', content: JSON.parse(values['form-answer']) };
  });
}
const logs = [];
client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
  logs.push(n.params);
});
const updates = [];
const updateWaiters = [];
client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
  updates.push(n.params.uri);
  while (updateWaiters.length) updateWaiters.shift()();
});
let listChanged = 0;
const waiters = [];
client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
  listChanged += 1;
  while (waiters.length) waiters.shift()();
});

// `-- http://...`: Streamable HTTP, with the bearer token from AIRLOCK_GATEWAY_TOKEN.
const token = process.env.AIRLOCK_GATEWAY_TOKEN;
const transport = positionals[0].startsWith('http://')
  ? new StreamableHTTPClientTransport(new URL(positionals[0]), {
      requestInit: { headers: token ? { Authorization: `Bearer ${token}` } : {} },
      sessionId: values['session-id'],
    })
  : new StdioClientTransport({
      command: positionals[0],
      args: positionals.slice(1),
      env: process.env,
      stderr: 'inherit',
    });
// Count, on the wire, the initialize answers the app receives.
const wire = { initialize_results: 0, errors: [] };
let inner;
Object.defineProperty(transport, 'onmessage', {
  configurable: true,
  get: () => inner && ((m, extra) => {
    if (m && m.result && m.result.serverInfo && m.result.protocolVersion) wire.initialize_results += 1;
    return inner(m, extra);
  }),
  set: (fn) => { inner = fn; },
});
client.onerror = (e) => wire.errors.push(String(e?.message ?? e));
await client.connect(transport);
const started = new Map();
/**
 * A retry's fields (2026-07-28 style) when an op has "state_file": the
 * requestState read from that file (another app wrote it) and
 * "input_responses" as given; none otherwise.
 */
function retryOf(op) {
  if (op.state_file === undefined) return {};
  return { requestState: fs.readFileSync(op.state_file, 'utf8').trim(), inputResponses: op.input_responses ?? {} };
}

for (const op of ops) {
  try {
    switch (op.op) {
      case 'info':
        out({ op: op.op, protocol: transport._protocolVersion ?? null, server: client.getServerVersion()?.name, instructions: client.getInstructions() ?? null });
        break;
      case 'tools': {
        const r = await client.listTools();
        out({ op: op.op, tools: r.tools.map((t) => t.name) });
        break;
      }
      case 'tool_defs': {
        const r = await client.listTools();
        out({ op: op.op, tools: r.tools });
        break;
      }
      case 'call': {
        // abort_after_ms: the app gives up (notifications/cancelled to the server side).
        const signal = op.abort_after_ms ? AbortSignal.timeout(op.abort_after_ms) : undefined;
        // progress: true: the call carries a progressToken; the reports it got are listed.
        const progress = [];
        const onprogress = op.progress ? (p) => progress.push({ ...p, at_ms: Date.now() }) : undefined;
        const r = await client.callTool({ name: op.name, arguments: op.arguments ?? {}, ...retryOf(op) }, undefined, { timeout: op.timeout_ms ?? 60000, signal, onprogress });
        out({ op: op.op, name: op.name, result: r, ...(op.progress ? { progress, done_at_ms: Date.now() } : {}) });
        break;
      }
      case 'start': {
        const options = { timeout: op.timeout_ms ?? 60000 };
        const request = op.prompt !== undefined
          ? client.getPrompt({ name: op.prompt, arguments: op.arguments ?? {} }, options)
          : op.uri !== undefined
            ? client.readResource({ uri: op.uri }, options)
            : client.callTool({ name: op.name, arguments: op.arguments ?? {} }, undefined, options);
        started.set(op.key, request
          .then((r) => ({ result: r }), (e) => ({ error: { code: e.code ?? null, message: String(e.message ?? e) } })));
        out({ op: op.op, key: op.key });
        break;
      }
      case 'await':
        out({ op: op.op, key: op.key, ...(await started.get(op.key)) });
        break;
      case 'wire':
        out({ op: op.op, ...wire });
        break;
      case 'prompts': {
        const r = await client.listPrompts();
        out({ op: op.op, prompts: r.prompts.map((p) => p.name) });
        break;
      }
      case 'resources': {
        const r = await client.listResources();
        out({ op: op.op, resources: r.resources.map((x) => x.uri) });
        break;
      }
      case 'read':
        out({ op: op.op, result: await client.readResource({ uri: op.uri, ...retryOf(op) }) });
        break;
      case 'prompt':
        out({ op: op.op, result: await client.getPrompt({ name: op.name, arguments: op.arguments ?? {}, ...retryOf(op) }) });
        break;
      case 'wait_tool': {
        const want = op.present ?? true;
        const deadline = Date.now() + (op.timeout_ms ?? 10000);
        const before = listChanged;
        let found = false;
        for (;;) {
          const seen = listChanged;
          const names = (await client.listTools()).tools.map((t) => t.name);
          if (names.includes(op.name) === want) {
            found = true;
            break;
          }
          const left = deadline - Date.now();
          if (left <= 0) break;
          if (listChanged === seen) {
            await Promise.race([new Promise((r) => waiters.push(r)), new Promise((r) => setTimeout(r, left))]);
          }
        }
        out({ op: op.op, found, changed: listChanged > before });
        break;
      }
      case 'list_changes':
        out({ op: op.op, count: listChanged });
        break;
      case 'wait_list_changed': {
        const before = listChanged;
        if (listChanged === before) {
          await Promise.race([
            new Promise((r) => waiters.push(r)),
            new Promise((r) => setTimeout(r, op.timeout_ms ?? 10000)),
          ]);
        }
        out({ op: op.op, changed: listChanged > before });
        break;
      }
      case 'subscribe':
        await client.subscribeResource({ uri: op.uri });
        out({ op: op.op, uri: op.uri });
        break;
      case 'unsubscribe':
        await client.unsubscribeResource({ uri: op.uri });
        out({ op: op.op, uri: op.uri });
        break;
      case 'wait_updated': {
        const from = op.from ?? updates.length;
        const seen = () => updates.slice(from).some((u) => op.uri === undefined || u === op.uri);
        const deadline = Date.now() + (op.timeout_ms ?? 10000);
        while (!seen() && Date.now() < deadline) {
          await Promise.race([
            new Promise((r) => updateWaiters.push(r)),
            new Promise((r) => setTimeout(r, deadline - Date.now())),
          ]);
        }
        out({ op: op.op, updated: seen() });
        break;
      }
      case 'updates':
        out({ op: op.op, updates });
        break;
      case 'elicitations': {
        // With timeout_ms: first wait (bounded) until as many were cancelled as asked.
        const deadline = Date.now() + (op.timeout_ms ?? 0);
        while (values.elicitation === 'form-hang' && elicitationCancels.length < elicitations.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        out({ op: op.op, elicitations, cancelled: elicitationCancels });
        break;
      }
      case 'templates': {
        const r = await client.listResourceTemplates();
        out({ op: op.op, templates: r.resourceTemplates.map((t) => t.uriTemplate) });
        break;
      }
      case 'complete':
        out({ op: op.op, result: await client.complete({ ref: op.ref, argument: op.argument, context: op.context }) });
        break;
      case 'set_level':
        await client.setLoggingLevel(op.level);
        out({ op: op.op });
        break;
      case 'logs':
        out({ op: op.op, logs });
        break;
      case 'samplings': {
        // With timeout_ms: first wait (bounded) until as many were cancelled as asked.
        const deadline = Date.now() + (op.timeout_ms ?? 0);
        while (samplingCancels.length < samplings.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
        out({ op: op.op, samplings, cancelled: samplingCancels });
        break;
      }
      case 'session':
        fs.writeFileSync(op.path, transport.sessionId ?? '');
        out({ op: op.op, session: transport.sessionId ?? null });
        break;
      case 'open_stream':
        await transport._startOrAuthSse({ resumptionToken: undefined });
        out({ op: op.op, opened: true });
        break;
      case 'terminate':
        await transport.terminateSession();
        out({ op: op.op, terminated: true });
        break;
      case 'sleep':
        await new Promise((r) => setTimeout(r, op.ms ?? 0));
        out({ op: op.op });
        break;
      case 'touch':
        fs.writeFileSync(op.path, '');
        out({ op: op.op });
        break;
      case 'wait_file': {
        // Stay attached until a test says go on (it creates the file).
        const deadline = Date.now() + (op.timeout_ms ?? 60000);
        while (!fs.existsSync(op.path) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
        out({ op: op.op, found: fs.existsSync(op.path) });
        break;
      }
      case 'bench': {
        const call = () => client.callTool({ name: op.name, arguments: op.arguments ?? {} });
        for (let i = 0; i < (op.warmup ?? 200); i++) await call();
        const n = op.calls ?? 2000;
        const lat = new Float64Array(n);
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < n; i++) {
          const s = process.hrtime.bigint();
          const r = await call();
          if (r.isError) throw new Error(`call failed: ${JSON.stringify(r)}`);
          lat[i] = Number(process.hrtime.bigint() - s) / 1e6;
        }
        const total = Number(process.hrtime.bigint() - t0) / 1e9;
        lat.sort();
        const pct = (p) => lat[Math.min(n - 1, Math.ceil((p / 100) * n) - 1)];
        out({ op: op.op, calls: n, calls_per_sec: Number((n / total).toFixed(1)), p50_ms: Number(pct(50).toFixed(3)), p99_ms: Number(pct(99).toFixed(3)) });
        break;
      }
      default:
        out({ op: op.op, error: { message: 'unknown op' } });
    }
  } catch (e) {
    out({ op: op.op, name: op.name, error: { code: e.code ?? null, message: String(e.message ?? e) } });
  }
}
await client.close();
process.exit(0);
