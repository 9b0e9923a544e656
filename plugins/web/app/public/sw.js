// herdr web client service worker: the app shell works offline, fingerprinted assets are
// cached for good, and nothing from the API is ever cached (it needs the bearer and is live).
const CACHE = 'herdr-shell-v1'
const SHELL = ['/', '/manifest.webmanifest', '/icons/icon.svg']

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(SHELL))
      .then(() => self.skipWaiting()),
  )
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  )
})

self.addEventListener('fetch', (event) => {
  const req = event.request
  const url = new URL(req.url)
  if (req.method !== 'GET' || url.origin !== self.location.origin) return
  if (url.pathname.startsWith('/assets/') || url.pathname.startsWith('/icons/')) {
    event.respondWith(
      caches.match(req).then(
        (hit) =>
          hit ||
          fetch(req).then((res) => {
            if (res.ok) caches.open(CACHE).then((c) => c.put(req, res.clone()))
            return res
          }),
      ),
    )
  } else if (req.mode === 'navigate') {
    // Network first so a new build shows at once; the cached shell when offline.
    event.respondWith(
      fetch(req)
        .then((res) => {
          if (res.ok) caches.open(CACHE).then((c) => c.put('/', res.clone()))
          return res
        })
        .catch(() => caches.match('/')),
    )
  }
})

self.addEventListener('notificationclick', (event) => {
  // Approve is the push worker's (firebase-messaging-sw.js): no window for it.
  if (event.action === 'approve') return
  event.notification.close()
  const target = '/' + ((event.notification.data && event.notification.data.url) || '#/')
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      const c = list[0]
      // navigate() refuses a window this worker does not control: open a new one then.
      if (c)
        return c
          .navigate(target)
          .then((w) => (w || c).focus())
          .catch(() => self.clients.openWindow(target))
      return self.clients.openWindow(target)
    }),
  )
})
