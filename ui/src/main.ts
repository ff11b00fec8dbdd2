import { mount } from "svelte";
import App from "./App.svelte";
import "./app.css";
import { applyTheme } from "./lib/theme";

// The system's colours until the settings say otherwise (no light flash).
applyTheme("system");

const target = document.getElementById("app");
if (!target) {
  throw new Error("Airlock: the #app mount point is missing from index.html");
}

export default mount(App, { target });
