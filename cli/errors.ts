/** An error shown to the user as one line (what went wrong and what to do), with a non-zero exit. */
export class CliError extends Error {
  /** 1 for a failure, 2 for a command line that cannot be run (the usual convention). */
  readonly exitCode: number = 1
}

/** An unknown command or option, a missing argument: exit 2. */
export class UsageError extends CliError {
  override readonly exitCode = 2
}

/**
 * How to run another command from where this one runs: `npx bridge …` from a clone (the
 * sources run through tsx), plain `bridge …` from an installed package.
 */
export function bridgeCommand(args: string): string {
  return `${import.meta.url.endsWith('.ts') ? 'npx bridge' : 'bridge'} ${args}`
}
