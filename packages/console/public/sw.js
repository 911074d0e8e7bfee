// Aide's console service worker: the app shell offline, nothing else.
// - Navigations under /app/: the network first (a new build is picked up at once), the cached
//   shell when the server cannot be reached, so the installed app opens and says it is offline.
// - /app/assets/*: content-hashed, so cached on first use and served from the cache after.
// - Everything else (the API, streams, /wh/): never touched; the API's answers are never cached.
const shell = "aide-shell-v1"
const precached = ["/app/", "/app/favicon.svg", "/app/manifest.webmanifest", "/app/icon-192.png"]

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(shell)
      await cache.addAll(precached)
      // The shell's own scripts and styles, read off the page just cached.
      const page = await (await cache.match("/app/")).text()
      const assets = [...page.matchAll(/\/app\/assets\/[^"'\s)]+/g)].map((match) => match[0])
      await cache.addAll([...new Set(assets)])
      await self.skipWaiting()
    })(),
  )
})

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== shell) await caches.delete(name)
      await self.clients.claim()
    })(),
  )
})

self.addEventListener("fetch", (event) => {
  const request = event.request
  if (request.method !== "GET") return
  const url = new URL(request.url)
  if (url.origin !== self.location.origin || !url.pathname.startsWith("/app/")) return
  if (request.mode === "navigate") {
    event.respondWith(
      (async () => {
        try {
          const response = await fetch(request)
          if (response.ok) (await caches.open(shell)).put("/app/", response.clone())
          return response
        } catch {
          return (await caches.match("/app/")) ?? Response.error()
        }
      })(),
    )
    return
  }
  if (url.pathname.startsWith("/app/assets/")) {
    event.respondWith(
      (async () => {
        const cached = await caches.match(request)
        if (cached) return cached
        const response = await fetch(request)
        if (response.ok) (await caches.open(shell)).put(request, response.clone())
        return response
      })(),
    )
  }
})

// Web Push: the server sends { title, body, url } encrypted to this browser's subscription
// (RFC 8291); the push service relays ciphertext only. A click opens or focuses the console at
// `url` (the inbox or the thread), never a page outside /app/.
self.addEventListener("push", (event) => {
  let message = { title: "Aide", body: "", url: "/app/inbox" }
  try {
    message = { ...message, ...event.data?.json() }
  } catch {
    // not JSON: the generic notification
  }
  const url = typeof message.url === "string" && message.url.startsWith("/app/") ? message.url : "/app/inbox"
  event.waitUntil(
    self.registration.showNotification(String(message.title), {
      body: String(message.body),
      icon: "/app/icon-192.png",
      data: { url },
      tag: url,
    }),
  )
})

self.addEventListener("notificationclick", (event) => {
  event.notification.close()
  const url = event.notification.data?.url ?? "/app/inbox"
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true })
      const open = windows.find((client) => new URL(client.url).pathname.startsWith("/app"))
      if (open) {
        await open.focus()
        // The console routes on history changes; navigate keeps a single window.
        return open.navigate(url)
      }
      return self.clients.openWindow(url)
    })(),
  )
})
