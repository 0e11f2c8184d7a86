// An independent Groth16 verifier for cuzk's files, on @noble/curves' own
// BLS12-381 arithmetic and pairing (no cuzk code involved). Used by
// tests/interop/test_groth16_interop.c.
//
//   node verify_noble.mjs VK PROOF INPUTS [VK PROOF INPUTS ...]
//
// VK      bellperson's verifying-key layout:
//         alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 u32 n_ic ic[n_ic],
//         points uncompressed in the zcash format (G1 96 bytes, G2 192 bytes),
//         the length a big-endian u32, nothing after ic.
// PROOF   192 bytes: A (G1) || B (G2) || C (G1), compressed (48 + 96 + 48).
// INPUTS  text, one public input per line (without ONE), 64 hex digits,
//         big-endian; the count must be n_ic - 1.
//
// For each triple, prints one line: "accept" when
//   e(A, B) = e(alpha, beta) * e(acc, gamma) * e(C, delta),
//   acc = ic[0] + sum_i x_i ic[i + 1],
// holds, else "reject: <why>" (a failed equation, or a proof that does not
// decode: bad flags, not on the curve, not in the subgroup, identity).
// Exits 0 when every triple was judged, 2 on a usage error or an unreadable
// or malformed VK / INPUTS file (those are test-harness errors, not verdicts).
import { readFileSync } from 'node:fs';
import { bls12_381 } from '@noble/curves/bls12-381.js';

const G1 = bls12_381.G1.Point;
const G2 = bls12_381.G2.Point;
const { Fp12 } = bls12_381.fields;
const r = bls12_381.fields.Fr.ORDER;

function die(msg) {
  console.error('verify_noble: ' + msg);
  process.exit(2);
}

// Decodes a point and insists on a valid, non-identity group element.
function point(group, bytes, what) {
  const P = group.fromBytes(bytes);
  P.assertValidity();
  if (P.is0()) throw new Error(`${what}: the identity`);
  return P;
}

function readVk(path) {
  const b = new Uint8Array(readFileSync(path));
  let off = 0;
  const take = (n, what) => {
    if (off + n > b.length) throw new Error(`${what}: truncated at byte ${off}`);
    const s = b.subarray(off, off + n);
    off += n;
    return s;
  };
  const g1 = (what) => point(G1, take(96, what), what);
  const g2 = (what) => point(G2, take(192, what), what);
  const vk = {};
  vk.alpha = g1('alpha_g1');
  vk.betaG1 = g1('beta_g1');
  vk.beta = g2('beta_g2');
  vk.gamma = g2('gamma_g2');
  vk.deltaG1 = g1('delta_g1');
  vk.delta = g2('delta_g2');
  const len = take(4, 'n_ic');
  const n = ((len[0] << 24) | (len[1] << 16) | (len[2] << 8) | len[3]) >>> 0;
  if (n < 1) throw new Error('n_ic = 0');
  vk.ic = [];
  for (let i = 0; i < n; i++) vk.ic.push(g1(`ic[${i}]`));
  if (off !== b.length) throw new Error(`${b.length - off} trailing bytes`);
  return vk;
}

function readInputs(path) {
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  return lines.map((l, i) => {
    if (!/^[0-9a-f]{64}$/.test(l)) throw new Error(`line ${i + 1}: expected 64 hex digits`);
    const x = BigInt('0x' + l);
    if (x >= r) throw new Error(`line ${i + 1}: not below r`);
    return x;
  });
}

function verify(vk, proofBytes, inputs) {
  if (proofBytes.length !== 192) return `reject: proof has ${proofBytes.length} bytes, not 192`;
  if (inputs.length !== vk.ic.length - 1)
    return `reject: ${inputs.length} inputs for a key with ${vk.ic.length - 1}`;
  let A, B, C;
  try {
    A = point(G1, proofBytes.subarray(0, 48), 'A');
    B = point(G2, proofBytes.subarray(48, 144), 'B');
    C = point(G1, proofBytes.subarray(144, 192), 'C');
  } catch (e) {
    return 'reject: malformed proof: ' + e.message;
  }
  let acc = vk.ic[0];
  inputs.forEach((x, i) => {
    if (x !== 0n) acc = acc.add(vk.ic[i + 1].multiply(x));
  });
  const lhs = bls12_381.pairing(A, B);
  const rhs = bls12_381.pairingBatch([
    { g1: vk.alpha, g2: vk.beta },
    { g1: acc, g2: vk.gamma },
    { g1: C, g2: vk.delta },
  ]);
  return Fp12.eql(lhs, rhs) ? 'accept' : 'reject: pairing equation fails';
}

const args = process.argv.slice(2);
if (args.length === 0 || args.length % 3 !== 0) die('usage: verify_noble.mjs VK PROOF INPUTS ...');
for (let k = 0; k < args.length; k += 3) {
  let vk, inputs, proof;
  try {
    vk = readVk(args[k]);
  } catch (e) {
    die(`${args[k]}: ${e.message}`);
  }
  try {
    inputs = readInputs(args[k + 2]);
  } catch (e) {
    die(`${args[k + 2]}: ${e.message}`);
  }
  try {
    proof = new Uint8Array(readFileSync(args[k + 1]));
  } catch (e) {
    die(`${args[k + 1]}: ${e.message}`);
  }
  console.log(verify(vk, proof, inputs));
}
