// snarkjs as an independent oracle for circuits and witnesses that cuzk
// exports in iden3's binary formats (src/r1cs/export.h), and for its Groth16
// verifier. Used by tests/interop/test_groth16_interop.c.
//
//   node snarkjs_roundtrip.mjs DIR SPEC [SPEC ...]
//
// SPEC is one of
//   check:NAME    `snarkjs wtns check` of DIR/NAME.r1cs against DIR/NAME.wtns
//                 (must hold) and DIR/NAME.bad.wtns (a corrupted witness)
//   groth16:NAME  the same check, then snarkjs's Groth16 on the circuit:
//                 powers of tau for bls12381 (one ceremony for all circuits,
//                 the smallest power they need, a beacon contribution so the
//                 run is deterministic, phase 2 prepared), a zkey with a
//                 phase-2 beacon contribution, a proof from DIR/NAME.wtns,
//                 snarkjs's own verification (and with a wrong public input),
//                 and the conversion to cuzk's formats:
//                   DIR/NAME.snarkjs.vk      bellperson vk layout (verify_noble.mjs)
//                   DIR/NAME.snarkjs.proof   192 bytes, A || B || C compressed
//                   DIR/NAME.snarkjs.inputs  public signals, 64 hex digits a line
//                 (DIR/NAME.snarkjs.{vk,proof,public}.json keep the originals).
//
// Prints one line per result for the C test to check:
//   wtns_check NAME good 0|1
//   wtns_check NAME bad 0|1
//   snarkjs_verify NAME 0|1
//   snarkjs_verify_wrong_input NAME 0|1
//   converted NAME
// and "time <what> <ms>" lines. Exits 2 when something fails to run (a thrown
// error), 0 otherwise: the verdicts are judged by the caller.
//
// Conversion. snarkjs's verification key has alpha_1, beta_2, gamma_2,
// delta_2 and IC; cuzk's layout also holds beta_1 and delta_1 (not used by
// the verifier), taken from the zkey's header. Coordinates are decimal
// strings of affine (x, y, 1) points, G2 coordinates as [c0, c1]; noble
// encodes them (uncompressed for the vk, compressed for the proof, the zcash
// format in both). snarkjs's check is
//   e(-A, B) e(cpub, gamma) e(C, delta) e(alpha, beta) = 1,
// i.e. e(A, B) = e(alpha, beta) e(cpub, gamma) e(C, delta) with
// cpub = IC[0] + sum_i public_i IC[i + 1]: the same equation and the same
// roles as cuzk's (bellperson's) verifier, so no sign or order conversion is
// needed; snarkjs's C carries -r s delta_1 just as bellperson's does.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as snarkjs from 'snarkjs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;

const BEACON = '63757a6b2d696e7465726f702d626561636f6e2d30303031'; // "cuzk-interop-beacon-0001"
const BEACON_ITERATIONS_EXP = 10; // snarkjs's minimum: 1024 SHA-256 rounds

const quiet = { info() {}, warn() {}, error() {}, debug() {}, log() {} };
const started = Date.now();
let lap = Date.now();
function time(what) {
  const now = Date.now();
  console.log(`time ${what} ${now - lap}`);
  lap = now;
}

// The header of an iden3 .r1cs file, parsed here (not by snarkjs) to size the
// ceremony: binfile preamble, then section 1.
function r1csHeader(path) {
  const b = readFileSync(path);
  if (b.subarray(0, 4).toString('latin1') !== 'r1cs') throw new Error(`${path}: not an r1cs file`);
  const nSections = b.readUInt32LE(8);
  let off = 12;
  for (let i = 0; i < nSections; i++) {
    const type = b.readUInt32LE(off);
    const size = Number(b.readBigUInt64LE(off + 4));
    off += 12;
    if (type === 1) {
      const n8 = b.readUInt32LE(off);
      const p = off + 4 + n8;
      return {
        nWires: b.readUInt32LE(p),
        nPubOut: b.readUInt32LE(p + 4),
        nPubIn: b.readUInt32LE(p + 8),
        nConstraints: b.readUInt32LE(p + 24),
      };
    }
    off += size;
  }
  throw new Error(`${path}: no header section`);
}

// snarkjs's domain for a circuit: its constraints plus one per public signal
// and ONE (zkey_new.js).
function circuitPower(h) {
  const n = h.nConstraints + h.nPubOut + h.nPubIn + 1;
  let k = 0;
  while (2 ** k < n) k++;
  return k;
}

const g1FromJson = (p) => {
  if (BigInt(p[2]) !== 1n) throw new Error('expected an affine G1 point (z = 1)');
  const P = G1.fromAffine({ x: BigInt(p[0]), y: BigInt(p[1]) });
  P.assertValidity();
  return P;
};
const g2FromJson = (p) => {
  if (BigInt(p[2][0]) !== 1n || BigInt(p[2][1]) !== 0n)
    throw new Error('expected an affine G2 point (z = 1)');
  const fp2 = (c) => ({ c0: BigInt(c[0]), c1: BigInt(c[1]) });
  const P = G2.fromAffine({ x: fp2(p[0]), y: fp2(p[1]) });
  P.assertValidity();
  return P;
};

