// Generates tests/vectors/filecoin_*.txt with @noble/hashes (independent of
// the C code; rust-fil-proofs' formulas, written out here):
//   filecoin_replica_id.txt   replica_id = mask(SHA256(prover_id || sector_id u64 BE ||
//                             ticket || comm_d || porep_id)), mask clears the top two bits
//                             of byte 31; porep_id = id u64 LE || 24 zero bytes.
//   filecoin_challenges.txt   interactive PoRep challenges: for j = n*k + i,
//                             h = SHA256(replica_id || seed || j u32 LE),
//                             challenge = (h as LE integer mod (nodes - 1)) + 1.
//   filecoin_exp_parents.txt  SDR expander parents: keys = SHA256("Filecoin_Feistel" ||
//                             porep_id) as 4 u64 LE; domain 8 * nodes split into two k-bit
//                             halves (smallest k >= 1 with 4^k >= domain); 3 rounds
//                             (L, R) -> (R, L ^ F(R, key_i)), F = first 8 bytes BE of
//                             BLAKE2b-512(R u64 BE || key u64 BE) masked to k bits; cycle-walk
//                             while >= domain; parent i of v = permute(8v + i) / 8.
//   filecoin_drg_parents.txt  BucketGraph DRG parents: seed28 = SHA256("Filecoin_DRSample" ||
//                             porep_id)[0..28]; ChaCha8 (written out below from RFC 8439's
//                             quarter round, 8 rounds, 64-bit counter, zero stream) keyed
//                             seed28 || node u32 LE; five draws of bucket/distance as in
//                             storage-proofs-core drgraph.rs; v1.0 puts node - 1 last,
//                             v1.1+ first.
// Deterministic: a fixed-seed splitmix64.
import { sha256 } from '@noble/hashes/sha2.js';
import { blake2b } from '@noble/hashes/blake2.js';
import { writeFileSync } from 'node:fs';
import { splitmix64 } from './rng.mjs';

