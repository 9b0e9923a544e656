/**
 * JSON routes read only JSON. A browser may send `text/plain`, form or multipart bodies to any
 * site without a preflight; refusing those types keeps cross-site pages from posting to the
 * unauthenticated routes (/pair). A request without Content-Type is read as JSON (command-line
 * clients, the mobile client's body-less POSTs); `charset` and other parameters are ignored.
 */
export function isJsonContentType(header: string | null): boolean {
  if (!header) return true
  const media = header.split(';')[0].trim().toLowerCase()
  return media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media)
}

/** Whether the request says it carries a body (a declared length above 0, or chunked). */
export function hasBody(headers: Headers): boolean {
  const len = headers.get('content-length')
  return len !== null ? len.trim() !== '0' : headers.has('transfer-encoding')
}
