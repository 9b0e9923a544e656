/**
 * `serve`'s check of what it is about to trust (storage/trust.ts): the data dir, the files in it
 * and the config file it would load. A problem stops `serve` with one line before anything there
 * is read or run; `--insecure-data-dir` (for containers whose volumes cannot be chowned) trusts
 * it anyway and says so in the log.
 */
import { sep } from 'node:path'
import type { ConsolaInstance } from 'consola'
import { checkConfigFile, checkDataDir, UntrustedPathError } from '../storage/trust.ts'
import { CliError } from './errors.ts'

export function checkServeTrust(opts: { dataDir: string; configFile?: string; insecure?: boolean; log: ConsolaInstance }): void {
  try {
    checkDataDir(opts.dataDir)
    // A config in the data dir was judged with it; one elsewhere is judged with its folder.
    if (opts.configFile && !opts.configFile.startsWith(opts.dataDir + sep)) checkConfigFile(opts.configFile)
  } catch (err) {
    if (!(err instanceof UntrustedPathError)) throw err
    if (opts.insecure) return void opts.log.warn(`${err.message} — trusted anyway (--insecure-data-dir)`)
    throw new CliError(`refusing to start: ${err.message} (--insecure-data-dir trusts it anyway)`)
  }
}
