/* The packed witness (gpu.h, cz_gpu_witness_pack): its parts read back
 * element by element against the witness it came from, on the CPU in every
 * build (sizes around the 64-element words and the packer's blocks of
 * 2^16, witnesses of bits with few or no other values, a dense one that is
 * not packed; one of 2^23 + 17 elements, packed in pieces with step
 * boundaries between them); then, with a device, expanded there and downloaded against
 * the same witness; and plain bytes staged through an uploader whose
 * buffers grow with the pieces staged. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/srs.h"
#include "gpu_test_util.h"
#include "util/cancel.h"

/* n elements: 0, 1 or (with probability other_pct %) a random value;
 * ni of them are inputs, the first 1 as a Groth16 witness's is. */
static cz_fr *make_witness(size_t n, unsigned other_pct) {
    cz_fr *z = malloc((n ? n : 1) * sizeof *z);
    for (size_t i = 0; i < n; i++) {
        const unsigned r = (unsigned)(cz_test_rand64() % 100);
        if (r < other_pct)
            gpu_rand_fr(&z[i]);
        else
            cz_fr_from_u64(&z[i], r % 2);
    }
    if (n) cz_fr_from_u64(&z[0], 1);
    return z;
}

/* The pack's meaning, read independently of the packer: a running count of
 * the others, the two bits of each element, the values in order. */
static int pack_matches(const cz_gpu_witness_pack *p, const cz_fr *z, size_t n) {
    cz_fr one;
    cz_fr_from_u64(&one, 1);
    const size_t nw = (n + 63) / 64;
    size_t k = 0;
    if (p->n != n) return 0;
    for (size_t i = 0; i < n; i++) {
        if (i % 64 == 0 && p->before[i / 64] != k) return 0;
        const int is_one = p->bits[i / 64] >> (i % 64) & 1;
        const int is_other = p->bits[nw + i / 64] >> (i % 64) & 1;
        if (cz_fr_is_zero(&z[i])) {
            if (is_one || is_other) return 0;
        } else if (cz_fr_equal(&z[i], &one)) {
            if (!is_one || is_other) return 0;
        } else {
            if (is_one || !is_other || k >= p->n_values || !cz_fr_equal(&p->values[k], &z[i]))
                return 0;
            k++;
        }
    }
    /* the bits past n in the last word are clear */
    if (n % 64 && (p->bits[nw - 1] >> (n % 64) || p->bits[2 * nw - 1] >> (n % 64))) return 0;
    return k == p->n_values;
}

static void count_boundary(void *ctx) {
    ++*(int *)ctx;
}

static void check_cpu(void) {
    const size_t sizes[] = {1, 63, 64, 65, 1000, 65535, 65536, 65537, 3 * 65536 + 17};
    const unsigned pcts[] = {0, 2, 20};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t q = 0; q < sizeof pcts / sizeof *pcts; q++) {
            const size_t n = sizes[s], ni = n < 5 ? n : 5;
            cz_fr *z = make_witness(n, pcts[q]);
            cz_gpu_witness_pack p;
            const int packed = cz_gpu_witness_pack_make(&p, z, ni, z + ni, n - ni);
            /* a pack smaller than half the raw bytes: every one of these
             * but the smallest (its parts are rounded to 256 bytes) */
            if (n >= 1000) CHECK(packed);
            if (packed) {
                const int ok = pack_matches(&p, z, n);
                if (!ok)
                    fprintf(stderr, "pack of %zu elements (%u %% other) differs\n", n, pcts[q]);
                CHECK(ok);
                CHECK(cz_gpu_witness_pack_bytes(&p) < n * sizeof(cz_fr) / 2);
                cz_gpu_witness_pack_free(&p);
            }
            free(z);
        }
    /* a 32 GiB PoRep partition's pack took ~0.5 s under its context's run
     * lock: it meets step boundaries on the way (a piece is 2^22 elements) */
    {
        const size_t n = ((size_t)1 << 23) + 17;
        cz_fr *z = make_witness(n, 2);
        cz_gpu_witness_pack p;
        int boundaries = 0;
        cz_boundary_set_hook(count_boundary, &boundaries);
        const int packed = cz_gpu_witness_pack_make(&p, z, 5, z + 5, n - 5);
        cz_boundary_set_hook(NULL, NULL);
        printf("pack of %zu elements: %d step boundaries\n", n, boundaries);
        CHECK(packed && pack_matches(&p, z, n) && boundaries >= 4);
        cz_gpu_witness_pack_free(&p);
        free(z);
    }
    /* mostly other values (a WindowPoSt witness): sent whole */
    cz_fr *dense = make_witness(100000, 90);
    cz_gpu_witness_pack p;
    CHECK(!cz_gpu_witness_pack_make(&p, dense, 1, dense + 1, 100000 - 1));
    CHECK(p.bits == NULL && p.values == NULL && p.n == 0);
    free(dense);
}

