// @ts-check
// The one door to the server: JSON over fetch with the session cookie and the CSRF header
// (API.md, Conventions). Every failure becomes an ApiError carrying the API's error code.

// Strings come from Django's JavaScript catalog (/jsi18n/), in the page's language. Calls are
// written gettext("...") so that `makemessages -d djangojs` finds them.
/** @type {(s: string) => string} */
export const gettext = (s) => {
  const catalog = /** @type {{ gettext?: (s: string) => string }} */ (globalThis).gettext;
  return catalog ? catalog(s) : s;
};
export const t = gettext;
/**
 * The form of a counted string that suits `n` in the page's language (its plural rules come
 * with the catalog). Calls are written ngettext("…", "…", n) for makemessages.
 * @type {(singular: string, plural: string, n: number) => string}
 */
export const ngettext = (singular, plural, n) => {
  const catalog = /** @type {{ ngettext?: (s: string, p: string, n: number) => string }} */ (globalThis).ngettext;
  return catalog ? catalog(singular, plural, n) : n === 1 ? singular : plural;
};
/**
 * Fill %(name)s placeholders of an already translated string.
 * @param {string} s
 * @param {Record<string, unknown>} obj
 */
export const fmt = (s, obj) => s.replace(/%\((\w+)\)s/g, (_, k) => String(obj[k]));

// The server's messages are in English; the codes are stable (API.md), so the ones a player can
// meet are said here in the page's language. Unknown codes keep the server's message.
/** @param {string} code */
function messageFor(code) {
  switch (code) {
    case "game_not_started": return gettext("The game has not started: open a cell first.");
    case "game_paused": return gettext("The game is paused: resume it first.");
    case "game_over": return gettext("The game has ended.");
    case "cell_open": return gettext("This cell is already open.");
    case "not_your_game": return gettext("This game belongs to another player.");
    case "invalid_credentials": return gettext("Wrong username or password.");
    case "not_authenticated": return gettext("Sign in first.");
    case "throttled": return gettext("Too many requests: wait a moment and try again.");
    case "guest_account": return gettext("A guest account cannot do this: sign up first (your games are kept).");
    case "server_error": return gettext("Something went wrong on the server. Try again.");
    default: return "";
  }
}

/** A server field message in the page's language when it is one the site knows.
 * @param {string} message */
export function serverText(message) {
  /** @type {Record<string, string>} */
  const known = { "This username is taken.": gettext("This username is taken.") };
  return known[message] || message;
}

/** A refusal of the server (or no answer at all: status 0, code `network`), with the API's
 * error code and details (API.md, Errors). */
export class ApiError extends Error {
  /**
   * @param {number} status  the HTTP status (a socket error frame carries it too)
   * @param {string} code
   * @param {string} [message]
   * @param {Record<string, any>} [details]
   */
  constructor(status, code, message, details) {
    super(messageFor(code) || message || code);
    this.status = status;
    this.code = code;
    this.details = details || {};
  }
}

/** What to say of a caught error: an ApiError's message (in the page's language), else the
 * error's own.
 * @param {unknown} err */
export const messageOf = (err) => (err instanceof Error ? err.message : String(err));

/** What to say of a refused account request (the account page, the mailed links' pages): the
 * page's own text for its error code, else the messages of its fields, else the server's message.
 * @param {unknown} err  @param {Record<string, string>} known  the page's texts, by error code */
export function refusalText(err, known) {
  if (!(err instanceof ApiError)) return messageOf(err);
  if (Object.hasOwn(known, err.code)) return known[err.code];
  const fields = err.details && err.details.fields;
  if (fields && typeof fields === "object") {
    return Object.values(fields).flat().map((m) => serverText(String(m))).join(" ");
  }
  return serverText(err.message);
}

/** What to say of a refused two-factor code (`otp_invalid` at sign-in, `wrong_otp` on the
 * account page): the server's `details.reason` tells a code already used (typed twice: the
 * next one will do) from a wrong one (docs/ACCOUNTS.md, Two-factor sign-in).
 * @param {ApiError} err */
export const otpRefusalText = (err) =>
  err.details && err.details.reason === "used"
    ? gettext("This code was already used: wait for the next code of your app.")
    : gettext("The code is wrong or expired.");

