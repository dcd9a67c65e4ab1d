// Case ids and JSON comparison, as conformance/README.md defines them.

/** `<file stem>/<description slug>`: lower case, each run of other characters a `-`. */
export function slugId(stem, description) {
  const slug = String(description).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '')
  return `${stem}/${slug}`
}

/**
 * Whether two JSON values are the same: numbers by value, objects with the same keys
 * (in the same order when `keyOrder`), arrays item by item.
 */
export function sameJson(left, right, { keyOrder = false } = {}) {
  if (typeof left === 'number' && typeof right === 'number') return left === right || (Number.isNaN(left) && Number.isNaN(right))
  if (left === null || right === null || typeof left !== 'object' || typeof right !== 'object') return left === right
  if (Array.isArray(left) !== Array.isArray(right)) return false
  if (Array.isArray(left)) {
    return left.length === right.length && left.every((item, index) => sameJson(item, right[index], { keyOrder }))
  }
  const leftKeys = Object.keys(left)
  const rightKeys = Object.keys(right)
  if (leftKeys.length !== rightKeys.length) return false
  if (keyOrder && leftKeys.some((key, index) => key !== rightKeys[index])) return false
  return leftKeys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key], { keyOrder }))
}

/**
 * The ids of a vector file's entries, in file order: a schema file's cases, then its
 * refusals; an invariant group's cases (a one-case file is `<stem>/<profile>`); an
 * error file's cases.
 */
export function caseIds(kind, file, data) {
  const stem = file.replace(/\.json$/, '')
  if (kind === 'invariants' && !('cases' in data)) return [`${stem}/${data.profile}`]
  const entries = [...(data.cases ?? []), ...(kind === 'schema' ? data.refusals ?? [] : [])]
  return entries.map((entry) => slugId(stem, entry.description))
}
