// Error vectors put to the reference's errorChain, HarnessError, LlmError and
// isHarnessError.

import { caseIds, sameJson } from './compare.mjs'

/** `{"$number": "NaN" | "Infinity" | "-Infinity"}` is the number JSON cannot carry. */
function decodeNumber(value) {
  if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 1 && '$number' in value) {
    return Number(value.$number)
  }
  return value
}

/** Build the thrown value an error description stands for, with its ids and refs. */
export function buildError(description, llm) {
  const byId = new Map()
  const pending = []
  const build = (node) => {
    if ('ref' in node) {
      const slot = {}
      pending.push([slot, node.ref])
      return slot
    }
    if ('value' in node) return node.value
    if (node.unrenderable) {
      return { toString() { throw new Error('unreadable') }, [Symbol.toPrimitive]() { throw new Error('unreadable') } }
    }
    const members = (node.errors ?? []).map(build)
    let error
    if (node.name === 'AggregateError') error = new AggregateError(members, node.message)
    else if (node.name === 'LlmError') error = new llm.LlmError(node.message, node.code)
    else if (node.name === 'HarnessError') error = new llm.HarnessError(node.message, node.code)
    else if (node.name === 'TypeError') error = new TypeError(node.message)
    else {
      error = new Error(node.message)
      if (node.name !== 'Error') error.name = node.name
    }
    if (node.hostile) Object.defineProperty(error, 'message', { get() { throw new Error('hostile message') } })
    if ('cause' in node) error.cause = node.cause === null ? null : build(node.cause)
    if (node.id !== undefined) byId.set(node.id, error)
    return error
  }
  const root = build(description)
  // A ref is resolved by replacing the placeholder where it was put.
  const resolve = (value, seen = new Set()) => {
    if (value === null || typeof value !== 'object' || seen.has(value)) return
    seen.add(value)
    if ('cause' in value && pending.some(([slot]) => slot === value.cause)) {
      value.cause = byId.get(pending.find(([slot]) => slot === value.cause)[1])
    }
    if (Array.isArray(value.errors)) {
      value.errors.forEach((member, index) => {
        const found = pending.find(([slot]) => slot === member)
        if (found) value.errors[index] = byId.get(found[1])
      })
      value.errors.forEach((member) => resolve(member, seen))
    }
    resolve(value.cause, seen)
  }
  resolve(root)
  return root
}

/** Our failure field -> the reference's LlmError option, with its unit. */
const FIELDS = {
  status: ['status', (value) => value],
  retry_after: ['providerRetryAfterMs', (value) => (typeof value === 'number' ? value * 1000 : value)],
  request_id: ['requestId', (value) => value],
}

export function* errorOutcomes(file, data, llm) {
  const ids = caseIds('errors', file, data)
  for (const [index, testCase] of (data.cases ?? []).entries()) {
    const id = ids[index]
    if ('failure' in testCase) {
      const failure = Object.fromEntries(Object.entries(testCase.failure).map(([key, value]) => [key, decodeNumber(value)]))
      const options = {}
      for (const [key, value] of Object.entries(failure)) {
        if (FIELDS[key]) options[FIELDS[key][0]] = FIELDS[key][1](value)
      }
      let thrown
      try {
        new llm.LlmError(failure.message, failure.code, options)
      } catch (error) {
        thrown = error
      }
      if (testCase.valid && thrown === undefined) yield { id, verdict: 'agree' }
      else if (testCase.valid) yield { id, verdict: 'disagree', why: `LlmError refuses the facts: ${thrown.message}` }
      else if (thrown === undefined) yield { id, verdict: 'disagree', why: `LlmError accepts the facts (${testCase.field} should be refused)` }
      else {
        const named = FIELDS[testCase.field]?.[0] ?? testCase.field
        if (thrown.message.includes(named)) yield { id, verdict: 'agree' }
        else yield { id, verdict: 'disagree', why: `refused for another reason: ${thrown.message}` }
      }
      continue
    }
    let value
    try {
      value = buildError(testCase.error, llm)
    } catch (error) {
      yield { id, verdict: 'disagree', why: `the reference cannot build the error: ${error.message}` }
      continue
    }
    const problems = []
    if ('chain' in testCase) {
      const chain = llm.errorChain(value)
      if (chain !== testCase.chain) problems.push(`errorChain gives ${JSON.stringify(chain)}, the vector says ${JSON.stringify(testCase.chain)}`)
    }
    if ('info' in testCase) {
      const info = llm.isHarnessError(value) ? { name: value.name, code: value.code } : null
      if (!sameJson(info, testCase.info)) problems.push(`the error reads as ${JSON.stringify(info)}, the vector says ${JSON.stringify(testCase.info)}`)
    }
    yield problems.length === 0 ? { id, verdict: 'agree' } : { id, verdict: 'disagree', why: problems.join('; ') }
  }
}
