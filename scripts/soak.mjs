// The soak's traffic and its report (scripts/soak.sh starts the daemon and
// runs this; see there for the knobs).
//
// usage: node soak.mjs ORACLE_DIR PROTO_FILE SOCKET METRICS_PORT DAEMON_PID WORK_DIR
//
// For CZ_SOAK_MIN minutes, CZ_SOAK_LANES lanes each send one request after
// another, picked at random (seed CZ_SOAK_SEED) from: PoRep C2, WinningPoSt,
// WindowPoSt (partition 1), SnapDeals (all 2 KiB, through Prove or through
// SubmitProof + AwaitProof), a submission cancelled while queued or running,
// a duplicate (the same request_id and payload twice at once: one job, both
// answered with the same proof), and a bad request (INVALID_ARGUMENT
// expected). Beside them GetStatus every 5 s, HTTP /metrics every 10 s, and
// the daemon's RSS and open descriptors every 30 s (/proc). At the end:
// outcomes per kind, latency percentiles per kind, the samples, and the
// daemon's own counters against the client's (nothing lost: every job the
// client saw end is counted once by the daemon). Exit 0 when nothing was
// lost or unexpected, else 1.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createRequire } from 'node:module';

const [oracleDir, protoFile, sock, metricsPort, daemonPid, work] = process.argv.slice(2);
const require = createRequire(path.resolve(oracleDir, 'package.json'));
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');
const def = loader.loadSync(protoFile, { longs: Number, enums: Number, defaults: true, keepCase: true });
const pkg = grpc.loadPackageDefinition(def).cuzk.v1;
const client = new pkg.ProvingEngine(`unix://${sock}`, grpc.credentials.createInsecure(),
  { 'grpc.max_receive_message_length': 64 << 20 });

const minutes = Number(process.env.CZ_SOAK_MIN || 60);
const lanes = Number(process.env.CZ_SOAK_LANES || 2);
let seed = BigInt(process.env.CZ_SOAK_SEED || Date.now()) & 0xffffffffn;
console.log(`soak: ${minutes} min, ${lanes} lanes, seed ${seed} (CZ_SOAK_SEED replays the choices)`);
// xorshift32: the choices are reproducible from the seed (timing is not)
function rand() {
  seed ^= (seed << 13n) & 0xffffffffn;
  seed ^= seed >> 17n;
  seed ^= (seed << 5n) & 0xffffffffn;
  return Number(seed) / 4294967296;
}
const S = { UNKNOWN: 0, COMPLETED: 1, FAILED: 2, CANCELLED: 3, TIMEOUT: 4 };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the requests (files from `cuzk gen`, made by soak.sh)
const c1 = fs.readFileSync(path.join(work, 'c1.json'));
const jsonOf = (f) => JSON.parse(fs.readFileSync(path.join(work, f), 'utf8'));
const winning = jsonOf('winning.json');
const window = jsonOf('window.json');
const snap = jsonOf('snap.json');
const porepReq = (id) => ({ request_id: id, proof_kind: 1, vanilla_proof: c1, registered_proof: 5,
  sector_number: 1, miner_id: 1000 });
