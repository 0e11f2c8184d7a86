#include "util/cancel.h"

#include <stddef.h>

static _Thread_local const atomic_int *thread_flag;

void cz_cancel_set_flag(const atomic_int *flag) {
    thread_flag = flag;
}

int cz_cancel_requested(void) {
    return thread_flag && atomic_load_explicit(thread_flag, memory_order_relaxed) != 0;
}
