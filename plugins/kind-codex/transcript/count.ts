/** The codex line counter as a module of its own, so a worker thread can load it (TranscriptCapability.counter). */
export { countCodexLine as count } from './normalize.ts'
