// The look of the page before its first paint: a classic script in <head> (the site's CSP
// allows no inline script), reading the settings that settings.js keeps. A signed-in
// player's come with the page (#account-settings, from the account); a visitor's from this
// browser's localStorage. It sets <html data-theme="light|dark|system">, data-shade="light|dark"
// (what site.css draws: `system` follows prefers-color-scheme) and data-animations="on|off".
(function () {
  var saved = {};
  try {
    var account = document.getElementById("account-settings");
    if (account) saved = JSON.parse(account.textContent) || {};
    else saved = (JSON.parse(localStorage.getItem("demineur:settings") || "{}") || {}).values || {};
  } catch (err) {
    saved = {};
  }
  var root = document.documentElement;
  root.dataset.theme = saved.theme === "light" || saved.theme === "dark" ? saved.theme : "system";
  root.dataset.animations = saved.animations === false ? "off" : "on";
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
