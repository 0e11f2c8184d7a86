// Known-answer vectors for the BLS12-381 optimal ate pairing, from
// @noble/curves. Deterministic: scalars come from SHA-256 of a fixed seed and
// a counter. Run from tests/oracle: `node gen_pairing.mjs`; writes
// tests/vectors/pairing_{random,multi}.txt.
//
// Encoding: scalars 32 bytes big-endian; a G1 point x || y and a G2 point
// x.c0 || x.c1 || y.c0 || y.c1 (affine, 48-byte big-endian Fp each, the
// generic tower order, not the c1-first wire format); GT elements as in
// tests/vectors/tower_fp12.txt (twelve 48-byte BE coefficients, c0.c0.c0 first).
// noble's pairing is f^(3 (p^12 - 1) / r) (its final exponentiation chain), the
// same value cuzk computes.
import { writeFileSync } from 'node:fs';
import { sha256 } from '@noble/hashes/sha2.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const { Fp12 } = bls12_381.fields;
const r = bls12_381.fields.Fr.ORDER;
const G1 = bls12_381.G1.Point.BASE;
const G2 = bls12_381.G2.Point.BASE;
const OUT = new URL('../vectors/', import.meta.url);

let counter = 0;
const SEED = 'cuzk pairing vectors v1';
function randScalar() {
  const h = sha256(new TextEncoder().encode(SEED + ' ' + counter++));
  const k = BigInt('0x' + Buffer.from(h).toString('hex')) % r;
  return k === 0n ? 1n : k;
}

const hexN = (x, bytes) => x.toString(16).padStart(2 * bytes, '0');
const hexFp = (x) => hexN(x, 48);
const hexFp2 = (a) => hexFp(a.c0) + hexFp(a.c1);
const hexFp6 = (a) => hexFp2(a.c0) + hexFp2(a.c1) + hexFp2(a.c2);
const hexFp12 = (a) => hexFp6(a.c0) + hexFp6(a.c1);
const hexG1 = (P) => {
  const { x, y } = P.toAffine();
  return hexFp(x) + hexFp(y);
};
const hexG2 = (Q) => {
  const { x, y } = Q.toAffine();
  return hexFp2(x) + hexFp2(y);
};

function write(name, header, lines) {
  const text = header.map((h) => '# ' + h).join('\n') + '\n' + lines.join('\n') + '\n';
  writeFileSync(new URL(name, OUT), text);
  console.log(`${name}: ${lines.length} cases, ${text.length} bytes`);
}

// Single pairings: a b aG1 bG2 e(aG1, bG2). The first case is a = b = 1.
{
  const lines = [];
  for (let i = 0; i < 32; i++) {
    const a = i === 0 ? 1n : randScalar();
    const b = i === 0 ? 1n : i === 1 ? r - 1n : randScalar();
    const P = G1.multiply(a), Q = G2.multiply(b);
    const e = bls12_381.pairing(P, Q);
    lines.push([hexN(a, 32), hexN(b, 32), hexG1(P), hexG2(Q), hexFp12(e)].join(' '));
  }
  write('pairing_random.txt', [
    'Made by tests/oracle/gen_pairing.mjs (@noble/curves 2.4.0).',
    'Fields: a b P = a*G1 Q = b*G2 e(P, Q). Scalars 32-byte BE; P = x||y; Q = x.c0||x.c1||y.c0||y.c1;',
    'Fp 48-byte BE; e as twelve Fp coefficients c0.c0.c0 .. c1.c2.c1 (noble: f^(3(p^12-1)/r)).',
  ], lines);
}

// Multi-pairings: n, then n pairs P_i Q_i, then prod e(P_i, Q_i) (noble's pairingBatch).
{
  const lines = [];
  for (let n = 1; n <= 12; n++) {
    const fields = [String(n)];
    const pairs = [];
    for (let i = 0; i < n; i++) {
      const P = G1.multiply(randScalar()), Q = G2.multiply(randScalar());
      pairs.push({ g1: P, g2: Q });
      fields.push(hexG1(P), hexG2(Q));
    }
    fields.push(hexFp12(bls12_381.pairingBatch(pairs)));
    lines.push(fields.join(' '));
  }
  write('pairing_multi.txt', [
    'Made by tests/oracle/gen_pairing.mjs (@noble/curves 2.4.0).',
    'Fields: n (decimal), then n pairs P_i Q_i, then prod_i e(P_i, Q_i) (noble pairingBatch).',
    'Encodings as in pairing_random.txt.',
  ], lines);
}
