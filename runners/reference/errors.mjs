// Error vectors put to the reference's errorChain, HarnessError, LlmError and
// isHarnessError.
//
// A chain case builds the described error (its ids and refs resolved) and must get the
// vector's `chain` from `errorChain` and its `info` (name and code) from
// `isHarnessError`. A failure case gives its facts to `new LlmError(message, code,
// options)`: the reference must accept valid facts, and refuse invalid ones naming the
// case's `field` in its own spelling. Durations are in milliseconds on both sides.
// Cases whose declared requirements the reference does not meet are skipped (meets.mjs).

import { caseIds, sameJson } from './compare.mjs'
import { declaredSkip } from './meets.mjs'

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

/** Our failure fact -> the reference's LlmError option. */
const OPTIONS = {
  status: 'status',
  retryAfterMs: 'providerRetryAfterMs',
  request_id: 'requestId',
}

/** The reference's name for a failure fact: its LlmError option, or the argument's. */
function referenceName(field) {
  return Object.hasOwn(OPTIONS, field) ? OPTIONS[field] : field
}

function failureOutcome(id, testCase, llm) {
  const { message, code, ...facts } = testCase.failure
  const options = {}
  for (const [key, value] of Object.entries(facts)) if (Object.hasOwn(OPTIONS, key)) options[OPTIONS[key]] = value
  let thrown
  try {
    new llm.LlmError(message, code, options)
  } catch (error) {
    thrown = error
  }
  if (testCase.valid && thrown === undefined) return { id, verdict: 'agree' }
  if (testCase.valid) return { id, verdict: 'disagree', why: `LlmError refuses the facts: ${thrown.message}` }
  if (thrown === undefined) return { id, verdict: 'disagree', why: `LlmError accepts the facts (${testCase.field} should be refused)` }
  if (thrown.message.includes(referenceName(testCase.field))) return { id, verdict: 'agree' }
  return { id, verdict: 'disagree', why: `refused for another reason: ${thrown.message}` }
}

function chainOutcome(id, testCase, llm) {
  let value
  try {
    value = buildError(testCase.error, llm)
  } catch (error) {
    return { id, verdict: 'disagree', why: `the reference cannot build the error: ${error.message}` }
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
  return problems.length === 0 ? { id, verdict: 'agree' } : { id, verdict: 'disagree', why: problems.join('; ') }
}

/** Run one error vector file; yields one outcome per case, in file order. */
export function* errorOutcomes(file, data, llm) {
  const ids = caseIds('errors', file, data)
  for (const [index, testCase] of (data.cases ?? []).entries()) {
    const id = ids[index]
    const skip = declaredSkip(id, data, testCase)
    if (skip !== null) yield skip
    else if ('failure' in testCase) yield failureOutcome(id, testCase, llm)
    else yield chainOutcome(id, testCase, llm)
  }
}
