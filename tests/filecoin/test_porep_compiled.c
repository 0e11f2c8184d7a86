/* The 2 KiB PoRep circuit pre-compiled (r1cs/circuit.h):
 *  - the compile back-end's circuit (synthesized without a witness) equals
 *    cz_circuit_from_r1cs of the record back-end's system, array for array;
 *  - for a synthetic C1 (filecoin/porep/vanilla.h), cz_circuit_eval of that
 *    circuit and the witness back-end's assignment equals the prove
 *    back-end's a/b/c byte for byte, and its densities equal the prove
 *    back-end's; every row satisfies a * b = c;
 *  - the circuit written and opened in both modes gives the same arrays and,
 *    evaluated from the mapping, the same a/b/c.
 * Prints the size of the coefficient table (the figure that decides u16 or
 * u32 indices). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecoin/porep/porep_circuit.h"
#include "filecoin/common/registry.h"
#include "filecoin/porep/vanilla.h"
#include "harness/harness.h"
#include "r1cs/backends.h"
#include "r1cs/circuit.h"

static int same_bytes(const void *x, const void *y, uint64_t n) {
    return n == 0 || memcmp(x, y, (size_t)n) == 0;
}

static int circuits_equal(const cz_circuit *x, const cz_circuit *y) {
    if (x->num_inputs != y->num_inputs || x->num_aux != y->num_aux ||
        x->num_constraints != y->num_constraints || x->coef_bytes != y->coef_bytes ||
        x->num_coeffs != y->num_coeffs ||
        !same_bytes(x->coeffs, y->coeffs, (uint64_t)x->num_coeffs * sizeof(cz_fr)))
        return 0;
    for (int k = 0; k < 3; k++) {
        const cz_circuit_matrix *a = &x->m[k], *b = &y->m[k];
        if (a->nnz != b->nnz ||
            !same_bytes(a->row_start, b->row_start, (x->num_constraints + 1) * 4) ||
            !same_bytes(a->col, b->col, a->nnz * 4) ||
            !same_bytes(a->coef, b->coef, a->nnz * x->coef_bytes))
            return 0;
    }
    uint64_t wa = (x->num_aux + 63) / 64 * 8, wi = (x->num_inputs + 63) / 64 * 8;
    return same_bytes(x->a_aux_density, y->a_aux_density, wa) &&
           same_bytes(x->b_input_density, y->b_input_density, wi) &&
           same_bytes(x->b_aux_density, y->b_aux_density, wa);
}

/* a/b/c of circ for the witness, against the prove back-end's. */
static int eval_matches(const cz_circuit *circ, const cz_fr *inputs, const cz_fr *aux,
                        const cz_prove_data *pd) {
    uint64_t rows = circ->num_constraints;
    cz_fr *abc[3];
    for (int k = 0; k < 3; k++) abc[k] = malloc((size_t)rows * sizeof(cz_fr));
    int ok = abc[0] && abc[1] && abc[2] && rows == pd->num_constraints;
    if (ok) {
        cz_circuit_eval(abc[0], abc[1], abc[2], circ, inputs, aux);
        ok = same_bytes(abc[0], pd->a, rows * sizeof(cz_fr)) &&
             same_bytes(abc[1], pd->b, rows * sizeof(cz_fr)) &&
             same_bytes(abc[2], pd->c, rows * sizeof(cz_fr));
    }
    for (int k = 0; k < 3; k++) free(abc[k]);
    return ok;
}

