// Plain BigInt modular arithmetic: the slow, easy-to-audit reference that the
// generated field kernels are tested against. Nothing here is on a hot path.

const _0n = 0n;
const _1n = 1n;
const _2n = 2n;

/**
 * Canonical residue in [0, p). JS `%` keeps the sign of the dividend, so a
 * negative input would otherwise leak out as a negative "residue".
 * @param {bigint} a
 * @param {bigint} p modulus, > 0
 * @returns {bigint}
 */
export function mod(a, p) {
  if (p <= _0n) throw new RangeError('modulus must be positive');
  const r = a % p;
  return r < _0n ? r + p : r;
}

/** @param {bigint} a @param {bigint} b @param {bigint} p @returns {bigint} */
export function modAdd(a, b, p) {
  return mod(a + b, p);
}

/** @param {bigint} a @param {bigint} b @param {bigint} p @returns {bigint} */
export function modSub(a, b, p) {
  return mod(a - b, p);
}

/** @param {bigint} a @param {bigint} b @param {bigint} p @returns {bigint} */
export function modMul(a, b, p) {
  return mod(a * b, p);
}

/** @param {bigint} a @param {bigint} p @returns {bigint} */
export function modNeg(a, p) {
  return mod(-a, p);
}

/**
 * Square-and-multiply, right to left. A negative exponent means a power of
 * the inverse, which keeps callers from special-casing a^-1 vs a^(p-2).
 * @param {bigint} b base
 * @param {bigint} e exponent
 * @param {bigint} p modulus
 * @returns {bigint}
 */
export function modPow(b, e, p) {
  if (p <= _0n) throw new RangeError('modulus must be positive');
  if (e < _0n) return modPow(modInv(b, p), -e, p);
  if (p === _1n) return _0n;
  let base = mod(b, p);
  let result = _1n;
  while (e > _0n) {
    if (e & _1n) result = (result * base) % p;
    base = (base * base) % p;
    e >>= _1n;
  }
  return result;
}

/**
 * Inverse by the extended Euclidean algorithm rather than Fermat, so it is
 * also correct for composite moduli and doubles as the invertibility test.
 * @param {bigint} a
 * @param {bigint} p modulus, > 1
 * @returns {bigint} x in [1, p) with a*x = 1 mod p
 * @throws {RangeError} if a = 0 mod p or gcd(a, p) != 1
 */
export function modInv(a, p) {
  if (p <= _1n) throw new RangeError('modulus must be > 1');
  let r0 = p;
  let r1 = mod(a, p);
  if (r1 === _0n) throw new RangeError('inverse of zero');
  // Invariant: r_i = t_i * a (mod p); s_i is not needed.
  let t0 = _0n;
  let t1 = _1n;
  while (r1 !== _0n) {
    const q = r0 / r1;
    [r0, r1] = [r1, r0 - q * r1];
    [t0, t1] = [t1, t0 - q * t1];
  }
  if (r0 !== _1n) throw new RangeError('not invertible: gcd(a, p) != 1');
  return mod(t0, p);
}

/**
 * Legendre symbol via Euler's criterion; only meaningful for an odd prime p.
 * @param {bigint} a
 * @param {bigint} p odd prime
 * @returns {number} 0 if p | a, 1 if a is a nonzero square, -1 otherwise
 */
export function legendre(a, p) {
  const x = mod(a, p);
  if (x === _0n) return 0;
  const e = modPow(x, (p - _1n) / _2n, p);
  if (e === _1n) return 1;
  if (e === p - _1n) return -1;
  throw new RangeError('Euler criterion gave neither +1 nor -1: p is not an odd prime');
}

/**
 * Square root mod a prime. The p = 3 mod 4 case is a single exponentiation;
 * everything else goes through Tonelli–Shanks. The result is re-squared
 * before it is returned so a wrong branch can never hand back a non-root.
 * @param {bigint} a
 * @param {bigint} p prime
 * @returns {bigint | null} some root in [0, p), or null if a is not a square
 */