static void check_device(size_t n, unsigned other_pct) {
    cz_error err = {0};
    cz_fr *z = make_witness(n, other_pct);
    cz_gpu_witness_pack p;
    CHECK(cz_gpu_witness_pack_make(&p, z, 3, z + 3, n - 3));
    cz_fr *dev_z = NULL, *back = malloc(n * sizeof *back);
    void *scratch = NULL;
    cz_gpu_uploader *up = NULL;
    const size_t bytes = cz_gpu_witness_pack_bytes(&p);
    CHECK(cz_gpu_alloc((void **)&dev_z, n * sizeof(cz_fr), &err) == CZ_OK);
    CHECK(cz_gpu_alloc(&scratch, bytes, &err) == CZ_OK);
    CHECK(cz_gpu_uploader_create(&up, (size_t)1 << 20, &err) == CZ_OK);
    /* too little scratch is refused, naming what it needs */
    CHECK(cz_gpu_witness_unpack(dev_z, scratch, bytes - 1, up, &p, &err) != CZ_OK);
    CHECK(strstr(err.message, "scratch") != NULL);
    const cz_status st = cz_gpu_witness_unpack(dev_z, scratch, bytes, up, &p, &err);
    if (st != CZ_OK) fprintf(stderr, "unpack: %s\n", err.message);
    CHECK(st == CZ_OK);
    CHECK(cz_gpu_download(back, dev_z, n * sizeof(cz_fr), &err) == CZ_OK);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += !cz_fr_equal(&back[i], &z[i]);
    if (bad)
        fprintf(stderr, "device: %zu of %zu elements differ (%u %% other)\n", bad, n, other_pct);
    CHECK(bad == 0);
    cz_gpu_uploader_destroy(up);
    cz_gpu_free(scratch);
    cz_gpu_free(dev_z);
    cz_gpu_witness_pack_free(&p);
    free(back);
    free(z);
}

/* Bytes staged in pieces of growing size through one uploader (its
 * buffers pinned as small as the first piece, larger when a larger one
 * comes, never past its chunk, which is not a power of two here) arrive
 * whole; a stage past the chunk and a send past what was staged are
 * refused. */
static void check_staging(void) {
    cz_error err = {0};
    const size_t chunk = ((size_t)3 << 20) + 40, total = (size_t)9 << 20;
    const size_t sizes[] = {100, (size_t)5 << 19, total - 100 - ((size_t)5 << 19)};
    uint8_t *host = malloc(total), *back = malloc(total), *dev = NULL;
    for (size_t i = 0; i < total; i++) host[i] = (uint8_t)(cz_test_rand64() >> 13);
    cz_gpu_uploader *up = NULL;
    CHECK(cz_gpu_alloc((void **)&dev, total, &err) == CZ_OK);
    CHECK(cz_gpu_uploader_create(&up, chunk, &err) == CZ_OK);
    void *stage = NULL;
    CHECK(cz_gpu_uploader_stage(up, &stage, chunk + 1, &err) == CZ_E_INVALID_ARG);
    CHECK(strstr(err.message, "chunk") != NULL);
    CHECK(cz_gpu_uploader_stage(up, &stage, 64, &err) == CZ_OK && stage);
    CHECK(cz_gpu_uploader_send(up, dev, ((size_t)1 << 20) + 1, NULL, &err) == CZ_E_INVALID_ARG);
    uint64_t ticket = 0;
    size_t off = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        CHECK(cz_gpu_stage_bytes(up, dev + off, host + off, sizes[k], &ticket, &err) == CZ_OK);
        off += sizes[k];
    }
    CHECK(off == total && cz_gpu_uploader_wait(up, ticket, &err) == CZ_OK);
    CHECK(cz_gpu_download(back, dev, total, &err) == CZ_OK);
    CHECK(memcmp(back, host, total) == 0);
    cz_gpu_uploader_destroy(up);
    cz_gpu_free(dev);
    free(back);
    free(host);
}

int main(void) {
    cz_test_init("gpu/test_gpu_pack");
    check_cpu();
    if (!gpu_test_have_device()) return cz_test_finish("gpu/test_gpu_pack");
    check_device(1000, 0);
    check_device(3 * 65536 + 17, 2);
    /* several staging chunks of values (1 MiB each in this uploader) */
    check_device((size_t)1 << 22, 3);
    check_staging();
    return cz_test_finish("gpu/test_gpu_pack");
}
