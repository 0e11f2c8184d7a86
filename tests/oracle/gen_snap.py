#!/usr/bin/env python3
"""Writes tests/vectors/snap_vectors.txt: SnapDeals (EmptySectorUpdate)
derivations from the independent reference model
../shared/tools/refmodels/post_snap_check.py (standard-library Python: textbook
Poseidon with the Custom(1) tag 2^40, XorShift128 and Fr::random as rand_xorshift
and blstrs draw them).

- comm_r_new of rust-fil-proofs' challenges.rs test (the first Fr::random of
  XorShiftRng::from_seed(TEST_SEED));
- the first 5 challenges of the 24 (sector nodes, partition) cases of
  challenges.rs::test_challenges_against_hardcoded, computed by the model and
  checked here against the published values before anything is written;
- every challenge of a few partitions (model only);
- phi = P2c(comm_d_new, comm_r_old) and rho = P2c(phi, high) on seeded inputs,
  and P2c(0, 0).

Usage: python3 tests/oracle/gen_snap.py [path of post_snap_check.py]
"""
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    HERE, '..', '..', '..', 'shared', 'tools', 'refmodels', 'post_snap_check.py')
src = open(MODEL).read()
# the model's definitions, without its printed checks: everything before the
# list of constraint checks, and the challenge functions of part 2
ns = {'__file__': os.path.abspath(MODEL), '__name__': 'model'}
exec(src.split('checks = [')[0], ns)
exec(src.split('# ---------------- 2. SnapDeals challenges ----------------')[1]
     .split('TEST_SEED =')[0], ns)
XorShift, fr_random, snap_challenges = ns['XorShift'], ns['fr_random'], ns['snap_challenges']
poseidon, TAG1, p = ns['poseidon'], ns['TAG1'], ns['p']
snap_par = ns['snap_par']

PUBLISHED = {
    (1 << 5, 0): [21, 7, 3, 31, 0], (1 << 6, 0): [53, 51, 56, 3, 0],
    (1 << 7, 0): [117, 25, 62, 0, 72], (1 << 8, 0): [245, 140, 15, 128, 28],
    (1 << 9, 0): [245, 140, 15, 128, 28], (1 << 9, 1): [286, 308, 493, 510, 508],
    (1 << 10, 0): [245, 454, 3, 400, 193], (1 << 10, 1): [542, 666, 955, 927, 911],
    (1 << 18, 0): [36085, 32783, 44060, 10950, 3731],
    (1 << 18, 1): [78878, 130797, 112892, 93994, 78379],
    (1 << 19, 0): [101621, 16391, 109319, 25944, 41193],
    (1 << 19, 1): [209950, 163702, 175679, 224741, 197410],
    (1 << 24, 0): [1019125, 116736, 706220, 59698, 799498],
    (1 << 24, 1): [2092548, 1213276, 1185483, 1164598, 1095197],
    (1 << 24, 14): [15212432, 15665918, 15015423, 15012912, 15495223],
    (1 << 24, 15): [16388544, 15794686, 16637142, 16319148, 16328348],
    (1 << 30, 0): [1019125, 27985696, 15282860, 11586600, 44651330],
    (1 << 30, 1): [109168525, 127316247, 80331041, 97065716, 72310052],
    (1 << 30, 14): [990420169, 955146989, 968005601, 976863263, 944650706],
    (1 << 30, 15): [1038629497, 1053983614, 1030421316, 1027373887, 1068685433],
    (1 << 31, 0): [1019125, 13992848, 3820715, 18225541, 57316660],
    (1 << 31, 1): [243386253, 197875851, 204632136, 171516766, 247789010],
    (1 << 31, 14): [1997053129, 1920414070, 2003609080, 1900492803, 1963254685],
    (1 << 31, 15): [2045262457, 2036941247, 2136653521, 2091356007, 2147167623],
}

hx = lambda x: x.to_bytes(32, 'little').hex()
crn = fr_random(XorShift(bytes.fromhex('5962be5d763d318d17db37325406bce5')))
out = [l.strip() for l in (__doc__.splitlines())]
lines = ['# ' + l if l else '#' for l in out]
lines.append('# comm_r_new <32-byte LE hex>')
lines.append('comm_r_new ' + hx(crn))
lines.append('# challenges <nodes> <partition> <first challenges...> (published, model agrees)')
for (n, k), want in sorted(PUBLISHED.items()):
    got = snap_challenges(n, crn, k)
    assert got == want, (n, k, got, want)
    lines.append('challenges %d %d %s' % (n, k, ' '.join(map(str, got))))
lines.append('# all_challenges <nodes> <partition> <every challenge> (model)')
for n, k in [(1 << 6, 0), (1 << 18, 3), (1 << 30, 7), (1 << 31, 15)]:
    ch = snap_par(n)[1]
    lines.append('all_challenges %d %d %s' % (n, k, ' '.join(map(str, snap_challenges(n, crn, k, ch)))))
lines.append('# p2c <x> <y> <P2c(x, y)>; phi and rho are P2c of (comm_d_new, comm_r_old), (phi, high)')
assert hx(poseidon([0, 0], 2, TAG1)) == 'b3f18da3b9c14f6cc04be465c31c812e95510e8eb8b13f75263ca08d5c127823'
rng = random.Random(15)
cases = [(0, 0)] + [(rng.randrange(p), rng.randrange(p)) for _ in range(3)] + \
        [(rng.randrange(p), h) for h in (0, 1, 1023)]
for x, y in cases:
    lines.append('p2c %s %s %s' % (hx(x), hx(y), hx(poseidon([x, y], 2, TAG1))))
path = os.path.join(HERE, '..', 'vectors', 'snap_vectors.txt')
open(path, 'w').write('\n'.join(lines) + '\n')
print('wrote', os.path.normpath(path), len(lines), 'lines')