const rand64 = splitmix64(0xf11ec0111n);
const randBytes = (n) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i += 8) {
    let v = rand64();
    for (let j = i; j < Math.min(n, i + 8); j++) { out[j] = Number(v & 0xffn); v >>= 8n; }
  }
  return out;
};
const hex = (b) => Buffer.from(b).toString('hex');
const concat = (...parts) => {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
};
const u64 = (v, le) => {
  const b = new Uint8Array(8);
  for (let i = 0; i < 8; i++) b[le ? i : 7 - i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return b;
};
const u32le = (v) => Uint8Array.from([v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255]);
const leInt = (b) => b.reduceRight((acc, x) => (acc << 8n) | BigInt(x), 0n);

{
  const lines = ['# gen_filecoin.mjs: prover_id sector_id(decimal) ticket comm_d proof_id(decimal) replica_id'];
  for (let c = 0; c < 32; c++) {
    const prover = randBytes(32), ticket = randBytes(32), commD = randBytes(32);
    commD[31] &= 0x3f;
    const sectorId = c < 2 ? BigInt(c) : rand64() >> BigInt(c % 64);
    const proofId = c % 15;
    const porepId = concat(u64(BigInt(proofId), true), new Uint8Array(24));
    const r = sha256(concat(prover, u64(sectorId, false), ticket, commD, porepId));
    r[31] &= 0x3f;
    lines.push([hex(prover), sectorId.toString(), hex(ticket), hex(commD), String(proofId), hex(r)].join(' '));
  }
  writeFileSync(new URL('../vectors/filecoin_replica_id.txt', import.meta.url), lines.join('\n') + '\n');
}

{
  const lines = ['# gen_filecoin.mjs: replica_id seed nodes(decimal) partition(decimal) count(decimal) challenge_0 .. challenge_{count-1} (decimal)'];
  const cases = [[64, 0, 2], [64, 3, 2], [1 << 18, 0, 2], [1 << 24, 1, 2], [2 ** 30, 0, 18], [2 ** 30, 9, 18], [2 ** 31, 4, 18]];
  for (const [nodes, k, n] of cases) {
    const replica = randBytes(32); replica[31] &= 0x3f;
    const seed = randBytes(32);
    const out = [];
    for (let i = 0; i < n; i++) {
      const h = sha256(concat(replica, seed, u32le(n * k + i)));
      out.push((leInt(h) % BigInt(nodes - 1) + 1n).toString());
    }
    lines.push([hex(replica), hex(seed), String(nodes), String(k), String(n), ...out].join(' '));
  }
  writeFileSync(new URL('../vectors/filecoin_challenges.txt', import.meta.url), lines.join('\n') + '\n');
}

{
  const lines = ['# gen_filecoin.mjs: proof_id(decimal) nodes(decimal) node(decimal) exp_parent_0 .. exp_parent_7 (decimal)'];
  const beInt = (b) => b.reduce((acc, x) => (acc << 8n) | BigInt(x), 0n);
  for (const [proofId, nodes] of [[1, 1n << 18n], [7, 1n << 24n], [3, 1n << 30n], [8, 1n << 30n], [4, 1n << 31n], [9, 1n << 31n], [14, 1n << 31n]]) {
    const porepId = concat(u64(BigInt(proofId), true), new Uint8Array(24));
    const digest = sha256(concat(new TextEncoder().encode('Filecoin_Feistel'), porepId));
    const keys = [0, 1, 2, 3].map((i) => leInt(digest.slice(8 * i, 8 * i + 8)));
    const domain = 8n * nodes;
    let k = 1n;
    while ((1n << (2n * k)) < domain) k++;
    const mask = (1n << k) - 1n;
    const encode = (x) => {
      let left = (x >> k) & mask, right = x & mask;
      for (let r = 0; r < 3; r++) {
        const f = beInt(blake2b(concat(u64(right, false), u64(keys[r], false))).slice(0, 8)) & mask;
        [left, right] = [right, left ^ f];
      }
      return (left << k) | right;
    };
    const permute = (x) => { let u = encode(x); while (u >= domain) u = encode(u); return u; };
    for (let c = 0; c < 6; c++) {
      const node = c === 0 ? 0n : c === 1 ? nodes - 1n : rand64() % nodes;
      const parents = [];
      for (let i = 0n; i < 8n; i++) parents.push((permute(8n * node + i) / 8n).toString());
      lines.push([String(proofId), nodes.toString(), node.toString(), ...parents].join(' '));
    }
  }
  writeFileSync(new URL('../vectors/filecoin_exp_parents.txt', import.meta.url), lines.join('\n') + '\n');
}

{
  const lines = ['# gen_filecoin.mjs: proof_id(decimal) nodes(decimal) node(decimal) drg_parent_0 .. drg_parent_5 (decimal)'];
  const M32 = 0xffffffff;
  const rotl = (x, n) => ((x << n) | (x >>> (32 - n))) >>> 0;
  const chacha8 = (keyBytes, counter) => {
    const key = [];
    for (let i = 0; i < 8; i++) key.push((keyBytes[4 * i] | keyBytes[4 * i + 1] << 8 | keyBytes[4 * i + 2] << 16 | keyBytes[4 * i + 3] << 24) >>> 0);
    const s = [0x61707865, 0x3320646e, 0x79622d32, 0x6b206574, ...key, counter >>> 0, 0, 0, 0];
    const x = s.slice();
    const qr = (a, b, c, d) => {
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 16);
      x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 12);
      x[a] = (x[a] + x[b]) >>> 0; x[d] = rotl(x[d] ^ x[a], 8);
      x[c] = (x[c] + x[d]) >>> 0; x[b] = rotl(x[b] ^ x[c], 7);
    };
    for (let r = 0; r < 8; r += 2) {
      qr(0, 4, 8, 12); qr(1, 5, 9, 13); qr(2, 6, 10, 14); qr(3, 7, 11, 15);
      qr(0, 5, 10, 15); qr(1, 6, 11, 12); qr(2, 7, 8, 13); qr(3, 4, 9, 14);
    }
    return x.map((v, i) => ((v + s[i]) & M32) >>> 0);
  };
  for (const [proofId, nodes] of [[0, 64n], [5, 64n], [1, 1n << 18n], [7, 1n << 24n], [3, 1n << 30n], [8, 1n << 30n], [4, 1n << 31n], [14, 1n << 31n]]) {
    const porepId = concat(u64(BigInt(proofId), true), new Uint8Array(24));
    const seed28 = sha256(concat(new TextEncoder().encode('Filecoin_DRSample'), porepId)).slice(0, 28);
    for (let c = 0; c < 6; c++) {
      const node = c === 0 ? 2n : c === 1 ? nodes - 1n : 2n + rand64() % (nodes - 2n);
      const words = [...chacha8(concat(seed28, u32le(Number(node))), 0), ...chacha8(concat(seed28, u32le(Number(node))), 1)];
      let w = 0;
      const draw = () => { const v = BigInt(words[w]) | BigInt(words[w + 1]) << 32n; w += 2; return v; };
      const meta = node * 5n;
      const nb = BigInt(Math.ceil(Math.log2(Number(meta))));
      const drawn = [];
      for (let i = 0; i < 5; i++) {
        const bucket = draw() % nb + 1n;
        const hi = meta < (1n << bucket) ? meta : (1n << bucket);
        const lo = (hi >> 1n) > 2n ? (hi >> 1n) : 2n;
        const dist = lo + draw() % (hi - lo + 1n);
        let p = (meta - dist) / 5n;
        if (p === node) p = node - 1n;
        drawn.push(p);
      }
      const parents = proofId < 5 ? [...drawn, node - 1n] : [node - 1n, ...drawn];
      lines.push([String(proofId), nodes.toString(), node.toString(), ...parents.map(String)].join(' '));
    }
  }
  writeFileSync(new URL('../vectors/filecoin_drg_parents.txt', import.meta.url), lines.join('\n') + '\n');
}
