// @ts-check
// The look of the page before its first paint: a classic script in <head> (the site's CSP
// allows no inline script), reading the settings that settings.js keeps. A signed-in
// player's come with the page (#account-settings, from the account); a visitor's from this
// browser's localStorage; the defaults and the themes are the server's (<html
// data-site-constants>, constants.js). It sets <html data-theme="light|dark|system">,
// data-shade="light|dark" (what site.css draws: `system` follows prefers-color-scheme) and
// data-animations="on|off".
(function () {
  /** @param {string} id */
  function json(id) {
    var node = document.getElementById(id);
    return node ? JSON.parse(node.textContent || "null") : null;
  }
  /** @type {import("./constants.js").SiteConstants["settings"]} */
  var site = JSON.parse(document.documentElement.dataset.siteConstants || "null").settings;
  /** @type {{ theme?: unknown, animations?: unknown }} */
  var saved = {};
  try {
    var account = json("account-settings");
    if (account) saved = account;
    else saved = (JSON.parse(localStorage.getItem("demineur:settings") || "{}") || {}).values || {};
  } catch (err) {
    saved = {};
  }
  var root = document.documentElement;
  var theme = typeof saved.theme === "string" && site.themes.indexOf(saved.theme) >= 0 ? saved.theme : site.defaults.theme;
  root.dataset.theme = theme;
  var animations = typeof saved.animations === "boolean" ? saved.animations : site.defaults.animations;
  root.dataset.animations = animations ? "on" : "off";
  // The shade the page is drawn in (site.css reads data-shade): the theme, or for `system`
  // the device's preference, followed as either changes (settings.js sets data-theme).
  var prefersDark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function shade() {
    var theme = root.dataset.theme;
    var dark = theme === "dark" || (theme === "system" && !!prefersDark && prefersDark.matches);
    root.dataset.shade = dark ? "dark" : "light";
  }
  shade();
  if (prefersDark && prefersDark.addEventListener) prefersDark.addEventListener("change", shade);
  new MutationObserver(shade).observe(root, { attributes: true, attributeFilter: ["data-theme"] });
})();
