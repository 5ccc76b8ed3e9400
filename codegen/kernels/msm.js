// Curve-independent MSM helpers over u32 words: signed window digits and the counting sort by bucket.
// Run time is linear in the number of (point, scalar) pairs; all variable time.

import { Func, i32, local, comment, loop, block, br, br_if, if_, select } from '../wat/index.js';

const load = (addr) => i32.load(addr);
const at4 = (base, index) => i32.add(base, i32.shl(index, i32.const(2)));

/**
 * msm_digits(out, words, stride, count, wordCount, negs, negStride, c, K, m, first, pairStride):
 * for pair i < count, scalar bits in u32 words at words + i*stride (wordCount words, little-endian), negated
 * when negs != 0 and the u32 at negs + i*negStride is 1: the K signed c-bit digits go to
 * out[k*m + first + i*pairStride] (i32). pairStride 1 gives window-major digits; prepared bases interleave
 * the GLV halves (pairStride 2) or keep a pair's windows together (m = 1, pairStride = K). A window value v > 2^(c-1) becomes v - 2^c and carries 1 up, so digits lie in
 * [-(2^(c-1) - 1), 2^(c-1)]; bits past the last word read as zero.
 */
export function msmDigits({ name = 'msm_digits' } = {}) {
  const fn = new Func(name, {
    params: [
      ['out', 'i32'], ['words', 'i32'], ['stride', 'i32'], ['count', 'i32'], ['wordCount', 'i32'],
      ['negs', 'i32'], ['negStride', 'i32'], ['c', 'i32'], ['K', 'i32'], ['m', 'i32'], ['first', 'i32'], ['pairStride', 'i32'],
    ],
    exportName: name,
    doc: `${name}(out, words, stride, count, wordCount, negs, negStride, c, K, m, first, pairStride): signed c-bit
window digits of count scalars, digit k of pair i stored at out[k*m + first + i*pairStride]. See codegen/kernels/msm.js.`,
  });
  for (const l of ['i', 'k', 'base', 'bit', 'wi', 'sh', 'v', 'x', 'carry', 'sign', 'half', 'mask', 'd', 'dst']) fn.local(l, 'i32');
  fn.push(
    local.set('half', i32.shl(i32.const(1), i32.sub(local.get('c'), i32.const(1)))),
    local.set('mask', i32.sub(i32.shl(i32.const(1), local.get('c')), i32.const(1))),
    local.set('i', i32.const(0)),
    block('pairsDone', [
      loop('pairs', [
        br_if('pairsDone', i32.ge_u(local.get('i'), local.get('count'))),
        local.set('base', i32.add(local.get('words'), i32.mul(local.get('i'), local.get('stride')))),
        local.set('sign', i32.const(0)),
        if_(local.get('negs'), [local.set('sign', load(i32.add(local.get('negs'), i32.mul(local.get('i'), local.get('negStride')))))]),
        local.set('carry', i32.const(0)),
        local.set('bit', i32.const(0)),
        local.set('k', i32.const(0)),
        local.set('dst', at4(local.get('out'), i32.add(local.get('first'), i32.mul(local.get('i'), local.get('pairStride'))))),
        block('windowsDone', [
          loop('windows', [
            br_if('windowsDone', i32.ge_u(local.get('k'), local.get('K'))),
            local.set('wi', i32.shr_u(local.get('bit'), i32.const(5))),
            local.set('sh', i32.and(local.get('bit'), i32.const(31))),
            local.set('v', local.get('carry')),
            if_(i32.lt_u(local.get('wi'), local.get('wordCount')), [
              local.set('x', i32.shr_u(load(at4(local.get('base'), local.get('wi'))), local.get('sh'))),
              comment('the window straddles two words (sh > 0 here, so the shift below is < 32)'),
              if_(
                i32.and(
                  i32.gt_u(i32.add(local.get('sh'), local.get('c')), i32.const(32)),
                  i32.lt_u(i32.add(local.get('wi'), i32.const(1)), local.get('wordCount')),
                ),
                [local.set('x', i32.or(local.get('x'), i32.shl(load(i32.add(at4(local.get('base'), local.get('wi')), i32.const(4))), i32.sub(i32.const(32), local.get('sh')))))],
              ),
              local.set('v', i32.add(local.get('v'), i32.and(local.get('x'), local.get('mask')))),
            ]),
            comment('v > 2^(c-1): digit v - 2^c, carry one into the next window'),
            local.set('carry', i32.gt_u(local.get('v'), local.get('half'))),
            local.set('d', i32.sub(local.get('v'), i32.shl(local.get('carry'), local.get('c')))),
            local.set('d', select(i32.sub(i32.const(0), local.get('d')), local.get('d'), local.get('sign'))),
            i32.store(local.get('dst'), local.get('d')),
            local.set('dst', i32.add(local.get('dst'), i32.shl(local.get('m'), i32.const(2)))),
            local.set('bit', i32.add(local.get('bit'), local.get('c'))),
            local.set('k', i32.add(local.get('k'), i32.const(1))),
            br('windows'),
          ]),
        ]),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('pairs'),
      ]),
    ]),
  );
  return fn;
}

