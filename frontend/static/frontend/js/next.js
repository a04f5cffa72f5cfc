// @ts-check
// Where to go after signing in or up: `?next=` only when it is a page of this site, else "/".
// Browsers read "\" as "/" and drop tabs and newlines inside URLs, so "/\evil.example" and
// "/\t/evil.example" would leave the site like "//evil.example". Accepted: a single "/", then a
// character that is neither "/" nor "\", and no control character or whitespace anywhere.
const SAME_SITE_PATH = /^\/[^/\\]/;
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f\s]/u;

/** @param {unknown} raw  @param {string} [origin]  @returns {string} */
export function safeNext(raw, origin = location.origin) {
  if (typeof raw !== "string" || !SAME_SITE_PATH.test(raw) || CONTROL_OR_SPACE.test(raw)) return "/";
  let url;
  try {
    url = new URL(raw, origin);
  } catch {
    return "/";
  }
  if (url.origin !== origin) return "/"; // belt and braces: what the browser would open
  return url.pathname + url.search + url.hash;
}
