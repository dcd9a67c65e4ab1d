// Invariant vectors put to the reference's own checkers: its session store seeded with
// the log under the session, tools and LLM invariant companions, and each step's
// assistant chunks streamed through the LLM companion's stream grammar.
//
// The store's checks of a seed's shape (contiguous seqs from 0, event envelopes,
// identified messages) count as violations too: it loads no log that fails them.
// The reference stops at its first violation, so a case is compared on its verdict
// (valid or not) and on the seq of its first violation. Live events (no seq) exist only
// in this library's checker; a case that needs them, or the relaxed `seed` profile the
// reference does not have, is skipped with the requirement named.

import { caseIds } from './compare.mjs'

/** The live event types, which a session log never holds. */
const LIVE = new Set(['agent/status', 'agent/error'])

/** Rules of this library's checker that the reference has no counterpart of. */
const OURS_ONLY = new Set(['error-has-code', 'status-transition'])

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

/** Whether the file checks the same log under `strict` too: the reference has one
 * profile, which judges as `strict` does, so the `seed` case adds nothing to put to it. */
function strictTwin(data, testCase) {
  const same = (other) => other.profile === 'strict' && JSON.stringify(other.log) === JSON.stringify(testCase.log)
  return 'cases' in data && data.cases.some(same)
}

export async function* invariantOutcomes(file, data, check) {
  const ids = caseIds('invariants', file, data)
  for (const [index, testCase] of ('cases' in data ? data.cases : [data]).entries()) {
    const id = ids[index]
    if (testCase.profile === 'seed' && strictTwin(data, testCase)) {
      yield { id, verdict: 'skipped', why: 'requires profile:seed (the reference checks every rule, as strict does)' }
      continue
    }
    const rules = [...new Set(testCase.violations.map((violation) => violation.rule))]
    const lacking = rules.filter((rule) => OURS_ONLY.has(rule))
    if (lacking.length > 0) {
      yield { id, verdict: 'skipped', why: `requires ${lacking.map((rule) => `rule:${rule}`).join(', ')}` }
      continue
    }
    const log = typeof testCase.log === 'string' ? data.logs[testCase.log] : testCase.log
    if (log.some((event) => LIVE.has(event.type))) {
      yield { id, verdict: 'skipped', why: 'requires live events (agent/status, agent/error)' }
      continue
    }
    // A stored row of the reference always has a seq; a packed row has its seq0.
    if (log.some((event) => !LIVE.has(event.type) && event.seq === undefined && event.seq0 === undefined)) {
      yield { id, verdict: 'skipped', why: 'requires log entries without a seq (plugin events, tool pipeline hooks)' }
      continue
    }
    let first
    try {
      first = await check(log)
    } catch (error) {
      yield { id, verdict: 'disagree', why: `the reference's checker crashed: ${error.name}: ${error.message}` }
      continue
    }
    const expected = testCase.violations.length === 0 ? null : Math.min(...testCase.violations.map((v) => v.seq))
    if (first === null && expected === null) yield { id, verdict: 'agree' }
    else if (first === null) yield { id, verdict: 'disagree', why: `the reference finds no violation; the vector's first is at seq ${expected}` }
    else if (expected === null) yield { id, verdict: 'disagree', why: `the reference finds a violation at seq ${first.seq}: ${first.message}` }
    else if (first.seq === expected) yield { id, verdict: 'agree' }
    else yield { id, verdict: 'disagree', why: `the reference's first violation is at seq ${first.seq} (${first.message}); the vector's at seq ${expected}` }
  }
}
