#!/usr/bin/env python3
"""Writes tests/vectors/params_digest.txt: Filecoin's parameter-file digest
(the first 16 bytes of BLAKE2b-512 of the whole file, as parameters.json
records it) of fabricated files, computed with Python's hashlib (an
implementation independent of OpenSSL's, which cuzk uses).

File k of length n holds the bytes b(i) = ((i * 2654435761) mod 2^32) >> 13
mod 256 for i < n (tests/filecoin/test_params_table.c makes the same bytes).
The lengths straddle cuzk's 16 MiB read block and BLAKE2b's 128-byte block.

Usage: python3 tests/oracle/gen_params_digest.py
"""
import hashlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'vectors', 'params_digest.txt')
LENGTHS = [0, 1, 127, 128, 129, 100000, (16 << 20) - 1, 16 << 20, (16 << 20) + 1,
           (40 << 20) + 3]


def content(n):
    # numbers as in the C test: (i * 2654435761 mod 2^32) >> 13, low byte
    out = bytearray(n)
    for i in range(n):
        out[i] = (((i * 2654435761) & 0xffffffff) >> 13) & 0xff
    return bytes(out)


with open(OUT, 'w') as f:
    f.write('# Written by tests/oracle/gen_params_digest.py (hashlib): length, then the\n'
            '# first 16 bytes of BLAKE2b-512 of the pattern file of that length, hex.\n')
    big = content(max(LENGTHS))
    for n in LENGTHS:
        d = hashlib.blake2b(big[:n], digest_size=64).hexdigest()[:32]
        f.write(f'{n} {d}\n')
print(OUT)
