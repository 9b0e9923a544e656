// npm's `prepare` (after `npm ci` in a clone, and before `npm pack`): the clone's bundle, so
// `npx bridge` runs compiled JavaScript from the first command on, then the web client. Each
// step is skipped with a note when its tool is missing (a production-only install).
import { fileURLToPath } from 'node:url'

const started = Date.now()
try {
  await import('esbuild')
  const { bundle } = await import('./bundle.mjs')
  await bundle('clone')
  console.log(`herdr-bridge: bundled the CLI and daemon in ${Date.now() - started} ms`)
} catch (err) {
  if (err?.code === 'ERR_MODULE_NOT_FOUND') console.warn('herdr-bridge: esbuild is not installed, so `npx bridge` will run the sources through tsx')
  else throw err
}
await import(fileURLToPath(new URL('../plugins/web/build.mjs', import.meta.url)))
