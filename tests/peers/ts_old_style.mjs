// ts-old-style: a real MCP server on the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.32), written the 2025-11-25 way: its tools ask
// for input with server-initiated `elicitation/create` requests
// (`server.elicitInput`), in URL mode (then a completion notification) and in
// form mode.
//
//   node ts_old_style.mjs stdio
//   node ts_old_style.mjs http PORT      # Streamable HTTP on http://127.0.0.1:PORT/mcp
//
// Prints `ts-old-style ready` (and the URL for http) on stderr once it listens.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { z } from "zod";

function build() {
  const mcp = new McpServer({ name: "ts-old-style", version: "1.0.0" });
  mcp.registerTool(
    "link_account",
    { description: "Ask the client to open a URL (URL elicitation, request path)", inputSchema: { url: z.string() } },
    async ({ url }) => {
      const elicitationId = randomUUID();
      const result = await mcp.server.elicitInput({ mode: "url", message: "Link your account", url, elicitationId });
      if (result.action === "accept") {
        setTimeout(() => {
          mcp.server
            .notification({ method: "notifications/elicitation/complete", params: { elicitationId } })
            .catch((e) => console.error(`ts-old-style: completion not sent: ${e}`));
        }, 500);
      }
      return { content: [{ type: "text", text: `link_account action=${result.action}` }] };
    },
  );
  mcp.registerTool("sign_up", { description: "Ask for a small form (form elicitation)" }, async () => {
    const result = await mcp.server.elicitInput({
      message: "Sign up",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", title: "Name", default: "Ada" },
          newsletter: { type: "boolean", title: "Newsletter", default: false },
        },
        required: ["name"],
      },
    });
    const text =
      result.action === "accept"
        ? `sign_up accepted name=${result.content?.name} newsletter=${result.content?.newsletter}`
        : `sign_up action=${result.action}`;
    return { content: [{ type: "text", text }] };
  });
  return mcp;
}

const [mode, port] = process.argv.slice(2);
if (mode === "stdio") {
  await build().connect(new StdioServerTransport());
  console.error("ts-old-style ready");
} else if (mode === "http") {
  // One server and transport per session, as the SDK's examples do.
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined;
    const id = req.headers["mcp-session-id"];
    let transport = id ? sessions.get(id) : undefined;
    if (!transport) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  http.listen(Number(port ?? 0), "127.0.0.1", () => {
    console.error(`ts-old-style ready http://127.0.0.1:${http.address().port}/mcp`);
  });
} else {
  console.error("usage: ts_old_style.mjs stdio | http PORT");
  process.exit(2);
}
