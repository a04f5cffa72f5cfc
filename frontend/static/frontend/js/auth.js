// Sign up and sign in: the account API, then a session cookie for the pages (API.md, Accounts).
import { api, ApiError, gettext, serverText } from "./api.js";
import { safeNext } from "./next.js";

const form = document.getElementById("auth-form");
const error = document.getElementById("auth-error");

function nextUrl() {
  return safeNext(new URLSearchParams(location.search).get("next") || "/"); // only pages of this site
}

function explain(err) {
  if (!(err instanceof ApiError)) return String(err);
  // Validation errors arrive as details.fields.{field: [messages]}: show the messages.
  const lines = [];
  const walk = (v) => {
    if (typeof v === "string") lines.push(serverText(v));
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(err.details);
  return lines.length ? lines.join(" ") : err.message;
}

// Switching between sign in and sign up keeps where the visitor was going.
const next = new URLSearchParams(location.search).get("next");
if (next) for (const a of document.querySelectorAll("a.auth-switch")) a.href += "?next=" + encodeURIComponent(next);

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  error.textContent = "";
  const data = Object.fromEntries(new FormData(form));
  if (!data.username || !data.password) {
    error.textContent = gettext("Enter a username and a password.");
    return;
  }
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    if (form.dataset.mode === "signup") {
      const body = { username: data.username, password: data.password };
      if (data.email) body.email = data.email;
      if (data.bot) body.kind = "bot"; // RULES.md, Fair play: a bot is declared at sign-up
      await api("POST", "/api/auth/register", body);
    }
    await api("POST", "/api/auth/session", { username: data.username, password: data.password });
    location.href = nextUrl();
  } catch (err) {
    error.textContent = explain(err);
    button.disabled = false;
  }
});
