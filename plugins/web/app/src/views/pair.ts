import { useEffect, useRef, useState } from 'preact/hooks'
import { html, toast, errText, fieldValue } from '../ui.ts'
import { pair } from '../lib/api.ts'
import { normalizeBaseUrl, type SavedBridge } from '../lib/bridges.ts'
import { parsePairingInput } from '../lib/pairing.ts'

interface Props {
  initial: { code?: string; url?: string }
  onPaired: (b: Omit<SavedBridge, 'key'>) => void
  hasBridges: boolean
}

/** The Shape Detection API's QR reader (Chromium on Android; not in TypeScript's DOM lib). */
type BarcodeDetectorCtor = new (opts: { formats: string[] }) => { detect(source: HTMLVideoElement): Promise<Array<{ rawValue: string }>> }
const barcodeDetector = (): BarcodeDetectorCtor | undefined => (globalThis as typeof globalThis & { BarcodeDetector?: BarcodeDetectorCtor }).BarcodeDetector

/** Pairing: type or paste the code (or the QR's JSON), or scan the QR with the camera. */
export function PairView({ initial, onPaired, hasBridges }: Props) {
  const [url, setUrl] = useState(initial.url ?? location.origin)
  const [code, setCode] = useState(initial.code ?? '')
  const [name, setName] = useState(defaultDeviceName())
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [scanning, setScanning] = useState(false)
  const canScan = typeof barcodeDetector() === 'function' && !!navigator.mediaDevices?.getUserMedia

  async function submit(e?: Event, override?: { url?: string; code: string }) {
    e?.preventDefault()
    setError('')
    const parsed = override ?? parsePairingInput(code) ?? { code: code.trim() }
    const base = normalizeBaseUrl(parsed.url ?? url)
    if (!base) return setError('The bridge address must start with http:// or https://')
    if (!parsed.code) return setError('Enter the pairing code')
    setBusy(true)
    try {
      const r = await pair(base, parsed.code, name.trim() || 'browser')
      let serverName = r.server_name ?? ''
      let serverId = r.server_id ?? ''
      if (!serverName || !serverId) {
        try {
          const info = await (await fetch(base + '/info', { headers: { authorization: `Bearer ${r.bearer}` } })).json()
          serverName ||= info.server_name ?? ''
          serverId ||= info.server_id ?? ''
        } catch {
          /* identity unknown: carry on */
        }
      }
      onPaired({ url: base, bearer: r.bearer, name: serverName || new URL(base).host, server_id: serverId, device_id: r.id })
      toast(`Paired with ${serverName || base}`)
    } catch (err) {
      setError(errText(err))
    } finally {
      setBusy(false)
    }
  }

  return html` <main class="pane narrow" aria-labelledby="pair-title">
    <h1 id="pair-title">Pair with a bridge</h1>
    <p class="muted">On the machine running herdr-bridge, run <code>bridge pair</code>. Enter the 8-character code it shows, paste its QR text, or scan the QR.</p>
    <form onSubmit=${submit} class="stack">
      <label
        >Bridge address
        <input name="url" type="url" inputmode="url" autocomplete="url" required value=${url} onInput=${(e: Event) => setUrl(fieldValue(e))} />
      </label>
      <label
        >Pairing code
        <input
          name="code"
          autocomplete="one-time-code"
          autocapitalize="off"
          spellcheck=${false}
          required
          placeholder="e.g. 3f9a1c07"
          value=${code}
          onInput=${(e: Event) => setCode(fieldValue(e))}
        />
      </label>
      <label
        >This device's name
        <input name="device_name" maxlength="60" value=${name} onInput=${(e: Event) => setName(fieldValue(e))} />
      </label>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="row">
        <button type="submit" class="primary" disabled=${busy}>${busy ? 'Pairing…' : 'Pair'}</button>
        ${canScan && html`<button type="button" onClick=${() => setScanning(!scanning)} aria-pressed=${scanning}>${scanning ? 'Stop camera' : 'Scan QR code'}</button>`}
        ${hasBridges && html`<a class="button" href="#/">Cancel</a>`}
      </div>
    </form>
    ${
      scanning &&
      html`<${Scanner}
        onResult=${(raw: string) => {
          const p = parsePairingInput(raw)
          if (!p) return false
          setScanning(false)
          if (p.url) setUrl(p.url)
          setCode(p.code)
          void submit(undefined, p)
          return true
        }}
      />`
    }
  </main>`
}

function defaultDeviceName(): string {
  const ua = navigator.userAgent
  const os = /Android/.test(ua) ? 'Android' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac/.test(ua) ? 'Mac' : /Windows/.test(ua) ? 'Windows' : /Linux/.test(ua) ? 'Linux' : ''
  return `browser${os ? ` (${os})` : ''}`
}

/** Camera QR scanning where the browser has BarcodeDetector. */
function Scanner({ onResult }: { onResult: (raw: string) => boolean }) {
  const video = useRef<HTMLVideoElement>(null)
  const [msg, setMsg] = useState('Starting the camera…')
  useEffect(() => {
    let stream: MediaStream | null = null
    let timer: ReturnType<typeof setInterval> | undefined
    let stopped = false
    void (async () => {
      try {
        stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: 'environment' } })
        if (stopped) return stream.getTracks().forEach((t) => t.stop())
        const v = video.current!
        v.srcObject = stream
        await v.play()
        setMsg('Point the camera at the QR code')
        const detector = new (barcodeDetector()!)({ formats: ['qr_code'] })
        // eslint-disable-next-line @typescript-eslint/no-misused-promises -- the tick catches its own errors (a frame not ready yet)
        timer = setInterval(async () => {
          try {
            const codes = await detector.detect(v)
            for (const c of codes) if (onResult(c.rawValue)) return
            if (codes.length) setMsg('That QR code is not a pairing code')
          } catch {
            /* frame not ready */
          }
        }, 300)
      } catch (err) {
        setMsg(`Camera unavailable: ${errText(err)}`)
      }
    })()
    return () => {
      stopped = true
      clearInterval(timer)
      stream?.getTracks().forEach((t) => t.stop())
    }
  }, [])
  return html`<div class="scanner">
    <video ref=${video} muted playsinline aria-label="Camera preview"></video>
    <p role="status">${msg}</p>
  </div>`
}
