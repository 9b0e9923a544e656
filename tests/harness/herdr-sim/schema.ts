// The published herdr JSON Schema, compiled once with ajv. The simulator parses requests with
// it (so "what herdr rejects" is exactly "what the schema rejects") and tests check every
// reply and pushed line against it.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Ajv2020Module from 'ajv/dist/2020.js'
import type { ErrorObject, ValidateFunction } from 'ajv'

// A verbatim copy of the newest schema herdr publishes: herdr 0.8.2's docs/next/api/herdr-api.schema.json
// (herdrdev/herdr at 1c76079f; schema_version 1). herdr has published no 0.9 schema; what 0.9 changed
// on the wire is played by mode.ts. Kept beside the simulator so the harness needs no file outside
// the repository.
export const SCHEMA_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'schema', 'herdr-api.schema.json')

export type SchemaKind = 'request' | 'success_response' | 'error_response' | 'event' | 'subscription_event'

type AjvInstance = import('ajv').default
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (opts: object) => AjvInstance

interface Loaded {
  ajv: AjvInstance
  doc: { schemas: Record<string, { oneOf?: unknown[]; $defs: Record<string, unknown> }> }
  methodParams: Map<string, string> // method → $defs name of its params
}

let loaded: Loaded | undefined

function load(): Loaded {
  if (loaded) return loaded
  const doc = JSON.parse(fs.readFileSync(SCHEMA_PATH, 'utf8')) as Loaded['doc']
  const ajv = new Ajv2020({ strict: false, allErrors: false })
  const formats = new Set<string>()
  JSON.stringify(doc, (key, value: unknown) => {
    if (key === 'format' && typeof value === 'string') formats.add(value)
    return value
  })
  for (const f of formats) ajv.addFormat(f, true)
  ajv.addSchema({ ...doc, $id: 'herdr' })
  const methodParams = new Map<string, string>()
  for (const variant of doc.schemas.request.oneOf ?? []) {
    const v = variant as { properties?: { method?: { const?: string }; params?: { $ref?: string } } }
    const method = v.properties?.method?.const
    const ref = v.properties?.params?.$ref
    if (method && ref) methodParams.set(method, ref.split('/').pop() as string)
  }
  loaded = { ajv, doc, methodParams }
  return loaded
}

export function knownMethods(): string[] {
  return [...load().methodParams.keys()]
}

export function paramsDefFor(method: string): string | undefined {
  return load().methodParams.get(method)
}

function validator(ref: string): ValidateFunction {
  const v = load().ajv.getSchema(`herdr#${ref}`)
  if (!v) throw new Error(`no schema at ${ref}`)
  return v
}

export function validateAgainstSchema(kind: SchemaKind, obj: unknown): { valid: boolean; errors: string } {
  const v = validator(`/schemas/${kind}`)
  const valid = v(obj) as boolean
  return { valid, errors: valid ? '' : JSON.stringify(v.errors) }
}

/** Checks `params` against the method's params schema; returns a serde-style detail on failure. */
export function checkParams(method: string, params: unknown): string | undefined {
  const def = paramsDefFor(method)
  if (!def) return `unknown variant \`${method}\``
  const v = validator(`/schemas/request/$defs/${def}`)
  if (v(params)) return undefined
  return serdeDetail(v.errors ?? [], params)
}

// Turns ajv's first error into the wording serde_json would use, which is what herdr echoes
// after "invalid request: ". Exact column numbers are not reproduced.
function serdeDetail(errors: ErrorObject[], params: unknown): string {
  // oneOf failures (subscription entries, output matches) report every branch; prefer the
  // most specific one: an unknown discriminator, then a missing field, then a type error.
  const unknownType = errors.find((e) => e.keyword === 'const' && e.instancePath.endsWith('/type'))
  if (unknownType) {
    const value = valueAt(params, unknownType.instancePath)
    return `unknown variant \`${String(value)}\``
  }
  const e = errors.find((x) => x.keyword === 'required') ?? errors.find((x) => x.keyword === 'type') ?? errors[0]
  if (!e) return 'invalid params'
  switch (e.keyword) {
    case 'required':
      return `missing field \`${(e.params as { missingProperty: string }).missingProperty}\``
    case 'type': {
      const value = valueAt(params, e.instancePath)
      return `invalid type: ${describe(value)}, expected ${(e.params as { type: string | string[] }).type}`
    }
    case 'enum':
    case 'const': {
      const value = valueAt(params, e.instancePath)
      const allowed = (e.params as { allowedValues?: unknown[] }).allowedValues
      return `unknown variant \`${String(value)}\`${allowed ? `, expected one of ${allowed.map((a) => `\`${String(a)}\``).join(', ')}` : ''}`
    }
    default:
      return `${e.instancePath || 'params'} ${e.message ?? 'is invalid'}`
  }
}

function valueAt(root: unknown, pointer: string): unknown {
  let cur: unknown = root
  for (const seg of pointer.split('/').slice(1)) {
    if (cur && typeof cur === 'object') cur = (cur as Record<string, unknown>)[seg.replace(/~1/g, '/').replace(/~0/g, '~')]
    else return undefined
  }
  return cur
}

export function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'sequence'
  switch (typeof value) {
    case 'string':
      return `string ${JSON.stringify(value)}`
    case 'number':
      return Number.isInteger(value) ? `integer \`${value}\`` : `floating point \`${value}\``
    case 'boolean':
      return `boolean \`${value}\``
    case 'object':
      return 'map'
    default:
      return String(value)
  }
}
