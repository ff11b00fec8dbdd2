// Cline's own MCP code (@cline/core, the library its CLI runs on) reads
// ~/.cline/data/settings/cline_mcp_settings.json and, with `call`, connects
// to one server with Cline's MCP client, lists its tools and calls one.
//   node cline_mcp.mjs list
//   node cline_mcp.mjs call SERVER TOOL JSON_ARGS
// Prints one JSON line.
import {
  createDefaultMcpServerClientFactory,
  InMemoryMcpManager,
  resolveDefaultMcpSettingsPath,
  resolveMcpServerRegistrations,
} from "@cline/core";

const [mode, server, tool, args] = process.argv.slice(2);
const path = resolveDefaultMcpSettingsPath();
let regs = [];
try {
  regs = resolveMcpServerRegistrations();
} catch (e) {
  if (e?.code !== "ENOENT") throw e;
}
if (mode === "list") {
  console.log(JSON.stringify({ path, servers: regs.map((r) => ({ name: r.name, transport: r.transport })) }));
  process.exit(0);
}
const reg = regs.find((r) => r.name === server);
if (!reg) {
  console.log(JSON.stringify({ error: `no server ${server} in ${path}` }));
  process.exit(1);
}
const manager = new InMemoryMcpManager({ clientFactory: createDefaultMcpServerClientFactory() });
await manager.registerServer(reg);
await manager.connectServer(server);
const tools = await manager.listTools(server);
const result = await manager.callTool({ serverName: server, toolName: tool, arguments: JSON.parse(args) });
console.log(JSON.stringify({ tools: tools.map((t) => t.name), result }));
await manager.dispose();
process.exit(0);
