/** The claude line counter as a module of its own, so a worker thread can load it (TranscriptCapability.counter). */
export { countClaudeLine as count } from './normalize.ts'
