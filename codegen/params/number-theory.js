// BigInt number theory needed at generation time (the run time never needs it). Kept apart from
// src/bigint/, which is the independent test oracle.

export const bitLength = (x) => (x === 0n ? 0 : x.toString(2).length);

export function mod(a, m) {
  const r = a % m;
  return r < 0n ? r + m : r;
}

export function modPow(base, exponent, m) {
  let result = 1n;
  let b = mod(base, m);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % m;
    b = (b * b) % m;
  }
  return result;
}

/** Inverse of a modulo m by the extended Euclidean algorithm; throws if gcd(a, m) != 1. */
export function modInverse(a, m) {
  let [oldR, r] = [mod(a, m), m];
  let [oldS, s] = [1n, 0n];
  while (r !== 0n) {
    const q = oldR / r;
    [oldR, r] = [r, oldR - q * r];
    [oldS, s] = [s, oldS - q * s];
  }
  if (oldR !== 1n) throw new RangeError(`${a} has no inverse modulo ${m}`);
  return mod(oldS, m);
}

const SMALL_PRIMES = [2n, 3n, 5n, 7n, 11n, 13n, 17n, 19n, 23n, 29n, 31n, 37n, 41n, 43n, 47n, 53n, 59n, 61n, 67n, 71n];

// Verdicts already reached: deriving a field's params for each limb size asks about the same p again (7 limb sizes,
// 32 modular exponentiations each time). Bounded so a long sweep cannot grow it without end.
const verdicts = new Map();
const MAX_VERDICTS = 1024;

/**
 * Miller-Rabin with the first 20 primes as bases plus 12 bases derived from n itself: deterministic for
 * n < 3.3e24 and, for larger n, an error bound far below 4^-32 for any n not built against these bases.
 */
export function isProbablePrime(n) {
  if (typeof n !== 'bigint') throw new TypeError('isProbablePrime expects a BigInt');
  if (n < 2n) return false;
  let verdict = verdicts.get(n);
  if (verdict === undefined) {
    verdict = millerRabin(n);
    if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
    verdicts.set(n, verdict);
  }
  return verdict;
}

function millerRabin(n) {
  for (const q of SMALL_PRIMES) {
    if (n === q) return true;
    if (n % q === 0n) return false;
  }
  let d = n - 1n;
  let s = 0;
  while ((d & 1n) === 0n) {
    d >>= 1n;
    s++;
  }
  const bases = [...SMALL_PRIMES];
  // Extra bases from a fixed hash-like walk over n, so an adversary cannot target a public base list.
  let h = n ^ 0x9e3779b97f4a7c15n;
  for (let i = 0; i < 12; i++) {
    h = (h * 6364136223846793005n + 1442695040888963407n) % (n - 3n);
    bases.push(h + 2n);
  }
  witness: for (const a of bases) {
    let x = modPow(a, d, n);
    if (x === 1n || x === n - 1n) continue;
    for (let i = 1; i < s; i++) {
      x = (x * x) % n;
      if (x === n - 1n) continue witness;
    }
    return false;
  }
  return true;
}

/** Square root modulo an odd prime p (Tonelli-Shanks), or null when a is not a square. */
export function modSqrt(a, p) {
  a = mod(a, p);
  if (a === 0n) return 0n;
  if (modPow(a, (p - 1n) / 2n, p) !== 1n) return null;
  let q = p - 1n;
  let s = 0n;
  while ((q & 1n) === 0n) {
    q >>= 1n;
    s++;
  }
  let z = 2n;
  while (modPow(z, (p - 1n) / 2n, p) !== p - 1n) z++;
  let m = s;
  let c = modPow(z, q, p);
  let t = modPow(a, q, p);
  let root = modPow(a, (q + 1n) / 2n, p);
  while (t !== 1n) {
    let i = 0n;
    let t2 = t;
    while (t2 !== 1n) {
      t2 = (t2 * t2) % p;
      i++;
    }
    const b = modPow(c, 1n << (m - i - 1n), p);
    m = i;
    c = (b * b) % p;
    t = (t * c) % p;
    root = (root * b) % p;
  }
  return root;
}

/** Parse a BigInt from a BigInt, a safe integer, or a decimal / 0x-hex string. */
export function toBigInt(value, what) {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^(0x[0-9a-fA-F]+|-?[0-9]+)$/.test(value.trim())) return BigInt(value.trim());
  throw new TypeError(`${what} must be a BigInt, a safe integer or a decimal/0x-hex string, got ${JSON.stringify(String(value))}`);
}
