#include "util/cancel.h"

#include <stddef.h>

static _Thread_local const atomic_int *thread_flag;
static _Thread_local cz_boundary_hook thread_hook;
static _Thread_local void *thread_hook_ctx;

void cz_cancel_set_flag(const atomic_int *flag) {
    thread_flag = flag;
}

const atomic_int *cz_cancel_flag(void) {
    return thread_flag;
}

int cz_cancel_requested(void) {
    return thread_flag && atomic_load_explicit(thread_flag, memory_order_relaxed) != 0;
}

void cz_boundary_set_hook(cz_boundary_hook hook, void *ctx) {
    thread_hook = hook;
    thread_hook_ctx = ctx;
}

int cz_step_boundary(void) {
    cz_boundary_hook hook = thread_hook;
    void *ctx = thread_hook_ctx;
    if (hook) {
        thread_hook = NULL;
        hook(ctx);
        thread_hook = hook;
        thread_hook_ctx = ctx;
    }
    return cz_cancel_requested();
}
