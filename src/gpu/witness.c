/* A witness packed for the trip to the device (gpu.h, cz_gpu_witness_pack):
 * two bitmaps (the ones, the other values), the others before each 64-bit
 * word of the bitmaps, and the other values in element order. Made on the
 * host over every core in two passes over blocks of PACK_BLOCK elements
 * (count the others per block; then, from each block's running total, write
 * its words and values), so the values land in order without a lock. The
 * device expands it (cz_gpu_expand_witness) straight after the copy. Plain
 * C: the packing needs no device and is tested without one.
 *
 * Each pass goes in pieces of PACK_PIECE blocks with a step boundary
 * (util/cancel.h) between two: a unit staged before its key was on the
 * device packs its witness in its run, under the context's run lock (~0.5 s
 * at 32 GiB PoRep on 16 cores), and a WinningPoSt waited all of it (0.59 s
 * on an H100 at 12 GiB). A cancel seen there is left to the caller's next
 * boundary. */
#include <stdlib.h>
#include <string.h>

#include "ff/fr.h"
#include "gpu/gpu.h"
#include "gpu/srs.h"
#include "util/cancel.h"
#include "util/parallel.h"

/* A multiple of 64, so a block owns whole bitmap words. */
#define PACK_BLOCK ((size_t)1 << 16)
/* Blocks between two step boundaries: 2^22 elements, ~8 ms on 16 cores
 * (each piece's loop starts its threads anew: ~0.2 ms). */
#define PACK_PIECE ((size_t)64)

static size_t words(size_t n) {
    return (n + 63) / 64;
}

typedef struct {
    const cz_fr *inputs, *aux;
    size_t ni, n;
    size_t *block_values; /* pass 1: others in each block; pass 2: others before it */
    cz_gpu_witness_pack *p;
    size_t piece; /* the first block of the piece in hand */
} pack_ctx;

static const cz_fr *element(const pack_ctx *x, size_t i) {
    return i < x->ni ? &x->inputs[i] : &x->aux[i - x->ni];
}

static void count_blocks(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    pack_ctx *x = arg;
    for (size_t blk = x->piece + begin; blk < x->piece + end; blk++) {
        const size_t last = (blk + 1) * PACK_BLOCK < x->n ? (blk + 1) * PACK_BLOCK : x->n;
        size_t others = 0;
        for (size_t i = blk * PACK_BLOCK; i < last; i++) {
            const cz_fr *v = element(x, i);
            others += !cz_fr_is_zero(v) && !cz_fr_equal(v, &cz_fr_one);
        }
        x->block_values[blk] = others;
    }
}

static void fill_blocks(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    pack_ctx *x = arg;
    const size_t nw = words(x->n);
    uint64_t *ones = x->p->bits, *other = x->p->bits + nw;
    for (size_t blk = x->piece + begin; blk < x->piece + end; blk++) {
        size_t k = x->block_values[blk];
        const size_t first = blk * PACK_BLOCK;
        const size_t last = first + PACK_BLOCK < x->n ? first + PACK_BLOCK : x->n;
        for (size_t w = first / 64; w * 64 < last; w++) {
            uint64_t o = 0, one = 0;
            x->p->before[w] = (uint32_t)k;
            const size_t top = (w + 1) * 64 < last ? (w + 1) * 64 : last;
            for (size_t i = w * 64; i < top; i++) {
                const cz_fr *v = element(x, i);
                if (cz_fr_is_zero(v)) continue;
                if (cz_fr_equal(v, &cz_fr_one)) {
                    one |= (uint64_t)1 << (i % 64);
                } else {
                    o |= (uint64_t)1 << (i % 64);
                    x->p->values[k++] = *v;
                }
            }
            ones[w] = one, other[w] = o;
        }
    }
}

/* One pass over every block, piece by piece. */
static void pack_pass(pack_ctx *x, size_t blocks, cz_parallel_fn fn) {
    for (x->piece = 0; x->piece < blocks; x->piece += PACK_PIECE) {
        if (x->piece) (void)cz_step_boundary();
        cz_parallel_for(blocks - x->piece < PACK_PIECE ? blocks - x->piece : PACK_PIECE, 1, fn, x);
    }
}

/* The device's layout (in the scratch) and the host's (one block): the two
 * bitmaps, the running counts, then the values at a 256-byte boundary (the
 * copies and the kernel's 16-byte loads stay aligned). */
static size_t values_offset(size_t n) {
    const size_t nw = words(n);
    return (2 * nw * sizeof(uint64_t) + nw * sizeof(uint32_t) + 255) & ~(size_t)255;
}

