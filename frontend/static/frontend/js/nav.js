// @ts-check
// Site menu, language switch and sign-out. Opening a menu tells the page (event "menuopen"),
// so a running game pauses itself (RULES.md, Time).
import { api } from "./api.js";
import { $, $$, byId } from "./dom.js";

const menu = $("site-menu", HTMLDetailsElement);
const wide = window.matchMedia("(min-width: 760px)");

function syncMenu() {
  // On a wide screen the navigation is always shown (site.css draws it as the bar); on a
  // phone it folds into the menu. The page comes with the menu open (base.html, data-boot).
  if (wide.matches) menu.setAttribute("open", "");
  else menu.removeAttribute("open");
  delete menu.dataset.boot;
}
syncMenu();
wide.addEventListener("change", syncMenu);

menu.addEventListener("toggle", () => {
  if (menu.open && !wide.matches) window.dispatchEvent(new CustomEvent("menuopen"));
});
$$("summary", HTMLElement, menu)[0].addEventListener("click", (e) => {
  if (wide.matches) e.preventDefault(); // nothing to fold on a wide screen
});

const select = byId("language-select");
if (select instanceof HTMLSelectElement && select.form) {
  const form = select.form;
  select.addEventListener("focus", () => window.dispatchEvent(new CustomEvent("menuopen")));
  select.addEventListener("change", () => form.submit());
}

const signout = byId("signout");
if (signout) {
  signout.addEventListener("click", async () => {
    window.dispatchEvent(new CustomEvent("menuopen"));
    try {
      await api("DELETE", "/api/auth/session");
    } finally {
      location.href = "/";
    }
  });
}
