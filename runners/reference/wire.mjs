// Wire vectors put to the reference's DeepSeek adapter, over HTTP on 127.0.0.1.
//
// Each response case is served by a loopback server as the provider sends it: its
// events as event-stream `data:` lines, then `data: [DONE]` when the stream is whole
// (an event carries a finish reason), or its HTTP error with the recorded status, body
// and headers. `DeepSeekAdapter` streams the reply through `fetch`, as it does in the
// harness, and what it yields and raises is compared with the vector: the chunks, or
// the failure's code, status and `retryAfterMs` wait. A failure is a thrown `LlmError`
// or an `error` finish chunk, which ends the reply. Cases whose declared requirements
// the reference does not meet (another wire format, a request, a non-streamed body)
// are skipped (meets.mjs).

import http from 'node:http'

import { caseIds, sameJson } from './compare.mjs'
import { declaredSkip } from './meets.mjs'

/** The adapter's reply to one served response: `{chunks, failure}`. */
async function replyOf(deepseek, served) {
  const server = http.createServer((request, response) => {
    request.resume()
    request.on('end', () => served(response))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const options = deepseek.resolveAdapterOptions({ baseURL: `http://127.0.0.1:${server.address().port}/v1` })
  const adapter = new deepseek.DeepSeekAdapter({
    options: () => options,
    resolveApiKey: async () => 'placeholder',
    resolveUserId: () => 'conformance-runner',
  })
  const chunks = []
  let failure = null
  try {
    for await (const chunk of adapter.stream({ provider: 'deepseek-official', model: 'deepseek-chat', messages: [] })) {
      if (chunk.type === 'finish' && chunk.reason.kind === 'error') {
        failure = { code: chunk.reason.failure?.code ?? chunk.reason.code, from: 'finish' }
        break
      }
      chunks.push(chunk)
    }
  } catch (error) {
    const facts = error.failure ?? {}
    failure = { code: error.code, status: facts.status ?? null, wait: facts.providerRetryAfterMs, from: 'error' }
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  return { chunks, failure }
}

function streamOf(events) {
  const whole = events.some((event) => typeof event === 'object' && event?.choices?.some((choice) => choice.finish_reason))
  return (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' })
    for (const event of events) response.write(`data: ${typeof event === 'string' ? event : JSON.stringify(event)}\n\n`)
    response.end(whole ? 'data: [DONE]\n\n' : '')
  }
}

function errorOf(testCase) {
  return (response) => {
    const body = typeof testCase.error_body === 'string' ? testCase.error_body : JSON.stringify(testCase.error_body)
    response.writeHead(testCase.status, { 'content-type': 'application/json', ...(testCase.headers ?? {}) })
    response.end(body)
  }
}

/** The chunks before a failure, as the vector gives them: the reference closes its open
 * blocks before an `error` finish, this library's readers stop at the failure, so
 * those closing block-ends are left out when each closes a block with exactly what its
 * deltas gave. */
function beforeFailure(got) {
  if (got.failure?.from !== 'finish') return got.chunks
  const chunks = [...got.chunks]
  const given = new Map()
  for (const chunk of chunks) {
    if (chunk.type === 'text-delta' || chunk.type === 'reasoning-delta') given.set(chunk.index, (given.get(chunk.index) ?? '') + chunk.text)
  }
  while (chunks.length > 0 && chunks.at(-1).type === 'block-end') {
    const end = chunks.at(-1)
    if (end.block?.type === 'tool-call' || end.block?.text !== (given.get(end.index) ?? '')) break
    chunks.pop()
  }
  return chunks
}

function compare(testCase, got) {
  const problems = []
  if (testCase.failure) got = { ...got, chunks: beforeFailure(got) }
  const expected = testCase.failure ?? null
  const wantChunks = expected === null ? testCase.chunks : expected.chunks
  if (wantChunks !== undefined && !sameJson(got.chunks, wantChunks)) {
    problems.push(`chunks ${JSON.stringify(got.chunks)}, the vector says ${JSON.stringify(wantChunks)}`)
  }
  if (expected === null && got.failure !== null) problems.push(`fails with ${got.failure.code}, the vector says it succeeds`)
  if (expected !== null) {
    if (got.failure === null) problems.push(`succeeds, the vector says it fails with ${expected.code}`)
    else {
      if (got.failure.code !== expected.code) problems.push(`fails with ${got.failure.code}, the vector says ${expected.code}`)
      if ('status' in expected && got.failure.status !== expected.status) problems.push(`keeps status ${got.failure.status}, the vector says ${expected.status}`)
      if (got.failure.wait !== expected.retryAfterMs) problems.push(`asks to wait ${got.failure.wait} ms, the vector says ${expected.retryAfterMs}`)
    }
  }
  return problems
}

/** Run one wire vector file; yields one outcome per case, in file order. */
export async function* wireOutcomes(file, data, deepseek) {
  const ids = caseIds('wire', file, data)
  for (const [index, testCase] of data.cases.entries()) {
    const id = ids[index]
    const skip = declaredSkip(id, data, testCase)
    if (skip !== null) {
      yield skip
      continue
    }
    const served = 'events' in testCase ? streamOf(testCase.events) : errorOf(testCase)
    const problems = compare(testCase, await replyOf(deepseek, served))
    yield problems.length === 0 ? { id, verdict: 'agree' } : { id, verdict: 'disagree', why: problems.join('; ') }
  }
}