/**
 * msm_bucketSort(digits, m, L, counts, starts, fill, entries) -> number of entries: a counting sort of the
 * pairs with a nonzero digit by bucket |digit| in 1..L. counts[l] = pairs in bucket l, starts[l] = first
 * entry of bucket l (starts[L + 1] = total); entries[] = pair index, bit 31 set when the digit is negative.
 * counts and fill hold L + 2 i32, starts L + 2.
 */
export function msmBucketSort({ name = 'msm_bucketSort' } = {}) {
  const fn = new Func(name, {
    params: [['digits', 'i32'], ['m', 'i32'], ['L', 'i32'], ['counts', 'i32'], ['starts', 'i32'], ['fill', 'i32'], ['entries', 'i32']],
    result: 'i32',
    exportName: name,
    doc: `${name}(digits, m, L, counts, starts, fill, entries): counting sort of the m digits by bucket; returns the
number of entries. See codegen/kernels/msm.js.`,
  });
  for (const l of ['i', 'd', 'a', 'slot', 'sum']) fn.local(l, 'i32');
  const abs = (x) => select(i32.sub(i32.const(0), x), x, i32.lt_s(x, i32.const(0)));
  fn.push(
    comment('counts[l] = 0 for l = 0..L+1'),
    local.set('i', i32.const(0)),
    block('zeroDone', [
      loop('zero', [
        br_if('zeroDone', i32.gt_u(local.get('i'), i32.add(local.get('L'), i32.const(1)))),
        i32.store(at4(local.get('counts'), local.get('i')), i32.const(0)),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('zero'),
      ]),
    ]),
    comment('count the pairs per bucket (bucket 0, digit zero, is counted and ignored)'),
    local.set('i', i32.const(0)),
    block('countDone', [
      loop('count', [
        br_if('countDone', i32.ge_u(local.get('i'), local.get('m'))),
        local.set('slot', at4(local.get('counts'), abs(load(at4(local.get('digits'), local.get('i')))))),
        i32.store(local.get('slot'), i32.add(load(local.get('slot')), i32.const(1))),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('count'),
      ]),
    ]),
    comment('starts[l] = sum of counts[1..l-1]; fill = starts'),
    local.set('sum', i32.const(0)),
    local.set('i', i32.const(1)),
    block('prefixDone', [
      loop('prefix', [
        br_if('prefixDone', i32.gt_u(local.get('i'), i32.add(local.get('L'), i32.const(1)))),
        i32.store(at4(local.get('starts'), local.get('i')), local.get('sum')),
        i32.store(at4(local.get('fill'), local.get('i')), local.get('sum')),
        if_(i32.le_u(local.get('i'), local.get('L')), [local.set('sum', i32.add(local.get('sum'), load(at4(local.get('counts'), local.get('i')))))]),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('prefix'),
      ]),
    ]),
    comment('place each pair at the next free entry of its bucket, sign in bit 31'),
    local.set('i', i32.const(0)),
    block('placeDone', [
      loop('place', [
        br_if('placeDone', i32.ge_u(local.get('i'), local.get('m'))),
        local.set('d', load(at4(local.get('digits'), local.get('i')))),
        if_(local.get('d'), [
          local.set('a', abs(local.get('d'))),
          local.set('slot', at4(local.get('fill'), local.get('a'))),
          i32.store(
            at4(local.get('entries'), load(local.get('slot'))),
            i32.or(local.get('i'), i32.and(local.get('d'), i32.const('0x80000000'))),
          ),
          i32.store(local.get('slot'), i32.add(load(local.get('slot')), i32.const(1))),
        ]),
        local.set('i', i32.add(local.get('i'), i32.const(1))),
        br('place'),
      ]),
    ]),
    local.get('sum'),
  );
  return fn;
}