size_t cz_gpu_witness_pack_bytes(const cz_gpu_witness_pack *p) {
    return values_offset(p->n) + p->n_values * sizeof(cz_fr);
}

int cz_gpu_witness_pack_make(cz_gpu_witness_pack *out, const cz_fr *inputs, size_t ni,
                             const cz_fr *aux, size_t na) {
    memset(out, 0, sizeof *out);
    const size_t n = ni + na, nw = words(n), blocks = (n + PACK_BLOCK - 1) / PACK_BLOCK;
    /* the running counts are u32 */
    if (!n || n > UINT32_MAX) return 0;
    pack_ctx x = {inputs, aux, ni, n, calloc(blocks, sizeof(size_t)), out, 0};
    if (!x.block_values) return 0;
    pack_pass(&x, blocks, count_blocks);
    size_t total = 0;
    for (size_t b = 0; b < blocks; b++) {
        const size_t c = x.block_values[b];
        x.block_values[b] = total;
        total += c;
    }
    out->n = n;
    out->n_values = total;
    if (cz_gpu_witness_pack_bytes(out) >= n * sizeof(cz_fr) / 2) {
        free(x.block_values);
        memset(out, 0, sizeof *out);
        return 0;
    }
    /* one block in the device's layout, page-locked where the driver allows
     * (srs.h): its upload is then the copy engines' alone */
    uint8_t *block = cz_gpu_block_get(cz_gpu_witness_pack_bytes(out));
    if (!block) {
        free(x.block_values);
        memset(out, 0, sizeof *out);
        return 0;
    }
    out->bits = (uint64_t *)block;
    out->before = (uint32_t *)(block + 2 * nw * sizeof(uint64_t));
    out->values = (cz_fr *)(block + values_offset(n));
    (void)cz_step_boundary(); /* after the block's page-locking */
    pack_pass(&x, blocks, fill_blocks);
    free(x.block_values);
    return 1;
}

void cz_gpu_witness_pack_free(cz_gpu_witness_pack *p) {
    cz_gpu_block_put(p->bits); /* the block starts with them */
    memset(p, 0, sizeof *p);
}

cz_status cz_gpu_witness_pack_up(cz_gpu_packed_z *out, void *scratch, size_t scratch_bytes,
                                 cz_gpu_uploader *up, const cz_gpu_witness_pack *p, cz_error *err) {
    const size_t nw = words(p->n);
    memset(out, 0, sizeof *out);
    if (scratch_bytes < cz_gpu_witness_pack_bytes(p))
        return cz_error_set(err, CZ_E_INTERNAL,
                            "gpu: a packed witness needs %zu bytes of scratch, %zu given",
                            cz_gpu_witness_pack_bytes(p), scratch_bytes);
    uint8_t *d = scratch;
    uint64_t *bits = (uint64_t *)d;
    uint32_t *before = (uint32_t *)(d + 2 * nw * sizeof(uint64_t));
    cz_fr *values = (cz_fr *)(d + values_offset(p->n));
    uint64_t ticket = 0;
    cz_status st = cz_gpu_stage_bytes(up, bits, p->bits, 2 * nw * sizeof(uint64_t), &ticket, err);
    if (st == CZ_OK)
        st = cz_gpu_stage_bytes(up, before, p->before, nw * sizeof(uint32_t), &ticket, err);
    if (st == CZ_OK && p->n_values)
        st = cz_gpu_stage_bytes(up, values, p->values, p->n_values * sizeof(cz_fr), &ticket, err);
    if (st == CZ_OK) st = cz_gpu_uploader_wait(up, ticket, err);
    if (st != CZ_OK)
        return cz_error_wrap(err, st, "gpu: packed witness (%zu elements, %zu values)", p->n,
                             p->n_values);
    *out = (cz_gpu_packed_z){p->n, bits, bits + nw, before, values};
    return CZ_OK;
}

cz_status cz_gpu_witness_unpack(cz_fr *dev_z, void *scratch, size_t scratch_bytes,
                                cz_gpu_uploader *up, const cz_gpu_witness_pack *p, cz_error *err) {
    cz_gpu_packed_z z;
    cz_status st = cz_gpu_witness_pack_up(&z, scratch, scratch_bytes, up, p, err);
    if (st != CZ_OK) return st;
    st = cz_gpu_expand_witness(dev_z, z.n, z.ones, z.other, z.before, z.values, err);
    if (st != CZ_OK)
        return cz_error_wrap(err, st, "gpu: packed witness (%zu elements, %zu values)", p->n,
                             p->n_values);
    return CZ_OK;
}
