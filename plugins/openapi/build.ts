import { toJsonSchema } from '@valibot/to-json-schema'
import type { GenericSchema } from 'valibot'
import type { LoadedPlugins } from '../../core/loader.ts'
import type { RouteDef } from '../../core/plugin.ts'
import { BRIDGE_VERSION, API_VERSION } from '../../core/version.ts'
import { routeRole, socketRole } from '../../core/auth.ts'

/** What each device role may call, for the document's description of `x-role`. */
const ROLE_NOTE: Record<string, string> = {
  viewer: 'any paired device, viewers included',
  default: 'devices of the default or owner role (a viewer gets 403)',
  owner: 'owner devices only (others get 403)',
}

// OpenAPI 3.1 schemas are JSON Schema 2020-12 (a 3.0-style `nullable` would be ignored by its
// validators); the dialect is the document's, so each schema's own `$schema` is dropped. A loose
// object (herdr's records passed through) says so with `additionalProperties: true`, so a client
// generated from the document knows more fields may come.
const toSchema = (s: GenericSchema) => {
  const { $schema: _, ...schema } = toJsonSchema(s, {
    errorMode: 'ignore',
    target: 'draft-2020-12',
    overrideSchema: ({ valibotSchema, jsonSchema }) => (valibotSchema.type === 'loose_object' ? { ...jsonSchema, additionalProperties: true } : undefined),
  }) as Record<string, unknown>
  return schema
}

const AUTH: Record<string, { security?: object[]; note: string }> = {
  device: { security: [{ bearer: [] }], note: 'device bearer or admin token' },
  admin: { security: [{ bearer: [] }], note: 'admin token only' },
  none: { note: 'no auth' },
  pairing: { note: 'one-time pairing code in the body' },
}

/** A response documented as a media type (`{type, description}`) rather than a valibot schema, which always has a `kind`. */
const isMediaType = (r: NonNullable<RouteDef['response']>): r is { type: string; description?: string } => !('kind' in r) && typeof r.type === 'string'

const TOKEN_PARAM = 'device bearer or admin token (or an Authorization: Bearer header)'

/** The query parameters a valibot object schema declares, as OpenAPI parameters. */
export function queryParameters(schema: GenericSchema): { name: string; in: 'query'; required: boolean; schema: { description?: string; type?: string } }[] {
  const q = toSchema(schema) as { properties?: Record<string, { description?: string; type?: string }>; required?: string[] }
  return Object.entries(q.properties ?? {}).map(([name, s]) => ({ name, in: 'query', required: q.required?.includes(name) ?? false, schema: s }))
}

/** Routes whose 200 body is not documented; the API-contract test requires this to be empty. */
export function undocumentedRoutes(loaded: LoadedPlugins): string[] {
  const out: string[] = []
  for (const [path, byMethod] of loaded.routes) for (const [m, r] of byMethod) if (!r.response || !r.describe) out.push(`${m} ${path} (plugin ${r.plugin})`)
  for (const [path, w] of loaded.websockets) if (!w.describe || !w.doc || !w.query) out.push(`WS ${path} (plugin ${w.plugin})`)
  return out
}

/**
 * OpenAPI 3.1 for every HTTP route, built from the manifests and their valibot schemas. The
 * WebSocket routes are listed under `x-websockets` with their query and frame shapes.
 */
export function buildOpenApi(loaded: LoadedPlugins): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const [path, byMethod] of loaded.routes) {
    const p = (paths[path === '/**' ? '/{any}' : path] ??= {})
    for (const [method, r] of byMethod) {
      const auth = AUTH[r.auth]
      const device = r.auth === 'device'
      const role = routeRole(r)
      const op: Record<string, unknown> = {
        summary: r.describe ?? '',
        tags: [r.plugin],
        description: `Auth: ${auth.note}${device ? `; ${ROLE_NOTE[role]}` : ''}${r.queryToken ? '; `?token=` accepted' : ''}. Errors: ${r.errors === 'json' ? 'JSON `{error}`' : 'plain text'}, one line.`,
        // The least device role that may call it (viewer < default < owner); the admin token may call all.
        ...(device ? { 'x-role': role } : {}),
      }
      if (auth.security) op.security = auth.security
      const params = r.query ? queryParameters(r.query) : []
      if (r.queryToken) params.push({ name: 'token', in: 'query', required: false, schema: { type: 'string', description: TOKEN_PARAM } })
      if (params.length) op.parameters = params
      if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: toSchema(r.body) } } }
      if (r.bodyType === 'raw') op.requestBody = { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }
      const resp = r.response
      const ok = !resp
        ? { description: 'OK (shape not documented)' }
        : isMediaType(resp)
          ? { description: resp.description ?? 'OK', content: { [resp.type]: { schema: { type: 'string' } } } }
          : { description: 'OK', content: { 'application/json': { schema: toSchema(resp) } } }
      op.responses = {
        '200': ok,
        ...(r.auth === 'device' || r.auth === 'admin' ? { '401': { description: '`unauthorized`' } } : {}),
        ...(device && role !== 'viewer' ? { '403': { description: `the device's role is below \`${role}\`` } } : {}),
      }
      p[method.toLowerCase()] = op
    }
  }
  const websockets = Object.fromEntries(
    [...loaded.websockets].map(([path, w]) => {
      const query: Record<string, string> = {}
      for (const p of w.query ? queryParameters(w.query) : []) query[p.name] = p.schema.description ?? `${p.schema.type ?? 'value'}${p.required ? ' (required)' : ''}`
      if (w.queryToken) query.token = TOKEN_PARAM
      // A role that depends on the query is documented for both values of its one switch (/attach's mode).
      const role =
        typeof w.role === 'function'
          ? { 'mode=observe': socketRole(w, new URLSearchParams('mode=observe')), otherwise: socketRole(w, new URLSearchParams()) }
          : socketRole(w, new URLSearchParams())
      return [path, { summary: w.describe ?? '', auth: AUTH[w.auth].note + (w.queryToken ? '; `?token=` accepted' : ''), 'x-role': role, query, ...w.doc }]
    }),
  )
  return {
    openapi: '3.1.0',
    info: { title: 'herdr-bridge', version: BRIDGE_VERSION, 'x-api-level': API_VERSION },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    'x-roles': {
      description:
        "A device bearer carries its device's role, set at pairing (`bridge pair --role`) or later (`bridge devices role`). Each device route's `x-role` is the least role that may call it.",
      viewer: 'watches: every read, its own alerts (mute, push subscription), "seen" marks',
      default: 'also acts on agents: send, approve, lifecycle, panes, attachments, terminal control',
      owner: 'also lists, renames and revokes devices',
    },
    paths,
    'x-websockets': websockets,
  }
}
