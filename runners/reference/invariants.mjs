// Invariant vectors put to the reference's own checkers: its session store seeded with
// the log under the session, tools and LLM invariant companions, and each model call's
// assistant chunks streamed through the LLM companion's stream grammar.
//
// The store's checks of a seed's shape (contiguous seqs from 0, event envelopes,
// identified messages) count as violations too: it loads no log that fails them.
// The reference stops at its first violation and names its rules in its own words, so
// a case is compared on its `verdict` (valid or invalid) and, when invalid, on the seq
// of its `first` violation; the rule ids of `first` and the full `violations` list are
// not compared. Cases whose declared requirements the reference does not meet are
// skipped (meets.mjs).

import { caseIds } from './compare.mjs'
import { declaredSkip } from './meets.mjs'

/** The checker: a fresh cordis context per log, as the reference's own tests build. */
export async function makeChecker(mods) {
  const { Context } = mods.cordis
  const fresh = async () => {
    const ctx = new Context()
    await ctx.plugin(mods.session.default)
    await ctx.plugin(mods.invariants.default)
    await ctx.plugin(mods.sessionInvariant)
    await ctx.plugin(mods.toolsInvariant)
    await ctx.plugin(mods.llmInvariant)
    return ctx
  }
  const isViolation = (error) => error instanceof mods.invariants.InvariantError

  /** Whether the store accepts `events` as a session's seed. Its refusal, by an
   * invariant or by the store's own checks of the log's shape, is the verdict on the
   * log: the reference loads no log it refuses. */
  const seeds = async (events) => {
    const ctx = await fresh()
    try {
      ctx.sessions.create(undefined, { seed: events })
      return { ok: true }
    } catch (error) {
      return { ok: false, message: isViolation(error) ? error.message : `the store refuses the log: ${error.message}` }
    }
  }

  /** The first chunk of one step that breaks the stream grammar, if any. */
  const streamFailure = async (ctx, chunks) => {
    let index = -1
    async function* source() {
      for (const event of chunks) {
        index += 1
        yield event.data.chunk
      }
    }
    try {
      const stream = ctx.waterfall('llm/stream', {}, () => source())
      for await (const _ of stream) { /* consumed for the checks it runs */ }
      return null
    } catch (error) {
      if (!isViolation(error)) throw error
      return { seq: chunks[Math.max(index, 0)].seq, message: error.message }
    }
  }

  /** The first violation of a log: `null` when valid, else `{seq, message}`. */
  return async function check(records) {
    const events = records.flatMap((record) => mods.session.decodeStorageRecord(record))
    const found = []
    let refusal = await seeds(events)
    if (!refusal.ok) {
      // The shortest failing prefix names the offending event, and its refusal the reason.
      let low = 0
      let high = events.length - 1
      while (low < high) {
        const middle = Math.floor((low + high) / 2)
        const prefix = await seeds(events.slice(0, middle + 1))
        if (prefix.ok) low = middle + 1
        else [high, refusal] = [middle, prefix]
      }
      found.push({ seq: events[low].seq, message: refusal.message })
    }
    // One stream per model call: a step's chunks, a new stream after an error or
    // aborted finish (a step retries its call after a failed one).
    const streams = new Map()
    for (const event of events) {
      if (event.type !== 'assistant/chunk') continue
      const key = `${event.data.turn}/${event.data.step}`
      if (!streams.has(key)) streams.set(key, [[]])
      const attempts = streams.get(key)
      attempts.at(-1).push(event)
      const kind = event.data.chunk?.type === 'finish' ? event.data.chunk.reason?.kind : undefined
      if (kind === 'error' || kind === 'aborted') attempts.push([])
    }
    const ctx = await fresh()
    for (const chunks of [...streams.values()].flat().filter((attempt) => attempt.length > 0)) {
      // A step still open at the end of the log has not finished its stream.
      const failure = await streamFailure(ctx, chunks)
      if (failure && !failure.message.includes('ended without a terminal finish')) found.push(failure)
    }
    found.sort((a, b) => a.seq - b.seq)
    return found[0] ?? null
  }
}

/** The outcome of the reference's first violation (`null` or `{seq, message}`)
 * against the case's verdict and first violation. */
function verdictOutcome(id, testCase, first) {
  if (testCase.verdict === 'valid') {
    if (first === null) return { id, verdict: 'agree' }
    return { id, verdict: 'disagree', why: `the reference finds a violation at seq ${first.seq}: ${first.message}; the vector says the log is valid` }
  }
  const expected = testCase.first.seq
  if (first === null) return { id, verdict: 'disagree', why: `the reference finds no violation; the vector's first is at seq ${expected}` }
  if (first.seq === expected) return { id, verdict: 'agree' }
  return { id, verdict: 'disagree', why: `the reference's first violation is at seq ${first.seq} (${first.message}); the vector's at seq ${expected}` }
}

/** Run one invariant vector file; yields one outcome per case, in file order. */
export async function* invariantOutcomes(file, data, check) {
  const ids = caseIds('invariants', file, data)
  for (const [index, testCase] of ('cases' in data ? data.cases : [data]).entries()) {
    const id = ids[index]
    const skip = declaredSkip(id, data, testCase)
    if (skip !== null) {
      yield skip
      continue
    }
    const log = typeof testCase.log === 'string' ? data.logs[testCase.log] : testCase.log
    let first
    try {
      first = await check(log)
    } catch (error) {
      yield { id, verdict: 'disagree', why: `the reference's checker crashed: ${error.name}: ${error.message}` }
      continue
    }
    yield verdictOutcome(id, testCase, first)
  }
}