const postReq = (id, g) => ({
  request_id: id, proof_kind: g.kind === 'winning-post' ? 4 : 3, sector_size: g.sector_size,
  registered_proof: g.registered_proof, miner_id: g.miner_id, partition_index: g.partition_index,
  randomness: Buffer.from(g.randomness, 'hex'),
  vanilla_proofs: g.vanilla_proofs.map((b) => Buffer.from(b, 'base64')),
});
const snapReq = (id) => ({
  request_id: id, proof_kind: 2, sector_size: snap.sector_size, registered_proof: snap.registered_proof,
  vanilla_proofs: snap.vanilla_proofs.map((b) => Buffer.from(b, 'base64')),
  comm_r_old: Buffer.from(snap.comm_r_old, 'hex'), comm_d_new: Buffer.from(snap.comm_d_new, 'hex'),
  comm_r_new: Buffer.from(snap.comm_r_new, 'hex'), miner_id: 1000, sector_number: 1,
});
const kinds = {
  porep: { req: porepReq, proofLen: 192 }, // 2 KiB: one partition
  winning: { req: (id) => postReq(id, winning), proofLen: 192 },
  window: { req: (id) => postReq(id, window), proofLen: 192 },
  snap: { req: snapReq, proofLen: 192 * snap.vanilla_proofs.length },
};
// bad requests, each refused with INVALID_ARGUMENT at submission
const bad = [
  (id) => ({ ...porepReq(id), priority: 7 }),
  (id) => ({ ...porepReq(id), miner_id: 0 }),
  (id) => ({ ...porepReq(id), vanilla_proof: Buffer.from('{"garbage":') }),
  (id) => ({ ...postReq(id, window), randomness: Buffer.alloc(31) }),
  (id) => ({ ...snapReq(id), comm_r_new: Buffer.alloc(32, 1) }),
  (id) => ({ ...porepReq(id), proof_kind: 9 }),
];

function call(method, req, deadlineMs) {
  return new Promise((resolve) => {
    const o = deadlineMs ? { deadline: Date.now() + deadlineMs } : {};
    client[method](req, new grpc.Metadata(), o, (err, res) => resolve({ err, res }));
  });
}

// ---- bookkeeping
const stats = {}; // action -> {completed, failed, cancelled, refused, unexpected, lat: []}
const stat = (a) => (stats[a] ||= { completed: 0, failed: 0, cancelled: 0, refused: 0, unexpected: 0, lat: [] });
const unexpected = [];
function note(action, what, detail) {
  stat(action)[what]++;
  if (what === 'unexpected' || what === 'failed') {
    unexpected.push(`${new Date().toISOString()} ${action}: ${what}: ${detail}`);
    console.log(`soak: ${action}: ${what}: ${detail}`);
  }
}
let seq = 0;
const newId = (a) => `soak-${a}-${process.pid}-${++seq}`;
// jobs the daemon made and the client saw end: the daemon's counters
// must grow by exactly these
const seen = { completed: 0, failed: 0, cancelled: 0 };

function judge(action, kind, res, t0) {
  if (!res) return;
  if (res.status === S.COMPLETED && res.proof.length === kinds[kind].proofLen) {
    stat(action).lat.push(Date.now() - t0);
    note(action, 'completed');
  } else if (res.status === S.COMPLETED) {
    note(action, 'unexpected', `proof of ${res.proof.length} bytes`);
  } else {
    note(action, 'failed', `status ${res.status}: ${res.error_message}`);
  }
}

async function prove(kind) {
  const id = newId(kind), t0 = Date.now();
  const viaSubmit = rand() < 0.5;
  const action = kind;
  if (!viaSubmit) {
    const r = await call('Prove', { submit: kinds[kind].req(id) });
    if (r.err) return note(action, 'unexpected', `Prove: ${r.err.code} ${r.err.details}`);
    if (r.res.result.status === S.COMPLETED) seen.completed++;
    else seen.failed++;
    return judge(action, kind, r.res.result, t0);
  }
  const s = await call('SubmitProof', kinds[kind].req(id));
  if (s.err) return note(action, 'unexpected', `SubmitProof: ${s.err.code} ${s.err.details}`);
  const a = await call('AwaitProof', { job_id: id });
  if (a.err) return note(action, 'unexpected', `AwaitProof: ${a.err.code} ${a.err.details}`);
  if (a.res.status === S.COMPLETED) seen.completed++;
  else seen.failed++;
  judge(action, kind, a.res, t0);
}

