import { expect } from 'vitest'
import * as v from 'valibot'
import Ajv2020Module from 'ajv/dist/2020.js'
import type { GenericSchema } from 'valibot'
import type { TestBridge } from '../harness/bridge.ts'
import type { GetResponses, PostResponses } from '../../plugins/web/app/src/lib/api-types.ts'

/** A JSON Schema node of the published document, as far as these tests read one. */
export interface JsonSchemaNode {
  type?: string
  enum?: unknown[]
  anyOf?: JsonSchemaNode[]
  format?: string
  properties?: Record<string, JsonSchemaNode>
  required?: string[]
}

/** One operation of the published document, as far as these tests read one. */
export interface OpenApiOperation {
  summary?: string
  security?: Record<string, string[]>[]
  parameters?: { name: string; in: string; schema: unknown }[]
  requestBody?: { content?: Record<string, { schema?: JsonSchemaNode }> }
  responses: Record<string, { content: Record<string, { schema: JsonSchemaNode }> }>
}

/** The parts of GET /openapi.json these tests read. */
export interface OpenApiDoc {
  openapi: string
  info: { title: string; version: unknown }
  components: { securitySchemes: Record<string, unknown> }
  paths: Record<string, Record<string, OpenApiOperation>>
  'x-websockets': Record<string, { summary?: string; query: Record<string, unknown>; serverFrames?: Record<string, unknown>; clientFrames?: Record<string, unknown> }>
}

/** The documented 200 body of each route, by method. */
export interface RouteBodies {
  GET: GetResponses
  POST: PostResponses
}

// ajv is CommonJS: under ESM the class may sit on `.default`.
const Ajv2020 = ((Ajv2020Module as unknown as { default?: unknown }).default ?? Ajv2020Module) as new (opts: object) => import('ajv').default

/**
 * Checks a 200 JSON body against what the route documents, twice: the valibot schema in its
 * manifest, and the JSON Schema that GET /openapi.json publishes for it (so the conversion is
 * checked too). Returns the parsed body.
 */
export function createConformance(b: TestBridge, doc: OpenApiDoc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  return async function conforms<M extends keyof RouteBodies, P extends keyof RouteBodies[M] & string>(method: M, path: P, res: Response): Promise<RouteBodies[M][P]> {
    const raw = await res.text()
    expect(res.status, `${method} ${path}: ${res.status} ${raw.slice(0, 200)}`).toBe(200)
    const body = JSON.parse(raw)
    const r = b.bridge.routes.routes.get(path)?.get(method)
    expect(r?.response, `${method} ${path} documents a response`).toBeTruthy()
    const parsed = v.safeParse(r!.response as GenericSchema, body)
    expect(parsed.issues?.map((i) => `${v.getDotPath(i) ?? ''}: ${i.message}`) ?? [], `${method} ${path} (valibot)`).toEqual([])
    const schema = doc.paths[path][method.toLowerCase()].responses['200'].content['application/json'].schema
    const validate = ajv.compile(schema)
    validate(body)
    expect(validate.errors ?? [], `${method} ${path} (published JSON Schema)`).toEqual([])
    return body
  }
}
