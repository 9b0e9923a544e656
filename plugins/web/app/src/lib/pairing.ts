/**
 * What a pairing input can be: the QR payload `{"url": …, "code": …}`, a link carrying
 * `code=` (and optionally `url=`), or a bare 8-hex code.
 */
export interface PairingInput {
  url?: string
  code: string
}

const CODE = /^[0-9a-f]{8}$/i

export function parsePairingInput(raw: string): PairingInput | null {
  const s = raw.trim()
  if (!s) return null
  if (CODE.test(s)) return { code: s.toLowerCase() }
  if (s.startsWith('{')) {
    try {
      const o = JSON.parse(s)
      if (o && typeof o.code === 'string' && o.code && (o.url === undefined || typeof o.url === 'string')) {
        return { code: o.code.trim(), ...(typeof o.url === 'string' && /^https?:/i.test(o.url) ? { url: o.url } : {}) }
      }
    } catch {
      /* not JSON: fall through */
    }
    return null
  }
  try {
    const u = new URL(s)
    const params = new URLSearchParams(u.hash.includes('?') ? u.hash.slice(u.hash.indexOf('?') + 1) : u.search)
    const code = params.get('code')
    if (code) return { code, url: params.get('url') ?? `${u.protocol}//${u.host}` }
  } catch {
    /* not a URL */
  }
  return null
}
