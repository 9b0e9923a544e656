// Validation shared by the creation methods.
import path from 'node:path'
import { ApiError } from '../errors.ts'

/** herdr rejects env keys that are empty or contain `=`/NUL, and values containing NUL. */
export function checkEnv(env: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!env) return undefined
  for (const [k, v] of Object.entries(env)) {
    if (k === '' || k.includes('=') || k.includes('\0')) throw new ApiError('invalid_env', `invalid environment variable name ${JSON.stringify(k)}`)
    if (v.includes('\0')) throw new ApiError('invalid_env', `environment variable ${k} contains NUL`)
  }
  return env
}

export function checkCwd(cwd: string | null | undefined, failCode: string): string | undefined {
  if (cwd === undefined || cwd === null) return undefined
  if (!path.isAbsolute(cwd)) throw new ApiError(failCode, `cwd must be an absolute path: ${cwd}`)
  return cwd
}
