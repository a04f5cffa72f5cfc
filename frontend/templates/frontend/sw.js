{% load static %}// Démineur's service worker (docs/FRONTEND.md, Links people share): pages from the network
// first, the offline page when the network fails; the API and the sockets are never touched.
const CACHE = "demineur-offline-v1";
const OFFLINE_URL = "{{ offline_url }}";
const PRECACHE = [OFFLINE_URL, "{% static 'frontend/css/site.css' %}", "{% static 'frontend/img/icon.svg' %}"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(PRECACHE)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((key) => key !== CACHE).map((key) => caches.delete(key))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  // Answers of the API and the sockets always come from the server, never from a cache.
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/ws/")) return;
  if (request.mode === "navigate") {
    // Pages are not stored (they carry the session's user and CSRF token): only the offline page.
    event.respondWith(fetch(request).catch(() => caches.match(OFFLINE_URL)));
    return;
  }
  if (PRECACHE.includes(url.pathname)) {
    // The offline page's own style and icon: from the network, from the cache without one.
    event.respondWith(fetch(request).catch(() => caches.match(request)));
  }
});
