// The daemon driven by an independent gRPC client: @grpc/grpc-js with the
// .proto loaded at run time by @grpc/proto-loader (tests/oracle, `npm ci`).
//
// usage: node grpc_test.mjs CUZK_BINARY WORK_DIR ORACLE_DIR PROTO_FILE
//
// Always (a few seconds): socket mode, GetStatus/GetMetrics, every kind of
// bad input (undecodable message, missing submit, empty request id, unknown
// and unimplemented kinds, garbage / truncated C1, wrong sector size, a
// 300 MB message, missing parameters), unknown ids, SRS errors, then SIGTERM:
// exit 0 and the socket removed. The daemon must keep serving throughout.
//
// With CZ_SLOW_TESTS=1 (or CZ_DAEMON_PARAMS naming a directory that holds
// the 2 KiB parameters): real 2 KiB PoRep proofs on the CPU (about a minute
// each on two cores; `cuzk setup` takes ~6 min the first time and is cached
// in $CZ_PARAMS_DIR, which ctest sets to build/params): Preload/Evict tiers, Prove accepted by
// `cuzk verify`, SubmitProof + AwaitProof, AwaitProof timeout, duplicate
// request_id, a caller that leaves, CancelProof of a queued and a running
// job, metrics, and SIGTERM during a proof.
//
// With CZ_DAEMON_POST_PARAMS naming a directory that holds the 2 KiB PoSt
// parameters (`cuzk setup --kind winning-post|window-post`; ctest's
// daemon/grpc-post, label post2k), only the PoSt part runs (seconds):
// WinningPoSt and WindowPoSt (partition 1) through Prove and through
// SubmitProof + AwaitProof, each proof accepted by `cuzk verify --post`, and
// bad PoSt requests refused at submission with INVALID_ARGUMENT and the
// precise message (truncated bincode, wrong sector count, a registered proof
// of another size or kind, partition index out of range, randomness of the
// wrong length, a challenge mismatch).
//
// Exit 0 pass, 1 fail, 77 skip (node_modules missing).
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [cuzk, workArg, oracleDir, protoFile] = process.argv.slice(2);
const require = createRequire(path.resolve(oracleDir, 'package.json'));
let grpc, loader;
try {
  grpc = require('@grpc/grpc-js');
  loader = require('@grpc/proto-loader');
} catch (e) {
  console.log('skipped: @grpc/grpc-js or @grpc/proto-loader missing (npm ci in tests/oracle)');
  process.exit(77);
}

const def = loader.loadSync(protoFile, { longs: Number, enums: Number, defaults: true, keepCase: true });
const pkg = grpc.loadPackageDefinition(def).cuzk.v1;
const S = { UNKNOWN: 0, COMPLETED: 1, FAILED: 2, CANCELLED: 3, TIMEOUT: 4 };

let failures = 0;
function check(cond, what) {
  if (!cond) {
    failures++;
    console.log(`FAIL: ${what}`);
  } else {
    console.log(`ok: ${what}`);
  }
}

const work = path.resolve(workArg);
fs.rmSync(work, { recursive: true, force: true });
fs.mkdirSync(work, { recursive: true });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function run(args) {
  const r = spawnSync(cuzk, args, { encoding: 'utf8' });
  return { code: r.status, out: (r.stdout || '') + (r.stderr || '') };
}

async function startDaemon(name, paramCache, daemonExtra = '') {
  const sock = path.join(work, `${name}.sock`);
  const cfg = path.join(work, `${name}.toml`);
  fs.writeFileSync(cfg, `[daemon]\nlisten = "unix://${sock}"\ndrain_timeout = "1s"\n${daemonExtra}` +
    `[srs]\nparam_cache = "${paramCache}"\n[pipeline]\nmax_parallel_synthesis = 1\n` +
    `max_gpu_queue_depth = 1\n[engine]\nresult_retention = "10m"\n`);
  const log = fs.openSync(path.join(work, `${name}.log`), 'w');
  const proc = spawn(cuzk, ['daemon', '--config', cfg], { stdio: ['ignore', log, log] });
  const exited = new Promise((resolve) => proc.on('exit', (code, sig) => resolve({ code, sig })));
  for (let i = 0; i < 200 && !fs.existsSync(sock); i++) await sleep(50);
  if (!fs.existsSync(sock)) throw new Error(`daemon ${name} did not create ${sock}`);
  const opts = { 'grpc.max_send_message_length': -1, 'grpc.max_receive_message_length': 256 << 20 };
  const client = new pkg.ProvingEngine(`unix://${sock}`, grpc.credentials.createInsecure(), opts);
  // The socket may be a stale one of a killed daemon: serving is when a
  // call is answered.
  let up = false;
  for (let i = 0; i < 300 && !up; i++) {
    up = await new Promise((resolve) => client.GetStatus({}, new grpc.Metadata(),
      { deadline: Date.now() + 1000 }, (err) => resolve(!err)));
    if (!up) await sleep(100);
  }
  if (!up) throw new Error(`daemon ${name} does not answer on ${sock}`);
  return { proc, exited, sock, client, log: path.join(work, `${name}.log`) };
}

// Promise wrapper: resolves {err, res}.
function call(client, method, req, deadlineMs) {
  return new Promise((resolve) => {
    const md = new grpc.Metadata();
    const o = deadlineMs ? { deadline: Date.now() + deadlineMs } : {};
    client[method](req, md, o, (err, res) => resolve({ err, res }));
  });
}

function submitReq(id, c1, extra = {}) {
  // registered_proof 5 (StackedDrg2KiBV1_1) and sector_number 1 are the
  // generated C1's: the daemon compares both even when 0.
  return { request_id: id, proof_kind: 1, vanilla_proof: c1, registered_proof: 5, sector_number: 1,
    miner_id: 1000, ...extra };
}

// Hand-made protobuf bytes (the JS encoder only writes valid UTF-8):
// length-delimited field `field` holding `bytes`.
function pbField(field, bytes) {
  const b = Buffer.from(bytes);
  const len = [];
  let n = b.length;
  do { len.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0)); n >>= 7; } while (n);
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...len]), b]);
}
function rawCall(client, method, bytes) {
  return new Promise((resolve) => client.makeUnaryRequest(`/cuzk.v1.ProvingEngine/${method}`,
    (x) => x, (x) => x, bytes, (err, res) => resolve({ err, res })));
}

// The C1 of an envelope with one field of the inner C1 JSON changed.
function tamperC1(envelope, edit) {
  const env = JSON.parse(envelope.toString('utf8'));
  const inner = JSON.parse(Buffer.from(env.Phase1Out, 'base64').toString('utf8'));
  edit(inner);
  env.Phase1Out = Buffer.from(JSON.stringify(inner)).toString('base64');
  return Buffer.from(JSON.stringify(env));
}

