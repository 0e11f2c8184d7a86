/* Groth16 over BLS12-381 as bellperson implements it: keys, proofs, their
 * byte formats, and the verifiers (bellperson src/groth16/params.rs,
 * verifying_key.rs, verifier.rs).
 *
 * Keys. The verifying key holds alpha_g1, beta_g1, beta_g2, gamma_g2,
 * delta_g1, delta_g2 and ic[] (one G1 point per public input, ONE included).
 * The parameters (proving key) are the vk followed by
 *   h[m - 1]   tau^i Z(tau) / delta                      (m = FFT domain size)
 *   l[aux]     (beta u_v(tau) + alpha v_v(tau) + w_v(tau)) / delta
 *   a[]        u_i(tau) for the inputs then the aux with u_i(tau) != 0
 *   b_g1[]     v_i(tau), likewise, in G1
 *   b_g2[]     v_i(tau), likewise, in G2
 * where u_i, v_i, w_i are variable i's QAP polynomials in the Lagrange basis
 * of the domain (constraint j at omega^j). No key point is the identity.
 *
 * Files, exactly bellperson's layout: every point uncompressed (G1 96 bytes,
 * G2 192, see ec/encoding.h), every length a big-endian u32, no padding:
 *   .vk      alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2 u32 n_ic ic[]
 *   .params  <vk> u32 n_h h[] u32 n_l l[] u32 n_a a[] u32 n_b1 b_g1[] u32 n_b2 b_g2[]
 * Readers map the file, check each length against the bytes that remain
 * before allocating, decode the points over all cores, and refuse the
 * identity anywhere, truncation and trailing bytes. Their messages name the
 * vector and the index ("params: l[17]: G1 uncompressed: y^2 != x^3 + 4").
 *
 * Proofs: A (G1), B (G2), C (G1); 192 bytes on the wire, A || B || C
 * compressed (48 + 96 + 48). */
#ifndef CZ_GROTH16_GROTH16_H
#define CZ_GROTH16_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/status.h"
#include "ec/encoding.h"
#include "ec/point.h"
#include "ff/fr.h"

typedef struct {
    cz_g1_affine alpha_g1, beta_g1;
    cz_g2_affine beta_g2, gamma_g2;
    cz_g1_affine delta_g1;
    cz_g2_affine delta_g2;
    size_t n_ic;
    cz_g1_affine *ic; /* [n_ic], malloc'ed; n_ic >= 1 in a valid key */
} cz_groth16_vk;

typedef struct {
    cz_groth16_vk vk;
    size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    cz_g1_affine *h, *l, *a, *b_g1; /* malloc'ed, NULL when the count is 0 */
    cz_g2_affine *b_g2;
    /* 1: a view of a mapped .params file (cz_groth16_params_file_view): the
     * five arrays point at the file's encoded points (uncompressed,
     * big-endian, the same sizes), are not owned, and only a reader that
     * converts them itself (the GPU prover's streamed copies) may use them */
    int encoded;
} cz_groth16_params;

typedef struct {
    cz_g1_affine a;
    cz_g2_affine b;
    cz_g1_affine c;
} cz_groth16_proof;

/* The FFT domain for n constraints (input constraints included), as
 * bellperson's EvaluationDomain picks it: the least k with 2^k >= n; like
 * bellperson, CZ_E_RANGE when k would reach 32 (the 2-adicity of r - 1). */
cz_status cz_groth16_domain_log_size(unsigned *log_size, uint64_t num_constraints, cz_error *err);

/* Frees the arrays and zeroes the struct (harmless on a zeroed struct). */
void cz_groth16_vk_free(cz_groth16_vk *vk);
void cz_groth16_params_free(cz_groth16_params *params);

/* ---- byte formats ---- */

/* How much a reader checks each point (flags, range and the identity are
 * always checked). */
typedef enum {
    CZ_GROTH16_CHECKED = 0,                         /* on the curve and in the subgroup */
    CZ_GROTH16_UNCHECKED = CZ_DECODE_SKIP_SUBGROUP, /* on the curve (bellperson's unchecked mode
                                                       skips the subgroup check) */
    CZ_GROTH16_TRUSTED = CZ_DECODE_SKIP_CURVE       /* neither: a file already validated once */
} cz_groth16_check;

#define CZ_GROTH16_VK_FIXED_BYTES                                                                  \
    (3 * CZ_G1_UNCOMPRESSED_BYTES + 3 * CZ_G2_UNCOMPRESSED_BYTES + 4) /* 868 */

/* Bytes of the encoded vk (868 + 96 n_ic) and params. */
size_t cz_groth16_vk_encoded_size(const cz_groth16_vk *vk);
uint64_t cz_groth16_params_encoded_size(const cz_groth16_params *params);

