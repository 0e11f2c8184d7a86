#include "harness/harness.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/stat.h>

#include "groth16/setup.h"
#include "r1cs/backends.h"
#include "util/parallel.h"

int cz_test_failures;
static uint64_t test_seed;
static uint64_t rng_state[4];

void cz_test_fail(const char *file, int line, const char *expr) {
    if (cz_test_failures == 0)
        fprintf(stderr, "(replay with CZ_TEST_SEED=%llu)\n", (unsigned long long)test_seed);
    if (cz_test_failures < 50) fprintf(stderr, "%s:%d: CHECK failed: %s\n", file, line, expr);
    cz_test_failures++;
}

static uint64_t splitmix(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* $name as a decimal number in [1 or 0, max]: digits only. A value that is
 * set but malformed ends the test (exit 2): a mistyped seed must not run
 * other cases than the ones asked for and report success. */
static int env_number(uint64_t *out, const char *name, uint64_t min, uint64_t max) {
    const char *env = getenv(name);
    if (!env || !*env) return 0;
    uint64_t v = 0;
    int ok = 1;
    for (const char *p = env; *p && ok; p++) {
        ok = *p >= '0' && *p <= '9' && v <= (max - (uint64_t)(*p - '0')) / 10;
        if (ok) v = v * 10 + (uint64_t)(*p - '0');
    }
    if (!ok || v < min) {
        fprintf(stderr, "%s='%s': expected a whole number from %llu to %llu\n", name, env,
                (unsigned long long)min, (unsigned long long)max);
        exit(2);
    }
    *out = v;
    return 1;
}

void cz_test_init(const char *name) {
    if (!env_number(&test_seed, "CZ_TEST_SEED", 0, UINT64_MAX)) test_seed = (uint64_t)time(NULL);
    cz_error err = {0};
    if (cz_thread_env_check(&err) != CZ_OK) {
        fprintf(stderr, "%s: %s\n", name, err.message);
        exit(2);
    }
    uint64_t x = test_seed;
    for (int i = 0; i < 4; i++) rng_state[i] = splitmix(&x);
    printf("%s: seed %llu\n", name, (unsigned long long)test_seed);
}

int cz_test_finish(const char *name) {
    if (cz_test_failures) {
        printf("%s: %d check(s) FAILED (seed %llu)\n", name, cz_test_failures,
               (unsigned long long)test_seed);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

unsigned cz_test_iters(unsigned dflt) {
    uint64_t v;
    return env_number(&v, "CZ_TEST_ITERS", 1, UINT32_MAX) ? (unsigned)v : dflt;
}

static uint64_t rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

uint64_t cz_test_rand64(void) { /* xoshiro256** */
    uint64_t *s = rng_state;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void cz_test_rand_bytes(uint8_t *out, size_t len) {
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = cz_test_rand64();
        for (size_t k = 0; k < 8 && i + k < len; k++) out[i + k] = (uint8_t)(v >> (8 * k));
    }
}

int cz_vector_open(cz_vector_file *vf, const char *name) {
    snprintf(vf->path, sizeof vf->path, "%s/%s", CZ_VECTOR_DIR, name);
    vf->file = fopen(vf->path, "r");
    vf->lineno = 0;
    vf->line = NULL;
    vf->line_cap = 0;
    if (!vf->file) {
        fprintf(stderr, "cannot open vector file %s\n", vf->path);
        cz_test_failures++;
        return 0;
    }
    return 1;
}

int cz_vector_next(cz_vector_file *vf) {
    while (getline(&vf->line, &vf->line_cap, vf->file) > 0) {
        vf->lineno++;
        char *p = vf->line;
        p[strcspn(p, "\r\n")] = 0;
        if (*p == '#' || *p == 0) continue;
        vf->nfields = 0;
        char *save = NULL;
        for (char *tok = strtok_r(p, " ", &save); tok && vf->nfields < 1024;
             tok = strtok_r(NULL, " ", &save))
            vf->fields[vf->nfields++] = tok;
        return 1;
    }
    return 0;
}

void cz_vector_close(cz_vector_file *vf) {
    if (vf->file) fclose(vf->file);
    free(vf->line);
    vf->file = NULL;
    vf->line = NULL;
}

size_t cz_vector_hex_len(cz_vector_file *vf, int i) {
    if (i >= vf->nfields || !strcmp(vf->fields[i], "-")) return 0;
    return strlen(vf->fields[i]) / 2;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int cz_test_from_hex(uint8_t *out, const char *hex, size_t len) {
    if (strlen(hex) != 2 * len) return 0;
    for (size_t k = 0; k < len; k++) {
        int hi = hex_digit(hex[2 * k]), lo = hex_digit(hex[2 * k + 1]);
        if (hi < 0 || lo < 0) return 0;
        out[k] = (uint8_t)(hi << 4 | lo);
    }
    return 1;
}

int cz_vector_hex(cz_vector_file *vf, int i, uint8_t *out, size_t len) {
    const char *s = i < vf->nfields ? vf->fields[i] : "";
    if (!strcmp(s, "-")) s = "";
    if (cz_test_from_hex(out, s, len)) return 1;
    fprintf(stderr, "%s:%lu: field %d: expected %zu hex bytes\n", vf->path, vf->lineno, i, len);
    cz_test_failures++;
    return 0;
}

uint8_t *cz_test_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    uint8_t *buf = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0) n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0) buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) free(buf), buf = NULL;
    fclose(f);
    *len = buf ? (size_t)n : 0;
    return buf;
}

void cz_test_write_file(const char *path, const uint8_t *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    CHECK(fwrite(buf, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

/* /proc/self/smaps read up to the header of the mapping holding p (its
 * permissions into perms, the mapping's fields next in the file), or NULL. */
static FILE *smaps_at(const void *p, char perms[8]) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return NULL;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo = 0, hi = 0;
        memset(perms, 0, 8);
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && (unsigned long)p >= lo &&
            (unsigned long)p < hi)
            return f;
    }
    fclose(f);
    return NULL;
}

int cz_test_mapping_shared(const void *p) {
    char perms[8];
    FILE *f = smaps_at(p, perms);
    if (!f) return -1;
    fclose(f);
    return perms[3] == 's';
}

long cz_test_mapping_huge_kb(const void *p) {
    char perms[8], line[512];
    FILE *f = smaps_at(p, perms);
    if (!f) return -1;
    long kb = -1;
    while (kb < 0 && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3) break; /* the next mapping */
        if (sscanf(line, "AnonHugePages: %ld kB", &kb) != 1) kb = -1;
    }
    fclose(f);
    return kb;
}