async function stopDaemon(d) {
  d.client.close();
  d.proc.kill('SIGTERM');
  const r = await d.exited;
  check(r.code === 0, `daemon exits 0 on SIGTERM (got ${r.code} ${r.sig})`);
  check(!fs.existsSync(d.sock), 'socket removed on exit');
}

// ---------------------------------------------------------------- fast part
const c1Path = path.join(work, 'c1.json');
let g = run(['gen', 'c1', '--sector-size', '2KiB', '--out', c1Path]);
if (g.code !== 0) {
  console.log(`FAIL: cuzk gen c1: ${g.out}`);
  process.exit(1);
}
const c1 = fs.readFileSync(c1Path);
// A SnapDeals update request (`cuzk gen snap`: JSON, hex commitments,
// base64 partition proofs) as SubmitProofRequest fields.
const snapPath = path.join(work, 'snap.json');
g = run(['gen', 'snap', '--sector-size', '2KiB', '--seed', '9', '--out', snapPath]);
if (g.code !== 0) {
  console.log(`FAIL: cuzk gen snap: ${g.out}`);
  process.exit(1);
}
const snap = JSON.parse(fs.readFileSync(snapPath, 'utf8'));
function snapReq(id, j) {
  return {
    request_id: id, proof_kind: 2, sector_size: j.sector_size, registered_proof: j.registered_proof,
    vanilla_proofs: j.vanilla_proofs.map((b) => Buffer.from(b, 'base64')),
    comm_r_old: Buffer.from(j.comm_r_old, 'hex'), comm_d_new: Buffer.from(j.comm_d_new, 'hex'),
    comm_r_new: Buffer.from(j.comm_r_new, 'hex'),
  };
}
const emptyParams = path.join(work, 'no-params');
fs.mkdirSync(emptyParams);
const postParams = process.env.CZ_DAEMON_POST_PARAMS || '';

