// Generates the G1/G2 vectors in tests/vectors/ec_*.txt with @noble/curves:
//   ec_g{1,2}_ops.txt       group law and scalar multiplication on subgroup points
//   ec_g{1,2}_subgroup.txt  points on the curve, in the subgroup or not (noble's isTorsionFree)
//   ec_g{1,2}_encoding.txt  valid points with their zcash compressed/uncompressed bytes
//   ec_g{1,2}_invalid.txt   malformed encodings with the status a decoder must return
// Points are raw affine coordinates, big-endian hex: G1 x||y (96 bytes), G2
// x.c0||x.c1||y.c0||y.c1 (192 bytes); infinity is all zeros (the same raw form
// as gen_msm.mjs). Scalars are 32-byte big-endian canonical values below r.
// Encodings are noble's toBytes (zcash format: G2 puts c1 before c0, flags in
// byte 0). Deterministic: a fixed-seed splitmix64.
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { writeFileSync } from 'node:fs';
import { splitmix64 } from './rng.mjs';

const { Fr, Fp, Fp2 } = bls12_381.fields;
const P = Fp.ORDER, R = Fr.ORDER;
const rand64 = splitmix64(0xec0de5eedn);
const randBits = (bits) => {
  let v = 0n;
  for (let i = 0; i < bits; i += 64) v = (v << 64n) | rand64();
  return v & ((1n << BigInt(bits)) - 1n);
};
const randBelow = (m) => randBits(m.toString(2).length + 64) % m;
const randInt = (n) => Number(rand64() % BigInt(n));
const hex = (v, bytes) => v.toString(16).padStart(bytes * 2, '0');
const bhex = (b) => Buffer.from(b).toString('hex');
const fromHex = (h) => Uint8Array.from(Buffer.from(h, 'hex'));

// One description per group, so every generator below runs on both.
const groups = [
  {
    name: 'g1', Point: bls12_381.G1.Point, F: Fp, W: 48, b: 4n,
    randF: () => randBelow(P),
    raw(a) { return hex(a.x, 48) + hex(a.y, 48); },
    // zcash field order inside an encoding: one 48-byte big-endian block
    fieldBlocks: (v) => [v],
    fromBlocks: (blocks) => blocks[0],
    // sort bit: y > (p-1)/2
    sign: (y) => (2n * y) / P === 1n,
  },
  {
    name: 'g2', Point: bls12_381.G2.Point, F: Fp2, W: 96, b: Fp2.fromBigTuple([4n, 4n]),
    randF: () => Fp2.fromBigTuple([randBelow(P), randBelow(P)]),
    raw(a) { return hex(a.x.c0, 48) + hex(a.x.c1, 48) + hex(a.y.c0, 48) + hex(a.y.c1, 48); },
    fieldBlocks: (v) => [v.c1, v.c0],
    fromBlocks: (blocks) => Fp2.fromBigTuple([blocks[1], blocks[0]]),
    // sort bit decided on c1, or on c0 when c1 = 0
    sign: (y) => (y.c1 !== 0n ? (2n * y.c1) / P === 1n : (2n * y.c0) / P === 1n),
  },
];

function rawOf(G, Pt) {
  if (Pt.is0()) return '00'.repeat(2 * G.W);
  return G.raw(Pt.toAffine());
}

// Integer multiple by double-and-add, valid for any point on the curve (noble's
// multiply may use endomorphisms that only hold in the subgroup).
function mulPlain(Pt, k) {
  let acc = Pt.constructor.ZERO;
  for (let i = BigInt(k.toString(2).length) - 1n; i >= 0n; i--) {
    acc = acc.double();
    if ((k >> i) & 1n) acc = acc.add(Pt);
  }
  return acc;
}

// A point on the curve with a random x, cofactor NOT cleared.
function randomCurvePoint(G) {
  for (;;) {
    const x = G.randF();
    const rhs = G.F.add(G.F.mul(G.F.sqr(x), x), G.b);
    let y;
    try {
      y = G.F.sqrt(rhs);
    } catch {
      continue;
    }
    if (y === undefined) continue;
    if (randInt(2)) y = G.F.neg(y);
    return G.Point.fromAffine({ x, y });
  }
}

