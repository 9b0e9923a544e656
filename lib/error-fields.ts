/**
 * A field of a caught value (`code`, `message`, `name`, `cause`…) when it is an object, else
 * undefined: what `err?.code` read on an `any`, for a value typed `unknown`.
 */
export const errField = (err: unknown, key: string): unknown => (err !== null && typeof err === 'object' ? (err as Record<string, unknown>)[key] : undefined)
