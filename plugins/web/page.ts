const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

/** Served in place of the web client when plugins/web/dist/ has not been built. */
export function unbuiltPage(serverName: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>herdr-bridge · ${esc(serverName)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .3em}</style>
</head><body>
<h1>herdr-bridge</h1>
<p>This is <strong>${esc(serverName)}</strong>, a bridge between the herdr terminal multiplexer and your phone or browser.</p>
<p>The web client has not been built. Run <code>npm run build:web</code> in the bridge's folder, then reload this page.</p>
<p>Pair a device: run <code>bridge pair</code> on this machine.</p>
</body></html>
`
}
