#!/usr/bin/env python3
"""inputs_check.py porep|post|snap MODEL_DIR REQUEST PRINTED: the public
inputs `cuzk verify --print-inputs` printed (PRINTED) equal the ones
computed here, independently of cuzk, from the request and the facts of
../shared/spec (filecoin-porep.md §3.4-3.5, filecoin-post-snap.md §2.3,
§2.6, §3.5), with the DRG and expander parents of the reference model
../shared/tools/refmodels/graph_check.py (which reproduces the published
parent-cache digests).

REQUEST: porep, a raw C1 output (`cuzk gen c1 --raw`); post, a PoSt
request (`cuzk gen post`); snap, a SnapDeals request (`cuzk gen snap`).
PRINTED: "# partition K: N public inputs" then one 0x-hex (big-endian)
field element a line; other lines are ignored."""
import base64
import hashlib
import json
import os
import re
import struct
import sys

mode, model_dir, request, printed = sys.argv[1:5]
req = json.load(open(request))
le = lambda b: int.from_bytes(bytes(b), 'little')


def parse_printed(path):
    parts, cur = {}, None
    for line in open(path):
        m = re.match(r'# partition (\d+): (\d+) public inputs$', line)
        if m:
            cur = int(m.group(1))
            parts[cur] = (int(m.group(2)), [])
        elif line.startswith('0x'):
            assert cur is not None, 'a value before any partition header'
            parts[cur][1].append(int(line.strip(), 16))
    for k, (n, vals) in parts.items():
        assert n == len(vals), f'partition {k}: header says {n}, {len(vals)} values follow'
    return {k: vals for k, (n, vals) in parts.items()}


def porep():
    ns = {}
    src = open(os.path.join(model_dir, 'graph_check.py')).read()
    exec(src.split('def parent_cache')[0], ns)
    names = {}
    for i, s in enumerate(['2KiB', '8MiB', '512MiB', '32GiB', '64GiB']):
        names[f'StackedDrg{s}V1'] = i
        names[f'StackedDrg{s}V1_1'] = 5 + i
    rp = names[req['registered_proof']]
    size = {0: 2048, 1: 8 << 20, 2: 512 << 20, 3: 32 << 30, 4: 64 << 30}[rp % 5]
    nodes = size // 32
    # challenges per partition and partitions (filecoin-porep.md, the table of §3)
    n_ch, parts = {2048: (2, 1), 8 << 20: (2, 1), 512 << 20: (2, 1)}[size]
    pid = ns['porep_id'](rp)
    seed28, keys = ns['drg_seed'](pid), ns['feistel_keys'](pid)
    pre = ns['fprecompute'](nodes * 8)
    out = {}
    for k in range(parts):
        vals = [le(req['replica_id']), le(req['comm_d']), le(req['comm_r'])]
        for i in range(n_ch):
            j = n_ch * k + i
            h = hashlib.sha256(bytes(req['replica_id']) + bytes(req['seed']) +
                               struct.pack('<I', j)).digest()
            c = int.from_bytes(h, 'little') % (nodes - 1) + 1
            vals += [c] + ns['base_parents'](c, seed28, rp < 5) + \
                ns['exp_parents'](c, nodes, keys, pre) + [c, c, c]
        out[k] = vals
    return out


def leaf(r, sector_id, idx, nodes):
    h = hashlib.sha256(r + struct.pack('<Q', sector_id) + struct.pack('<Q', idx)).digest()
    return int.from_bytes(h[:8], 'little') % nodes


def post():
    r = bytes.fromhex(req['randomness'])
    nodes = req['sector_size'] // 32
    # each vanilla proof begins with sector_id (u64 LE) and comm_r (32 bytes)
    sectors = []
    for b in req['vanilla_proofs']:
        raw = base64.b64decode(b)
        sectors.append((struct.unpack_from('<Q', raw, 0)[0], le(raw[8:40])))
    k = req['partition_index']
    if req['kind'] == 'winning-post':
        # the verifier passes 66 copies of the challenged sector; slot i uses
        # challenge index i (ApiVersion 1.0 always)
        assert len(sectors) == 1
        sid, comm_r = sectors[0]
        return {0: [v for i in range(66) for v in (comm_r, leaf(r, sid, i, nodes))]}
    sector_count = {2048: 2, 8 << 20: 2, 512 << 20: 2, 32 << 30: 2349, 64 << 30: 2300}[
        req['sector_size']]
    v1_2 = req['registered_proof'] >= 10  # Go ids 10-14: Rust ApiVersion 1.2
    vals = []
    for i in range(sector_count):
        sid, comm_r = sectors[min(i, len(sectors) - 1)]
        si = min(i, len(sectors) - 1)  # padded slots repeat the last sector's values
        idx = lambda n: n if v1_2 else (k * sector_count + si) * 10 + n
        vals += [comm_r] + [leaf(r, sid, idx(n), nodes) for n in range(10)]
    return {k: vals}


def snap():
    parts = len(req['vanilla_proofs'])
    pb = parts.bit_length() - 1
    h_select = 1 if req['sector_size'] <= 2048 else 8  # filecoin-post-snap.md §3.5
    comms = [le(bytes.fromhex(req[f])) for f in ('comm_r_old', 'comm_d_new', 'comm_r_new')]
    return {k: [k | (h_select << pb)] + comms for k in range(parts)}


want = {'porep': porep, 'post': post, 'snap': snap}[mode]()
got = parse_printed(printed)
if got != want:
    for k in sorted(set(want) | set(got)):
        a, b = want.get(k, []), got.get(k, [])
        for i in range(max(len(a), len(b))):
            x = hex(a[i]) if i < len(a) else None
            y = hex(b[i]) if i < len(b) else None
            if x != y:
                print(f'FAIL: partition {k} input {i}: expected {x}, cuzk printed {y}')
                break
        else:
            if len(a) != len(b):
                print(f'FAIL: partition {k}: {len(a)} expected, {len(b)} printed')
    sys.exit(1)
n = sum(len(v) for v in want.values())
print(f'{mode}: {len(want)} partition(s), {n} public inputs as computed independently')
