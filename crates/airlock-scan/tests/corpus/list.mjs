// Lists what one MCP server shows an app: tools, prompts, resources,
// resource templates and its instructions, as JSON, for the airlock-scan
// corpus of real definitions. Run by refresh.sh from its scratch folder
// (where @modelcontextprotocol/sdk is installed).
//
//   node list.mjs OUT.json LABEL PACKAGE [--env K=V ...] -- CMD ARGS...
import { writeFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [out, label, pkg, ...rest] = process.argv.slice(2);
const sep = rest.indexOf("--");
if (!out || !label || !pkg || sep < 0 || sep === rest.length - 1) {
  console.error("usage: node list.mjs OUT.json LABEL PACKAGE [--env K=V ...] -- CMD ARGS...");
  process.exit(2);
}
const env = { PATH: process.env.PATH, HOME: process.env.HOME };
for (let i = 0; i < sep; i++) {
  if (rest[i] === "--env" && i + 1 < sep) {
    const [k, ...v] = rest[++i].split("=");
    env[k] = v.join("=");
  }
}
const [command, ...args] = rest.slice(sep + 1);

// Every capability an app may declare, so servers list everything they would.
const client = new Client(
  { name: "airlock-scan-corpus", version: "0.1.0" },
  {
    capabilities: {
      roots: { listChanged: true },
      sampling: {},
      elicitation: { form: {}, url: {} },
    },
  },
);
const transport = new StdioClientTransport({ command, args, env, stderr: "ignore" });
const deadline = setTimeout(() => {
  console.error(`${label}: no answer in 60 s`);
  process.exit(1);
}, 60_000);

async function all(method, key) {
  const items = [];
  let cursor;
  for (let page = 0; page < 50; page++) {
    const res = await client.request(
      { method, params: cursor ? { cursor } : {} },
      // The SDK validates with a schema; a passthrough one keeps every field.
      { parse: (x) => x, safeParse: (x) => ({ success: true, data: x }) },
    );
    items.push(...(res[key] ?? []));
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return items;
}

await client.connect(transport);
const caps = client.getServerCapabilities() ?? {};
const result = {
  server: label,
  package: pkg,
  serverInfo: client.getServerVersion() ?? null,
  instructions: client.getInstructions() ?? null,
  tools: caps.tools ? await all("tools/list", "tools") : [],
  prompts: caps.prompts ? await all("prompts/list", "prompts") : [],
  resources: caps.resources ? await all("resources/list", "resources") : [],
  resourceTemplates: caps.resources
    ? await all("resources/templates/list", "resourceTemplates").catch(() => [])
    : [],
};
writeFileSync(out, JSON.stringify(result, null, 1) + "\n");
console.error(
  `${label}: ${result.tools.length} tools, ${result.prompts.length} prompts, ` +
    `${result.resources.length} resources, ${result.resourceTemplates.length} templates`,
);
clearTimeout(deadline);
await client.close();
process.exit(0);
