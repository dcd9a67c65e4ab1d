// Schema vectors put to the reference's tool-schema functions.
//
// The vector's plain-dict spec is written in this project's DSL names. The reference's
// author DSL has a subset of them under other spellings (`oneOf`, `additionalProperties`,
// a parameter root that is the property map itself); a spec using a keyword outside
// that subset needs a DSL extension the reference does not have, and its cases are
// skipped with the keywords named.

import { caseIds, sameJson } from './compare.mjs'

/** Our DSL keyword -> the reference's, for the keywords both DSLs have. */
const SPELLING = {
  type: 'type',
  items: 'items',
  properties: 'properties',
  additional_properties: 'additionalProperties',
  one_of: 'oneOf',
  enum: 'enum',
  const: 'const',
  required: 'required',
  description: 'description',
  title: 'title',
  default: 'default',
  examples: 'examples',
}

/** Set an own property, `__proto__` included, as JSON.parse does. */
function put(target, key, value) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * Translate a plain-dict spec into the reference's author DSL.
 * @returns {{spec: unknown, root: 'params' | 'value', missing: string[]}}
 */
export function translateSpec(spec) {
  const missing = new Set()
  const node = (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
    const out = {}
    const container = ['array', 'object', 'json'].includes(value.type) || 'one_of' in value
    for (const [key, inner] of Object.entries(value)) {
      const name = SPELLING[key]
      if (container && (key === 'const' || key === 'enum')) missing.add(`dsl:${key}-on-${value.type ?? 'one_of'}`)
      if (key === 'additional_properties' && typeof inner !== 'boolean') missing.add('dsl:additional_properties-schema')
      if (name === undefined) {
        missing.add(`dsl:${key}`)
        continue
      }
      // Data-valued keywords (enum, const, default, examples) are copied as written.
      if (key === 'properties') put(out, name, propertyMap(inner))
      else if (key === 'items') put(out, name, node(inner))
      else if (key === 'one_of') put(out, name, Array.isArray(inner) ? inner.map(node) : inner)
      else put(out, name, inner)
    }
    return out
  }
  const propertyMap = (map) => {
    // A malformed map is passed on as written, for the reference to judge.
    if (map === null || typeof map !== 'object' || Array.isArray(map)) return map
    const out = {}
    for (const [key, inner] of Object.entries(map)) put(out, key, node(inner))
    return out
  }
  if (spec && typeof spec === 'object' && ('root' in spec || 'defs' in spec)) {
    missing.add('dsl:defs')
    return { spec: null, root: 'value', missing: [...missing] }
  }
  if (spec && spec.type === 'params') {
    const extra = Object.keys(spec).filter((key) => key !== 'type' && key !== 'properties')
    for (const key of extra) missing.add(`dsl:params.${key}`)
    const properties = 'properties' in spec ? spec.properties : {}
    return { spec: propertyMap(properties), root: 'params', missing: [...missing] }
  }
  const translated = node(spec)
  return { spec: translated, root: 'value', missing: [...missing] }
}

/** The reference's DSL compiler for a parameter root or a value root. */
function compilerFor(root, tools) {
  return root === 'params' ? tools.parameterSchemaSpecToJsonSchema : tools.valueSchemaSpecToJsonSchema
}

function refused(run) {
  try {
    run()
    return { refused: false }
  } catch (error) {
    return { refused: true, error }
  }
}

/** Run one schema vector file; yields one outcome per case and refusal. */
export function* schemaOutcomes(file, data, tools) {
  const ids = caseIds('schema', file, data)
  const cases = data.cases ?? []
  if (data.spec !== undefined) {
    const { spec, root, missing } = translateSpec(data.spec)
    if (missing.length > 0) {
      for (const id of ids.slice(0, cases.length)) yield { id, verdict: 'skipped', why: `requires ${missing.join(', ')}` }
    } else {
      const compile = compilerFor(root, tools)
      let compiled
      let failure
      try {
        compiled = compile(spec)
      } catch (error) {
        failure = `the reference refuses the spec: ${error.message}`
      }
      if (failure === undefined && !sameJson(compiled, data.json_schema, { keyOrder: true })) {
        failure = `compiles to ${JSON.stringify(compiled)}, the vector says ${JSON.stringify(data.json_schema)}`
      }
      for (const [index, testCase] of (data.cases ?? []).entries()) {
        const id = ids[index]
        if (failure !== undefined) {
          yield { id, verdict: 'disagree', why: failure }
          continue
        }
        let got
        try {
          got = root === 'params'
            ? tools.validateArgs(spec, testCase.args)
            : tools.validateJsonSchemaValue(compiled, testCase.args, '')
        } catch (error) {
          yield { id, verdict: 'disagree', why: `validation threw ${error.name}: ${error.message}` }
          continue
        }
        if (sameJson(got, testCase.violations, { keyOrder: true })) yield { id, verdict: 'agree' }
        else yield { id, verdict: 'disagree', why: `got ${JSON.stringify(got)}, the vector says ${JSON.stringify(testCase.violations)}` }
      }
    }
  }
  for (const [index, refusal] of (data.refusals ?? []).entries()) {
    const id = ids[cases.length + index]
    if ('json_schema' in refusal) {
      const seen = refused(() => tools.assertSupportedJsonSchema(refusal.json_schema))
      if (seen.refused && seen.error instanceof tools.JsonSchemaError) yield { id, verdict: 'agree' }
      else if (seen.refused) yield { id, verdict: 'disagree', why: `refused with ${seen.error.name}, not JsonSchemaError` }
      else yield { id, verdict: 'disagree', why: 'the reference accepts the schema' }
      continue
    }
    const { spec, root, missing } = translateSpec(refusal.spec)
    if (missing.length > 0) {
      yield { id, verdict: 'skipped', why: `requires ${missing.join(', ')}` }
      continue
    }
    const compile = compilerFor(root, tools)
    const seen = refused(() => compile(spec))
    if (seen.refused) yield { id, verdict: 'agree' }
    else yield { id, verdict: 'disagree', why: 'the reference compiles the spec' }
  }
}
