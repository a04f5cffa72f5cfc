// @ts-check
// API tokens: list, create (the key is shown once), revoke.
import { api, gettext, fmtDate, messageOf } from "./api.js";
import { $, el } from "./dom.js";
import { ask } from "./dialog.js";

/** @type {number | null} the token whose key is on screen, once, right after its creation */
let shownKeyId = null;

/** An API token as listed (API.md, Tokens). @typedef {{ id: number, name: string, prefix: string, scopes: string[], created_at: string, last_used_at: string | null }} Token */

function hideNewKey() {
  $("new-key").textContent = "";
  $("new-token").hidden = true;
  shownKeyId = null;
}

async function load() {
  try {
    const data = await api("GET", "/api/tokens");
    const rows = data.results || [];
    $("tokens", HTMLTableElement).tBodies[0].replaceChildren(
      ...rows.map((/** @type {Token} */ tok) =>
        el(
          "tr",
          { "data-token-id": String(tok.id) },
          el("td", { text: tok.name }),
          el("td", {}, el("code", { text: tok.prefix + "…" })),
          el("td", { class: "token-scopes", text: (tok.scopes || []).join(", ") || gettext("public reads only") }),
          el("td", { text: fmtDate(tok.created_at) }),
          el("td", { text: tok.last_used_at ? fmtDate(tok.last_used_at) : gettext("never") }),
          el("td", {}, el("button", { type: "button", class: "btn btn-quiet", onclick: () => revoke(tok), text: gettext("Revoke") })),
        ),
      ),
    );
    $("no-tokens").hidden = rows.length > 0;
    $("tokens").hidden = rows.length === 0; // no headers over an empty table
  } catch (err) {
    $("token-error").textContent = messageOf(err);
  }
}

/** @param {Token} tok */
async function revoke(tok) {
  const sure = await ask({
    title: gettext("Revoke this token?"),
    text: gettext("Programs using it will stop working."),
    yes: gettext("Revoke"),
    no: gettext("Keep it"),
    danger: true,
  });
  if (!sure) return;
  try {
    await api("DELETE", `/api/tokens/${tok.id}`);
    if (shownKeyId === tok.id) hideNewKey(); // a revoked key is nobody's "new key"
    load();
  } catch (err) {
    $("token-error").textContent = messageOf(err);
  }
}

const tokenForm = $("token-form", HTMLFormElement);
tokenForm.addEventListener("submit", async (e) => {
  e.preventDefault();
  $("token-error").textContent = "";
  const form = new FormData(tokenForm);
  const name = String(form.get("name") || "").trim();
  if (!name) return;
  const scopes = form.getAll("scopes").map(String);
  try {
    const created = await api("POST", "/api/tokens", { name, scopes });
    $("new-key").textContent = created.token;
    $("new-token").hidden = false;
    shownKeyId = created.id;
    tokenForm.reset();
    load();
  } catch (err) {
    $("token-error").textContent = messageOf(err);
  }
});

$("copy-key").addEventListener("click", async () => {
  try {
    await navigator.clipboard.writeText($("new-key").textContent || "");
    $("copy-key").textContent = gettext("Copied");
  } catch (err) {
    /* the key stays on screen to copy by hand */
  }
});

load();