/** @param {string} name */
export function cookie(name) {
  const hit = document.cookie.split("; ").find((c) => c.startsWith(name + "="));
  return hit ? decodeURIComponent(hit.slice(name.length + 1)) : "";
}

/**
 * One request of the API: its JSON answer (null for a 204), or an ApiError.
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @param {{ keepalive?: boolean }} [options]
 * @returns {Promise<any>}
 */
export async function api(method, path, body, { keepalive = false } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRFToken"] = cookie("csrftoken"); // read each time: login rotates it
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
      keepalive,
    });
  } catch (err) {
    throw new ApiError(0, "network", gettext("The server cannot be reached. Check your connection."));
  }
  if (response.status === 204) return null;
  let data = null;
  try {
    data = await response.json();
  } catch (err) {
    data = null;
  }
  if (!response.ok) {
    const e = (data && data.error) || {};
    throw new ApiError(response.status, e.code || "http_" + response.status, e.message || response.statusText, e.details);
  }
  return data;
}

export const me = () => document.body.dataset.user || "";

// A guest's name is `guest-` and six characters, a prefix nobody else may sign up with
// (docs/GUESTS.md), so the name alone says who is a guest.
const GUEST = /^guest-([a-z0-9]+)$/;
/** The name is a guest's. @param {string | null | undefined} name */
export const isGuestName = (name) => !!name && GUEST.test(name);
/** The visitor plays as a guest. */
export const isGuest = () => isGuestName(me());
/** A player's name as the pages show it: a guest's raw `guest-3a1vkd` reads "Guest 3a1vkd".
 * Links keep the real name. @param {string} name */
export function playerLabel(name) {
  const m = GUEST.exec(name || "");
  return m ? fmt(gettext("Guest %(tag)s"), { tag: m[1] }) : name;
}

/** @type {Map<number, Intl.NumberFormat>} */
const formats = new Map();
/** A number with `digits` decimals in the page's language (12.345 in English, 12,345 in Polish).
 * @param {number} n
 * @param {number} digits */
export function fmtNum(n, digits) {
  if (!formats.has(digits)) {
    const opts = { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false };
    try {
      formats.set(digits, new Intl.NumberFormat(document.documentElement.lang || undefined, opts));
    } catch (err) {
      formats.set(digits, new Intl.NumberFormat(undefined, opts));
    }
  }
  return /** @type {Intl.NumberFormat} */ (formats.get(digits)).format(n);
}

/** @param {number | null | undefined} ms */
export function fmtTime(ms) {
  if (ms === null || ms === undefined) return "—";
  return fmtNum(ms / 1000, 3) + "\u00a0s"; // a no-break space: "12.345 s" never wraps before "s"
}

/** @param {number} ms */
export function fmtClock(ms) {
  // The running clock: whole seconds and tenths, like a stopwatch.
  const s = Math.max(0, ms) / 1000;
  return s < 1000 ? fmtNum(Math.floor(s * 10) / 10, 1) : fmtNum(Math.floor(s), 0);
}

/** A length of time as a clock: "4:05", "1:02:03". @param {number} ms */
export function clockText(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  const h = Math.floor(s / 3600);
  const m = Math.floor(s / 60) % 60;
  return h ? `${h}:${two(m)}:${two(s % 60)}` : `${m}:${two(s % 60)}`;
}

/** @param {string | null | undefined} iso  @param {boolean} [withTime] */
export function fmtDate(iso, withTime = true) {
  if (!iso) return "—";
  try {
    return new Date(iso).toLocaleString(document.documentElement.lang || undefined, {
      dateStyle: "medium",
      timeStyle: withTime ? "short" : undefined,
    });
  } catch (err) {
    return iso;
  }
}

/** Play first, sign up later (docs/GUESTS.md): a visitor becomes a guest of this browser
 * session before a game is made. Resolves once the page has a player; throws an ApiError. */
export async function playAsGuest() {
  if (me()) return;
  const who = await api("POST", "/api/auth/guest");
  document.body.dataset.user = who.username;
}

export function signInUrl() {
  return "/signin?next=" + encodeURIComponent(location.pathname + location.search);
}
