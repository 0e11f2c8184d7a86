/* Progress lines of long CLI steps (commands.h, cz_cli_progress). */
#include <stdio.h>
#include <unistd.h>

#include "cli/commands.h"
#include "util/parallel.h"

static void clock_text(char *out, size_t cap, double s) {
    if (s < 100)
        snprintf(out, cap, "%.0f s", s);
    else if (s < 6000)
        snprintf(out, cap, "%.0f min %02.0f s", (double)(long)(s / 60),
                 s - 60 * (double)(long)(s / 60));
    else
        snprintf(out, cap, "%.1f h", s / 3600);
}

void cz_cli_progress_begin(cz_cli_progress *p, FILE *stream, const char *what) {
    p->stream = stream;
    p->what = what;
    p->tty = isatty(fileno(stream));
    p->open_line = 0;
    p->start_ns = p->last_ns = cz_now_ns();
}

void cz_cli_progress_update(cz_cli_progress *p, uint64_t done, uint64_t total) {
    uint64_t now = cz_now_ns();
    int last = done >= total;
    uint64_t every = p->tty ? 200000000ull : 10000000000ull;
    if (!last && now - p->last_ns < every) return;
    double fraction = total ? (double)done / (double)total : 1.0;
    /* the caller prints the step's total; a log needs no "100 %" before it */
    if (!p->tty && fraction > 0.99) return;
    p->last_ns = now;
    double elapsed = (double)(now - p->start_ns) / 1e9;
    char elapsed_text[32], left_text[48] = "";
    clock_text(elapsed_text, sizeof elapsed_text, elapsed);
    if (fraction >= 0.02 && fraction < 0.995) {
        char t[32];
        clock_text(t, sizeof t, elapsed * (1 - fraction) / fraction);
        snprintf(left_text, sizeof left_text, ", about %s left", t);
    }
    fprintf(p->stream, "%s  %-22s %3.0f %%  (%s%s)%s", p->tty ? "\r" : "", p->what, 100 * fraction,
            elapsed_text, left_text, p->tty ? "\033[K" : "\n");
    p->open_line = p->tty;
    fflush(p->stream);
}

void cz_cli_progress_end(cz_cli_progress *p) {
    if (p->open_line) {
        fputs("\r\033[K", p->stream);
        fflush(p->stream);
    }
    p->open_line = 0;
}

void cz_cli_progress_fn(void *ctx, uint64_t done, uint64_t total) {
    cz_cli_progress_update(ctx, done, total);
}
