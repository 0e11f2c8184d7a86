// Generates tests/vectors/field_fp.txt and field_fr.txt with @noble/curves:
// per line a, b (big-endian canonical hex) then a+b, a-b, a*b, a^2, -a,
// a^-1 (0 for a = 0), legendre(a) as 1/0/-1 ("1", "0", "m"), and a^e for a
// 64-bit exponent e (hex). The first lines are edge cases (0, 1, p-1, 2).
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { writeFileSync } from 'node:fs';
import { splitmix64 } from './rng.mjs';

const rand64 = splitmix64(0xf1e1dn);

function gen(file, F, bytes, count) {
  const hex = (v) => v.toString(16).padStart(bytes * 2, '0');
  const rand = () => {
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 64n) | rand64();
    return F.create(v);
  };
  const edge = [0n, 1n, F.ORDER - 1n, 2n, F.ORDER - 2n, (F.ORDER - 1n) / 2n, (F.ORDER + 1n) / 2n];
  const lines = [`# made by tests/oracle/gen_field.mjs: a b a+b a-b a*b a^2 -a a^-1 legendre(a) e a^e`];
  for (let i = 0; i < count; i++) {
    const a = i < edge.length ? edge[i] : rand();
    const b = i < edge.length ? edge[(i + 3) % edge.length] : rand();
    const leg = a === 0n ? '0' : F.eql(F.pow(a, (F.ORDER - 1n) / 2n), F.ONE) ? '1' : 'm';
    const e = rand64();
    lines.push([a, b, F.add(a, b), F.sub(a, b), F.mul(a, b), F.sqr(a), F.neg(a),
      a === 0n ? 0n : F.inv(a)].map(hex).concat([leg, e.toString(16).padStart(16, '0'), hex(F.pow(a, e))]).join(' '));
  }
  writeFileSync(new URL(`../vectors/${file}`, import.meta.url), lines.join('\n') + '\n');
}

gen('field_fp.txt', bls12_381.fields.Fp, 48, 500);
gen('field_fr.txt', bls12_381.fields.Fr, 32, 500);