if (!postParams) {
  const d = await startDaemon('fast', emptyParams,
    'metrics_listen = "127.0.0.1:0"\nmax_request_memory = "4MiB"\n');
  const c = d.client;
  check((fs.statSync(d.sock).mode & 0o777) === 0o600, 'socket mode 0600');

  // HTTP /metrics on a loopback port chosen by the kernel (logged).
  const m = /HTTP \/metrics on .* \(port (\d+)\)/.exec(fs.readFileSync(d.log, 'utf8'));
  check(m !== null, 'HTTP /metrics port logged');
  if (m) {
    const get = (p) => new Promise((resolve) => {
      http.get({ host: '127.0.0.1', port: Number(m[1]), path: p }, (res) => {
        let body = '';
        res.on('data', (x) => { body += x; });
        res.on('end', () => resolve({ code: res.statusCode, body }));
      }).on('error', (e) => resolve({ code: 0, body: String(e) }));
    });
    let h = await get('/metrics');
    check(h.code === 200 && /\ncuzk_uptime_seconds \d+\n/.test(h.body), 'GET /metrics -> 200, Prometheus text');
    h = await get('/status');
    check(h.code === 404, 'GET /status -> 404');

    // A slow client (a byte every 1.5 s, never finishing its request) does
    // not hold /metrics for anyone else, and is cut at the deadline.
    const slow = net.connect({ host: '127.0.0.1', port: Number(m[1]) });
    let slowClosed = false;
    const slowEnd = new Promise((resolve) => slow.on('close', () => { slowClosed = true; resolve(); }));
    slow.on('error', () => {});
    const req = 'GET /metrics HTTP/1.1\r\nHost: x\r\n';
    let sent = 0;
    const drip = setInterval(() => { if (!slowClosed && sent < req.length) slow.write(req[sent++]); }, 1500);
    slow.write(req[sent++]);
    await sleep(200);
    h = await get('/metrics');
    const sentThen = sent;
    check(h.code === 200 && sentThen < req.length,
      `GET /metrics answered while a slow client is still sending (${sentThen} of ${req.length} bytes)`);
    const cut = await Promise.race([slowEnd.then(() => true), sleep(20000).then(() => false)]);
    clearInterval(drip);
    slow.destroy();
    check(cut && sent < req.length, `the slow client is cut before it finishes (${sent} of ${req.length} bytes sent)`);

    // Idle connections held open (more than the daemon's 256 slots) do not
    // keep scrapes out: the idle ones are shed, and 200 scrapes at once
    // are all answered.
    const idle = [];
    let idleClosed = 0;
    for (let i = 0; i < 300; i++) {
      const s = net.connect({ host: '127.0.0.1', port: Number(m[1]) });
      s.on('error', () => {});
      s.on('close', () => { idleClosed++; });
      idle.push(s);
    }
    await sleep(500);
    const scrapes = await Promise.all([...Array(200).keys()].map(() => get('/metrics')));
    const served = scrapes.filter((x) => x.code === 200 && /\ncuzk_uptime_seconds \d+\n/.test(x.body)).length;
    check(served === 200, `200 concurrent scrapes beside 300 idle connections: ${served} answered 200 ` +
      `(${idleClosed} idle ones shed)`);
    check(idleClosed >= 300 - 256, `the idle connections beyond the slots were shed (${idleClosed})`);
    for (const s of idle) s.destroy();
    h = await get('/metrics');
    check(h.code === 200, 'GET /metrics after the flood -> 200');
  }

  let r = await call(c, 'GetStatus', {});
  check(!r.err && r.res.queues.length === 4 && r.res.queues[0].proof_kind === 'porep-c2',
    'GetStatus lists the four queues');
  check(!r.err && r.res.total_proofs_completed === 0 && r.res.pinned_memory_limit_bytes > 0,
    'GetStatus counters and memory budget');

  // Undecodable request bytes.
  r = await new Promise((resolve) => c.makeUnaryRequest('/cuzk.v1.ProvingEngine/Prove', (x) => x,
    (x) => x, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), (err, res) => resolve({ err, res })));
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /cannot decode ProveRequest/.test(r.err.details),
    `garbage message -> INVALID_ARGUMENT (${r.err && r.err.details})`);
  r = await call(c, 'Prove', {});
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /submit is missing/.test(r.err.details),
    'Prove without submit -> INVALID_ARGUMENT');
  // No request_id: one is made up (as Rust cuzk does) and returned.
  r = await call(c, 'SubmitProof', submitReq('', c1));
  check(!r.err && /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(r.res.job_id),
    `empty request_id -> a made-up id (${r.err ? r.err.details : r.res.job_id})`);
  if (!r.err) {
    const a = await call(c, 'AwaitProof', { job_id: r.res.job_id, timeout_ms: 20000 });
    check(!a.err && a.res.status === S.FAILED && /parameters .* not found/.test(a.res.error_message),
      'the made-up id can be awaited');
  }
  // Ids are proto3 strings: valid UTF-8, and read with their length (a NUL
  // would cut them in C and make two ids one).
  const idOf = (bytes) => pbField(1, bytes);
  for (const [bytes, re, what] of [
    [[0x75, 0xff, 0xfe], /SubmitProofRequest\.request_id: not valid UTF-8 at byte 1/, 'id 75 ff fe'],
    [Buffer.from('nul\0A', 'latin1'), /SubmitProofRequest\.request_id: NUL byte at 3/, 'id "nul\\0A"']]) {
    r = await rawCall(c, 'SubmitProof', Buffer.concat([idOf(bytes), pbField(10, c1)]));
    check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && re.test(r.err.details),
      `SubmitProof ${what} -> INVALID_ARGUMENT (${r.err && r.err.details})`);
  }
  r = await rawCall(c, 'Prove', pbField(1, Buffer.concat([idOf([0xc3, 0x28]), pbField(10, c1)])));
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT &&
    /ProveRequest\.submit\.request_id: not valid UTF-8 at byte 0/.test(r.err.details),
    `Prove with a non-UTF-8 id -> INVALID_ARGUMENT (${r.err && r.err.details})`);
  r = await rawCall(c, 'AwaitProof', pbField(1, Buffer.from('nul\0B', 'latin1')));
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /job_id: NUL byte/.test(r.err.details),
    'AwaitProof job_id with a NUL -> INVALID_ARGUMENT');
  r = await rawCall(c, 'SubmitProof', Buffer.concat([idOf('nul'), pbField(10, 'tag')]));
  r = await call(c, 'AwaitProof', { job_id: 'nul', timeout_ms: 10 });
  check(r.err && r.err.code === grpc.status.NOT_FOUND, 'no job was made under a cut id');
  r = await call(c, 'SubmitProof', { ...submitReq('kind7', c1), proof_kind: 7 });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /proof_kind 7/.test(r.err.details),
    `unknown proof kind -> INVALID_ARGUMENT (${r.err && r.err.details})`);
  r = await call(c, 'SubmitProof', { ...submitReq('snap', c1), proof_kind: 2, registered_proof: 0 });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT &&
    /comm_r_old: 0 bytes, expected 32/.test(r.err.details),
    `SNAP_DEALS_UPDATE without commitments -> INVALID_ARGUMENT (${r.err && r.err.details})`);
  // SnapDeals requests are checked at submission too (every partition
  // proof decoded and verified against the commitments).
  const snapOk = snapReq('snap-ok', snap);
  const snapRefused = async (id, edit, re, what) => {
    const q = snapReq(id, snap);
    edit(q);
    const x = await call(c, 'Prove', { submit: q });
    check(x.err && x.err.code === grpc.status.INVALID_ARGUMENT && re.test(x.err.details),
      `SnapDeals ${what} -> INVALID_ARGUMENT (${x.err ? x.err.details : x.res.result.error_message})`);
  };
  await snapRefused('snap31', (q) => { q.comm_r_new = q.comm_r_new.subarray(0, 31); },
    /comm_r_new: 31 bytes, expected 32/, 'comm_r_new of 31 bytes');
  await snapRefused('snapcommr', (q) => { q.comm_r_new = Buffer.from(q.comm_r_new); q.comm_r_new[0] ^= 1; },
    /vanilla_proofs\[0\] \(partition 0\): comm_r_new is not Poseidon2/, 'inconsistent comm_r_new');
  await snapRefused('snaptrunc', (q) => { q.vanilla_proofs = [q.vanilla_proofs[0].subarray(0, 1000)]; },
    /vanilla_proofs\[0\] \(1000 bytes, a StackedDrg2KiBV1 partition proof has 15064\): partition_proof\./,
    'truncated partition proof');
  await snapRefused('snaptwo', (q) => { q.vanilla_proofs = [q.vanilla_proofs[0], q.vanilla_proofs[0]]; },
    /2 vanilla proofs: a StackedDrg2KiBV1 update has 1 partitions/, 'two partition proofs');
  await snapRefused('snapid', (q) => { q.registered_proof = 3; },
    /registered update proof 3 \(StackedDrg32GiBV1\) is for 34359738368-byte sectors/, 'another size');
  r = await call(c, 'Prove', { submit: snapOk });
  check(!r.err && r.res.result.status === S.FAILED && /parameters .* not found/.test(r.res.result.error_message),
    `a valid SnapDeals request without parameters -> FAILED (${r.err ? r.err.details : r.res.result.error_message})`);
  r = await call(c, 'Prove', { submit: submitReq('nopayload', Buffer.alloc(0)) });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /vanilla_proof/.test(r.err.details),
    'PoRep without vanilla_proof -> INVALID_ARGUMENT');

  // What can be checked before proving is checked at submission: the
  // call fails at once with the reason (no job, no parameters needed).
  const refused = async (id, payload, extra, re, what) => {
    const x = await call(c, 'Prove', { submit: submitReq(id, payload, extra) });
    check(x.err && x.err.code === grpc.status.INVALID_ARGUMENT && re.test(x.err.details),
      `${what} -> INVALID_ARGUMENT (${x.err ? x.err.details : x.res.result.error_message})`);
  };
  await refused('garbage', Buffer.from('\x00\x01garbage{'), {}, /vanilla_proof: c1: .*invalid JSON/, 'garbage C1');
  await refused('truncated', c1.subarray(0, c1.length >> 1), {}, /vanilla_proof: c1/, 'truncated C1');
  await refused('wrongsize', c1, { sector_size: 8 << 20 }, /sector_size 8388608 does not match/, 'wrong sector size');
  await refused('commr', tamperC1(c1, (j) => { j.comm_r[0] ^= 1; }), {},
    /vanilla_proof rejected: vanilla: .*comm_r/, 'tampered comm_r');
  await refused('seed', tamperC1(c1, (j) => { j.seed[0] ^= 1; }), {},
    /vanilla_proof rejected: vanilla: .*challenge/, 'tampered seed');
  await refused('miner', c1, { miner_id: 1001 }, /vanilla_proof rejected: .*replica_id/, 'wrong miner_id');
  await refused('regproof', c1, { registered_proof: 8 },
    /registered_proof 8 \(StackedDrg32GiBV1_1\) does not match the C1 output's StackedDrg2KiBV1_1 \(5\)/,
    'registered_proof of another sector size');
  await refused('regproof99', c1, { registered_proof: 99 }, /registered_proof 99 \(not a PoRep seal proof\)/,
    'registered_proof out of range');
  // proto3 zeros: 0 is a real registered proof (StackedDrg2KiBV1) and a
  // real sector number, so both are compared with the C1; no storage
  // provider is actor 0.
  await refused('regproof0', c1, { registered_proof: 0 },
    /registered_proof 0 \(StackedDrg2KiBV1\) does not match the C1 output's StackedDrg2KiBV1_1 \(5\)/,
    'registered_proof 0');
  await refused('sector0', c1, { sector_number: 0 },
    /sector_number 0 differs from the envelope's SectorNum 1/, 'sector_number 0 with a C1 envelope');
  await refused('miner0', c1, { miner_id: 0 }, /miner_id 0 is not a storage provider's actor id/,
    'miner_id 0');
  // Unknown priorities are refused, naming the value (proto3 keeps an
  // unknown enum value as it is: the bytes are written by hand).
  const varint = (v) => {
    const out = [];
    let n = BigInt.asUintN(64, BigInt(v));
    do { out.push(Number(n & 0x7fn) | (n > 0x7fn ? 0x80 : 0)); n >>= 7n; } while (n);
    return out;
  };
  const varintField = (field, v) => Buffer.from([...varint(field << 3), ...varint(v)]);
  for (const [prio, shown] of [[5, 5], [99, 99], [2 ** 31 - 1, 2147483647], [-1, -1]]) {
    r = await rawCall(c, 'SubmitProof', Buffer.concat([idOf(`prio${prio}`), pbField(10, c1),
      varintField(4, 5), varintField(5, prio), varintField(20, 1), varintField(21, 1000),
      varintField(2, 1)]));
    check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT &&
      new RegExp(`^priority ${shown} is not one of`).test(r.err.details),
      `priority ${prio} -> INVALID_ARGUMENT (${r.err && r.err.details})`);
  }
  r = await call(c, 'AwaitProof', { job_id: 'prio5', timeout_ms: 10 });
  check(r.err && r.err.code === grpc.status.NOT_FOUND, 'no job was made for an unknown priority');
  r = await call(c, 'Prove', { submit: submitReq('prio4', c1, { priority: 4 }) });
  check(!r.err && r.res.result.status === S.FAILED, 'priority CRITICAL (4) is accepted');
  r = await call(c, 'Prove', { submit: submitReq('regok', c1, { registered_proof: 5, sector_size: 2048 }) });
  check(!r.err && r.res.result.status === S.FAILED && /parameters .* not found/.test(r.res.result.error_message),
    'matching registered_proof and sector_size are accepted');
  const x = await call(c, 'Prove', { submit: submitReq('noparams', c1) });
  check(!x.err && x.res.result.status === S.FAILED && /parameters .* not found/.test(x.res.result.error_message),
    `missing parameters -> FAILED (${x.err ? x.err.details : x.res.result.error_message})`);

  // 300 MB: over the daemon's 256 MiB limit.
  r = await call(c, 'Prove', { submit: submitReq('huge', Buffer.alloc(300 * 1000 * 1000, 0x20)) });
  check(r.err && r.err.code === grpc.status.RESOURCE_EXHAUSTED,
    `300 MB message -> RESOURCE_EXHAUSTED (${r.err && r.err.code} ${r.err && r.err.details})`);

  // Request memory ([daemon] max_request_memory = 4 MiB here): gRPC takes
  // messages of up to a quarter of it (1 MiB), a receive starts only with
  // twice that reserved, and what a call held is given back when it is
  // done: larger messages are refused, smaller ones wait their turn.
  r = await call(c, 'Prove', { submit: submitReq('big', Buffer.alloc(3 << 20, 0x20)) });
  check(r.err && r.err.code === grpc.status.RESOURCE_EXHAUSTED,
    `3 MiB request over a 4 MiB request-memory bound -> RESOURCE_EXHAUSTED (${r.err && r.err.details})`);
  r = await call(c, 'Prove', { submit: submitReq('big2', Buffer.alloc((1 << 20) + 1000, 0x20)) });
  check(r.err && r.err.code === grpc.status.RESOURCE_EXHAUSTED,
    `a request just over a quarter of max_request_memory -> RESOURCE_EXHAUSTED (${r.err && r.err.details})`);
  let under = 0;
  for (let i = 0; i < 5; i++) {
    r = await call(c, 'Prove', { submit: submitReq(`mid${i}`, Buffer.alloc(900 << 10, 0x20)) });
    if (r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /vanilla_proof/.test(r.err.details)) under++;
  }
  check(under === 5, `five 900 KiB requests in turn are each decoded and judged (${under} of 5)`);
  const together = await Promise.all([...Array(12).keys()].map((i) =>
    call(c, 'Prove', { submit: submitReq(`conc${i}`, Buffer.alloc(900 << 10, 0x20)) })));
  under = together.filter((x) => x.err && x.err.code === grpc.status.INVALID_ARGUMENT &&
    /vanilla_proof/.test(x.err.details)).length;
  check(under === 12, `twelve 900 KiB requests at once (two fit) wait their turn and are all judged (${under} of 12)`);
  {
    // Counted before they are received: eight 15 MB requests at once under
    // a 64 MiB bound raise the daemon's peak RSS by about the bound (63-68
    // MiB measured), not by what was sent (120 MB, twice that decoded).
    const m64 = await startDaemon('reqmem', emptyParams, 'max_request_memory = "64MiB"\n');
    const hwm = () => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${m64.proc.pid}/status`, 'utf8'))[1]) >> 10;
    const peak0 = hwm();
    const big = Buffer.alloc(15 * 1000 * 1000, 0x20);
    const all = await Promise.all([...Array(8).keys()].map((i) =>
      call(m64.client, 'Prove', { submit: submitReq(`rss${i}`, big) })));
    const judged = all.filter((x) => x.err && x.err.code === grpc.status.INVALID_ARGUMENT).length;
    const grew = hwm() - peak0;
    // Under ASan the allocator keeps freed blocks in quarantine, so RSS says
    // nothing about what the daemon holds: only the judgements count there.
    const sanitized = process.env.CZ_SANITIZED === '1';
    check(judged === 8 && (sanitized || grew < 96),
      `eight 15 MB requests at once under max_request_memory = 64 MiB: ${judged} of 8 judged, peak RSS +${grew} MiB (${sanitized ? 'not bounded under the sanitizers' : '< 96'})`);
    await stopDaemon(m64);
  }

  r = await call(c, 'AwaitProof', { job_id: 'nosuchjob', timeout_ms: 10 });
  check(r.err && r.err.code === grpc.status.NOT_FOUND, 'AwaitProof unknown id -> NOT_FOUND');
  r = await call(c, 'CancelProof', { job_id: 'nosuchjob' });
  check(r.err && r.err.code === grpc.status.NOT_FOUND, 'CancelProof unknown id -> NOT_FOUND');
  r = await call(c, 'PreloadSRS', { circuit_id: 'porep-1t' });
  check(r.err && r.err.code === grpc.status.INVALID_ARGUMENT && /unknown circuit id/.test(r.err.details),
    'PreloadSRS unknown circuit -> INVALID_ARGUMENT');
  r = await call(c, 'PreloadSRS', { circuit_id: 'porep-2k' });
  check(r.err && r.err.code === grpc.status.FAILED_PRECONDITION && /cannot open/.test(r.err.details),
    'PreloadSRS without parameters -> FAILED_PRECONDITION');
  r = await call(c, 'EvictSRS', { circuit_id: 'porep-2k' });
  check(!r.err && r.res.was_loaded === false && r.res.freed_bytes === 0, 'EvictSRS of a cold SRS');
  // An official name whose bytes are not Filecoin's (a partial download, or a
  // development key without its .dev record) is refused, naming both digests.
  const stem2k = 'v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-' +
    '032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f';
  const junk = [`${stem2k}.params`, `${stem2k}.vk`].map((f) => path.join(emptyParams, f));
  for (const f of junk) fs.writeFileSync(f, Buffer.alloc(4096, 7));
  r = await call(c, 'PreloadSRS', { circuit_id: 'porep-2k' });
  check(r.err && r.err.code === grpc.status.FAILED_PRECONDITION &&
    /official name, but its digest [0-9a-f]{32} is not Filecoin's 434fb1338ecfaf0f59256f30dde4968f/.test(r.err.details),
    `PreloadSRS of a wrong-digest official file -> FAILED_PRECONDITION (${r.err && r.err.details})`);
  r = await call(c, 'GetStatus', {});
  check(!r.err && r.res.development_keys === 0, 'GetStatus: no development keys');
  for (const f of fs.readdirSync(emptyParams)) fs.rmSync(path.join(emptyParams, f));
  // A failed job's id can be reused (a retry starts anew), with the same
  // payload or another one (Curio re-proves a sector under its fixed id).
  const failedCount = async () => (await call(c, 'GetStatus', {})).res.total_proofs_failed;
  let before = await failedCount();
  r = await call(c, 'Prove', { submit: submitReq('noparams', c1) });
  check(!r.err && r.res.result.status === S.FAILED && await failedCount() === before + 1,
    'resubmitting a failed request_id starts a new job');
  before = await failedCount();
  r = await call(c, 'Prove', { submit: submitReq('noparams', c1, { sector_size: 2048 }) });
  check(!r.err && r.res.result.status === S.FAILED && await failedCount() === before + 1,
    'another payload under the id of an ended job starts a new job');

  // The C client (`cuzk bench`) against the same daemon.
  const addr = `unix://${d.sock}`;
  let b = run(['bench', 'status', '-a', addr]);
  check(b.code === 0 && /queue: +porep-c2 +pending 0, in progress 0/.test(b.out), 'cuzk bench status');
  b = run(['bench', 'metrics', '-a', addr]);
  check(b.code === 0 && /\ncuzk_uptime_seconds \d+\n/.test(b.out), 'cuzk bench metrics');
  b = run(['bench', 'preload', '-c', 'porep-1t', '-a', addr]);
  check(b.code === 1 && /unknown circuit id/.test(b.out), 'cuzk bench preload of an unknown id fails');
  const garbageFile = path.join(work, 'garbage.json');
  fs.writeFileSync(garbageFile, '{"SectorNum": 1, "Phase1Out": "!!", "SectorSize": 2048}');
  b = run(['bench', 'single', '--c1', garbageFile, '-a', addr]);
  check(b.code === 1 && /gRPC error 3/.test(b.out) && /Phase1Out/.test(b.out),
    `cuzk bench single reports a refused C1 (${b.out.split('\n').slice(-2).join(' ')})`);
  b = run(['bench', 'status', '-a', `unix://${work}/nothing.sock`]);
  check(b.code === 1 && /gRPC status 14/.test(b.out), 'cuzk bench against no daemon: UNAVAILABLE');

  r = await call(c, 'GetStatus', {});
  // 7: the six jobs without parameters before, and the CRITICAL one
  check(!r.err && r.res.total_proofs_failed === 7, `daemon still serving; failed=${r.res && r.res.total_proofs_failed}`);
  r = await call(c, 'GetMetrics', {});
  check(!r.err && /cuzk_proofs_failed_total 7\n/.test(r.res.prometheus_text) &&
    /cuzk_proofs_completed_total 0\n/.test(r.res.prometheus_text), 'GetMetrics counters');
  await stopDaemon(d);
}

