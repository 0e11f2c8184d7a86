/* The GPU interface in a build without CUDA: every entry point reports that
 * there is no GPU back-end, so callers (the prover, `cuzk bench gpu`, the
 * tests) can fall back or skip with a clear message. */
#include <string.h>

#include "gpu/gpu.h"

#define NO_GPU(err)                                                                                \
    cz_error_set(err, CZ_E_UNSUPPORTED, "no GPU back-end in this build (built without CUDA)")

const char *cz_gpu_build_code(void) {
    return NULL;
}
/* No back-end is no device: the CPU is the honest fall-back (CZ_E_NOT_FOUND). */
cz_status cz_gpu_probe(char *desc, size_t desc_size, cz_error *err) {
    if (desc && desc_size) desc[0] = 0;
    return cz_error_set(err, CZ_E_NOT_FOUND, "no GPU back-end in this build (built without CUDA)");
}
cz_status cz_gpu_device_count(int *count, cz_error *err) {
    *count = 0;
    return cz_gpu_probe(NULL, 0, err);
}
cz_status cz_gpu_probe_device(int device, char *desc, size_t desc_size, cz_error *err) {
    (void)device;
    return cz_gpu_probe(desc, desc_size, err);
}
cz_status cz_gpu_set_device(int device, cz_error *err) {
    (void)device;
    return NO_GPU(err);
}
cz_status cz_gpu_alloc(void **dev, size_t bytes, cz_error *err) {
    (void)bytes;
    *dev = NULL;
    return NO_GPU(err);
}
void cz_gpu_free(void *dev) {
    (void)dev;
}
cz_status cz_gpu_alloc_pooled(void **dev, size_t bytes, cz_error *err) {
    return cz_gpu_alloc(dev, bytes, err);
}
void cz_gpu_free_pooled(void *dev) {
    (void)dev;
}
cz_status cz_gpu_upload(void *dev, const void *host, size_t bytes, cz_error *err) {
    (void)dev, (void)host, (void)bytes;
    return NO_GPU(err);
}
cz_status cz_gpu_download(void *host, const void *dev, size_t bytes, cz_error *err) {
    (void)dev, (void)host, (void)bytes;
    return NO_GPU(err);
}
cz_status cz_gpu_copy(void *dst, const void *src, size_t bytes, cz_error *err) {
    (void)dst, (void)src, (void)bytes;
    return NO_GPU(err);
}
cz_status cz_gpu_fr_eltwise(cz_gpu_op op, cz_fr *out, const cz_fr *a, const cz_fr *b, size_t n,
                            cz_error *err) {
    (void)op, (void)out, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_fp_eltwise(cz_gpu_op op, cz_fp *out, const cz_fp *a, const cz_fp *b, size_t n,
                            cz_error *err) {
    (void)op, (void)out, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_fp2_eltwise(cz_gpu_op op, cz_fp2 *out, const cz_fp2 *a, const cz_fp2 *b, size_t n,
                             cz_error *err) {
    (void)op, (void)out, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_g1_formulas(cz_g1 *sum, cz_g1 *trip, cz_g1 *dbl, const cz_g1_affine *a,
                             const cz_g1_affine *b, size_t n, cz_error *err) {
    (void)sum, (void)trip, (void)dbl, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_g2_formulas(cz_g2 *sum, cz_g2 *trip, cz_g2 *dbl, const cz_g2_affine *a,
                             const cz_g2_affine *b, size_t n, cz_error *err) {
    (void)sum, (void)trip, (void)dbl, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_ntt_create(cz_gpu_ntt **out, unsigned log_size, cz_error *err) {
    (void)log_size;
    *out = NULL;
    return NO_GPU(err);
}
void cz_gpu_ntt_destroy(cz_gpu_ntt *d) {
    (void)d;
}
cz_status cz_gpu_ntt_transform(cz_gpu_ntt *d, cz_fr *dev_data, cz_ntt_order order,
                               cz_ntt_direction direction, cz_ntt_kind kind, cz_error *err) {
    (void)d, (void)dev_data, (void)order, (void)direction, (void)kind;
    return NO_GPU(err);
}
cz_status cz_gpu_g1_msm(cz_g1 *out, const cz_g1_affine *dev_points, const cz_fr *dev_scalars,
                        size_t n, cz_error *err) {
    (void)out, (void)dev_points, (void)dev_scalars, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_g2_msm(cz_g2 *out, const cz_g2_affine *dev_points, const cz_fr *dev_scalars,
                        size_t n, cz_error *err) {
    (void)out, (void)dev_points, (void)dev_scalars, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_g1_msm_sum_begin(cz_gpu_msm_sum *sum, void *dev_buckets, unsigned c,
                                  cz_error *err) {
    (void)sum, (void)dev_buckets, (void)c;
    return NO_GPU(err);
}
cz_status cz_gpu_g1_msm_sum_add(const cz_gpu_msm_sum *sum, const cz_g1_affine *dev_points,
                                const cz_fr *dev_scalars, size_t n, cz_error *err) {
    (void)sum, (void)dev_points, (void)dev_scalars, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_g1_msm_sum_end(cz_g1 *out, const cz_gpu_msm_sum *sum, cz_error *err) {
    (void)out, (void)sum;
    return NO_GPU(err);
}
cz_status cz_gpu_g1_batch_add(cz_g1 *out, const cz_g1_affine *dev_points,
                              const uint64_t *dev_bitmap, size_t n, cz_error *err) {
    (void)out, (void)dev_points, (void)dev_bitmap, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_g2_batch_add(cz_g2 *out, const cz_g2_affine *dev_points,
                              const uint64_t *dev_bitmap, size_t n, cz_error *err) {
    (void)out, (void)dev_points, (void)dev_bitmap, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_classify(const cz_fr *dev_scalars, size_t n, uint64_t *dev_ones,
                          uint32_t *dev_tail, size_t *tail_count, cz_error *err) {
    (void)dev_scalars, (void)n, (void)dev_ones, (void)dev_tail;
    *tail_count = 0;
    return NO_GPU(err);
}
void cz_gpu_circuit_get_matrix(cz_gpu_circuit_matrix *out, const cz_gpu_circuit *gc, int which) {
    (void)gc, (void)which;
    memset(out, 0, sizeof *out);
}
cz_status cz_gpu_groth16_dev_setup(cz_groth16_params *out, const struct cz_circuit *c,
                                   const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                   cz_groth16_setup_progress_fn progress, void *progress_ctx,
                                   cz_error *err) {
    (void)c, (void)seed, (void)progress, (void)progress_ctx;
    memset(out, 0, sizeof *out);
    return NO_GPU(err);
}
cz_status cz_gpu_groth16_dev_setup_write(cz_groth16_vk *vk_out, const char *params_path,
                                         const cz_groth16_params_tap *tap,
                                         const struct cz_circuit *c,
                                         const uint8_t seed[CZ_GROTH16_SEED_BYTES],
                                         cz_groth16_setup_progress_fn progress, void *progress_ctx,
                                         cz_error *err) {
    (void)params_path, (void)tap, (void)c, (void)seed, (void)progress, (void)progress_ctx;
    memset(vk_out, 0, sizeof *vk_out);
    return NO_GPU(err);
}
cz_status cz_gpu_fill_random_fr(cz_fr *dev, size_t n, uint64_t seed, cz_error *err) {
    (void)dev, (void)n, (void)seed;
    return NO_GPU(err);
}
cz_status cz_gpu_fill_g1(cz_g1_affine *dev, size_t n, const cz_g1_affine *dev_base, size_t nbase,
                         cz_error *err) {
    (void)dev, (void)n, (void)dev_base, (void)nbase;
    return NO_GPU(err);
}
cz_status cz_gpu_fill_g2(cz_g2_affine *dev, size_t n, const cz_g2_affine *dev_base, size_t nbase,
                         cz_error *err) {
    (void)dev, (void)n, (void)dev_base, (void)nbase;
    return NO_GPU(err);
}
cz_status cz_gpu_fill_bitmap(uint64_t *dev, size_t n, unsigned density_pct, uint64_t seed,
                             cz_error *err) {
    (void)dev, (void)n, (void)density_pct, (void)seed;
    return NO_GPU(err);
}
cz_status cz_gpu_field_rates(double *fr_mul_per_s, double *fp_mul_per_s, cz_error *err) {
    *fr_mul_per_s = *fp_mul_per_s = 0;
    return NO_GPU(err);
}
cz_status cz_gpu_fp64_rates(cz_gpu_mul_rates *out, cz_error *err) {
    memset(out, 0, sizeof *out);
    return NO_GPU(err);
}
cz_status cz_gpu_fp64_fp_mul(cz_fp64_fp *r, const cz_fp64_fp *a, const cz_fp64_fp *b, size_t n,
                             cz_error *err) {
    (void)r, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_fp64_fr_mul(cz_fp64_fr *r, const cz_fp64_fr *a, const cz_fp64_fr *b, size_t n,
                             cz_error *err) {
    (void)r, (void)a, (void)b, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_ntt_coset_quotient(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b,
                                    const cz_fr *dev_c, cz_error *err) {
    (void)d, (void)dev_a, (void)dev_b, (void)dev_c;
    return NO_GPU(err);
}
cz_status cz_gpu_ntt_pointwise_mul(cz_gpu_ntt *d, cz_fr *dev_a, const cz_fr *dev_b, cz_error *err) {
    (void)d, (void)dev_a, (void)dev_b;
    return NO_GPU(err);
}
/* The key (srs.c) and the prover (groth16.c) are built in both configurations;
 * without CUDA it stops at cz_gpu_srs_create (cz_gpu_mem_info below). */
void cz_gpu_pool_trim(void) {}
uint64_t cz_gpu_oom_count(void) {
    return 0;
}
uint64_t cz_gpu_h2d_bytes(void) {
    return 0;
}
void cz_gpu_inject_oom(unsigned n) {
    (void)n;
}
cz_status cz_gpu_mem_info(size_t *free_bytes, size_t *total_bytes, cz_error *err) {
    *free_bytes = *total_bytes = 0;
    return NO_GPU(err);
}
cz_status cz_gpu_zero(void *dev, size_t bytes, cz_error *err) {
    (void)dev, (void)bytes;
    return NO_GPU(err);
}
cz_status cz_gpu_select_bits(uint32_t *dev_idx, size_t *count, const uint64_t *dev_bits, size_t n,
                             uint32_t offset, cz_error *err) {
    (void)dev_idx, (void)dev_bits, (void)n, (void)offset;
    *count = 0;
    return NO_GPU(err);
}
cz_status cz_gpu_gather_fr(cz_fr *dev_out, const cz_fr *dev_in, const uint32_t *dev_idx,
                           size_t count, cz_error *err) {
    (void)dev_out, (void)dev_in, (void)dev_idx, (void)count;
    return NO_GPU(err);
}
cz_status cz_gpu_gather_g1(cz_g1_affine *dev_out, const cz_g1_affine *dev_in,
                           const uint32_t *dev_idx, uint32_t base, size_t count, cz_error *err) {
    (void)dev_out, (void)dev_in, (void)dev_idx, (void)base, (void)count;
    return NO_GPU(err);
}
cz_status cz_gpu_gather_g2(cz_g2_affine *dev_out, const cz_g2_affine *dev_in,
                           const uint32_t *dev_idx, uint32_t base, size_t count, cz_error *err) {
    (void)dev_out, (void)dev_in, (void)dev_idx, (void)base, (void)count;
    return NO_GPU(err);
}
cz_status cz_gpu_mask_fr(cz_fr *dev_out, const cz_fr *dev_in, const uint64_t *dev_ones, size_t n,
                         cz_error *err) {
    (void)dev_out, (void)dev_in, (void)dev_ones, (void)n;
    return NO_GPU(err);
}
cz_status cz_gpu_expand_witness(cz_fr *dev_z, size_t n, const uint64_t *dev_ones,
                                const uint64_t *dev_other, const uint32_t *dev_before,
                                const cz_fr *dev_values, cz_error *err) {
    (void)dev_z, (void)n, (void)dev_ones, (void)dev_other, (void)dev_before, (void)dev_values;
    return NO_GPU(err);
}
cz_status cz_gpu_uploader_create(cz_gpu_uploader **out, size_t chunk_bytes, cz_error *err) {
    (void)chunk_bytes;
    *out = NULL;
    return NO_GPU(err);
}
void cz_gpu_uploader_destroy(cz_gpu_uploader *u) {
    (void)u;
}
size_t cz_gpu_uploader_chunk(const cz_gpu_uploader *u) {
    (void)u;
    return 0;
}
cz_status cz_gpu_uploader_stage(cz_gpu_uploader *u, void **host, size_t bytes, cz_error *err) {
    (void)u, (void)bytes;
    *host = NULL;
    return NO_GPU(err);
}
cz_status cz_gpu_uploader_send(cz_gpu_uploader *u, void *dev, size_t bytes, uint64_t *ticket,
                               cz_error *err) {
    (void)u, (void)dev, (void)bytes, (void)ticket;
    return NO_GPU(err);
}
cz_status cz_gpu_uploader_wait(cz_gpu_uploader *u, uint64_t ticket, cz_error *err) {
    (void)u, (void)ticket;
    return NO_GPU(err);
}
cz_status cz_gpu_uploader_pin(cz_gpu_uploader *u, size_t bytes, cz_error *err) {
    (void)u, (void)bytes;
    return NO_GPU(err);
}
size_t cz_gpu_uploader_pinned(const cz_gpu_uploader *u) {
    (void)u;
    return 0;
}
cz_status cz_gpu_uploader_send_host(cz_gpu_uploader *u, void *dev, const void *host, size_t bytes,
                                    uint64_t *ticket, cz_error *err) {
    (void)u, (void)dev, (void)host, (void)bytes, (void)ticket;
    return NO_GPU(err);
}
cz_status cz_gpu_host_lock(void *p, size_t bytes, cz_error *err) {
    (void)p, (void)bytes;
    return NO_GPU(err);
}
void cz_gpu_host_unlock(void *p) {
    (void)p;
}
int cz_gpu_host_locked(const void *p, size_t bytes) {
    (void)p, (void)bytes;
    return 0;
}
cz_status cz_gpu_host_alloc_locked(void **out, size_t bytes, cz_error *err) {
    (void)bytes;
    *out = NULL;
    return NO_GPU(err);
}
void cz_gpu_host_free_locked(void *p) {
    (void)p;
}
cz_status cz_gpu_circuit_create(cz_gpu_circuit **out, const struct cz_circuit *c, cz_error *err) {
    (void)c;
    *out = NULL;
    return NO_GPU(err);
}
cz_status cz_gpu_circuit_create_streamed(cz_gpu_circuit **out, const struct cz_circuit *c,
                                         size_t window_entries, cz_error *err) {
    (void)c, (void)window_entries;
    *out = NULL;
    return NO_GPU(err);
}
int cz_gpu_circuit_streamed(const cz_gpu_circuit *gc) {
    (void)gc;
    return 0;
}
cz_status cz_gpu_circuit_set_host(cz_gpu_circuit *gc, const struct cz_circuit *c, cz_error *err) {
    (void)gc, (void)c;
    return NO_GPU(err);
}
void cz_gpu_circuit_destroy(cz_gpu_circuit *gc) {
    (void)gc;
}
size_t cz_gpu_circuit_bytes(const cz_gpu_circuit *gc) {
    (void)gc;
    return 0;
}
void cz_gpu_circuit_get_info(cz_gpu_circuit_info *out, const cz_gpu_circuit *gc) {
    (void)gc;
    memset(out, 0, sizeof *out);
}
cz_status cz_gpu_circuit_eval(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c, const cz_gpu_circuit *gc,
                              const cz_fr *dev_z, cz_error *err) {
    (void)dev_a, (void)dev_b, (void)dev_c, (void)gc, (void)dev_z;
    return NO_GPU(err);
}
cz_status cz_gpu_circuit_eval_packed(cz_fr *dev_a, cz_fr *dev_b, cz_fr *dev_c,
                                     const cz_gpu_circuit *gc, const cz_gpu_packed_z *z,
                                     cz_error *err) {
    (void)dev_a, (void)dev_b, (void)dev_c, (void)gc, (void)z;
    return NO_GPU(err);
}
cz_status cz_gpu_circuit_eval_host(cz_fr *a, cz_fr *b, cz_fr *c, const cz_gpu_circuit *gc,
                                   const cz_fr *input, const cz_fr *aux, cz_error *err) {
    (void)a, (void)b, (void)c, (void)gc, (void)input, (void)aux;
    return NO_GPU(err);
}
cz_status cz_gpu_keyload_create(cz_gpu_keyload **out, size_t chunk_bytes, cz_error *err) {
    (void)chunk_bytes;
    *out = NULL;
    return NO_GPU(err);
}
void cz_gpu_keyload_destroy(cz_gpu_keyload *k) {
    (void)k;
}
cz_status cz_gpu_keyload_stage(cz_gpu_keyload *k, uint8_t **host, cz_error *err) {
    (void)k;
    *host = NULL;
    return NO_GPU(err);
}
cz_status cz_gpu_keyload_copy(cz_gpu_keyload *k, void *dev, size_t offset, size_t bytes,
                              cz_error *err) {
    (void)k, (void)dev, (void)offset, (void)bytes;
    return NO_GPU(err);
}
cz_status cz_gpu_keyload_commit(cz_gpu_keyload *k, cz_error *err) {
    (void)k;
    return NO_GPU(err);
}
cz_status cz_gpu_keyload_convert(cz_gpu_keyload *k, void *dev, size_t n, int g2, int check_curve,
                                 unsigned tag, cz_error *err) {
    (void)k, (void)dev, (void)n, (void)g2, (void)check_curve, (void)tag;
    return NO_GPU(err);
}
cz_status cz_gpu_keyload_finish(cz_gpu_keyload *k, int *fault, unsigned *tag, uint64_t *index,
                                unsigned *reason, cz_error *err) {
    (void)k;
    *fault = 0, *tag = 0, *index = 0, *reason = 0;
    return NO_GPU(err);
}
cz_status cz_gpu_points_from_file(void *dev, size_t n, int g2, size_t first, int check_curve,
                                  unsigned long long *fault, cz_error *err) {
    (void)dev, (void)n, (void)g2, (void)first, (void)check_curve, (void)fault;
    return NO_GPU(err);
}
cz_status cz_gpu_points_fault(unsigned long long *fault, uint64_t *bad, unsigned *reason,
                              cz_error *err) {
    (void)fault;
    *bad = UINT64_MAX, *reason = 0;
    return NO_GPU(err);
}
