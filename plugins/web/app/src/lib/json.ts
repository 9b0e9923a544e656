/** JSON from a socket, storage or an untyped body: an object whose fields are read with checks. */
export type JsonObject = Record<string, unknown>

/** Any non-null object (arrays too, as `typeof` has it): its fields are then `unknown` to narrow. */
export const isJsonObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null

/** The value when it is an object, else undefined (for optional chains over nested JSON). */
export const jsonObject = (v: unknown): JsonObject | undefined => (isJsonObject(v) ? v : undefined)