// ------------------------------------------------------- SnapDeals proofs
// With CZ_SNAP_PARAMS naming a directory that holds the 2 KiB update
// parameters (`cuzk setup --kind snap`; ctest: daemon/grpc-snap, label
// snap2k): Prove and SubmitProof + AwaitProof of two updates at once, each
// proof accepted by `cuzk verify --snap`, a repeated Prove of one id
// answered with the same proof.
const snapParams = process.env.CZ_SNAP_PARAMS || '';
if (snapParams && fs.existsSync(snapParams)) {
  const d = await startDaemon('snap', snapParams);
  const c = d.client;
  const other = path.join(work, 'snap-other.json');
  g = run(['gen', 'snap', '--sector-size', '2KiB', '--seed', '10', '--out', other]);
  check(g.code === 0, 'cuzk gen snap (a second update)');
  const snap2 = JSON.parse(fs.readFileSync(other, 'utf8'));
  const sub = await call(c, 'SubmitProof', snapReq('snap-sub', snap2));
  check(!sub.err && sub.res.job_id === 'snap-sub', `SubmitProof SNAP_DEALS_UPDATE (${sub.err && sub.err.details})`);
  const pr = await call(c, 'Prove', { submit: snapReq('snap-prove', snap) });
  const res = pr.res && pr.res.result;
  check(!pr.err && res.status === S.COMPLETED && res.proof.length === 192,
    `Prove SNAP_DEALS_UPDATE -> COMPLETED, 192 bytes (${pr.err ? pr.err.details : res.error_message})`);
  const aw = await call(c, 'AwaitProof', { job_id: 'snap-sub', timeout_ms: 600000 });
  check(!aw.err && aw.res.status === S.COMPLETED && aw.res.proof.length === 192,
    `AwaitProof of the submitted update -> COMPLETED (${aw.err ? aw.err.details : aw.res.error_message})`);
  for (const [name, file, proof] of [['Prove', snapPath, res && res.proof], ['AwaitProof', other, aw.res && aw.res.proof]]) {
    if (!proof || !proof.length) continue;
    const pf = path.join(work, `snap-${name}.proof`);
    fs.writeFileSync(pf, proof);
    const v = run(['verify', '--snap', file, '--vk', snapParams, '--proof', pf]);
    check(v.code === 0 && /\nvalid\n/.test(v.out), `the ${name} proof verifies with cuzk verify --snap (${v.out.trim().split('\n').pop()})`);
    const w = run(['verify', '--snap', file === snapPath ? other : snapPath, '--vk', snapParams, '--proof', pf]);
    check(w.code === 1 && /INVALID/.test(w.out), `and not with the other update's commitments`);
  }
  const again = await call(c, 'Prove', { submit: snapReq('snap-prove', snap) });
  check(!again.err && again.res.result.status === S.COMPLETED && res &&
    Buffer.compare(again.res.result.proof, res.proof) === 0, 'the same request_id again: the same proof');
  await stopDaemon(d);
}

