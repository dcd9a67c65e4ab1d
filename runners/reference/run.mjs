#!/usr/bin/env node
// Puts the conformance vectors (format 2) to the published reference harness packages
// and prints, per vector kind, how many cases ran, agreed, disagreed and were skipped
// by declaration: a case is run when the reference meets every requirement word its
// file and the case declare (meets.mjs says which words it meets, and why), and
// skipped otherwise, with the words it lacks.
//
//   node run.mjs [--deps DIR] [--vectors DIR] [--known FILE] [--logs DIR] [--verbose]
//
// --deps      a folder whose node_modules holds the packages of package.json
//             (default: this folder)
// --vectors   the conformance folder (default: the repository's conformance/)
// --known     disagreements explained elsewhere, {"<case id>": "why"} (default:
//             known-disagreements.json beside this file)
// --logs      a folder of JSONL session logs to load into the reference's store
//             under its invariant companions as well; every one must load
//
// Exit status: 0 when every disagreement is a known one and every known one still
// disagrees, 1 otherwise, 2 when the packages cannot be loaded or a vector file is not
// a format 2 file (`"vectors": 2`, well-formed `$value` tags).

import { readFileSync, readdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { errorOutcomes } from './errors.mjs'
import { invariantOutcomes, makeChecker } from './invariants.mjs'
import { schemaOutcomes } from './schema.mjs'
import { decodeValues } from './values.mjs'
import { wireOutcomes } from './wire.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))

function options(argv) {
  const found = { deps: HERE, vectors: resolve(HERE, '..', '..', 'conformance'), known: join(HERE, 'known-disagreements.json'), logs: null, verbose: false }
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index]
    if (flag === '--verbose') found.verbose = true
    else if (['--deps', '--vectors', '--known', '--logs'].includes(flag) && index + 1 < argv.length) {
      found[flag.slice(2)] = resolve(argv[index + 1])
      index += 1
    } else {
      console.error(`run.mjs: unknown argument ${flag}; see the head of this file for the options`)
      process.exit(2)
    }
  }
  return found
}

async function load(deps, name) {
  const require = createRequire(join(deps, 'package.json'))
  let path
  try {
    path = require.resolve(name)
  } catch (error) {
    console.error(`run.mjs: ${name} is not installed under ${deps}: run \`npm ci\` there first (${error.code})`)
    process.exit(2)
  }
  return import(pathToFileURL(path).href)
}

function vectorFiles(folder) {
  return readdirSync(folder).filter((name) => name.endsWith('.json')).sort()
}

/** The vector format this runner reads. */
const FORMAT = 2

function refuseFile(path, problem) {
  console.error(`run.mjs: ${path}: ${problem}`)
  process.exit(2)
}

/** A vector file's document, its `$value` tags decoded; exits 2 on a file that is not
 * a format 2 vector file. */
function readVectors(path) {
  let data
  try {
    data = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    refuseFile(path, `not a JSON document: ${error.message}`)
  }
  const version = data !== null && typeof data === 'object' ? data.vectors : undefined
  if (version !== FORMAT) {
    const found = version === undefined ? 'has no "vectors" member' : `says "vectors": ${JSON.stringify(version)}`
    refuseFile(path, `${found}; this runner reads format ${FORMAT} files ("vectors": ${FORMAT}) only: rewrite it with \`python scripts/rewrite-vectors-2.py <file or folder>\``)
  }
  try {
    return decodeValues(data)
  } catch (error) {
    refuseFile(path, error.message)
  }
}

const opts = options(process.argv.slice(2))
const tools = await load(opts.deps, '@deepseek-ai/dsh-tools')
const llm = await load(opts.deps, '@deepseek-ai/dsh-llm')
const deepseek = await load(opts.deps, '@deepseek-ai/dsh-llm-deepseek')
const versions = createRequire(join(opts.deps, 'package.json'))
const check = await makeChecker({
  cordis: await load(opts.deps, '@deepseek-ai/cordis'),
  session: await load(opts.deps, '@deepseek-ai/dsh-session'),
  invariants: await load(opts.deps, '@deepseek-ai/dsh-invariants'),
  sessionInvariant: await load(opts.deps, '@deepseek-ai/dsh-session/invariant'),
  toolsInvariant: await load(opts.deps, '@deepseek-ai/dsh-tools/invariant'),
  llmInvariant: await load(opts.deps, '@deepseek-ai/dsh-llm/invariant'),
})

