// @ts-check
// The site as an installable app: its service worker (/sw.js, scope "/"; docs/FRONTEND.md).
if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {});
}