async function cancel() {
  const kind = ['porep', 'snap', 'window'][Math.floor(rand() * 3)];
  const id = newId('cancel');
  const s = await call('SubmitProof', kinds[kind].req(id));
  if (s.err) return note('cancel', 'unexpected', `SubmitProof: ${s.err.code} ${s.err.details}`);
  await sleep(Math.floor(rand() * 3000)); // queued, preparing or running
  const c = await call('CancelProof', { job_id: id });
  if (c.err) return note('cancel', 'unexpected', `CancelProof: ${c.err.code} ${c.err.details}`);
  const a = await call('AwaitProof', { job_id: id });
  if (a.err) return note('cancel', 'unexpected', `AwaitProof: ${a.err.code} ${a.err.details}`);
  if (a.res.status === S.CANCELLED) {
    seen.cancelled++;
    note('cancel', 'cancelled');
  } else if (a.res.status === S.COMPLETED) { // it finished before the cancel
    seen.completed++;
    note('cancel', 'completed');
  } else {
    seen.failed++;
    note('cancel', 'failed', `status ${a.res.status}: ${a.res.error_message}`);
  }
}

async function duplicate() {
  const kind = ['porep', 'winning', 'snap'][Math.floor(rand() * 3)];
  const id = newId('dup'), t0 = Date.now();
  const [x, y] = await Promise.all([call('Prove', { submit: kinds[kind].req(id) }),
    call('Prove', { submit: kinds[kind].req(id) })]);
  if (x.err || y.err) {
    return note('duplicate', 'unexpected', `${x.err && x.err.details} / ${y.err && y.err.details}`);
  }
  const rx = x.res.result, ry = y.res.result;
  if (rx.status === S.COMPLETED) seen.completed++;
  else seen.failed++;
  if (rx.status !== ry.status || !Buffer.from(rx.proof).equals(Buffer.from(ry.proof))) {
    return note('duplicate', 'unexpected', 'the two answers of one id differ');
  }
  judge('duplicate', kind, rx, t0);
}

async function badRequest() {
  const make = bad[Math.floor(rand() * bad.length)];
  const id = newId('bad');
  const r = await call(rand() < 0.5 ? 'SubmitProof' : 'Prove',
    rand() < 0.5 ? make(id) : { submit: make(id) });
  // Prove takes {submit}; SubmitProof takes the request itself: a mismatch
  // decodes as an empty request, which is refused too
  if (r.err && r.err.code === grpc.status.INVALID_ARGUMENT) return note('bad', 'refused');
  note('bad', 'unexpected', r.err ? `${r.err.code} ${r.err.details}` : 'accepted');
}

const actions = [
  [0.24, () => prove('porep')], [0.18, () => prove('winning')], [0.18, () => prove('window')],
  [0.12, () => prove('snap')], [0.1, cancel], [0.08, duplicate], [0.1, badRequest],
];
function pick() {
  let x = rand();
  for (const [w, f] of actions) {
    if ((x -= w) < 0) return f;
  }
  return actions[0][1];
}

// ---- polls and samples
const samples = [];
function sample() {
  let rss = 0, fds = 0;
  try {
    const st = fs.readFileSync(`/proc/${daemonPid}/status`, 'utf8');
    rss = Number(/VmRSS:\s+(\d+) kB/.exec(st)[1]);
    fds = fs.readdirSync(`/proc/${daemonPid}/fd`).length;
  } catch (e) {
    unexpected.push(`sample: ${e.message}`);
  }
  const s = { t: Math.round((Date.now() - start) / 1000), rss_kb: rss, fds };
  samples.push(s);
  console.log(`soak: t=${s.t}s rss=${(rss / 1024).toFixed(1)} MiB fds=${fds} ` +
    Object.entries(stats).map(([k, v]) => `${k}:${v.completed}/${v.failed}/${v.cancelled}/${v.refused}`).join(' '));
}
let statusPolls = 0, statusErrors = 0, metricsPolls = 0, metricsErrors = 0;
async function pollStatus() {
  const r = await call('GetStatus', {}, 10000);
  statusPolls++;
  if (r.err) {
    statusErrors++;
    unexpected.push(`GetStatus: ${r.err.code} ${r.err.details}`);
  }
  return r.res;
}
function scrape() {
  return new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port: Number(metricsPort), path: '/metrics', timeout: 10000 }, (res) => {
      let body = '';
      res.on('data', (x) => { body += x; });
      res.on('end', () => resolve(res.statusCode === 200 ? body : null));
    }).on('error', () => resolve(null));
  });
}
async function pollMetrics() {
  const body = await scrape();
  metricsPolls++;
  if (body === null) {
    metricsErrors++;
    unexpected.push('GET /metrics failed');
  }
  return body;
}

