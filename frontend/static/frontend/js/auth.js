// @ts-check
// Sign up and sign in: the account API, then a session cookie for the pages (API.md, Accounts).
import { api, ApiError, gettext, otpRefusalText, serverText } from "./api.js";
import { $, $$ } from "./dom.js";
import { safeNext } from "./next.js";

const form = $("auth-form", HTMLFormElement);
const error = $("auth-error");

function nextUrl() {
  return safeNext(new URLSearchParams(location.search).get("next") || "/"); // only pages of this site
}

// The reasons the site can say in the page's language from their stable code (API.md,
// details.codes); any other reason keeps the server's message (Django's own, already in the
// page's language). The codes themselves are never shown.
/** @param {string | undefined} code */
function codeText(code) {
  switch (code) {
    case "username_taken": return gettext("This username is taken.");
    case "username_reserved": return gettext("Names starting with “guest-” are kept for guest accounts.");
    default: return "";
  }
}

/** @param {unknown} err */
function explain(err) {
  if (!(err instanceof ApiError)) return String(err);
  // Validation errors arrive as details.fields.{field: [messages]}, and the same shape of
  // stable reasons in details.codes: show the messages only.
  const fields = err.details && err.details.fields;
  const codes = (err.details && err.details.codes) || {};
  /** @type {string[]} */
  const lines = [];
  /** @param {unknown} v  the messages  @param {any} c  the codes, in the same shape */
  const walk = (v, c) => {
    if (typeof v === "string") lines.push(codeText(c) || serverText(v));
    else if (Array.isArray(v)) v.forEach((m, i) => walk(m, Array.isArray(c) ? c[i] : undefined));
    else if (v && typeof v === "object") {
      for (const [k, m] of Object.entries(v)) walk(m, c && typeof c === "object" ? c[k] : undefined);
    }
  };
  walk(fields, codes);
  return lines.length ? lines.join(" ") : err.message;
}

// Switching between sign in and sign up keeps where the visitor was going.
const next = new URLSearchParams(location.search).get("next");
if (next) for (const a of $$("a.auth-switch", HTMLAnchorElement)) a.href += "?next=" + encodeURIComponent(next);

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  error.textContent = "";
  const data = Object.fromEntries(new FormData(form));
  if (!data.username || !data.password) {
    error.textContent = gettext("Enter a username and a password.");
    return;
  }
  const button = $$("button[type=submit]", HTMLButtonElement, form)[0];
  button.disabled = true;
  try {
    if (form.dataset.mode === "signup") {
      /** @type {Record<string, FormDataEntryValue>} */
      const body = { username: data.username, password: data.password };
      if (data.email) body.email = data.email;
      if (data.bot) body.kind = "bot"; // RULES.md, Fair play: a bot is declared at sign-up
      await api("POST", "/api/auth/register", body);
    }
    /** @type {Record<string, FormDataEntryValue>} */
    const credentials = { username: data.username, password: data.password };
    if (data.otp) credentials.otp = data.otp; // two-factor sign-in (docs/ACCOUNTS.md)
    await api("POST", "/api/auth/session", credentials);
    location.href = nextUrl();
  } catch (err) {
    const otp = document.getElementById("otp-field");
    if (err instanceof ApiError && (err.code === "otp_required" || err.code === "otp_invalid") && otp) {
      otp.hidden = false; // the password was right: now the code
      $$("input", HTMLInputElement, otp)[0].focus();
      error.textContent =
        err.code === "otp_required"
          ? gettext("Two-factor sign-in is on: type the code from your authenticator app.")
          : otpRefusalText(err);
    } else {
      error.textContent = explain(err);
    }
    button.disabled = false;
  }
});