int main(void) {
    cz_test_init("filecoin/test_porep_compiled");
    cz_error err = {0};
    cz_fc_gen_opts opts = {
        5 /* StackedDrg2KiBV1_1 */, 7 + cz_test_rand64() % 1000, 1000, 1, -1, NULL};
    cz_c1 c1;
    CHECK(cz_fc_gen_c1(&c1, &opts, &err) == CZ_OK);
    cz_fc_proof_info info;
    cz_porep_geometry g;
    CHECK(cz_fc_proof_lookup(&info, opts.registered_proof, NULL) == CZ_OK);
    CHECK(cz_porep_geometry_from_sector(&g, &info.sector, NULL) == CZ_OK);

    /* compile, and record + from_r1cs */
    cz_cs *cs = cz_cs_compile_new();
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, &err) == CZ_OK);
    cz_circuit *circ = NULL;
    CHECK(cz_compile_finish(cs, &circ, &err) == CZ_OK);
    cz_cs_destroy(cs);
    if (!circ) {
        printf("compile: %s\n", err.message);
        return cz_test_finish("filecoin/test_porep_compiled");
    }
    printf("2 KiB PoRep compiled: %llu rows, nnz %llu / %llu / %llu, %u distinct coefficients "
           "(u%u indices), %.1f MiB of arrays\n",
           (unsigned long long)circ->num_constraints, (unsigned long long)circ->m[0].nnz,
           (unsigned long long)circ->m[1].nnz, (unsigned long long)circ->m[2].nnz, circ->num_coeffs,
           8 * circ->coef_bytes, (double)cz_circuit_bytes(circ) / 1048576.0);
    CHECK(circ->num_constraints == 2687961); /* 2,687,921 + 40 inputs */
    cs = cz_cs_record_new();
    CHECK(cz_porep_synthesize(cs, &g, NULL, 0, &err) == CZ_OK);
    cz_r1cs r;
    CHECK(cz_record_finish(cs, &r, &err) == CZ_OK);
    cz_cs_destroy(cs);
    cz_circuit *from = NULL;
    CHECK(cz_circuit_from_r1cs(&from, &r, &err) == CZ_OK);
    CHECK(from && circuits_equal(circ, from));
    cz_circuit_free(from);
    cz_r1cs_free(&r);

    /* the witness, and the prove back-end's a/b/c */
    cs = cz_cs_witness_new();
    CHECK(cz_porep_synthesize(cs, &g, &c1, 0, &err) == CZ_OK);
    cz_fr *inputs = NULL, *aux = NULL;
    uint32_t n_inputs = 0, n_aux = 0;
    CHECK(cz_witness_finish(cs, &inputs, &n_inputs, &aux, &n_aux, &err) == CZ_OK);
    cz_cs_destroy(cs);
    CHECK(n_inputs == circ->num_inputs && n_aux == circ->num_aux);
    cs = cz_cs_prove_new();
    CHECK(cz_porep_synthesize(cs, &g, &c1, 0, &err) == CZ_OK);
    cz_prove_data pd;
    CHECK(cz_prove_finish(cs, &pd, &err) == CZ_OK);
    cz_cs_destroy(cs);
    CHECK(eval_matches(circ, inputs, aux, &pd));
    uint64_t wa = (circ->num_aux + 63) / 64 * 8, wi = (circ->num_inputs + 63) / 64 * 8;
    CHECK(same_bytes(circ->a_aux_density, pd.a_aux_density, wa));
    CHECK(same_bytes(circ->b_input_density, pd.b_input_density, wi));
    CHECK(same_bytes(circ->b_aux_density, pd.b_aux_density, wa));
    int satisfied = 1;
    for (uint64_t j = 0; j < pd.num_constraints && satisfied; j++) {
        cz_fr ab;
        cz_fr_mul(&ab, &pd.a[j], &pd.b[j]);
        satisfied = cz_fr_equal(&ab, &pd.c[j]);
    }
    CHECK(satisfied);

    /* the file, both modes, evaluated from the mapping */
    char path[512];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/cz_porep2k_%ld.czc", tmp && *tmp ? tmp : "/tmp",
             (long)getpid());
    CHECK(cz_circuit_write(circ, path, &err) == CZ_OK);
    const cz_circuit_check modes[2] = {CZ_CIRCUIT_CHECKED, CZ_CIRCUIT_TRUSTED};
    for (int m = 0; m < 2; m++) {
        cz_circuit *back = NULL;
        CHECK(cz_circuit_open(&back, path, modes[m], circ->checksum, &err) == CZ_OK);
        if (!back) {
            printf("open: %s\n", err.message);
            continue;
        }
        CHECK(circuits_equal(circ, back));
        CHECK(eval_matches(back, inputs, aux, &pd));
        cz_circuit_free(back);
    }
    unlink(path);

    cz_prove_data_free(&pd);
    free(inputs), free(aux);
    cz_circuit_free(circ);
    cz_c1_free(&c1);
    return cz_test_finish("filecoin/test_porep_compiled");
}
