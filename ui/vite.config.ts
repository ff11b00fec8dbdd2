import { defineConfig } from "vite";
import { svelte } from "@sveltejs/vite-plugin-svelte";

// The Tauri shell loads ui/dist in production and this dev server in `vite` mode.
export default defineConfig({
  plugins: [svelte()],
  clearScreen: false,
  server: {
    port: 1420,
    strictPort: true,
    host: "127.0.0.1",
  },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // WebKitGTK 2.38+ (Debian 12, Ubuntu 22.04) and WKWebView on macOS 12+.
    target: "safari15",
    sourcemap: false,
  },
});