/* Encodes vk into out (cz_groth16_vk_encoded_size bytes). CZ_E_RANGE when
 * n_ic does not fit the u32 length. */
cz_status cz_groth16_vk_encode(uint8_t *out, const cz_groth16_vk *vk, cz_error *err);
/* Decodes a whole buffer holding exactly one vk; on failure *out is zeroed. */
cz_status cz_groth16_vk_decode(cz_groth16_vk *out, const uint8_t *in, size_t len,
                               cz_groth16_check check, cz_error *err);
cz_status cz_groth16_params_decode(cz_groth16_params *out, const uint8_t *in, size_t len,
                                   cz_groth16_check check, cz_error *err);

/* Files (written to path.tmp-<pid> and renamed into place; read with mmap). */
cz_status cz_groth16_vk_write(const cz_groth16_vk *vk, const char *path, cz_error *err);
cz_status cz_groth16_vk_read(cz_groth16_vk *out, const char *path, cz_groth16_check check,
                             cz_error *err);
cz_status cz_groth16_params_write(const cz_groth16_params *params, const char *path, cz_error *err);
cz_status cz_groth16_params_read(cz_groth16_params *out, const char *path, cz_groth16_check check,
                                 cz_error *err);

/* ---- a .params file without its points decoded ----
 * For loaders that convert the points elsewhere (the GPU back-end copies the
 * file's bytes to the device and converts them there): the layout of the
 * file, its vk and counts, and the host decoder's verdict on one point. */

typedef enum {
    CZ_GROTH16_H = 0,
    CZ_GROTH16_L,
    CZ_GROTH16_A,
    CZ_GROTH16_B_G1,
    CZ_GROTH16_B_G2,
    CZ_GROTH16_VECTORS
} cz_groth16_vector;

/* "h", "l", "a", "b_g1", "b_g2"; the bytes of one encoded point (96, or 192
 * for b_g2), which are also the bytes of one decoded cz_g?_affine. */
const char *cz_groth16_vector_name(cz_groth16_vector v);
size_t cz_groth16_vector_point_bytes(cz_groth16_vector v);
/* The decoded points of vector v of params (NULL when it has none) and,
 * in *bytes, their size; for code that treats the five alike. */
void *cz_groth16_params_points(const cz_groth16_params *params, cz_groth16_vector v, size_t *bytes);

typedef struct {
    uint64_t file_bytes;
    uint64_t n_ic;
    /* per vector: the file offset of its first point (just past its u32
     * length) and its point count; offset + count * point_bytes is the next
     * vector's length word, or file_bytes for b_g2 */
    uint64_t offset[CZ_GROTH16_VECTORS];
    uint64_t count[CZ_GROTH16_VECTORS];
} cz_groth16_params_layout;

/* The layout of a .params image from its lengths alone (no point is read):
 * the same length checks and messages as cz_groth16_params_decode
 * (truncation, a length beyond the end, trailing bytes, an empty ic). */
cz_status cz_groth16_params_layout_read(cz_groth16_params_layout *out, const uint8_t *in,
                                        size_t len, cz_error *err);
/* The vk (decoded with check) and the counts of a .params image, its point
 * arrays left NULL (cz_groth16_params_free is still the way to free it), and
 * its layout (may be NULL). What a loader that keeps the points elsewhere
 * needs on the host: the vk for the proof's finalization, the counts for the
 * shape checks. On failure *out is zeroed. */
cz_status cz_groth16_params_decode_header(cz_groth16_params *out, cz_groth16_params_layout *layout,
                                          const uint8_t *in, size_t len, cz_groth16_check check,
                                          cz_error *err);
/* Decodes point `index` of vector v of the image `in` with check's checks
 * (the identity refused, as everywhere in a key) into out_point (a
 * cz_g1_affine, or cz_g2_affine for b_g2; may be NULL): CZ_OK, or the status
 * and the message cz_groth16_params_decode gives for that point
 * ("params: l[17]: G1 uncompressed: (x, y) is not on the curve: ..."). */
cz_status cz_groth16_params_check_point(void *out_point, const uint8_t *in,
                                        const cz_groth16_params_layout *layout, cz_groth16_vector v,
                                        uint64_t index, cz_groth16_check check, cz_error *err);

/* A .params file mapped read-only (MAP_PRIVATE, MADV_SEQUENTIAL) with its
 * layout read; nothing decoded. The mapping is file-backed: its pages are
 * the page cache's, shared with every other reader of the file. */
typedef struct {
    char path[4096];
    const uint8_t *data; /* NULL when not mapped */
    size_t len;
    int64_t mtime_ns; /* of the file that was mapped (st_mtim) */
    cz_groth16_params_layout layout;
} cz_groth16_params_file;

