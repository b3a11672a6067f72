/**
 * How much a webhook signing secret a partner chooses (`POST /partner/update-webhook` `secret`) can be guessed
 * (docs/console.md "POST /partner/update-webhook"). Whoever guesses it forges deliveries, so a chosen secret must look
 * random; the rule is an estimate from the secret alone (it cannot see how it was made), strict enough that 32 × `a`,
 * a word repeated or a run like `abcdef…` are refused, and loose enough that a random secret of 40 base62 or base64
 * characters, or 64 hex characters (`openssl rand -hex 32`), always passes.
 *
 * A secret is refused when any of these holds:
 * - fewer than `minimumDistinct` (8) distinct characters;
 * - an estimated entropy under `minimumBits` (128): its length times the Shannon entropy of its own character
 *   frequencies (a 32-character hex string, at most 4 bits a character, never reaches it);
 * - it is one block repeated (`abcabcabc…`, `password` × 4: a period of at most half its length);
 * - more than half of its neighbouring characters are consecutive (`abcdef…`, `987654…`).
 */
export const minimumDistinct = 8
export const minimumBits = 128

/** Length × Shannon entropy (bits per character) of the string's own character frequencies. */
export const estimatedBits = (secret: string): number => {
  const characters = [...secret]
  const counts = new Map<string, number>()
  for (const character of characters) counts.set(character, (counts.get(character) ?? 0) + 1)
  let perCharacter = 0
  for (const count of counts.values()) {
    const p = count / characters.length
    perCharacter -= p * Math.log2(p)
  }
  return perCharacter * characters.length
}

/** The shortest period of at most half the length (the string is that block repeated), or undefined. */
const period = (secret: string): number | undefined => {
  for (let p = 1; p <= secret.length / 2; p++) {
    let repeats = true
    for (let i = p; i < secret.length && repeats; i++) repeats = secret[i] === secret[i - p]
    if (repeats) return p
  }
  return undefined
}

/** How many neighbouring pairs step by one code point up or down. */
const consecutivePairs = (secret: string): number => {
  let steps = 0
  for (let i = 1; i < secret.length; i++) {
    if (Math.abs(secret.charCodeAt(i) - secret.charCodeAt(i - 1)) === 1) steps++
  }
  return steps
}

/** Why `secret` is too guessable (a message for the field `secret`), or undefined when it passes. */
export const weakness = (secret: string): string | undefined => {
  const advice = "use a random secret (e.g. `openssl rand -hex 32`) or omit it to have one minted"
  const distinct = new Set(secret).size
  if (distinct < minimumDistinct) {
    return `is too easy to guess: it has ${distinct} distinct characters, at least ${minimumDistinct} are needed; ${advice}`
  }
  if (period(secret) !== undefined) return `is too easy to guess: it is one block of characters repeated; ${advice}`
  if (consecutivePairs(secret) * 2 > secret.length - 1) {
    return `is too easy to guess: it is mostly a run of consecutive characters; ${advice}`
  }
  const bits = Math.floor(estimatedBits(secret))
  if (bits < minimumBits) {
    return `is too easy to guess: its estimated entropy is ${bits} bits, at least ${minimumBits} are needed; ${advice}`
  }
  return undefined
}
