import { CliError } from './admin-client.ts'

/** Replaced by the push plugin's credential commands. */
export async function pushLogin(_: { dir?: string; project?: string }): Promise<void> {
  throw new CliError('push login is not yet available in this build')
}

export async function pushStatus(_: { dir?: string }): Promise<void> {
  throw new CliError('push status is not yet available in this build')
}
