/* The group law for one curve, written once for G1 (over Fp) and G2 (over
 * Fp2). Included by point.c with these defined:
 *   PT, PTA          Jacobian and affine point types
 *   F                the coordinate field's element type
 *   F_(name)         the field's function (cz_fp_##name / cz_fp2_##name)
 *   PT_(name)        this group's function name (cz_g1_##name / cz_g2_##name)
 *   curve_b(F *b)    sets b of y^2 = x^3 + b
 * No include guard: this is a template.
 *
 * Formulas: Jacobian coordinates for a = 0 curves, from the Explicit-Formulas
 * Database: dbl-2009-l, add-2007-bl, madd-2007-bl. */

void PT_(set_infinity)(PT *r) {
    r->x = F_(one);
    r->y = F_(one);
    r->z = F_(zero);
}

int PT_(is_infinity)(const PT *p) {
    return F_(is_zero)(&p->z);
}

int PT_(affine_is_infinity)(const PTA *p) {
    return F_(is_zero)(&p->x) & F_(is_zero)(&p->y);
}

void PT_(from_affine)(PT *r, const PTA *a) {
    if (PT_(affine_is_infinity)(a)) {
        PT_(set_infinity)(r);
        return;
    }
    r->x = a->x;
    r->y = a->y;
    r->z = F_(one);
}

void PT_(to_affine)(PTA *r, const PT *p) {
    if (PT_(is_infinity)(p)) {
        r->x = F_(zero);
        r->y = F_(zero);
        return;
    }
    F zinv, zinv2;
    F_(inv_var)(&zinv, &p->z);
    F_(sqr)(&zinv2, &zinv);
    F_(mul)(&r->x, &p->x, &zinv2);
    F_(mul)(&zinv2, &zinv2, &zinv);
    F_(mul)(&r->y, &p->y, &zinv2);
}

void PT_(batch_to_affine)(PTA *out, const PT *in, size_t n, F *scratch) {
    /* Montgomery's trick over the non-infinity z's: scratch[i] = product of
     * the z's before i; one inversion; then walk back. */
    F acc = F_(one);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!PT_(is_infinity)(&in[i])) F_(mul)(&acc, &acc, &in[i].z);
    }
    F_(inv_var)(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        if (PT_(is_infinity)(&in[i])) {
            out[i].x = F_(zero);
            out[i].y = F_(zero);
            continue;
        }
        F zinv, zinv2, x, y;
        F_(mul)(&zinv, &acc, &scratch[i]);
        F_(mul)(&acc, &acc, &in[i].z);
        F_(sqr)(&zinv2, &zinv);
        F_(mul)(&x, &in[i].x, &zinv2);
        F_(mul)(&zinv2, &zinv2, &zinv);
        F_(mul)(&y, &in[i].y, &zinv2);
        out[i].x = x;
        out[i].y = y;
    }
}

int PT_(equal)(const PT *a, const PT *b) {
    int ia = PT_(is_infinity)(a), ib = PT_(is_infinity)(b);
    if (ia || ib) return ia && ib;
    F z1z1, z2z2, u1, u2, s1, s2;
    F_(sqr)(&z1z1, &a->z);
    F_(sqr)(&z2z2, &b->z);
    F_(mul)(&u1, &a->x, &z2z2);
    F_(mul)(&u2, &b->x, &z1z1);
    F_(mul)(&s1, &a->y, &z2z2);
    F_(mul)(&s1, &s1, &b->z);
    F_(mul)(&s2, &b->y, &z1z1);
    F_(mul)(&s2, &s2, &a->z);
    return F_(equal)(&u1, &u2) && F_(equal)(&s1, &s2);
}

int PT_(affine_equal)(const PTA *a, const PTA *b) {
    return F_(equal)(&a->x, &b->x) & F_(equal)(&a->y, &b->y);
}

void PT_(neg)(PT *r, const PT *a) {
    r->x = a->x;
    F_(neg)(&r->y, &a->y);
    r->z = a->z;
}

void PT_(affine_neg)(PTA *r, const PTA *a) {
    r->x = a->x;
    F_(neg)(&r->y, &a->y); /* -0 = 0 keeps infinity as (0, 0) */
}

void PT_(dbl)(PT *r, const PT *p) {
    if (PT_(is_infinity)(p)) {
        *r = *p;
        return;
    }
    F a, b, c, d, e, f, t;
    F_(sqr)(&a, &p->x);
    F_(sqr)(&b, &p->y);
    F_(sqr)(&c, &b);
    F_(add)(&d, &p->x, &b);
    F_(sqr)(&d, &d);
    F_(sub)(&d, &d, &a);
    F_(sub)(&d, &d, &c);
    F_(dbl)(&d, &d); /* D = 2((X + B)^2 - A - C) */
    F_(dbl)(&e, &a);
    F_(add)(&e, &e, &a); /* E = 3A */
    F_(sqr)(&f, &e);
    F_(mul)(&t, &p->y, &p->z);
    F_(dbl)(&r->z, &t); /* Z3 = 2 Y Z (before Y is overwritten) */
    F_(dbl)(&t, &d);
    F_(sub)(&r->x, &f, &t); /* X3 = F - 2D */
    F_(sub)(&t, &d, &r->x);
    F_(mul)(&t, &e, &t);
    F_(dbl)(&c, &c);
    F_(dbl)(&c, &c);
    F_(dbl)(&c, &c);
    F_(sub)(&r->y, &t, &c); /* Y3 = E (D - X3) - 8C */
}

