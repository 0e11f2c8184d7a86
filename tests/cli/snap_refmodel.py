#!/usr/bin/env python3
"""snap_refmodel.py MODEL REQUEST: a `cuzk gen snap` request checked by an
independent verifier built on the reference model
(../shared/tools/refmodels/post_snap_check.py: its textbook Poseidon and
challenge derivation; SHA-256 from hashlib), with its own bincode reader.

Per partition k: comm_r_old / comm_r_new = P2(comm_c, root), the challenges
of Challenges::new, every path's index and root (tree R old / new:
Poseidon, tree D: fr32-masked SHA-256 over comm_d_new), the encoding
leaf_r_new = leaf_r_old + leaf_d_new * rho(c >> (dD - h)), and the tree-D
node at the apex row equal to the selected apex leaf. Prints one line per
partition and exits 1 on the first failure.
"""
import base64, hashlib, json, math, os, struct, sys

model, request = sys.argv[1], sys.argv[2]
src = open(model).read()
ns = {'__file__': os.path.abspath(model), '__name__': 'model'}
exec(src.split('checks = [')[0], ns)
exec(src.split('# ---------------- 2. SnapDeals challenges ----------------')[1]
     .split('TEST_SEED =')[0], ns)
poseidon, TAG1, p, snap_par, snap_challenges, levels = (
    ns['poseidon'], ns['TAG1'], ns['p'], ns['snap_par'], ns['snap_challenges'], ns['levels'])
le = lambda b: int.from_bytes(b, 'little')
req = json.load(open(request))
size = req['sector_size']
nodes = size // 32
shape = {2048: (8, 0, 0), 8 << 20: (8, 0, 0), 512 << 20: (8, 0, 0), 32 << 30: (8, 8, 0),
         64 << 30: (8, 8, 2)}[size]
parts, nch, A = snap_par(nodes)
dD, pb, ab = nodes.bit_length() - 1, parts.bit_length() - 1, A.bit_length() - 1
h = 1 if nodes <= 1 << 10 else 10
R = levels(nodes, shape)
comm_r_old, comm_d_new, comm_r_new = (le(bytes.fromhex(req[k]))
                                      for k in ('comm_r_old', 'comm_d_new', 'comm_r_new'))
phi = poseidon([comm_d_new, comm_r_old], 2, TAG1)
assert len(req['vanilla_proofs']) == parts, 'one proof per partition'


def sha_node(a, b):
    d = bytearray(hashlib.sha256(a.to_bytes(32, 'little') + b.to_bytes(32, 'little')).digest())
    d[31] &= 0x3f
    return le(d)


def reader(b):
    o = [0]

    def rd(n):
        o[0] += n
        assert o[0] <= len(b), 'truncated'
        return b[o[0] - n:o[0]]
    return rd, o


for k, text in enumerate(req['vanilla_proofs']):
    b = base64.b64decode(text)
    rd, o = reader(b)
    u64 = lambda: struct.unpack('<Q', rd(8))[0]
    dom = lambda: le(rd(32))
    comm_c = dom()
    assert u64() == A
    apex = [dom() for _ in range(A)]
    assert u64() == nch

    def merkle(arities):
        tag = struct.unpack('<I', rd(4))[0]
        def path(n):
            assert u64() == n
            return [([dom() for _ in range(u64())], u64()) for _ in range(n)]
        if tag == 0:
            root, leaf = dom(), dom()
            els = path(len(arities))
        else:
            els = path(len(arities) - tag) + sum((path(1) for _ in range(tag)), [])
            root, leaf = dom(), dom()
        return root, leaf, els

    proofs = [(merkle(R), merkle([2] * dD), merkle(R)) for _ in range(nch)]
    assert o[0] == len(b), 'trailing bytes'
    root_old, root_new = proofs[0][0][0], proofs[0][2][0]
    assert poseidon([comm_c, root_old], 2) == comm_r_old, 'comm_r_old'
    assert poseidon([comm_c, root_new], 2) == comm_r_new, 'comm_r_new'
    for c, (ro, dn, rn) in zip(snap_challenges(nodes, comm_r_new, k, nch), proofs):
        for (root, leaf, els), arity, want, sha in ((ro, R, root_old, 0), (dn, [2] * dD, comm_d_new, 1),
                                                    (rn, R, root_new, 0)):
            cur, idx, mul = leaf, 0, 1
            for lvl, ((hs, i), a) in enumerate(zip(els, arity)):
                if sha and lvl == dD - pb - ab:
                    assert cur == apex[(c >> lvl) % A], 'apex leaf'
                ch = list(hs)
                ch.insert(i, cur)
                cur = sha_node(*ch) if sha else poseidon(ch, a)
                idx += i * mul
                mul *= a
            assert idx == c, 'path index %d, challenge %d' % (idx, c)
            assert cur == root == want, 'root'
        rho = poseidon([phi, c >> (dD - h)], 2, TAG1)
        assert rn[1] == (ro[1] + dn[1] * rho) % p, 'encoding'
    print('partition %d: comm_r, %d challenges, paths and encoding ok' % (k, nch))
print('the model accepts all %d partitions' % parts)