/* Messages start with the path. On failure nothing stays mapped. */
cz_status cz_groth16_params_file_map(cz_groth16_params_file *f, const char *path, cz_error *err);
void cz_groth16_params_file_unmap(cz_groth16_params_file *f); /* harmless when not mapped */
/* cz_groth16_params_decode of a mapped file, dropping the mapping's pages
 * from this process's memory as they are decoded (they fault back in from
 * the file when read again), so that the decode never holds the file's
 * pages and the decoded points together (2 x 44 GiB at 32 GiB). Messages
 * start with the path. */
cz_status cz_groth16_params_file_decode(cz_groth16_params *out, const cz_groth16_params_file *f,
                                        cz_groth16_check check, cz_error *err);
/* One vector of p, decoded from f (p decoded from f before, vector v
 * dropped since), in the same way; CZ_OK at once when p holds it. */
/* p as a view of the mapped file f (encoded = 1): the vk decoded with
 * check, the counts, and each vector pointing at its points in the
 * mapping, nothing decoded or copied (f must stay mapped while p is used;
 * cz_groth16_params_free frees only the vk). The points are not checked
 * here: their reader converts and checks them. On failure *p is zeroed. */
cz_status cz_groth16_params_file_view(cz_groth16_params *p, const cz_groth16_params_file *f,
                                      cz_groth16_check check, cz_error *err);
cz_status cz_groth16_params_file_decode_vector(cz_groth16_params *p,
                                               const cz_groth16_params_file *f, cz_groth16_vector v,
                                               cz_groth16_check check, cz_error *err);
/* Vector v's points, taken out of p (the caller frees them, unless p is
 * encoded: then they are the mapping's; NULL when p has none); its count
 * stays, and cz_groth16_params_file_decode_vector brings them back (an
 * encoded p: points at them again): for a holder that needs only the
 * others. */
void *cz_groth16_params_take_vector(cz_groth16_params *p, cz_groth16_vector v);

/* The counts a .params file's length words give before its A and B
 * vectors: the vk's ic (inputs), h (m - 1) and l (aux), the sizes of the
 * circuit it proves. Read with three 4-byte reads, without mapping or
 * checking anything else, to size a circuit's work before its key is
 * loaded (cz_groth16_params_file_map checks the whole layout). Missing
 * file: CZ_E_NOT_FOUND (another failure to open it: CZ_E_IO); short:
 * CZ_E_PARSE "<path>: truncated header". */
typedef struct {
    uint64_t n_ic, n_h, n_l;
} cz_groth16_params_head;
cz_status cz_groth16_params_file_head(cz_groth16_params_head *out, const char *path, cz_error *err);

#define CZ_GROTH16_PROOF_BYTES 192

void cz_groth16_proof_encode(uint8_t out[CZ_GROTH16_PROOF_BYTES], const cz_groth16_proof *proof);
/* Full checks (on curve, in the subgroup); the identity is refused for A, B
 * and C. Messages start "proof: A: ", "proof: B: " or "proof: C: ". */
cz_status cz_groth16_proof_decode(cz_groth16_proof *out, const uint8_t in[CZ_GROTH16_PROOF_BYTES],
                                  cz_error *err);

/* ---- verification ----
 * inputs are the public inputs without ONE (n_inputs = vk->n_ic - 1).
 * Result: CZ_OK with *valid = 1 (accepted) or 0 (the pairing check failed);
 * any other status means rejected as malformed (*valid = 0): a wrong input
 * count (CZ_E_INVALID_ARG), or a proof point that is the identity, off the
 * curve or outside its subgroup (the verifiers check, so proofs built in
 * memory are as safe as decoded ones). The vk is trusted (read CHECKED). */

/* e(A, B) e(-acc, gamma) e(-C, delta) e(-alpha, beta) = 1, one Miller loop
 * pass and one final exponentiation; acc = ic[0] + sum_i inputs[i] ic[i + 1]. */
cz_status cz_groth16_verify(int *valid, const cz_groth16_vk *vk, const cz_groth16_proof *proof,
                            const cz_fr *inputs, size_t n_inputs, cz_error *err);

/* n_proofs proofs under one vk; inputs is row-major, n_proofs rows of
 * n_inputs. With random non-zero 128-bit weights z_j (from the OS):
 *   prod_j e(z_j A_j, B_j) * e(-sum z_j C_j, delta) * e(-sum_j z_j acc_j, gamma)
 *     * e(-(sum z_j) alpha, beta) = 1,
 * one Miller loop pass over n_proofs + 3 pairs and one final exponentiation.
 * A batch with a bad proof passes with probability about 2^-128.
 * n_proofs = 0 is accepted. */
cz_status cz_groth16_verify_batch(int *valid, const cz_groth16_vk *vk,
                                  const cz_groth16_proof *proofs, size_t n_proofs,
                                  const cz_fr *inputs, size_t n_inputs, cz_error *err);

#endif