const KINDS = [
  ['schema', (file, data) => schemaOutcomes(file, data, tools)],
  ['invariants', (file, data) => invariantOutcomes(file, data, check)],
  ['errors', (file, data) => errorOutcomes(file, data, llm)],
  ['wire', (file, data) => wireOutcomes(file, data, deepseek)],
]

let known
try {
  known = JSON.parse(readFileSync(opts.known, 'utf8'))
} catch (error) {
  console.error(`run.mjs: ${opts.known} is not a JSON object of case ids and reasons: ${error.message}`)
  process.exit(2)
}
// Every file is read before any case runs, so a file the runner refuses stops the run
// before it reports anything.
const vectors = new Map(KINDS.map(([kind]) => {
  const folder = join(opts.vectors, kind)
  return [kind, vectorFiles(folder).map((file) => [file, readVectors(join(folder, file))])]
}))
const seen = new Set()
const unexplained = []
const stale = []

const tool = versions('@deepseek-ai/dsh-tools/package.json')
console.log(`reference: @deepseek-ai/dsh-tools ${tool.version}, @deepseek-ai/dsh-llm ${versions('@deepseek-ai/dsh-llm/package.json').version}, node ${process.version}`)
for (const [kind, outcomes] of KINDS) {
  const counts = { run: 0, agree: 0, skipped: 0, disagree: 0, known: 0 }
  const skips = new Map()
  for (const [file, data] of vectors.get(kind)) {
    for await (const outcome of outcomes(file, data)) {
      seen.add(outcome.id)
      if (outcome.verdict === 'skipped') {
        counts.skipped += 1
        skips.set(outcome.why, (skips.get(outcome.why) ?? 0) + 1)
        continue
      }
      counts.run += 1
      if (outcome.verdict === 'agree') {
        counts.agree += 1
        if (outcome.id in known) stale.push(`${outcome.id}: agrees now; remove it from the known disagreements`)
        continue
      }
      counts.disagree += 1
      if (outcome.id in known) {
        counts.known += 1
        if (opts.verbose) console.log(`  known ${outcome.id}: ${outcome.why}\n        (${known[outcome.id]})`)
      } else {
        unexplained.push(`${outcome.id}: ${outcome.why}`)
      }
    }
  }
  console.log(`${kind}: ${counts.run} run, ${counts.agree} agree, ${counts.disagree} disagree (${counts.known} known), ${counts.skipped} skipped by declaration`)
  if (opts.verbose) for (const [why, count] of skips) console.log(`  skipped ${count}: ${why}`)
}
const refusedLogs = []
if (opts.logs !== null) {
  const files = readdirSync(opts.logs).filter((name) => name.endsWith('.jsonl')).sort()
  for (const file of files) {
    const lines = readFileSync(join(opts.logs, file), 'utf8').split('\n').filter((line) => line.trim() !== '')
    const records = lines.map((line) => JSON.parse(line)).filter((record) => record.type !== 'session')
    let first
    try {
      first = await check(records)
    } catch (error) {
      first = { seq: undefined, message: `the reference's checker crashed: ${error.name}: ${error.message}` }
    }
    if (first !== null) refusedLogs.push(`${file}: seq ${first.seq}: ${first.message}`)
  }
  console.log(`logs: ${files.length} read, ${files.length - refusedLogs.length} loaded with no violation, ${refusedLogs.length} refused`)
}
for (const id of Object.keys(known)) {
  if (!seen.has(id)) stale.push(`${id}: no such case; remove it from the known disagreements`)
}
for (const line of unexplained) console.log(`DISAGREE ${line}`)
for (const line of stale) console.log(`STALE ${line}`)
for (const line of refusedLogs) console.log(`REFUSED ${line}`)
process.exit(unexplained.length === 0 && stale.length === 0 && refusedLogs.length === 0 ? 0 : 1)
