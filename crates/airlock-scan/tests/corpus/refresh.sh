#!/usr/bin/env bash
# Regenerates tests/corpus/real/*.json: what real MCP servers (not ours)
# list to an app, taken by starting each one over stdio and asking for its
# tools, prompts, resources, templates and instructions (list.mjs).
#
#   bash crates/airlock-scan/tests/corpus/refresh.sh [SCRATCH_DIR [LABEL...]]
#
# With LABELs, only those servers are listed again.
# Installs into SCRATCH_DIR (default: a folder under ${TMPDIR:-/tmp}); nothing
# installed is committed, only the JSON. Credentials are placeholders: every
# server here lists its definitions without signing in. A server that fails
# to install or to list is reported and skipped; its old JSON stays.
# Then: cargo test -p airlock-scan --test corpus (and review the diff).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/real"
scratch="${1:-${TMPDIR:-/tmp}/airlock-scan-corpus}"
shift || true
only=" $* "
wanted() { [ "$only" = "  " ] || [[ "$only" == *" $1 "* ]]; }
mkdir -p "$scratch" "$out"
cd "$scratch" || exit 1
[ -f package.json ] || npm init -y >/dev/null
# A home of its own: some servers write config or caches under $HOME.
export HOME="$scratch/home"
mkdir -p "$HOME" allowed repo
# Browsers are not needed to list tools, and cannot be downloaded here.
export PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
[ -d repo/.git ] || git -C repo init -q
cp "$here/list.mjs" "$scratch/list.mjs"

npm_i() { timeout 600 npm i --no-audit --no-fund --loglevel=error "$@" >/dev/null 2>&1; }
npm_i @modelcontextprotocol/sdk@1.32.2 || { echo "cannot install the MCP SDK" >&2; exit 1; }

ok=() failed=()
# list LABEL PACKAGE [--env K=V ...] -- CMD ARGS...
list() {
  local label="$1"
  if timeout 90 node list.mjs "$out/$label.json.new" "$@"; then
    mv "$out/$label.json.new" "$out/$label.json"
    ok+=("$label")
  else
    rm -f "$out/$label.json.new"
    failed+=("$label")
  fi
}
# npm_server LABEL PACKAGE BIN [--env K=V ...] [-- ARGS...]
npm_server() {
  local label="$1" pkg="$2" bin="$3"
  shift 3
  wanted "$label" || return 0
  if ! npm_i "$pkg"; then
    echo "$label: npm install $pkg failed" >&2
    failed+=("$label")
    return
  fi
  local version envs=() args=()
  version="$(node -p "require('./node_modules/$pkg/package.json').version" 2>/dev/null)"
  while [ $# -gt 0 ]; do
    case "$1" in
      --env) envs+=(--env "$2"); shift 2 ;;
      --) shift; args=("$@"); break ;;
      *) echo "bad argument $1" >&2; return ;;
    esac
  done
  list "$label" "npm:$pkg@$version" "${envs[@]}" -- "node_modules/.bin/$bin" "${args[@]}"
}

# Python servers, each in a venv of its own (their pins differ).
# py_server LABEL PACKAGE BIN [--pin REQUIREMENT] [--env K=V ...] [-- ARGS...]
py_server() {
  local label="$1" pkg="$2" bin="$3"
  shift 3
  wanted "$label" || return 0
  local version envs=() args=() pins=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --pin) pins+=("$2"); shift 2 ;;
      --env) envs+=(--env "$2"); shift 2 ;;
      --) shift; args=("$@"); break ;;
      *) echo "bad argument $1" >&2; return ;;
    esac
  done
  local venv="venvs/$label"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  if ! timeout 600 "$venv/bin/pip" install -q --disable-pip-version-check "$pkg" "${pins[@]}" >/dev/null 2>&1; then
    echo "$label: pip install $pkg failed" >&2
    failed+=("$label")
    return
  fi
  version="$("$venv/bin/pip" show "$pkg" 2>/dev/null | sed -n 's/^Version: //p')"
  list "$label" "pypi:$pkg==$version" "${envs[@]}" -- "$venv/bin/$bin" "${args[@]}"
}

