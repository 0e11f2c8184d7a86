/* The device NTT's pass layout and table sizes (ntt_layout.h). */
#include "gpu/ntt_layout.h"

#include "gpu/settings.h"

unsigned cz_gpu_ntt_split(unsigned k, unsigned bs[4]) {
    const unsigned maxb = cz_gpu_settings_get()->ntt_maxb;
    unsigned npass = (k + maxb - 1) / maxb;
    if (npass > 4) npass = 4;
    if (npass > k / 3) npass = k / 3; /* every pass >= 3 stages */
    if (npass < (k + 8) / 9) npass = (k + 8) / 9;
    for (unsigned i = 0; i < npass; i++) bs[i] = k / npass + (i < k % npass);
    return npass;
}

cz_gpu_ntt_layout cz_gpu_ntt_layout_get(unsigned k, bool dit, bool inv) {
    cz_gpu_ntt_layout r;
    unsigned bs[4];
    r.npass = cz_gpu_ntt_split(k, bs);
    r.bl = dit ? bs[0] : bs[r.npass - 1];
    r.bm = r.npass >= 2 ? (dit ? bs[1] : bs[r.npass - 2]) : 0;
    r.rev = dit != inv;
    r.edge_l = r.npass == 1 || r.rev;
    r.esh = r.edge_l ? r.bl + r.bm : r.bl;
    r.ekeep = r.edge_l ? r.bl : 0;
    r.msize = r.bm ? (size_t)1 << (r.bl + r.bm) : 0;
    r.esize = (size_t)1 << (k - (r.edge_l ? r.bm : r.bl));
    return r;
}

size_t cz_gpu_ntt_table_elems(unsigned k) {
    const unsigned tb = cz_gpu_ntt_twiddle_bits(k), pb = cz_gpu_ntt_coset_bits(k);
    /* omega^e and omega^-e; g^e and g^-e (its high level also / 2^k); the
     * butterflies' roots of both directions */
    size_t total = 2 * (((size_t)1 << tb) + ((size_t)1 << (k - tb))) +
                   2 * (((size_t)1 << pb) + ((size_t)1 << (k - pb))) + 2 * cz_gpu_ntt_root_elems(k);
    for (int dit = 0; dit < 2 && k >= 3; dit++)
        for (int inv = 0; inv < 2; inv++) {
            const cz_gpu_ntt_layout l = cz_gpu_ntt_layout_get(k, dit, inv);
            total += 2 * l.msize + l.esize; /* M's plain and coset tables, the edge table */
        }
    return total;
}
