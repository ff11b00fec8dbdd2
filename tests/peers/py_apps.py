#!/usr/bin/env python3
"""`py-apps`: a server that ships an MCP App (`io.modelcontextprotocol/ui`),
on the official Python SDK's own Apps extension (`mcp.server.apps`, mcp 2.3.0);
for Airlock's gateway tests of Apps passing through. stdio only.

- `weather(city)`: bound to `ui://py-apps/weather.html` (visibility model and
  app, plus a `_meta` key of its own); its result carries structured content
  and a `_meta` of its own, and says whether the client declared the extension.
- `refresh(city)`: app-only (`visibility: ["app"]`), same App.
- `borrowed()`: a plain tool whose `_meta.ui.resourceUri` names another
  server's App (`ui://get-time/mcp-app.html`, server-basic-vanillajs's): a
  gateway must not pass that link on.
- Resource `ui://py-apps/weather.html`: the App's HTML, served as
  `text/html;profile=mcp-app` with a CSP and border preference in `_meta.ui`.
"""

from __future__ import annotations

from mcp.server.apps import Apps, ResourceCsp, client_supports_apps
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, TextContent

APP_URI = "ui://py-apps/weather.html"
HTML = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Weather</title></head>
<body><main id="out">waiting for the tool result</main>
<script>/* an MCP App view: renders ui/notifications/tool-result */</script>
</body></html>
"""

apps = Apps()


@apps.tool(resource_uri=APP_URI, visibility=["model", "app"], meta={"py-apps/kind": "forecast"},
           description="The weather in a city, with an interactive view.")
def weather(city: str, ctx: Context) -> CallToolResult:
    ui = client_supports_apps(ctx)
    return CallToolResult(
        content=[TextContent(type="text", text=f"Sunny in {city}")],
        structured_content={"city": city, "sky": "sunny", "celsius": 21},
        meta={"py-apps/generated": "2026-12-06T09:00:00Z", "py-apps/client-renders-apps": ui},
    )


@apps.tool(resource_uri=APP_URI, visibility=["app"], description="Refresh the view (app only).")
def refresh(city: str) -> str:
    return f"refreshed {city}"


apps.add_html_resource(
    APP_URI,
    HTML,
    name="weather-view",
    description="The weather view",
    csp=ResourceCsp(connect_domains=["https://api.weather.example"]),
    prefers_border=True,
)

mcp = MCPServer("py-apps", extensions=[apps])


@mcp.tool(meta={"ui": {"resourceUri": "ui://get-time/mcp-app.html"}}, description="A plain tool.")
def borrowed() -> str:
    return "borrowed"


if __name__ == "__main__":
    mcp.run()
