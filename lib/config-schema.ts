import * as v from 'valibot'

/**
 * The valibot pieces config.json is checked with, by the core (core/config.ts) and by each
 * plugin that reads its own section (core/plugin-config.ts), so a wrong value reads the same
 * wherever it is checked.
 */

/** Optional trimmed text; null counts as unset. */
export const configText = v.nullish(v.pipe(v.string(), v.trim()))
/** Optional list of trimmed texts. */
export const configTexts = v.nullish(v.array(v.pipe(v.string(), v.trim())))
/** Optional true/false. */
export const configFlag = v.nullish(v.boolean('want true or false'))
/** Optional whole milliseconds, 0 or more. */
export const configMs = v.nullish(v.pipe(v.number('want milliseconds'), v.integer('want whole milliseconds'), v.minValue(0, 'want 0 or more')))

export const isJsonObject = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x)

/** A JSON object of these keys (valibot's object() alone takes an array too); other keys are ignored. */
export const configSection = <E extends v.ObjectEntries>(entries: E) => v.pipe(v.custom<Record<string, unknown>>(isJsonObject, 'want a JSON object'), v.object(entries))