const randScalar = () => randBelow(R);
function edgeScalar(i) {
  const small = [0n, 1n, 2n, 3n, 4n, 5n, 7n, 15n, 16n, 17n, 255n, 256n, 65535n];
  const list = [...small, R - 1n, R - 2n, R - 3n, (R - 1n) / 2n, (R + 1n) / 2n, 1n << 254n,
    (1n << 128n) - 1n, 1n << 64n, 0xd201000000010000n];
  return list[i % list.length];
}

function header(file, text) {
  return [`# made by tests/oracle/gen_ec.mjs (${file}); ${text}`];
}

function write(file, lines) {
  writeFileSync(new URL(`../vectors/${file}`, import.meta.url), lines.join('\n') + '\n');
}

// ---- group law and scalar multiplication ----
function genOps(G, count) {
  const file = `ec_${G.name}_ops.txt`;
  const lines = header(file, 'fields: P Q P+Q 2P -P k k*P (raw affine points, 0s = infinity; k 32-byte BE < r). ' +
    'Cases include Q = P, Q = -P, infinity operands, and edge scalars.');
  const Base = G.Point.BASE, Zero = G.Point.ZERO;
  for (let i = 0; i < count; i++) {
    let A = Base.multiply(randScalar() || 1n);
    let B;
    switch (i % 10) {
    case 0: B = A; break;            // doubling through add
    case 1: B = A.negate(); break;   // P + (-P) = O
    case 2: B = A; A = Zero; break;  // O + P
    case 3: B = Zero; break;         // P + O
    case 4: if (i % 20 === 4) { A = Zero; B = Zero; } else { A = Base; B = Base.double(); } break;
    default: B = Base.multiply(randScalar() || 1n);
    }
    const k = i % 3 === 0 ? edgeScalar(i / 3) : randScalar();
    const kA = A.multiplyUnsafe(k);
    lines.push([rawOf(G, A), rawOf(G, B), rawOf(G, A.add(B)), rawOf(G, A.double()),
      rawOf(G, A.negate()), hex(k, 32), rawOf(G, kA)].join(' '));
  }
  write(file, lines);
}

// ---- subgroup membership ----
function genSubgroup(G, nRandom, nSub, nTorsion) {
  const file = `ec_${G.name}_subgroup.txt`;
  const lines = header(file, 'fields: point (raw affine, on the curve) in_subgroup (1/0 from noble isTorsionFree). ' +
    'Random-x points (cofactor not cleared), cofactor-cleared points, and r*P points (order divides the cofactor).');
  const emit = (Pt, expect) => {
    const t = Pt.isTorsionFree();
    if (expect !== undefined && t !== expect) throw new Error(`${file}: unexpected torsion status`);
    lines.push([rawOf(G, Pt), t ? '1' : '0'].join(' '));
  };
  for (let i = 0; i < nRandom; i++) emit(randomCurvePoint(G), false);
  for (let i = 0; i < nSub; i++) emit(randomCurvePoint(G).clearCofactor(), true);
  for (let i = 0; i < nTorsion; i++) {
    const T = mulPlain(randomCurvePoint(G), R);
    if (!T.is0()) emit(T, false);
  }
  write(file, lines);
}

// ---- valid encodings ----
function genEncoding(G, count) {
  const file = `ec_${G.name}_encoding.txt`;
  const lines = header(file, 'fields: point (raw affine) compressed uncompressed (noble toBytes). ' +
    'Generator, -generator, infinity, then random subgroup points.');
  const pts = [G.Point.BASE, G.Point.BASE.negate(), G.Point.ZERO];
  for (let i = 0; i < count; i++) pts.push(G.Point.BASE.multiply(randScalar() || 1n));
  for (const Pt of pts) {
    const c = Pt.toBytes(true), u = Pt.toBytes(false);
    if (!G.Point.fromBytes(c).equals(Pt) || !G.Point.fromBytes(u).equals(Pt))
      throw new Error(`${file}: noble round trip failed`);
    lines.push([rawOf(G, Pt), bhex(c), bhex(u)].join(' '));
  }
  write(file, lines);
}

