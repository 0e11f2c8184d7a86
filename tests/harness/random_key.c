/* Random proving-key material (random_key.h). */
#include "harness/random_key.h"

#include <stdlib.h>
#include <string.h>

#include "harness/harness.h"

void cz_test_random_fr(cz_fr *k) {
    uint8_t b[64];
    cz_test_rand_bytes(b, sizeof b);
    cz_fr_from_bytes_le_reduce(k, b, sizeof b);
}

void cz_test_random_g1(cz_g1_affine *out) {
    cz_g1 g, p;
    cz_fr k;
    cz_g1_generator(&g);
    cz_test_random_fr(&k);
    cz_g1_mul_var(&p, &g, &k);
    cz_g1_to_affine(out, &p);
}

void cz_test_random_g2(cz_g2_affine *out) {
    cz_g2 g, p;
    cz_fr k;
    cz_g2_generator(&g);
    cz_test_random_fr(&k);
    cz_g2_mul_var(&p, &g, &k);
    cz_g2_to_affine(out, &p);
}

void cz_test_random_params(cz_groth16_params *p, size_t n_ic, size_t n_h, size_t n_l, size_t n_a,
                           size_t n_b) {
    memset(p, 0, sizeof *p);
    cz_test_random_g1(&p->vk.alpha_g1);
    cz_test_random_g1(&p->vk.beta_g1);
    cz_test_random_g2(&p->vk.beta_g2);
    cz_test_random_g2(&p->vk.gamma_g2);
    cz_test_random_g1(&p->vk.delta_g1);
    cz_test_random_g2(&p->vk.delta_g2);
    p->vk.n_ic = n_ic, p->n_h = n_h, p->n_l = n_l, p->n_a = n_a, p->n_b_g1 = p->n_b_g2 = n_b;
    p->vk.ic = malloc(n_ic * sizeof *p->vk.ic);
    p->h = malloc(n_h * sizeof *p->h);
    p->l = malloc(n_l * sizeof *p->l);
    p->a = malloc(n_a * sizeof *p->a);
    p->b_g1 = malloc(n_b * sizeof *p->b_g1);
    p->b_g2 = malloc(n_b * sizeof *p->b_g2);
    for (size_t i = 0; i < n_ic; i++) cz_test_random_g1(&p->vk.ic[i]);
    for (size_t i = 0; i < n_h; i++) cz_test_random_g1(&p->h[i]);
    for (size_t i = 0; i < n_l; i++) cz_test_random_g1(&p->l[i]);
    for (size_t i = 0; i < n_a; i++) cz_test_random_g1(&p->a[i]);
    for (size_t i = 0; i < n_b; i++) cz_test_random_g1(&p->b_g1[i]);
    for (size_t i = 0; i < n_b; i++) cz_test_random_g2(&p->b_g2[i]);
}
