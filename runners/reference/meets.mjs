// What the reference meets, in the requirement words of the vector files.
//
// An entry's requirements are its file's `requires` and its own. An entry whose
// requirements the reference meets in full is run; any other is skipped, with the
// words it lacks named. A word not listed here is not met, so a word the vectors gain
// later skips its cases until someone adds it here with the reason.
//
// Not met, so their cases are skipped:
// - every `dsl:` word: the reference's author DSL has none of this library's DSL
//   extensions (bounds, lengths, patterns, `any_of`, `defs`, ...);
// - `profile:seed`: the reference has one profile, which judges as `strict` does;
// - `events:live`, `events:without-seq`, `log:malformed`: its session store seeds from
//   stored rows, each with a seq, in its own shapes, and loads no live event;
// - `wire:non-streamed-body`, `wire:anthropic-messages`, `wire:gemini`,
//   `wire:openai-responses`, `op:read-request`: it streams DeepSeek's chat
//   completions only, and writes requests but reads none;
// - `op:replay`: it has no cassette replay.

export const MEETS = new Set([
  // Tool schemas: its DSL compilers (`parameterSchemaSpecToJsonSchema`,
  // `valueSchemaSpecToJsonSchema`) compile and refuse specs, `assertSupportedJsonSchema`
  // imports or refuses a raw schema, `validateArgs` and `validateJsonSchemaValue` validate.
  'op:compile-spec',
  'op:import-schema',
  'op:refuse-spec',
  'op:validate',
  // Errors: `errorChain` and `isHarnessError` render and name an error, `new LlmError`
  // checks the facts of a failed model call.
  'op:render-error',
  'op:check-failure-facts',
  // Session logs: its store seeded under the invariant companions checks a log, with
  // its one profile, which judges as `strict` does.
  'op:check-log',
  'profile:strict',
  // The invariant rules its companions and store check too (it has no counterpart of
  // `error-has-code` or `status-transition`, which judge live events).
  'rule:stream-grammar',
  'rule:event-names-open-scope',
  'rule:tool-result-after-call',
  'rule:step-in-turn',
  'rule:seq-contiguous',
  'rule:turn-pairing',
  'rule:seq-increasing',
  'rule:turn-numbering',
  'rule:chunk-in-step',
  'rule:turn-closes-steps',
  // Provider traffic: `DeepSeekAdapter` reads a streamed chat-completions response, or
  // its HTTP error, into chunks or a failure.
  'op:read-response',
  'wire:openai-chat',
])

/** An entry's requirements: its file's `requires`, then its own, each word once. */
export function requirementsOf(data, entry) {
  return [...new Set([...(data.requires ?? []), ...(entry.requires ?? [])])]
}

/** The skipped outcome of an entry the reference does not meet, or `null` to run it. */
export function declaredSkip(id, data, entry) {
  const unmet = requirementsOf(data, entry).filter((word) => !MEETS.has(word))
  return unmet.length === 0 ? null : { id, verdict: 'skipped', why: `requires ${unmet.join(', ')}` }
}