export function modSqrt(a, p) {
  const x = mod(a, p);
  if (x === _0n) return _0n;
  if (p === _2n) return x;
  if (legendre(x, p) !== 1) return null;
  let root;
  if (p % 4n === 3n) {
    root = modPow(x, (p + _1n) / 4n, p);
  } else {
    // p - 1 = q * 2^s with q odd.
    let q = p - _1n;
    let s = 0;
    while ((q & _1n) === _0n) {
      q >>= _1n;
      s++;
    }
    // Any non-residue z generates the 2-Sylow subgroup via z^q.
    let z = _2n;
    while (legendre(z, p) !== -1) z++;
    let m = s;
    let c = modPow(z, q, p);
    let t = modPow(x, q, p);
    let r = modPow(x, (q + _1n) / _2n, p);
    // Invariant: r^2 = x * t, and t has order dividing 2^(m-1).
    while (t !== _1n) {
      let i = 0;
      let t2 = t;
      while (t2 !== _1n) {
        t2 = (t2 * t2) % p;
        i++;
      }
      let b = c;
      for (let j = 0; j < m - i - 1; j++) b = (b * b) % p;
      m = i;
      c = (b * b) % p;
      t = (t * c) % p;
      r = (r * b) % p;
    }
    root = r;
  }
  if ((root * root) % p !== x) throw new Error('modSqrt: internal error, root does not square back');
  return root;
}

// Trial division filters almost all composites before the expensive test and
// settles small n exactly.
const SMALL_PRIMES = (() => {
  const out = [];
  for (let n = 2; n < 1000; n++) {
    let prime = true;
    for (const q of out) {
      if (q * q > n) break;
      if (n % q === 0) {
        prime = false;
        break;
      }
    }
    if (prime) out.push(n);
  }
  return out.map(BigInt);
})();

// The first 13 primes make Miller–Rabin exact for n < 3.3e24 (Sorenson &
// Webster 2015). Beyond that no fixed base set is a proof, but each extra
// independent-looking base cuts the error heuristically by 4x; 40 bases put
// accidental failure on curve moduli (up to ~1024 bits, non-adversarial)
// far below anything that matters. Fixed, not random, so tests replay.
const MR_BASES = SMALL_PRIMES.slice(0, 40);

/**
 * Miller–Rabin with a fixed base list after trial division by primes < 1000.
 * Exact below 3.3e24; for larger n a "true" answer is probabilistic evidence
 * (not a certificate), adequate for curve parameters we did not choose.
 * @param {bigint} n
 * @returns {boolean}
 */
export function isProbablePrime(n) {
  if (typeof n !== 'bigint') n = BigInt(n);
  if (n < _2n) return false;
  for (const q of SMALL_PRIMES) {
    if (n === q) return true;
    if (n % q === _0n) return false;
  }
  // Every remaining n is > 1000 and has no factor < 1000; if n < 1000^2 that proves primality.
  if (n < 1000000n) return true;
  let d = n - _1n;
  let s = 0;
  while ((d & _1n) === _0n) {
    d >>= _1n;
    s++;
  }
  const nm1 = n - _1n;
  outer: for (const a of MR_BASES) {
    let x = modPow(a, d, n);
    if (x === _1n || x === nm1) continue;
    for (let i = 1; i < s; i++) {
      x = (x * x) % n;
      if (x === nm1) continue outer;
      if (x === _1n) return false;
    }
    return false;
  }
  return true;
}

/**
 * Number of bits in |n|; 0 for 0. Sign is ignored because callers use it for
 * size bounds on signed GLV halves.
 * @param {bigint} n
 * @returns {number}
 */
export function bitLength(n) {
  if (n < _0n) n = -n;
  return n === _0n ? 0 : n.toString(2).length;
}

/**
 * Little-endian bytes to an unsigned BigInt, matching the limb order the wasm
 * side uses in linear memory.
 * @param {Uint8Array} u8
 * @returns {bigint}
 */
export function bytesToBigIntLE(u8) {
  let x = _0n;
  for (let i = u8.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(u8[i]);
  return x;
}

/**
 * Unsigned BigInt to exactly `len` little-endian bytes. Throws instead of
 * truncating, so a too-small buffer is a loud error in tests.
 * @param {bigint} x non-negative
 * @param {number} len
 * @returns {Uint8Array}
 */
export function bigIntToBytesLE(x, len) {
  if (x < _0n) throw new RangeError('negative value');
  const out = new Uint8Array(len);
  let v = x;
  for (let i = 0; i < len; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  if (v !== _0n) throw new RangeError(`value does not fit in ${len} bytes`);
  return out;
}