// ---- malformed encodings ----
// Our own encoder (the zcash rules), used to build bytes for points noble
// will not encode (not in the subgroup) and to corrupt single fields.
function encodeRaw(G, x, y, { compressed, infinity = false, sort = false }) {
  const blocks = G.fieldBlocks(x).concat(compressed ? [] : G.fieldBlocks(y));
  const out = new Uint8Array(48 * blocks.length);
  blocks.forEach((v, i) => out.set(fromHex(hex(v, 48)), 48 * i));
  out[0] |= (compressed ? 0x80 : 0) | (infinity ? 0x40 : 0) | (sort ? 0x20 : 0);
  return out;
}
function encodePoint(G, Pt, compressed) {
  const a = Pt.toAffine();
  return encodeRaw(G, a.x, a.y, { compressed, sort: compressed && G.sign(a.y) });
}
// Replaces the 48-byte big-endian block `block` by the value v (flags of
// block 0 are kept: v must be < 2^381 there).
function withBlock(bytes, block, v) {
  const out = Uint8Array.from(bytes);
  const flags = out[0] & 0xe0;
  out.set(fromHex(hex(v, 48)), 48 * block);
  if (block === 0) out[0] |= flags;
  return out;
}
const blockValue = (bytes, block) => BigInt('0x' + bhex(bytes.subarray(48 * block, 48 * block + 48))) & ((1n << 381n) - 1n);

