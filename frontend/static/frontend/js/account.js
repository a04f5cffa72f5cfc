// @ts-check
// The account page (docs/ACCOUNTS.md): the address, the password, where the account is
// signed in, two-factor sign-in, the data export and closing. Everything through the API.
import { api, ApiError, gettext, fmt, fmtDate, otpRefusalText, refusalText } from "./api.js";
import { $, byId, el } from "./dom.js";
import { ask } from "./dialog.js";

const error = $("account-error");

/** @param {unknown} err */
function explain(err) {
  if (err instanceof ApiError && (err.code === "otp_invalid" || err.code === "wrong_otp")) return otpRefusalText(err);
  return refusalText(err, {
    invalid_credentials: gettext("The password is wrong."),
    wrong_password: gettext("The password is wrong."),
  });
}

/** @param {unknown} err */
function show(err) {
  error.textContent = explain(err);
}

/** The owner's view of the account (GET /api/me). @typedef {{ email: string, email_verified: boolean, two_factor: boolean }} Me */

/** @param {Me} me */
function showEmail(me) {
  const state = byId("email-state");
  if (!state) return;
  if (!me.email) state.textContent = gettext("No address yet.");
  else if (me.email_verified) state.textContent = fmt(gettext("%(email)s, confirmed."), { email: me.email });
  else state.textContent = fmt(gettext("%(email)s, waiting for its confirmation link."), { email: me.email });
}

/** @param {Me} me */
function showTotp(me) {
  const state = byId("totp-state");
  if (!state) return;
  state.textContent = me.two_factor
    ? gettext("On: signing in asks for a code from your authenticator app.")
    : gettext("Off: signing in asks only for your password.");
  $("totp-start").hidden = me.two_factor;
  $("totp-off-form").hidden = !me.two_factor;
}

async function loadMe() {
  try {
    /** @type {Me} */
    const me = await api("GET", "/api/me");
    showEmail(me);
    showTotp(me);
  } catch (err) {
    show(err);
  }
}

/** "Firefox on Linux" from a user agent (its full text stays in the cell's title).
 * @param {string} agent */
export function browserName(agent) {
  if (!agent) return gettext("unknown browser");
  const browsers = [["Edg/", "Edge"], ["OPR/", "Opera"], ["Firefox/", "Firefox"], ["Chrome/", "Chrome"], ["Safari/", "Safari"]];
  const systems = [["Android", "Android"], ["iPhone", "iOS"], ["iPad", "iOS"], ["Windows", "Windows"], ["Mac OS", "macOS"], ["Linux", "Linux"]];
  const found = (/** @type {string[][]} */ list) => (list.find(([key]) => agent.includes(key)) || [])[1];
  const name = found(browsers);
  const system = found(systems);
  if (!name) return agent.slice(0, 40);
  return system ? fmt(gettext("%(browser)s on %(system)s"), { browser: name, system }) : name;
}

/** A browser session (GET /api/me/sessions). @typedef {{ id: number, created_at: string, last_seen_at: string, user_agent: string, address: string, current: boolean }} Session */

async function loadSessions() {
  try {
    /** @type {Session[]} */
    const rows = await api("GET", "/api/me/sessions");
    $("sessions", HTMLTableElement).tBodies[0].replaceChildren(
      ...rows.map((s) =>
        el(
          "tr",
          { "data-session-id": String(s.id) },
          el("td", { title: s.user_agent, text: browserName(s.user_agent) + (s.current ? " " + gettext("(this one)") : "") }),
          el("td", { text: s.address || "—" }),
          el("td", { text: fmtDate(s.created_at) }),
          el("td", { text: fmtDate(s.last_seen_at) }),
          el("td", {}, s.current ? "" : el("button", { type: "button", class: "btn btn-quiet", onclick: () => revoke(s), text: gettext("Sign out") })),
        ),
      ),
    );
  } catch (err) {
    show(err);
  }
}

/** @param {Session} session */
async function revoke(session) {
  try {
    await api("DELETE", `/api/me/sessions/${session.id}`);
    loadSessions();
  } catch (err) {
    show(err);
  }
}

