/**
 * The browser's own speech: recognition for dictation and synthesis for reading aloud. Both run
 * on the phone (or the service its browser uses); nothing goes through the bridge. Where the
 * browser has neither, the controls are not shown.
 */

/** The Web Speech API's result list (not in TypeScript's DOM lib): results, each with alternatives. */
type RecognitionResultEvent = { results: ArrayLike<ArrayLike<{ transcript?: string } | undefined>> }
type RecognitionErrorEvent = { error?: string }

type Recognition = {
  lang: string
  interimResults: boolean
  continuous: boolean
  start(): void
  stop(): void
  onresult: ((e: RecognitionResultEvent) => void) | null
  onerror: ((e: RecognitionErrorEvent) => void) | null
  onend: (() => void) | null
}

type SpeechGlobals = { SpeechRecognition?: new () => Recognition; webkitSpeechRecognition?: new () => Recognition }
const Recognizer = (): (new () => Recognition) | undefined => {
  const g = globalThis as typeof globalThis & SpeechGlobals
  return g.SpeechRecognition ?? g.webkitSpeechRecognition
}

export interface Dictation {
  stop(): void
}

/** Dictation into a draft: `onText` gets everything heard so far (editable before sending). */
export function dictation(opts: { onText: (text: string) => void; onEnd: (why?: string) => void }): Dictation | null {
  const R = Recognizer()
  if (!R) return null
  const rec = new R()
  rec.lang = navigator.language || 'en-US'
  rec.interimResults = true
  rec.continuous = true
  let failed: string | undefined
  rec.onresult = (e) => {
    let heard = ''
    for (let i = 0; i < e.results.length; i++) heard += e.results[i][0]?.transcript ?? ''
    opts.onText(heard.trim())
  }
  rec.onerror = (e) => {
    failed = e?.error === 'not-allowed' ? 'the microphone is not allowed for this page' : e?.error === 'no-speech' ? undefined : `dictation stopped: ${e?.error ?? 'unknown error'}`
  }
  rec.onend = () => opts.onEnd(failed)
  try {
    rec.start()
  } catch {
    return null
  }
  return { stop: () => rec.stop() }
}
dictation.supported = () => !!Recognizer()

export const speech = {
  supported: () => typeof speechSynthesis !== 'undefined' && typeof SpeechSynthesisUtterance !== 'undefined',
  say(text: string, done: () => void) {
    speechSynthesis.cancel()
    const u = new SpeechSynthesisUtterance(text.slice(0, 4000))
    u.lang = navigator.language || 'en-US'
    u.onend = done
    u.onerror = done
    speechSynthesis.speak(u)
  },
  stop() {
    speechSynthesis.cancel()
  },
}
