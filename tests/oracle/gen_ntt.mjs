// Generates tests/vectors/ntt_fr.txt with @noble/curves' FFT over the
// BLS12-381 scalar field, using bellperson's roots: generator 7, so the
// 2^k-th root is (7^((r-1)/2^32))^(2^(32-k)). Random inputs of size 2^k for
// k = 0..10, one line per element, natural order everywhere:
//   k index input forward inverse coset_forward coset_inverse
// forward X_j = sum x_i w^ij; inverse = noble's inverse (with 1/n);
// coset forward = forward of x_i 7^i; coset inverse = inverse, then 7^-i.
// Values are 32-byte big-endian canonical hex.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { FFT, rootsOfUnity } from '@noble/curves/abstract/fft.js';
import { writeFileSync } from 'node:fs';
import { splitmix64 } from './rng.mjs';

const { Fr } = bls12_381.fields;
const rand64 = splitmix64(0x4e7712n);
const randScalar = () => (rand64() << 192n | rand64() << 128n | rand64() << 64n | rand64()) % Fr.ORDER;
const hex = (v) => v.toString(16).padStart(64, '0');

const roots = rootsOfUnity(Fr, 7n);
const fft = FFT(roots, Fr);
const G = 7n, Ginv = Fr.inv(7n);
const lines = ['# made by tests/oracle/gen_ntt.mjs (@noble/curves FFT, generator 7); fields: k, index i,',
  '# x_i, forward_i, inverse_i, coset_forward_i, coset_inverse_i (natural order, 32-byte BE)'];
for (let k = 0; k <= 10; k++) {
  const n = 1 << k;
  const x = Array.from({ length: n }, () => randScalar());
  const fwd = fft.direct(x);
  const inv = fft.inverse(x);
  let gp = 1n;
  const xs = x.map((v) => { const r = Fr.mul(v, gp); gp = Fr.mul(gp, G); return r; });
  const cfwd = fft.direct(xs);
  gp = 1n;
  const cinv = inv.map((v) => { const r = Fr.mul(v, gp); gp = Fr.mul(gp, Ginv); return r; });
  // sanity: noble's root for this size is a primitive 2^k-th root, as bellperson's
  const w = roots.omega(k);
  let t = w;
  for (let i = 0; i < k; i++) t = Fr.sqr(t);
  if (t !== 1n || (k > 0 && Fr.pow(w, BigInt(n / 2)) !== Fr.ORDER - 1n)) throw new Error('bad root');
  for (let i = 0; i < n; i++)
    lines.push(`${k} ${i} ${hex(x[i])} ${hex(fwd[i])} ${hex(inv[i])} ${hex(cfwd[i])} ${hex(cinv[i])}`);
}
writeFileSync(new URL('../vectors/ntt_fr.txt', import.meta.url), lines.join('\n') + '\n');
console.log('wrote ntt_fr.txt:', lines.length - 2, 'lines');
