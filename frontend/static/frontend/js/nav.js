// Site menu, language switch and sign-out. Opening a menu tells the page (event "menuopen"),
// so a running game pauses itself (RULES.md, Time).
import { api } from "./api.js";

const menu = document.getElementById("site-menu");
const wide = window.matchMedia("(min-width: 760px)");

function syncMenu() {
  // On a wide screen the navigation is always shown; on a phone it folds into the menu.
  if (wide.matches) menu.setAttribute("open", "");
  else menu.removeAttribute("open");
  menu.classList.toggle("menu-wide", wide.matches);
}
syncMenu();
wide.addEventListener("change", syncMenu);

menu.addEventListener("toggle", () => {
  if (menu.open && !wide.matches) window.dispatchEvent(new CustomEvent("menuopen"));
});
menu.querySelector("summary").addEventListener("click", (e) => {
  if (wide.matches) e.preventDefault(); // nothing to fold on a wide screen
});

const select = document.getElementById("language-select");
if (select) {
  select.addEventListener("focus", () => window.dispatchEvent(new CustomEvent("menuopen")));
  select.addEventListener("change", () => select.form.submit());
}

const signout = document.getElementById("signout");
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