// ---------------------------------------------------------------- slow part
let params = process.env.CZ_DAEMON_PARAMS || '';
const slow = process.env.CZ_SLOW_TESTS === '1' || (params && fs.existsSync(params));
if (postParams) {
  await postPart(postParams);
} else if (!slow) {
  console.log('real proofs skipped (set CZ_SLOW_TESTS=1 or CZ_DAEMON_PARAMS)');
} else {
  if (!params) {
    // The suite's shared development parameters (build/params, cli/setup-2k).
    params = process.env.CZ_PARAMS_DIR || path.resolve(work, '..', 'daemon-params');
    const have = fs.existsSync(params) && fs.readdirSync(params).some((f) => f.endsWith('.params'));
    if (!have) {
      console.log(`generating 2 KiB development parameters in ${params} (minutes, once)`);
      g = run(['setup', '--sector-size', '2KiB', '--out', params]);
      if (g.code !== 0) {
        console.log(`FAIL: cuzk setup: ${g.out}`);
        process.exit(1);
      }
    }
  }
  const d = await startDaemon('slow', params);
  const c = d.client;
  let r = await call(c, 'PreloadSRS', { circuit_id: 'porep-2k' });
  check(!r.err && r.res.already_loaded === false, `PreloadSRS loads (${r.res && r.res.load_time_ms} ms)`);
  r = await call(c, 'GetStatus', {});
  let srs = r.res.loaded_srs.find((s) => s.circuit_id === 'porep-2k');
  check(srs && srs.tier === 0 && srs.size_bytes > 0 && srs.ref_count === 0, 'SRS hot after preload');
  // cuzk setup's keys are development keys: said at start, in GetStatus and /metrics
  check(srs && srs.development === true && r.res.development_keys >= 1,
    'GetStatus: the 2 KiB key is a development key');
  check(/WARNING: \[srs\] param_cache .* holds \d+ development key file/.test(fs.readFileSync(d.log, 'utf8')),
    'the daemon warns at start that it serves development keys');
  let b0 = run(['bench', 'metrics', '-a', `unix://${d.sock}`]);
  check(b0.code === 0 && /\ncuzk_srs_development_keys [1-9]\d*\n/.test(b0.out) &&
    /\ncuzk_srs_development\{circuit_id="porep-2k"\} 1\n/.test(b0.out),
    '/metrics: cuzk_srs_development_keys and cuzk_srs_development');
  b0 = run(['bench', 'status', '-a', `unix://${d.sock}`]);
  check(b0.code === 0 && /porep-2k hot.*DEVELOPMENT key/.test(b0.out) && /WARNING: +\d+ development key/.test(b0.out),
    'cuzk bench status marks the development key');
  r = await call(c, 'EvictSRS', { circuit_id: 'porep-2k' });
  check(!r.err && r.res.was_loaded && r.res.freed_bytes === srs.size_bytes, 'EvictSRS frees it');
  r = await call(c, 'GetStatus', {});
  srs = r.res.loaded_srs.find((s) => s.circuit_id === 'porep-2k');
  check(srs && srs.tier === 2, 'SRS cold after evict');
  r = await call(c, 'PreloadSRS', { circuit_id: 'porep-2k' });
  check(!r.err && !r.res.already_loaded, 'PreloadSRS again');
  r = await call(c, 'PreloadSRS', { circuit_id: 'porep-2k' });
  check(!r.err && r.res.already_loaded, 'PreloadSRS of a hot SRS says already loaded');

  // p1: submitted, awaited by two Prove callers (one leaves early) and AwaitProof.
  r = await call(c, 'SubmitProof', submitReq('p1', c1));
  check(!r.err && r.res.job_id === 'p1' && r.res.queue_position === 0, 'SubmitProof p1');
  const prove1 = call(c, 'Prove', { submit: submitReq('p1', c1) });
  const leaver = call(c, 'Prove', { submit: submitReq('p1', c1) }, 1500);
  r = await call(c, 'AwaitProof', { job_id: 'p1', timeout_ms: 200 });
  check(!r.err && r.res.status === S.TIMEOUT, 'AwaitProof with timeout_ms -> TIMEOUT');
  r = await call(c, 'SubmitProof', submitReq('p1', Buffer.concat([c1, Buffer.from(' ')])));
  check(r.err && r.err.code === grpc.status.FAILED_PRECONDITION &&
    /request_id 'p1' is in use by a (queued|preparing|running) porep-c2 job/.test(r.err.details),
    `same request_id, different payload while it runs -> FAILED_PRECONDITION (${r.err && r.err.details})`);
  // p2 waits for the prover, p3 holds the synthesis worker, p4 stays queued.
  for (const id of ['p2', 'p3', 'p4']) await call(c, 'SubmitProof', submitReq(id, c1));
  const p2 = call(c, 'AwaitProof', { job_id: 'p2' });
  await sleep(8000); // p2, p3 synthesize in ~1 s each; p1 proves for ~a minute
  r = await call(c, 'GetStatus', {});
  check(r.res.queues[0].pending >= 1 && r.res.queues[0].in_progress >= 2,
    `status shows queued and running PoRep jobs (${JSON.stringify(r.res.queues[0])})`);
  r = await call(c, 'CancelProof', { job_id: 'p4' });
  check(!r.err && r.res.was_running === false, 'CancelProof of a queued job');
  r = await call(c, 'AwaitProof', { job_id: 'p4', timeout_ms: 5000 });
  check(!r.err && r.res.status === S.CANCELLED, 'queued job -> CANCELLED');
  r = await call(c, 'CancelProof', { job_id: 'p3' });
  check(!r.err && r.res.was_running === true, 'CancelProof of a running job');
  r = await call(c, 'AwaitProof', { job_id: 'p3', timeout_ms: 10000 });
  check(!r.err && r.res.status === S.CANCELLED, 'running job -> CANCELLED at the partition boundary');
  r = await call(c, 'CancelProof', { job_id: 'p2' });
  check(!r.err && r.res.was_running === true, 'CancelProof of a synthesized job');

  const l = await leaver;
  check(l.err && l.err.code === grpc.status.DEADLINE_EXCEEDED, 'a caller that leaves gets its deadline');
  const p1 = await prove1;
  const res1 = p1.res && p1.res.result;
  check(!p1.err && res1.status === S.COMPLETED && res1.proof.length === 192,
    `Prove p1 -> COMPLETED, 192 bytes (${p1.err ? p1.err.details : res1.error_message})`);
  check(res1 && res1.total_ms > 0 && res1.gpu_compute_ms > 0 && res1.synthesis_ms > 0, 'timings reported');
  r = await call(c, 'AwaitProof', { job_id: 'p1' });
  check(!r.err && r.res.status === S.COMPLETED && Buffer.compare(r.res.proof, res1.proof) === 0,
    'AwaitProof after completion: the same proof');
  r = await call(c, 'Prove', { submit: submitReq('p1', c1) });
  check(!r.err && Buffer.compare(r.res.result.proof, res1.proof) === 0, 'duplicate Prove: the same proof, not re-run');
  // Re-proving the sector with another C1 under its id (Curio's ids are
  // fixed per sector): a new job, not the retained result.
  r = await call(c, 'SubmitProof', submitReq('p1', c1, { sector_size: 2048 }));
  check(!r.err && r.res.job_id === 'p1', `another payload under the ended job's id is accepted (${r.err && r.err.details})`);
  r = await call(c, 'AwaitProof', { job_id: 'p1', timeout_ms: 300 });
  check(!r.err && r.res.status === S.TIMEOUT, 'it is a new job (not the finished one)');
  await call(c, 'CancelProof', { job_id: 'p1' });
  r = await call(c, 'AwaitProof', { job_id: 'p1', timeout_ms: 20000 });
  check(!r.err && r.res.status === S.CANCELLED, 'the new p1 cancelled');
  const p2r = await p2;
  check(!p2r.err && p2r.res.status === S.CANCELLED, 'p2 -> CANCELLED');

  const proofFile = path.join(work, 'p1.proof');
  fs.writeFileSync(proofFile, res1.proof);
  const vk = run(['verify', '--c1', c1Path, '--vk', params, '--proof', proofFile, '--miner-id', '1000']);
  check(vk.code === 0, `cuzk verify accepts the daemon's proof (${vk.out.trim()})`);
  const bad = Buffer.from(res1.proof);
  bad[100] ^= 1;
  fs.writeFileSync(proofFile + '.bad', bad);
  const vb = run(['verify', '--c1', c1Path, '--vk', params, '--proof', proofFile + '.bad', '--miner-id', '1000']);
  check(vb.code !== 0, 'cuzk verify rejects a modified proof');

  r = await call(c, 'GetMetrics', {});
  check(/cuzk_proofs_completed_total 1\n/.test(r.res.prometheus_text) &&
    /cuzk_proofs_cancelled_total 4\n/.test(r.res.prometheus_text), 'metrics: 1 completed, 4 cancelled');
  r = await call(c, 'GetStatus', {});
  check(r.res.total_proofs_completed === 1, 'status: 1 completed');

  // SIGTERM during a proof: the caller gets an answer, exit 0, socket removed.
  const p5 = call(c, 'Prove', { submit: submitReq('p5', c1) });
  await sleep(3000);
  d.proc.kill('SIGTERM');
  const p5r = await p5;
  const st5 = p5r.res && p5r.res.result.status;
  check(!p5r.err && (st5 === S.CANCELLED || st5 === S.COMPLETED),
    `in-flight Prove answered during shutdown (${p5r.err ? p5r.err.details : st5})`);
  const ex = await d.exited;
  check(ex.code === 0, `exit 0 after SIGTERM (${ex.code})`);
  check(!fs.existsSync(d.sock), 'socket removed');
  c.close();

  // Fault: kill -9 during a proof. The restarted daemon (stale socket
  // replaced) proves the client's retry under the same id, and the
  // parameter cache (parameters, keys, pre-compiled circuit) is unchanged,
  // with nothing left beside it.
  const cacheState = () => fs.readdirSync(params).sort().map((f) => {
    const buf = fs.readFileSync(path.join(params, f));
    return `${f} ${buf.length} ${crypto.createHash('sha256').update(buf).digest('hex')}`;
  }).join('\n');
  const cacheBefore = cacheState();
  let f = await startDaemon('fault', params);
  const doomed = call(f.client, 'Prove', { submit: submitReq('k1', c1) });
  let started = false;
  for (let i = 0; i < 600 && !started; i++) {
    const st = await call(f.client, 'GetStatus', {});
    started = !st.err && st.res.queues[0].in_progress >= 1;
    if (!started) await sleep(100);
  }
  check(started, 'the proof to be killed started');
  await sleep(2000); // inside synthesis or the prover
  f.proc.kill('SIGKILL');
  const killed = await f.exited;
  check(killed.sig === 'SIGKILL', `daemon killed (${killed.sig})`);
  const lost = await doomed;
  check(lost.err && lost.err.code === grpc.status.UNAVAILABLE, `the caller sees UNAVAILABLE (${lost.err && lost.err.code})`);
  f.client.close();
  check(fs.existsSync(f.sock), 'the killed daemon left its socket');
  fs.renameSync(f.log, `${f.log}.killed`);
  f = await startDaemon('fault', params);
  const retry = await call(f.client, 'Prove', { submit: submitReq('k1', c1) });
  const rr = retry.res && retry.res.result;
  check(!retry.err && rr.status === S.COMPLETED && rr.proof.length === 192,
    `the retry with the same id after restart -> COMPLETED (${retry.err ? retry.err.details : rr.error_message})`);
  if (rr && rr.proof.length) {
    fs.writeFileSync(proofFile + '.k1', rr.proof);
    const vk1 = run(['verify', '--c1', c1Path, '--vk', params, '--proof', proofFile + '.k1', '--miner-id', '1000']);
    check(vk1.code === 0, `the retried proof verifies (${vk1.out.trim()})`);
  }
  await stopDaemon(f);
  check(cacheState() === cacheBefore, 'parameter cache intact after kill -9 and restart');
}

