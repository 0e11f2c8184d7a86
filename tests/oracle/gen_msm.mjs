// Generates tests/vectors/msm_g1.txt and msm_g2.txt with @noble/curves: random
// multi-scalar multiplications (some with repeated points, zero scalars and
// scalars r-1), each line: n, then n points, then n scalars, then the sum.
// Points are raw affine coordinates, big-endian hex: G1 x||y (96 bytes), G2
// x.c0||x.c1||y.c0||y.c1 (192 bytes); infinity is all zeros. Scalars are
// 32-byte big-endian canonical values below r.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { writeFileSync } from 'node:fs';
import { splitmix64 } from './rng.mjs';

const { Fr } = bls12_381.fields;
const rand64 = splitmix64(0x5eed1234n);
const randScalar = () => (rand64() << 192n | rand64() << 128n | rand64() << 64n | rand64()) % Fr.ORDER;
const hex = (v, bytes) => v.toString(16).padStart(bytes * 2, '0');

function pointHex(P, g2) {
  if (P.equals(P.constructor.ZERO)) return '00'.repeat(g2 ? 192 : 96);
  const a = P.toAffine();
  if (!g2) return hex(a.x, 48) + hex(a.y, 48);
  return hex(a.x.c0, 48) + hex(a.x.c1, 48) + hex(a.y.c0, 48) + hex(a.y.c1, 48);
}

function gen(file, Group, g2, sizes) {
  const lines = [`# made by tests/oracle/gen_msm.mjs; fields: n, n points (affine ${g2 ? 'x.c0 x.c1 y.c0 y.c1' : 'x y'}, 0s = infinity), n scalars (BE), sum`];
  for (const n of sizes) {
    const pts = [], sc = [];
    for (let i = 0; i < n; i++) {
      const kind = Number(rand64() % 10n);
      if (i > 0 && kind === 0) pts.push(pts[Number(rand64() % BigInt(i))]); // repeat
      else if (kind === 1 && n > 2) pts.push(Group.ZERO);
      else pts.push(Group.BASE.multiply(randScalar() || 1n));
      const skind = Number(rand64() % 12n);
      sc.push(skind === 0 ? 0n : skind === 1 ? Fr.ORDER - 1n : skind === 2 ? 1n : randScalar());
    }
    let sum = Group.ZERO;
    for (let i = 0; i < n; i++) if (sc[i] !== 0n) sum = sum.add(pts[i].multiplyUnsafe(sc[i]));
    lines.push([n, ...pts.map((p) => pointHex(p, g2)), ...sc.map((s) => hex(s, 32)), pointHex(sum, g2)].join(' '));
  }
  writeFileSync(new URL(`../vectors/${file}`, import.meta.url), lines.join('\n') + '\n');
}

gen('msm_g1.txt', bls12_381.G1.Point, false, [1, 2, 3, 5, 8, 17, 33, 64, 100, 200]);
gen('msm_g2.txt', bls12_381.G2.Point, true, [1, 2, 3, 7, 20, 64]);