/** @param {string} id @param {(data: Record<string, string>, form: HTMLFormElement) => Promise<void>} handler */
function onSubmit(id, handler) {
  const form = byId(id);
  if (!(form instanceof HTMLFormElement)) return;
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const data = /** @type {Record<string, string>} */ (Object.fromEntries(new FormData(form)));
    try {
      await handler(data, form);
    } catch (err) {
      show(err);
    }
  });
}

/** A form that sends its `fields` as they are, is emptied once they are taken, and then shows
 * what changed (`done`).
 * @param {string} id @param {string} method @param {string} path @param {string[]} fields @param {() => void} done */
function sendOnSubmit(id, method, path, fields, done) {
  onSubmit(id, async (data, form) => {
    await api(method, path, Object.fromEntries(fields.map((name) => [name, data[name]])));
    form.reset();
    done();
  });
}

sendOnSubmit("email-form", "POST", "/api/me/email", ["email"], () => {
  $("email-sent").hidden = false;
  loadMe();
});

sendOnSubmit("password-form", "POST", "/api/me/password", ["current_password", "new_password"], () => {
  $("password-done").hidden = false;
  loadSessions();
});

/** The 32-character key in groups of four, easier to type and check: each group its own
 * <span>, spaced by CSS, so that a selection copies the key whole, without spaces.
 * @param {string} secret */
function showSecret(secret) {
  const groups = secret.match(/.{1,4}/g) || [];
  $("totp-secret").replaceChildren(...groups.map((g) => el("span", { text: g })));
}

/** The server's QR code of the otpauth URI (an SVG document written by segno), shown as an
 * image from a data: URI: an <img> runs no script, so nothing from the network is ever
 * inserted as markup.
 * @param {string} svg */
function showQr(svg) {
  const img = $("totp-qr", HTMLImageElement);
  const bytes = new TextEncoder().encode(svg);
  img.src = "data:image/svg+xml;base64," + btoa(String.fromCharCode(...bytes));
  img.hidden = false;
}

byId("totp-start")?.addEventListener("click", async () => {
  error.textContent = "";
  try {
    const started = await api("POST", "/api/me/totp");
    showSecret(started.secret);
    showQr(started.qr_svg);
    $("totp-uri", HTMLAnchorElement).href = started.otpauth_uri;
    $("totp-enrol").hidden = false;
    $("totp-start").hidden = true;
  } catch (err) {
    show(err);
  }
});

/** POST /api/me/totp/confirm; a staff account is then asked for its operator's enrolment
 * code (docs/ACCOUNTS.md, Staff), and the same app code is sent again with it: the server
 * asks for the enrolment code before it looks at the app's.
 * @param {string} code */
async function confirmTotp(code) {
  try {
    return await api("POST", "/api/me/totp/confirm", { code });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== "enrolment_code_required") throw err;
    const enrolment = window.prompt(err.message);
    if (!enrolment) throw err;
    return await api("POST", "/api/me/totp/confirm", { code, enrolment_code: enrolment.trim() });
  }
}

onSubmit("totp-confirm-form", async (data) => {
  const confirmed = await confirmTotp(data.code);
  $("totp-code-list").replaceChildren(...confirmed.recovery_codes.map((/** @type {string} */ c) => el("li", {}, el("code", { text: c }))));
  $("totp-codes").hidden = false;
  $("totp-enrol").hidden = true;
  loadMe();
});

sendOnSubmit("totp-off-form", "DELETE", "/api/me/totp", ["code", "password"], () => {
  $("totp-codes").hidden = true;
  loadMe();
});

onSubmit("close-form", async (data) => {
  const deleting = data.mode === "delete";
  const sure = await ask({
    title: deleting ? gettext("Delete your account?") : gettext("Close your account?"),
    text: deleting
      ? gettext("Your personal data goes in 7 days unless you sign in before then.")
      : gettext("Sign in again within 30 days to reopen it."),
    yes: deleting ? gettext("Delete my account") : gettext("Close my account"),
    no: gettext("Keep it"),
    danger: true,
  });
  if (!sure) return;
  /** @type {Record<string, string>} */
  const body = { mode: data.mode };
  if (data.password) body.password = data.password;
  await api("POST", "/api/me/close", body);
  location.href = "/";
});

loadMe();
loadSessions();
