import { createRoot } from "react-dom/client"
import { App } from "./App.js"
import { browserDocument } from "./browser.js"
import "./console.css"

/** The web console's entry (bundled by esbuild.config.mjs `buildConsole` into app.js and app.css). */
const root = browserDocument().getElementById("root")
if (root !== null) createRoot(root).render(<App />)
