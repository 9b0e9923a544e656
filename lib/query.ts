/**
 * Query-string pieces for route schemas: the schema turns the text into the value the handler
 * uses, so a handler never converts a query value by hand and the API document lists each one.
 */
import * as v from 'valibot'

/** An optional on/off switch: `1` or `true` is on; absent or anything else is off. */
export const queryFlag = (description: string) =>
  v.pipe(
    v.optional(v.string(), ''),
    v.transform((s) => s === '1' || s === 'true'),
    v.description(description),
  )
