// A small server of the official TypeScript SDK, packed into an MCP Bundle
// (mcpb) by the catalog install tests (crates/airlock-cli/tests/catalog_install.rs).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bundle-echo", version: "1.0.0" });
server.registerTool(
  "echo",
  { description: "Returns its message.", inputSchema: { message: z.string() } },
  async ({ message }) => ({ content: [{ type: "text", text: `bundle: ${message}` }] }),
);
await server.connect(new StdioServerTransport());
