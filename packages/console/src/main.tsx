import { createRoot } from "react-dom/client"
import { App } from "./App.js"
import "./styles.css"
import { applyTheme } from "./theme.js"

applyTheme()

createRoot(document.getElementById("root")!).render(<App />)

// Installable, and the shell opens offline (public/sw.js: the shell and its hashed assets only;
// the API is never cached). Failing to register changes nothing else.
if ("serviceWorker" in navigator && location.pathname.startsWith("/app"))
  void navigator.serviceWorker.register("/app/sw.js", { scope: "/app/" }).catch(() => {})
