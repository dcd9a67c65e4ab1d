// Schema vectors put to the reference's tool-schema functions.
//
// A file with a `spec` is compiled once and its cases validated: the spec, in this
// library's DSL spelling, is spelled in the reference's author DSL (`oneOf`,
// `additionalProperties`, a parameter root that is the property map itself), compiled
// by the compiler for its root, and must give the file's `json_schema`, key order
// included. A case's arguments must then give the case's messages, in order: from
// `validateArgs` for a parameter root, whose paths are bare (root label ""), and from
// `validateJsonSchemaValue` with the file's `root_label` for a value root. A raw schema
// refusal is a `JsonSchemaError` from `assertSupportedJsonSchema`, a spec refusal an
// error from the DSL compiler. Entries whose declared requirements the reference does
// not meet are skipped (meets.mjs).

import { caseIds, sameJson } from './compare.mjs'
import { declaredSkip } from './meets.mjs'
import { put } from './values.mjs'

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

/**
 * Spell a plain-dict spec in the reference's author DSL. `unspelled` lists the keywords
 * the reference's DSL has no spelling for, which a file that declares its `dsl:` words
 * never holds in a case that runs.
 * @returns {{spec: unknown, root: 'params' | 'value', unspelled: string[]}}
 */
export function translateSpec(spec) {
  const unspelled = new Set()
  const node = (value) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
    const out = {}
    for (const [key, inner] of Object.entries(value)) {
      const name = SPELLING[key]
      if (name === undefined) unspelled.add(key)
      // Data-valued keywords (enum, const, default, examples) are copied as written.
      else if (key === 'properties') put(out, name, propertyMap(inner))
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
    return { spec: null, root: 'value', unspelled: ['defs'] }
  }
  if (spec && spec.type === 'params') {
    for (const key of Object.keys(spec)) if (key !== 'type' && key !== 'properties') unspelled.add(`params.${key}`)
    const properties = propertyMap('properties' in spec ? spec.properties : {})
    return { spec: properties, root: 'params', unspelled: [...unspelled] }
  }
  const translated = node(spec)
  return { spec: translated, root: 'value', unspelled: [...unspelled] }
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

/**
 * The file's spec compiled by the reference, ready to validate with:
 * `{validate(args) -> messages}`, or `{failure}` when any case must disagree.
 */
function compiledSpec(data, tools) {
  const { spec, root, unspelled } = translateSpec(data.spec)
  if (unspelled.length > 0) {
    return { failure: `the spec uses ${unspelled.join(', ')}, which the reference's DSL cannot spell and the file does not declare` }
  }
  if (root === 'params' && data.root_label !== '') {
    return { failure: `validateArgs labels no root; the file asks for the root label ${JSON.stringify(data.root_label)}` }
  }
  let compiled
  try {
    compiled = compilerFor(root, tools)(spec)
  } catch (error) {
    return { failure: `the reference refuses the spec: ${error.message}` }
  }
  if (!sameJson(compiled, data.json_schema, { keyOrder: true })) {
    return { failure: `compiles to ${JSON.stringify(compiled)}, the vector says ${JSON.stringify(data.json_schema)}` }
  }
  const validate = root === 'params'
    ? (args) => tools.validateArgs(spec, args)
    : (args) => tools.validateJsonSchemaValue(compiled, args, data.root_label)
  return { validate }
}

function caseOutcome(id, testCase, compiled) {
  if (compiled.failure !== undefined) return { id, verdict: 'disagree', why: compiled.failure }
  let got
  try {
    got = compiled.validate(testCase.args)
  } catch (error) {
    return { id, verdict: 'disagree', why: `validation threw ${error.name}: ${error.message}` }
  }
  if (sameJson(got, testCase.violations, { keyOrder: true })) return { id, verdict: 'agree' }
  return { id, verdict: 'disagree', why: `got ${JSON.stringify(got)}, the vector says ${JSON.stringify(testCase.violations)}` }
}

function schemaRefusalOutcome(id, refusal, tools) {
  const seen = refused(() => tools.assertSupportedJsonSchema(refusal.json_schema))
  if (seen.refused && seen.error instanceof tools.JsonSchemaError) return { id, verdict: 'agree' }
  if (seen.refused) return { id, verdict: 'disagree', why: `refused with ${seen.error.name}, not JsonSchemaError` }
  return { id, verdict: 'disagree', why: 'the reference accepts the schema' }
}

function specRefusalOutcome(id, refusal, tools) {
  const { spec, root, unspelled } = translateSpec(refusal.spec)
  if (unspelled.length > 0) {
    return { id, verdict: 'disagree', why: `the spec uses ${unspelled.join(', ')}, which the reference's DSL cannot spell and the refusal does not declare` }
  }
  const seen = refused(() => compilerFor(root, tools)(spec))
  if (seen.refused) return { id, verdict: 'agree' }
  return { id, verdict: 'disagree', why: 'the reference compiles the spec' }
}

/** Run one schema vector file; yields one outcome per case and refusal, in file order. */
export function* schemaOutcomes(file, data, tools) {
  const ids = caseIds('schema', file, data)
  const cases = data.cases ?? []
  let compiled
  for (const [index, testCase] of cases.entries()) {
    const skip = declaredSkip(ids[index], data, testCase)
    if (skip !== null) {
      yield skip
      continue
    }
    compiled ??= compiledSpec(data, tools)
    yield caseOutcome(ids[index], testCase, compiled)
  }
  for (const [index, refusal] of (data.refusals ?? []).entries()) {
    const id = ids[cases.length + index]
    const skip = declaredSkip(id, data, refusal)
    if (skip !== null) yield skip
    else if ('json_schema' in refusal) yield schemaRefusalOutcome(id, refusal, tools)
    else yield specRefusalOutcome(id, refusal, tools)
  }
}