function u32be(n) {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

// cuzk's vk: alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 u32 n_ic ic[]
function vkBytes(vk, zkeyJson) {
  const parts = [
    g1FromJson(vk.vk_alpha_1).toBytes(false),
    g1FromJson(zkeyJson.vk_beta_1).toBytes(false),
    g2FromJson(vk.vk_beta_2).toBytes(false),
    g2FromJson(vk.vk_gamma_2).toBytes(false),
    g1FromJson(zkeyJson.vk_delta_1).toBytes(false),
    g2FromJson(vk.vk_delta_2).toBytes(false),
    u32be(vk.IC.length),
    ...vk.IC.map((p) => g1FromJson(p).toBytes(false)),
  ];
  return Buffer.concat(parts.map((p) => Buffer.from(p)));
}

function proofBytes(proof) {
  const parts = [
    g1FromJson(proof.pi_a).toBytes(true),
    g2FromJson(proof.pi_b).toBytes(true),
    g1FromJson(proof.pi_c).toBytes(true),
  ];
  return Buffer.concat(parts.map((p) => Buffer.from(p)));
}

async function wtnsCheck(dir, name) {
  const r1cs = join(dir, name + '.r1cs');
  const good = await snarkjs.wtns.check(r1cs, join(dir, name + '.wtns'), quiet);
  console.log(`wtns_check ${name} good ${good ? 1 : 0}`);
  const bad = await snarkjs.wtns.check(r1cs, join(dir, name + '.bad.wtns'), quiet);
  console.log(`wtns_check ${name} bad ${bad ? 1 : 0}`);
  time(`wtns_check ${name}`);
}

async function ceremony(dir, power) {
  const curve = await snarkjs.curves.getCurveFromName('bls12381');
  const p0 = join(dir, 'pot0.ptau'), p1 = join(dir, 'pot1.ptau'), p2 = join(dir, 'pot.ptau');
  await snarkjs.powersOfTau.newAccumulator(curve, power, p0, quiet);
  const b = await snarkjs.powersOfTau.beacon(p0, p1, 'beacon', BEACON, BEACON_ITERATIONS_EXP, quiet);
  if (b === false) throw new Error('powersoftau beacon refused');
  await snarkjs.powersOfTau.preparePhase2(p1, p2, quiet);
  time(`powers_of_tau 2^${power}`);
  return p2;
}

async function groth16(dir, name, ptau) {
  const base = join(dir, name);
  const z0 = base + '.0.zkey', z1 = base + '.zkey';
  const rc = await snarkjs.zKey.newZKey(base + '.r1cs', ptau, z0, quiet);
  if (rc === -1) throw new Error(`${name}: zkey new failed`);
  const zb = await snarkjs.zKey.beacon(z0, z1, 'beacon', BEACON, BEACON_ITERATIONS_EXP, quiet);
  if (zb === false) throw new Error(`${name}: zkey beacon refused`);
  time(`zkey ${name}`);

  const vk = await snarkjs.zKey.exportVerificationKey(z1, quiet);
  const zkeyJson = await snarkjs.zKey.exportJson(z1);
  const { proof, publicSignals } = await snarkjs.groth16.prove(z1, base + '.wtns', quiet);
  time(`prove ${name}`);
  writeFileSync(base + '.snarkjs.vk.json', JSON.stringify(vk, null, 1));
  writeFileSync(base + '.snarkjs.proof.json', JSON.stringify(proof, null, 1));
  writeFileSync(base + '.snarkjs.public.json', JSON.stringify(publicSignals));

  const ok = await snarkjs.groth16.verify(vk, publicSignals, proof);
  console.log(`snarkjs_verify ${name} ${ok ? 1 : 0}`);
  if (publicSignals.length > 0) {
    const wrong = publicSignals.slice();
    wrong[0] = (BigInt(wrong[0]) + 1n).toString();
    const bad = await snarkjs.groth16.verify(vk, wrong, proof);
    console.log(`snarkjs_verify_wrong_input ${name} ${bad ? 1 : 0}`);
  }
  time(`verify ${name}`);

  writeFileSync(base + '.snarkjs.vk', vkBytes(vk, zkeyJson));
  writeFileSync(base + '.snarkjs.proof', proofBytes(proof));
  writeFileSync(
    base + '.snarkjs.inputs',
    publicSignals.map((x) => BigInt(x).toString(16).padStart(64, '0') + '\n').join(''),
  );
  console.log(`converted ${name}`);
}

async function main() {
  const [dir, ...specs] = process.argv.slice(2);
  if (!dir || specs.length === 0) throw new Error('usage: snarkjs_roundtrip.mjs DIR SPEC...');
  const jobs = specs.map((s) => {
    const m = /^(check|groth16):([A-Za-z0-9_-]+)$/.exec(s);
    if (!m) throw new Error(`bad spec "${s}"`);
    return { kind: m[1], name: m[2] };
  });
  for (const j of jobs) await wtnsCheck(dir, j.name);
  const g = jobs.filter((j) => j.kind === 'groth16');
  if (g.length > 0) {
    const power = Math.max(...g.map((j) => circuitPower(r1csHeader(join(dir, j.name + '.r1cs')))));
    const ptau = await ceremony(dir, power);
    for (const j of g) await groth16(dir, j.name, ptau);
  }
  console.log(`time total ${Date.now() - started}`);
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error('snarkjs_roundtrip: ' + (e && e.stack ? e.stack : e));
    process.exit(2);
  },
);