// ---- run
const start = Date.now();
const end = start + minutes * 60000;
const before = await pollStatus();
const counter = (text, name) => Number((new RegExp(`\\n${name} (\\d+)\\n`).exec(`\n${text}`) || [])[1]);
const metricsBefore = await pollMetrics();
sample();
const timers = [setInterval(pollStatus, 5000), setInterval(pollMetrics, 10000), setInterval(sample, 30000)];
await Promise.all([...Array(lanes).keys()].map(async () => {
  while (Date.now() < end) await pick()();
}));
for (const t of timers) clearInterval(t);
await sleep(500);
sample();
const after = await pollStatus();
const metricsAfter = await pollMetrics();

// ---- report
const pct = (a, p) => {
  if (!a.length) return '-';
  const s = [...a].sort((x, y) => x - y);
  return (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] / 1000).toFixed(2);
};
console.log(`\nsoak report: ${((Date.now() - start) / 60000).toFixed(1)} min of traffic, ${lanes} lanes`);
console.log('action     completed failed cancelled refused unexpected   p50 s   p90 s   p99 s   max s');
for (const [k, v] of Object.entries(stats).sort()) {
  console.log(`${k.padEnd(10)} ${String(v.completed).padStart(9)} ${String(v.failed).padStart(6)} ` +
    `${String(v.cancelled).padStart(9)} ${String(v.refused).padStart(7)} ${String(v.unexpected).padStart(10)} ` +
    `${pct(v.lat, 50).padStart(7)} ${pct(v.lat, 90).padStart(7)} ${pct(v.lat, 99).padStart(7)} ` +
    `${pct(v.lat, 100).padStart(7)}`);
}
const rss = samples.map((s) => s.rss_kb / 1024), fds = samples.map((s) => s.fds);
const third = Math.max(1, Math.floor(samples.length / 3));
const mean = (a) => a.reduce((x, y) => x + y, 0) / a.length;
console.log(`RSS MiB: first ${rss[0].toFixed(1)}, min ${Math.min(...rss).toFixed(1)}, max ` +
  `${Math.max(...rss).toFixed(1)}, last ${rss[rss.length - 1].toFixed(1)}; mean of the first third ` +
  `${mean(rss.slice(0, third)).toFixed(1)}, of the last third ${mean(rss.slice(-third)).toFixed(1)} ` +
  `(${samples.length} samples)`);
console.log(`open fds: first ${fds[0]}, min ${Math.min(...fds)}, max ${Math.max(...fds)}, last ${fds[fds.length - 1]}`);
console.log(`polls: GetStatus ${statusPolls} (${statusErrors} failed), /metrics ${metricsPolls} (${metricsErrors} failed)`);
const d = {
  completed: after.total_proofs_completed - before.total_proofs_completed,
  failed: after.total_proofs_failed - before.total_proofs_failed,
  cancelled: counter(metricsAfter, 'cuzk_proofs_cancelled_total') -
    counter(metricsBefore, 'cuzk_proofs_cancelled_total'),
};
console.log(`daemon counters during the soak: completed ${d.completed}, failed ${d.failed}, cancelled ` +
  `${d.cancelled}; the client saw completed ${seen.completed}, failed ${seen.failed}, cancelled ${seen.cancelled}`);
fs.writeFileSync(path.join(work, 'soak-samples.json'), JSON.stringify({ samples, stats, seen, daemon: d }, null, 1));
let lost = d.completed !== seen.completed || d.failed !== seen.failed || d.cancelled !== seen.cancelled;
if (lost) console.log('soak: the daemon\'s counters and the client\'s differ');
if (unexpected.length) console.log(`soak: ${unexpected.length} unexpected outcome(s):\n  ${unexpected.slice(0, 20).join('\n  ')}`);
client.close();
process.exit(lost || unexpected.length ? 1 : 0);
