// Values JSON cannot carry, as every format 2 vector file writes them: a tag object
// whose `$value` member names the value.
//
//   {"$value": "nan"}  {"$value": "+inf"}  {"$value": "-inf"}  {"$value": "-0.0"}
//   {"$value": "int", "digits": "-18446744073709551617"}   an integer beyond 2^53
//   {"$value": "object", "members": {...}}                  an object with a `$value` key
//
// The reference reads JSON numbers as doubles, so an `int` tag decodes to
// `Number(digits)`, the double JSON.parse would give for those digits.

const TAG = '$value'

const FLOATS = { nan: Number.NaN, '+inf': Number.POSITIVE_INFINITY, '-inf': Number.NEGATIVE_INFINITY, '-0.0': -0 }

const DIGITS = /^-?(0|[1-9][0-9]*)$/

/** A tag that is none of the documented forms; its message names the JSON path. */
export class ValueTagError extends Error {
  constructor(place, problem) {
    super(`${place}: ${problem}`)
    this.name = 'ValueTagError'
  }
}

/** Set an own property, `__proto__` included, as JSON.parse does. */
export function put(target, key, value) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function hasExactly(value, keys) {
  const own = Object.keys(value)
  return own.length === keys.length && keys.every((key) => own.includes(key))
}

/** The value one tag stands for; an `object` tag's members are decoded in turn. */
function decodeTag(tag, place) {
  const kind = tag[TAG]
  if (Object.hasOwn(FLOATS, kind) && hasExactly(tag, [TAG])) return FLOATS[kind]
  if (kind === 'int' && hasExactly(tag, [TAG, 'digits'])) {
    if (typeof tag.digits === 'string' && DIGITS.test(tag.digits)) return Number(tag.digits)
    throw new ValueTagError(`${place}.digits`, 'must be the decimal digits of an integer')
  }
  if (kind === 'object' && hasExactly(tag, [TAG, 'members']) && isObject(tag.members)) {
    return decodeMembers(tag.members, `${place}.members`)
  }
  throw new ValueTagError(place, `a "${TAG}" object must be {"${TAG}": "nan" | "+inf" | "-inf" | "-0.0"}, {"${TAG}": "int", "digits": "..."} or {"${TAG}": "object", "members": {...}}`)
}

function decodeMembers(object, place) {
  const out = {}
  for (const [key, inner] of Object.entries(object)) put(out, key, decodeValues(inner, `${place}.${key}`))
  return out
}

/**
 * A parsed vector document with every tag replaced by its value, anywhere in it.
 * Throws `ValueTagError` on a malformed tag.
 */
export function decodeValues(value, place = '$') {
  if (Array.isArray(value)) return value.map((item, index) => decodeValues(item, `${place}[${index}]`))
  if (!isObject(value)) return value
  if (Object.hasOwn(value, TAG)) return decodeTag(value, place)
  return decodeMembers(value, place)
}