# The reference servers.
npm_server everything @modelcontextprotocol/server-everything mcp-server-everything -- stdio
npm_server filesystem @modelcontextprotocol/server-filesystem mcp-server-filesystem -- "$scratch/allowed"
npm_server memory @modelcontextprotocol/server-memory mcp-server-memory \
  --env "MEMORY_FILE_PATH=$scratch/memory.jsonl"
npm_server sequential-thinking @modelcontextprotocol/server-sequential-thinking mcp-server-sequential-thinking
npm_server github @modelcontextprotocol/server-github mcp-server-github \
  --env GITHUB_PERSONAL_ACCESS_TOKEN=placeholder
npm_server gitlab @modelcontextprotocol/server-gitlab mcp-server-gitlab \
  --env GITLAB_PERSONAL_ACCESS_TOKEN=placeholder
npm_server slack @modelcontextprotocol/server-slack mcp-server-slack \
  --env SLACK_BOT_TOKEN=xoxb-placeholder --env SLACK_TEAM_ID=T00000000
npm_server brave-search @modelcontextprotocol/server-brave-search mcp-server-brave-search \
  --env BRAVE_API_KEY=placeholder
npm_server google-maps @modelcontextprotocol/server-google-maps mcp-server-google-maps \
  --env GOOGLE_MAPS_API_KEY=placeholder
py_server time mcp-server-time mcp-server-time -- --local-timezone UTC
py_server fetch mcp-server-fetch mcp-server-fetch
py_server git mcp-server-git mcp-server-git -- --repository "$scratch/repo"
# Archived before the Python SDK's 2.x, and it does not pin it.
py_server sqlite mcp-server-sqlite mcp-server-sqlite --pin "mcp<2" -- --db-path "$scratch/test.db"

# Third-party servers.
npm_server playwright @playwright/mcp playwright-mcp
npm_server chrome-devtools chrome-devtools-mcp chrome-devtools-mcp
npm_server notion @notionhq/notion-mcp-server notion-mcp-server --env NOTION_TOKEN=placeholder
npm_server context7 @upstash/context7-mcp context7-mcp
npm_server desktop-commander @wonderwhy-er/desktop-commander desktop-commander
npm_server firecrawl firecrawl-mcp firecrawl-mcp --env FIRECRAWL_API_KEY=fc-placeholder
npm_server tavily tavily-mcp tavily-mcp --env TAVILY_API_KEY=tvly-placeholder
npm_server exa exa-mcp-server exa-mcp-server --env EXA_API_KEY=placeholder
npm_server mongodb mongodb-mcp-server mongodb-mcp-server
npm_server kubernetes mcp-server-kubernetes mcp-server-kubernetes
# Not here: @supabase/mcp-server-supabase and @stripe/mcp fetch from their
# services before they list anything (no network here).
npm_server sentry @sentry/mcp-server sentry-mcp -- --access-token=placeholder
npm_server mastra-docs @mastra/mcp-docs-server mcp-docs-server
py_server arxiv arxiv-mcp-server arxiv-mcp-server -- --storage-path "$scratch/arxiv"
py_server duckduckgo duckduckgo-mcp-server duckduckgo-mcp-server
py_server excel excel-mcp-server excel-mcp-server -- stdio
py_server atlassian mcp-atlassian mcp-atlassian \
  --env JIRA_URL=https://jira.example.invalid --env JIRA_USERNAME=placeholder \
  --env JIRA_API_TOKEN=placeholder --env CONFLUENCE_URL=https://wiki.example.invalid/wiki \
  --env CONFLUENCE_USERNAME=placeholder --env CONFLUENCE_API_TOKEN=placeholder

echo "listed (${#ok[@]}): ${ok[*]}"
[ ${#failed[@]} -eq 0 ] || echo "skipped (${#failed[@]}): ${failed[*]}"
