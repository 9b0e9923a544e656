/**
 * TypeScript for JSON Schema, as the repository's generated type files use it
 * (scripts/herdr-types.mjs for herdr's protocol, scripts/api-types.mjs for the bridge's own API).
 * Only the parts of JSON Schema those documents use are handled: $ref (named by the caller),
 * oneOf/anyOf/allOf, const, enum, type (and type lists), properties/required,
 * additionalProperties, items. Anything else reads as `unknown`.
 */

/** A property name as written in a type: bare when it is an identifier, else quoted. */
export const ident = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k))

/** A schema's description as a doc comment line at `indent`, or nothing. */
export const doc = (d, indent) => (typeof d === 'string' && d.trim() ? `${indent}/** ${d.trim().replace(/\*\//g, '* /').replace(/\n+/g, ' ')} */\n` : '')

const noRef = (r) => {
  throw new Error(`unknown $ref ${r}`)
}

/** The TypeScript type of schema `s`, nested object members indented from `indent`; `ref` names a `$ref`. */
export function tsType(s, indent = '', ref = noRef) {
  const ty = (s, indent) => {
    if (s === true || s === undefined || (s && Object.keys(s).length === 0)) return 'unknown'
    if (s.$ref) return ref(s.$ref)
    if (s.const !== undefined) return JSON.stringify(s.const)
    if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(' | ')
    if (s.oneOf || s.anyOf) return [...new Set((s.oneOf ?? s.anyOf).map((x) => ty(x, indent)))].join(' | ')
    if (s.allOf) return s.allOf.map((x) => ty(x, indent)).join(' & ')
    const types = Array.isArray(s.type) ? s.type : [s.type]
    return types
      .map((t) => {
        if (t === 'string') return 'string'
        if (t === 'integer' || t === 'number') return 'number'
        if (t === 'boolean') return 'boolean'
        if (t === 'null') return 'null'
        if (t === 'array') return `${wrap(ty(s.items ?? {}, indent))}[]`
        if (t === 'object' || (t === undefined && s.properties)) return obj(s, indent)
        return 'unknown'
      })
      .join(' | ')
  }
  const wrap = (t) => (/[|&]/.test(t) ? `(${t})` : t)
  const obj = (s, indent) => {
    const props = Object.entries(s.properties ?? {})
    // `additionalProperties: true` (a loose object): other fields may come, of any type.
    const extra =
      s.additionalProperties === true ? 'unknown' : s.additionalProperties && typeof s.additionalProperties === 'object' ? ty(s.additionalProperties, indent + '  ') : null
    if (!props.length) return extra ? `Record<string, ${extra}>` : 'Record<string, unknown>'
    const req = new Set(s.required ?? [])
    const inner = indent + '  '
    const lines = props.map(([k, v]) => `${doc(v.description, inner)}${inner}${ident(k)}${req.has(k) ? '' : '?'}: ${ty(v, inner)}`)
    if (extra) lines.push(`${inner}[key: string]: unknown`)
    return `{\n${lines.join('\n')}\n${indent}}`
  }
  return ty(s, indent)
}