// ---------------------------------------------------------------- PoSt part
// A request of `cuzk gen post` (the JSON of cz_post_request) as a
// SubmitProofRequest.
function postReq(id, gen, extra = {}) {
  return {
    request_id: id, proof_kind: gen.kind === 'winning-post' ? 4 : 3,
    sector_size: gen.sector_size, registered_proof: gen.registered_proof, miner_id: gen.miner_id,
    partition_index: gen.partition_index, randomness: Buffer.from(gen.randomness, 'hex'),
    vanilla_proofs: gen.vanilla_proofs.map((b) => Buffer.from(b, 'base64')), ...extra,
  };
}

async function postPart(params) {
  const gen = (kind, args) => {
    const file = path.join(work, `${kind}.json`);
    const r = run(['gen', 'post', '--kind', kind, '--sector-size', '2KiB', '--seed', '5',
      '--out', file, ...args]);
    if (r.code !== 0) throw new Error(`cuzk gen post: ${r.out}`);
    return { file, req: JSON.parse(fs.readFileSync(file, 'utf8')) };
  };
  const winning = gen('winning', ['--sectors', '3']);
  const window = gen('window', ['--sectors', '2', '--partition', '1']);
  const d = await startDaemon('post', params);
  const c = d.client;
  // A verified proof: 192 bytes that `cuzk verify --post` accepts.
  const verified = (g, res, what) => {
    const ok = res && res.status === S.COMPLETED && res.proof.length === 192;
    check(ok, `${what} -> COMPLETED, 192 bytes (${res ? res.error_message : 'no answer'})`);
    if (!ok) return;
    const file = path.join(work, `${what.replace(/\W+/g, '_')}.proof`);
    fs.writeFileSync(file, res.proof);
    const v = run(['verify', '--post', g.file, '--vk', params, '--proof', file]);
    check(v.code === 0 && /\nvalid\n/.test(`\n${v.out}`), `${what}: cuzk verify --post accepts it`);
  };
  for (const [name, g] of [['WinningPoSt', winning], ['WindowPoSt partition 1', window]]) {
    let r = await call(c, 'Prove', { submit: postReq(`prove-${name}`, g.req) });
    verified(g, r.err ? null : r.res.result, `Prove ${name}`);
    r = await call(c, 'SubmitProof', postReq(`submit-${name}`, g.req));
    check(!r.err && r.res.job_id === `submit-${name}`, `SubmitProof ${name} (${r.err && r.err.details})`);
    r = await call(c, 'AwaitProof', { job_id: `submit-${name}` });
    verified(g, r.err ? null : r.res, `SubmitProof + AwaitProof ${name}`);
  }

  // Refused at submission: INVALID_ARGUMENT with the reason, no job made.
  const w = window.req;
  const proofs = postReq('x', w).vanilla_proofs;
  const refusedPost = async (id, req, re, what) => {
    for (const method of ['Prove', 'SubmitProof']) {
      const x = await call(c, method, method === 'Prove' ? { submit: req(id) } : req(id));
      check(x.err && x.err.code === grpc.status.INVALID_ARGUMENT && re.test(x.err.details),
        `${method}: ${what} -> INVALID_ARGUMENT (${x.err ? x.err.details : 'accepted'})`);
    }
    const a = await call(c, 'AwaitProof', { job_id: id, timeout_ms: 10 });
    check(a.err && a.err.code === grpc.status.NOT_FOUND, `${what}: no job was made`);
  };
  await refusedPost('truncated', (id) => postReq(id, w, { vanilla_proofs: [proofs[0], proofs[1].subarray(0, proofs[1].length - 5)] }),
    /^vanilla_proofs\[1\] \(5675 bytes, a StackedDrgWindow2KiBV1_1 proof has 5680\): .*truncated/, 'truncated bincode');
  await refusedPost('count', (id) => postReq(id, w, { vanilla_proofs: [...proofs, proofs[0]] }),
    /3 vanilla proofs: StackedDrgWindow2KiBV1_1 takes 1 to 2/, 'three sectors for a two-sector partition');
  await refusedPost('count0', (id) => postReq(id, w, { vanilla_proofs: [] }),
    /0 vanilla proofs: StackedDrgWindow2KiBV1_1 takes 1 to 2/, 'no vanilla proofs');
  await refusedPost('wcount', (id) => postReq(id, winning.req, { vanilla_proofs: [proofs[0], proofs[1]] }),
    /2 vanilla proofs: .*Winning.* takes exactly 1/, 'two proofs for a WinningPoSt');
  await refusedPost('size', (id) => postReq(id, w, { registered_proof: 11 }),
    /registered proof 11 \(StackedDrgWindow8MiBV1_1\) is for 8388608-byte sectors, the request says sector_size 2048/,
    'a registered proof of another sector size');
  await refusedPost('kind', (id) => postReq(id, w, { proof_kind: 4 }),
    /registered proof 10 \(StackedDrgWindow2KiBV1_1\) is a window PoSt, the request's proof_kind is WINNING_POST/,
    'a WindowPoSt id for a WinningPoSt');
  await refusedPost('unknown', (id) => postReq(id, w, { registered_proof: 99 }),
    /registered PoSt proof 99 is unknown/, 'an unknown registered proof');
  await refusedPost('partition', (id) => postReq(id, w, { partition_index: 3000 }),
    /partition_index 3000 is out of range/, 'partition index out of range');
  await refusedPost('rand31', (id) => postReq(id, w, { randomness: Buffer.from(w.randomness, 'hex').subarray(0, 31) }),
    /randomness must be exactly 32 bytes, got 31/, 'randomness of 31 bytes');
  const flipped = Buffer.from(w.randomness, 'hex');
  flipped[0] ^= 1;
  await refusedPost('challenge', (id) => postReq(id, w, { randomness: flipped }),
    /vanilla_proofs\[0\] \(sector \d+\): inclusion_proofs\[\d+\] proves leaf \d+, the challenge is leaf/,
    'randomness the proofs were not made for (challenge mismatch)');

  const r = await call(c, 'GetStatus', {});
  check(!r.err && r.res.total_proofs_completed === 4 && r.res.total_proofs_failed === 0,
    `status: 4 completed, 0 failed (${r.res && r.res.total_proofs_completed}, ${r.res && r.res.total_proofs_failed})`);
  await stopDaemon(d);
}

console.log(failures ? `${failures} check(s) FAILED` : 'all checks passed');
process.exit(failures ? 1 : 0);
