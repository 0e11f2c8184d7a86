// Known-answer vectors for the Fp2 / Fp6 / Fp12 tower of BLS12-381, from
// @noble/curves. Deterministic: the inputs come from SHA-256 of a fixed seed
// and a counter. Run from tests/oracle: `node gen_tower.mjs`; writes
// tests/vectors/tower_{fp2,fp6,fp12,fp12_frob,fp12_cyclo}.txt.
//
// Encoding (matching cz_fp6_to_bytes / cz_fp12_to_bytes): every Fp coefficient
// is 48 bytes big-endian; Fp2 = c0 || c1, Fp6 = c0 || c1 || c2 (Fp2 each),
// Fp12 = c0 || c1 (Fp6 each), all as lowercase hex. The inverse of 0 is
// written as 0 (cuzk's convention; noble throws).
import { writeFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const { Fp, Fp2, Fp6, Fp12 } = bls12_381.fields;
const p = Fp.ORDER;
const OUT = new URL('../vectors/', import.meta.url);

let counter = 0;
const SEED = 'cuzk tower vectors v1';
function randBig(bytes) {
  let hex = '';
  while (hex.length < 2 * bytes) {
    const h = sha256(new TextEncoder().encode(SEED + ' ' + counter++));
    hex += Buffer.from(h).toString('hex');
  }
  return BigInt('0x' + hex.slice(0, 2 * bytes));
}
const randFp = () => randBig(64) % p;
const randFp2 = () => Fp2.fromBigTuple([randFp(), randFp()]);
const randFp6 = () => Fp6.fromBigSix(Array.from({ length: 6 }, randFp));
const randFp12 = () => Fp12.fromBigTwelve(Array.from({ length: 12 }, randFp));

const hexFp = (x) => x.toString(16).padStart(96, '0');
const hexFp2 = (a) => hexFp(a.c0) + hexFp(a.c1);
const hexFp6 = (a) => hexFp2(a.c0) + hexFp2(a.c1) + hexFp2(a.c2);
const hexFp12 = (a) => hexFp6(a.c0) + hexFp6(a.c1);

const inv = (F, a) => (F.is0(a) ? F.ZERO : F.inv(a));

function write(name, header, lines) {
  const text = header.map((h) => '# ' + h).join('\n') + '\n' + lines.join('\n') + '\n';
  writeFileSync(new URL(name, OUT), text);
  console.log(`${name}: ${lines.length} cases, ${text.length} bytes`);
}

// Inputs: edge cases first, then random ones.
function inputs(F, rand, n) {
  const out = [
    [F.ZERO, F.ZERO],
    [F.ZERO, rand()],
    [F.ONE, F.ONE],
    [F.ONE, rand()],
    [rand(), F.ONE],
    [F.neg(F.ONE), rand()],
  ];
  while (out.length < n) out.push([rand(), rand()]);
  return out;
}

// Fp2: a b a*b a^2 a^-1 sqrt(a)|-. Every other random a is made a square, so
// both answers of the square-root test occur; a square is a square in Fp2
// exactly when its norm c0^2 + c1^2 is a square in Fp.
{
  const lines = [];
  inputs(Fp2, randFp2, 300).forEach(([a, b], i) => {
    if (i >= 6 && i % 2 === 0) a = Fp2.sqr(a);
    const norm = Fp.add(Fp.sqr(a.c0), Fp.sqr(a.c1));
    const isSquare = Fp.is0(norm) || Fp.pow(norm, (p - 1n) / 2n) === 1n;
    const root = isSquare ? hexFp2(Fp2.sqrt(a)) : '-';
    lines.push([a, b, Fp2.mul(a, b), Fp2.sqr(a), inv(Fp2, a)].map(hexFp2).join(' ') + ' ' + root);
  });
  write('tower_fp2.txt', [
    'Made by tests/oracle/gen_tower.mjs (@noble/curves 2.4.0). Fp2 = Fp[u]/(u^2 + 1).',
    'Fields: a b a*b a^2 a^-1 sqrt(a) (any root; "-" when a is not a square). Fp2 = c0||c1, 48-byte BE each.',
  ], lines);
}

// Fp6: a b a*b a^2 a^-1 a^p a^(p^2) a^(p^3) a*(b0 + b1 v) a*(b1 v)
{
  const lines = [];
  for (const [a, b] of inputs(Fp6, randFp6, 200)) {
    const outs = [a, b, Fp6.mul(a, b), Fp6.sqr(a), inv(Fp6, a)];
    for (let k = 1; k <= 3; k++) outs.push(Fp6.frobeniusMap(a, k));
    outs.push(Fp6.mul01(a, b.c0, b.c1), Fp6.mul1(a, b.c1));
    lines.push(outs.map(hexFp6).join(' '));
  }
  write('tower_fp6.txt', [
    'Made by tests/oracle/gen_tower.mjs (@noble/curves 2.4.0). Fp6 = Fp2[v]/(v^3 - (1 + u)).',
    'Fields: a b a*b a^2 a^-1 a^p a^(p^2) a^(p^3) a*(b.c0 + b.c1 v) a*(b.c1 v).',
    'Fp6 = c0||c1||c2 (Fp2 = c0||c1, 48-byte BE Fp each).',
  ], lines);
}

// Fp12: a b a*b a^2 a^-1
{
  const lines = [];
  for (const [a, b] of inputs(Fp12, randFp12, 200))
    lines.push([a, b, Fp12.mul(a, b), Fp12.sqr(a), inv(Fp12, a)].map(hexFp12).join(' '));
  write('tower_fp12.txt', [
    'Made by tests/oracle/gen_tower.mjs (@noble/curves 2.4.0). Fp12 = Fp6[w]/(w^2 - v).',
    'Fields: a b a*b a^2 a^-1. Fp12 = c0||c1 (Fp6 each; see tower_fp6.txt), 576 bytes.',
  ], lines);
}

// Fp12 Frobenius: a a^p a^(p^2) ... a^(p^11) and conjugate(a)
{
  const lines = [];
  for (let i = 0; i < 60; i++) {
    const a = i === 0 ? Fp12.ONE : randFp12();
    const outs = [a];
    for (let k = 1; k <= 11; k++) outs.push(Fp12.frobeniusMap(a, k));
    outs.push(Fp12.conjugate(a));
    lines.push(outs.map(hexFp12).join(' '));
  }
  write('tower_fp12_frob.txt', [
    'Made by tests/oracle/gen_tower.mjs (@noble/curves 2.4.0).',
    'Fields: a, a^(p^k) for k = 1..11, conjugate(a) = c0 - c1 w. Fp12 encoding as in tower_fp12.txt.',
  ], lines);
}

// Cyclotomic subgroup and the final exponentiation:
// a, g = a^((p^6 - 1)(p^2 + 1)), g^2, finalExponentiate(a) (= a^(3 (p^12 - 1) / r) in noble)
{
  const lines = [];
  for (let i = 0; i < 40; i++) {
    const a = i === 0 ? Fp12.ONE : randFp12();
    let g = Fp12.mul(Fp12.conjugate(a), Fp12.inv(a));
    g = Fp12.mul(Fp12.frobeniusMap(g, 2), g);
    lines.push([a, g, Fp12.sqr(g), Fp12.finalExponentiate(a)].map(hexFp12).join(' '));
  }
  write('tower_fp12_cyclo.txt', [
    'Made by tests/oracle/gen_tower.mjs (@noble/curves 2.4.0).',
    'Fields: a, g = a^((p^6 - 1)(p^2 + 1)) (in the cyclotomic subgroup), g^2 (plain square),',
    'finalExponentiate(a) (noble; equals a^(3 (p^12 - 1) / r)). Fp12 encoding as in tower_fp12.txt.',
  ], lines);
}
