/* XXH64 (Yann Collet's xxHash, 64-bit variant), written from its published
 * specification. Any change to one 8-byte word changes the digest, since
 * each lane round and the merge are bijective in that word. */
#include "util/xxh64.h"

#include <string.h>

#define P1 0x9E3779B185EBCA87ULL
#define P2 0xC2B2AE3D27D4EB4FULL
#define P3 0x165667B19E3779F9ULL
#define P4 0x85EBCA77C2B2AE63ULL
#define P5 0x27D4EB2F165667C5ULL

static inline uint64_t rotl(uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}
static inline uint64_t read64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8); /* little-endian hosts only (xxh64.h) */
    return v;
}
static inline uint32_t read32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}
static inline uint64_t round64(uint64_t acc, uint64_t input) {
    acc += input * P2;
    acc = rotl(acc, 31);
    return acc * P1;
}
static inline uint64_t merge64(uint64_t acc, uint64_t v) {
    acc ^= round64(0, v);
    return acc * P1 + P4;
}

void cz_xxh64_init(cz_xxh64_state *s, uint64_t seed) {
    memset(s, 0, sizeof *s);
    s->v[0] = seed + P1 + P2;
    s->v[1] = seed + P2;
    s->v[2] = seed;
    s->v[3] = seed - P1;
}

static void stripes(uint64_t v[4], const uint8_t *p, size_t n) {
    uint64_t v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3];
    for (size_t i = 0; i < n; i++, p += 32) {
        v0 = round64(v0, read64(p));
        v1 = round64(v1, read64(p + 8));
        v2 = round64(v2, read64(p + 16));
        v3 = round64(v3, read64(p + 24));
    }
    v[0] = v0, v[1] = v1, v[2] = v2, v[3] = v3;
}

void cz_xxh64_update(cz_xxh64_state *s, const void *data, size_t len) {
    const uint8_t *p = data;
    s->total += len;
    if (s->buf_len) {
        size_t take = 32 - s->buf_len < len ? 32 - s->buf_len : len;
        memcpy(s->buf + s->buf_len, p, take);
        s->buf_len += take, p += take, len -= take;
        if (s->buf_len < 32) return;
        stripes(s->v, s->buf, 1);
        s->buf_len = 0;
    }
    stripes(s->v, p, len / 32);
    p += len / 32 * 32;
    len %= 32;
    memcpy(s->buf, p, len);
    s->buf_len = len;
}

uint64_t cz_xxh64_digest(const cz_xxh64_state *s) {
    uint64_t h;
    if (s->total >= 32) {
        h = rotl(s->v[0], 1) + rotl(s->v[1], 7) + rotl(s->v[2], 12) + rotl(s->v[3], 18);
        for (int i = 0; i < 4; i++) h = merge64(h, s->v[i]);
    } else {
        h = s->v[2] + P5; /* v[2] is the seed until a stripe was consumed */
    }
    h += s->total;
    const uint8_t *p = s->buf;
    size_t len = s->buf_len;
    for (; len >= 8; len -= 8, p += 8) {
        h ^= round64(0, read64(p));
        h = rotl(h, 27) * P1 + P4;
    }
    if (len >= 4) {
        h ^= (uint64_t)read32(p) * P1;
        h = rotl(h, 23) * P2 + P3;
        len -= 4, p += 4;
    }
    for (; len > 0; len--, p++) {
        h ^= (uint64_t)*p * P5;
        h = rotl(h, 11) * P1;
    }
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint64_t cz_xxh64(const void *data, size_t len, uint64_t seed) {
    cz_xxh64_state s;
    cz_xxh64_init(&s, seed);
    cz_xxh64_update(&s, data, len);
    return cz_xxh64_digest(&s);
}
