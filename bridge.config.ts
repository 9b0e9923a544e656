import { defineConfig } from './core/config.ts'
import pairing from './plugins/pairing/index.ts'
import web from './plugins/web/index.ts'

/** Which plugins run, and their options. Order matters only for start-up logs. */
export default defineConfig({
  plugins: [pairing, web],
})