function genInvalid(G) {
  const file = `ec_${G.name}_invalid.txt`;
  const lines = header(file, 'fields: encoding status point. status is what a fully checking decoder ' +
    'returns (PARSE, RANGE, NOT_ON_CURVE, NOT_IN_SUBGROUP); point is the raw affine point an ' +
    'unchecked (no subgroup check) decoder returns for NOT_IN_SUBGROUP, else "-". Each encoding ' +
    'has exactly one defect; noble fromBytes rejects every one of them.');
  const W = G.W;
  const emit = (bytes, status, point = '-', what = '') => {
    let rejected = false;
    try {
      G.Point.fromBytes(bytes);
    } catch {
      rejected = true;
    }
    if (!rejected) throw new Error(`${file}: noble accepted the ${what} case`);
    lines.push([bhex(bytes), status, point].join(' '));
  };
  const zeros = (n) => new Uint8Array(n);
  // infinity with garbage
  for (const compressed of [true, false]) {
    const len = compressed ? W : 2 * W;
    const inf = zeros(len);
    inf[0] = compressed ? 0xc0 : 0x40;
    const s = Uint8Array.from(inf);
    s[0] |= 0x20;
    emit(s, 'PARSE', '-', 'infinity + sort');
    for (let i = 0; i < 6; i++) {
      const g = Uint8Array.from(inf);
      const pos = i === 0 ? 0 : i === 1 ? len - 1 : i === 2 ? 1 : 1 + randInt(len - 1);
      g[pos] |= pos === 0 ? 1 + randInt(31) : 1 + randInt(255);
      emit(g, 'PARSE', '-', 'infinity + garbage');
    }
  }
  // wrong compression flag for the length, sort bit in uncompressed form
  for (let i = 0; i < 6; i++) {
    const Pt = G.Point.BASE.multiply(randScalar() || 1n);
    const c = Pt.toBytes(true), u = Pt.toBytes(false);
    const c0 = Uint8Array.from(c);
    c0[0] &= 0x7f;
    emit(c0, 'PARSE', '-', 'compressed without flag');
    const u1 = Uint8Array.from(u);
    u1[0] |= 0x80;
    emit(u1, 'PARSE', '-', 'uncompressed with flag');
    const u2 = Uint8Array.from(u);
    u2[0] |= 0x20;
    emit(u2, 'PARSE', '-', 'uncompressed with sort');
  }
  // zero payload without the infinity flag: (0, 0) is not on the curve
  emit(zeros(2 * W), 'NOT_ON_CURVE', '-', 'uncompressed zeros');
  // coordinates >= p, in every block
  const big = [P, P + 1n, P + randBelow((1n << 381n) - P), (1n << 381n) - 1n];
  for (const compressed of [true, false]) {
    const nblocks = (compressed ? W : 2 * W) / 48;
    for (let block = 0; block < nblocks; block++) {
      for (const v of big) {
        const Pt = G.Point.BASE.multiply(randScalar() || 1n);
        emit(withBlock(Pt.toBytes(compressed), block, v), 'RANGE', '-', 'x >= p');
      }
      // a canonical coordinate plus p, where that still fits in 381 bits
      for (let tries = 0; tries < 100; tries++) {
        const Pt = G.Point.BASE.multiply(randScalar() || 1n);
        const bytes = Pt.toBytes(compressed);
        const v = blockValue(bytes, block) + P;
        if (v < 1n << 381n) {
          emit(withBlock(bytes, block, v), 'RANGE', '-', 'v + p');
          break;
        }
      }
    }
  }
  // compressed x whose x^3 + b is not a square
  for (let n = 0; n < 8;) {
    const x = G.randF();
    const rhs = G.F.add(G.F.mul(G.F.sqr(x), x), G.b);
    let square = true;
    try {
      if (G.F.sqrt(rhs) === undefined) square = false;
    } catch {
      square = false;
    }
    if (square) continue;
    emit(encodeRaw(G, x, G.F.ZERO, { compressed: true, sort: n % 2 === 1 }), 'NOT_ON_CURVE', '-', 'no sqrt');
    n++;
  }
  // uncompressed points off the curve: random (x, y) and a valid point with y + 1
  for (let i = 0; i < 8; i++) {
    let x, y;
    if (i % 2) {
      x = G.randF();
      y = G.randF();
    } else {
      const a = G.Point.BASE.multiply(randScalar() || 1n).toAffine();
      x = a.x;
      y = G.F.add(a.y, G.F.ONE);
    }
    emit(encodeRaw(G, x, y, { compressed: false }), 'NOT_ON_CURVE', '-', 'off curve');
  }
  // on the curve, not in the subgroup (random x, and pure torsion r*P)
  for (let i = 0; i < 10; i++) {
    let Pt = randomCurvePoint(G);
    if (i >= 8) Pt = mulPlain(Pt, R);
    if (Pt.is0() || Pt.isTorsionFree()) continue;
    emit(encodePoint(G, Pt, true), 'NOT_IN_SUBGROUP', rawOf(G, Pt), 'non-subgroup compressed');
    emit(encodePoint(G, Pt, false), 'NOT_IN_SUBGROUP', rawOf(G, Pt), 'non-subgroup uncompressed');
  }
  // x = 0 (compressed, both signs): on the curve when b is a square; noble decides the subgroup
  for (const sort of [false, true]) {
    const bytes = encodeRaw(G, G.F.ZERO, G.F.ZERO, { compressed: true, sort });
    let y;
    try {
      y = G.F.sqrt(G.b);
    } catch {
      y = undefined;
    }
    if (y === undefined) {
      emit(bytes, 'NOT_ON_CURVE', '-', 'x = 0');
      continue;
    }
    if (G.sign(y) !== sort) y = G.F.neg(y);
    const Pt = G.Point.fromAffine({ x: G.F.ZERO, y });
    if (Pt.isTorsionFree()) throw new Error('x = 0 point unexpectedly in the subgroup');
    emit(bytes, 'NOT_IN_SUBGROUP', rawOf(G, Pt), 'x = 0');
  }
  write(file, lines);
}

// The encoder above must agree with noble's on subgroup points.
for (const G of groups) {
  for (let i = 0; i < 20; i++) {
    const Pt = G.Point.BASE.multiply(randScalar() || 1n);
    for (const c of [true, false])
      if (bhex(encodePoint(G, Pt, c)) !== bhex(Pt.toBytes(c))) throw new Error('encoder mismatch');
  }
}

genOps(groups[0], 400);
genOps(groups[1], 300);
genSubgroup(groups[0], 48, 24, 12);
genSubgroup(groups[1], 48, 24, 12);
genEncoding(groups[0], 200);
genEncoding(groups[1], 120);
genInvalid(groups[0]);
genInvalid(groups[1]);
