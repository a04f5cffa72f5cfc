// @ts-check
// The pages of the mailed links (API.md: `?token=`): confirming an address, and resetting a
// password (without a token: asking for the link). docs/ACCOUNTS.md.
import { api, gettext, refusalText } from "./api.js";
import { $, byId } from "./dom.js";

const token = new URLSearchParams(location.search).get("token") || "";

/** @param {unknown} err */
function explain(err) {
  return refusalText(err, {
    token_invalid: gettext("This link is invalid, used or expired."),
    email_taken: gettext("Another account has already confirmed this address."),
  });
}

async function verify() {
  const state = $("verify-state");
  if (!token) {
    state.textContent = "";
    $("verify-error").textContent = gettext("This link is invalid, used or expired.");
    return;
  }
  try {
    const me = await api("POST", "/api/auth/email/verify", { token });
    state.textContent = gettext("Your address is confirmed:") + " " + me.email;
  } catch (err) {
    state.textContent = "";
    $("verify-error").textContent = explain(err);
  }
}

function reset() {
  const request = $("reset-request-form", HTMLFormElement);
  const confirm = $("reset-confirm-form", HTMLFormElement);
  const error = $("reset-error");
  request.hidden = !!token;
  confirm.hidden = !token;
  request.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    try {
      await api("POST", "/api/auth/password-reset", { email: String(new FormData(request).get("email") || "") });
      request.hidden = true;
      $("reset-sent").hidden = false;
    } catch (err) {
      error.textContent = explain(err);
    }
  });
  confirm.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    try {
      await api("POST", "/api/auth/password-reset/confirm", { token, new_password: String(new FormData(confirm).get("new_password") || "") });
      confirm.hidden = true;
      $("reset-done").hidden = false;
    } catch (err) {
      error.textContent = explain(err);
    }
  });
}

if (byId("verify-state")) verify();
else reset();