void PT_(add)(PT *r, const PT *a, const PT *b) {
    if (PT_(is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (PT_(is_infinity)(b)) {
        *r = *a;
        return;
    }
    F z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    F_(sqr)(&z1z1, &a->z);
    F_(sqr)(&z2z2, &b->z);
    F_(mul)(&u1, &a->x, &z2z2);
    F_(mul)(&u2, &b->x, &z1z1);
    F_(mul)(&s1, &a->y, &b->z);
    F_(mul)(&s1, &s1, &z2z2);
    F_(mul)(&s2, &b->y, &a->z);
    F_(mul)(&s2, &s2, &z1z1);
    F_(sub)(&h, &u2, &u1);
    F_(sub)(&rr, &s2, &s1);
    if (F_(is_zero)(&h)) {
        if (F_(is_zero)(&rr)) PT_(dbl)(r, a);
        else PT_(set_infinity)(r);
        return;
    }
    F_(dbl)(&i, &h);
    F_(sqr)(&i, &i); /* I = (2H)^2 */
    F_(mul)(&j, &h, &i);
    F_(dbl)(&rr, &rr); /* r = 2 (S2 - S1) */
    F_(mul)(&v, &u1, &i);
    F_(add)(&t, &a->z, &b->z);
    F_(sqr)(&t, &t);
    F_(sub)(&t, &t, &z1z1);
    F_(sub)(&t, &t, &z2z2);
    F_(mul)(&r->z, &t, &h);
    F_(sqr)(&t, &rr);
    F_(sub)(&t, &t, &j);
    F_(sub)(&t, &t, &v);
    F_(sub)(&r->x, &t, &v);
    F_(sub)(&t, &v, &r->x);
    F_(mul)(&t, &rr, &t);
    F_(mul)(&s1, &s1, &j);
    F_(dbl)(&s1, &s1);
    F_(sub)(&r->y, &t, &s1);
}

void PT_(add_affine)(PT *r, const PT *a, const PTA *b) {
    if (PT_(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (PT_(is_infinity)(a)) {
        PT_(from_affine)(r, b);
        return;
    }
    F z1z1, u2, s2, h, hh, i, j, rr, v, t;
    F_(sqr)(&z1z1, &a->z);
    F_(mul)(&u2, &b->x, &z1z1);
    F_(mul)(&s2, &b->y, &a->z);
    F_(mul)(&s2, &s2, &z1z1);
    F_(sub)(&h, &u2, &a->x);
    F_(sub)(&rr, &s2, &a->y);
    if (F_(is_zero)(&h)) {
        if (F_(is_zero)(&rr)) PT_(dbl)(r, a);
        else PT_(set_infinity)(r);
        return;
    }
    F_(sqr)(&hh, &h);
    F_(dbl)(&i, &hh);
    F_(dbl)(&i, &i); /* I = 4 HH */
    F_(mul)(&j, &h, &i);
    F_(dbl)(&rr, &rr);
    F_(mul)(&v, &a->x, &i);
    F_(add)(&t, &a->z, &h);
    F_(sqr)(&t, &t);
    F_(sub)(&t, &t, &z1z1);
    F_(sub)(&t, &t, &hh); /* Z3 = (Z1 + H)^2 - Z1Z1 - HH */
    F y1j;
    F_(mul)(&y1j, &a->y, &j);
    r->z = t;
    F_(sqr)(&t, &rr);
    F_(sub)(&t, &t, &j);
    F_(sub)(&t, &t, &v);
    F_(sub)(&r->x, &t, &v);
    F_(sub)(&t, &v, &r->x);
    F_(mul)(&t, &rr, &t);
    F_(dbl)(&y1j, &y1j);
    F_(sub)(&r->y, &t, &y1j);
}

void PT_(mul_limbs_var)(PT *r, const PT *p, const uint64_t *k, size_t limbs) {
    /* fixed 4-bit windows from the top: table[i] = i * P */
    PT table[16], acc;
    PT_(set_infinity)(&table[0]);
    table[1] = *p;
    for (int i = 2; i < 16; i++) PT_(add)(&table[i], &table[i - 1], p);
    PT_(set_infinity)(&acc);
    for (size_t w = 16 * limbs; w-- > 0;) {
        for (int d = 0; d < 4; d++) PT_(dbl)(&acc, &acc);
        unsigned digit = (unsigned)(k[w / 16] >> (4 * (w % 16))) & 15;
        if (digit) PT_(add)(&acc, &acc, &table[digit]);
    }
    *r = acc;
}

void PT_(mul_var)(PT *r, const PT *p, const cz_fr *k) {
    uint64_t limbs[CZ_FR_LIMBS];
    cz_fr_to_limbs(limbs, k);
    PT_(mul_limbs_var)(r, p, limbs, CZ_FR_LIMBS);
}

int PT_(affine_is_on_curve)(const PTA *a) {
    if (PT_(affine_is_infinity)(a)) return 1;
    F lhs, rhs, b;
    F_(sqr)(&lhs, &a->y);
    F_(sqr)(&rhs, &a->x);
    F_(mul)(&rhs, &rhs, &a->x);
    curve_b(&b);
    F_(add)(&rhs, &rhs, &b);
    return F_(equal)(&lhs, &rhs);
}
