/* TOML-subset configuration reader (see config.h). */
#include "daemon/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/srs.h"
#include "gpu/settings.h"
#include "util/check.h"
#include "util/log.h"
#include "util/parallel.h"

/* ---- values ---- */

typedef enum { V_STRING, V_INT, V_BOOL, V_ARRAY } vtype;

#define MAX_ITEMS CZ_CONFIG_MAX_LIST

typedef struct {
    vtype type;
    char str[PATH_MAX];
    int64_t num;
    int boolean;
    size_t n_items;
    vtype item_type;
    char items[MAX_ITEMS][64];
    int64_t item_nums[MAX_ITEMS];
} value;

cz_status cz_parse_duration_ms(uint64_t *out, const char *s, cz_error *err) {
    const char *p = s;
    uint64_t v = 0;
    if (!isdigit((unsigned char)*p))
        return cz_error_set(err, CZ_E_PARSE, "bad duration '%s' (e.g. 250ms, 30s, 5m, 2h)", s);
    while (isdigit((unsigned char)*p)) {
        if (v > UINT64_MAX / 10 - 10)
            return cz_error_set(err, CZ_E_RANGE, "duration '%s' overflows", s);
        v = v * 10 + (uint64_t)(*p++ - '0');
    }
    uint64_t mul;
    if (!strcmp(p, "ms"))
        mul = 1;
    else if (!strcmp(p, "s") || !*p)
        mul = 1000;
    else if (!strcmp(p, "m"))
        mul = 60000;
    else if (!strcmp(p, "h"))
        mul = 3600000;
    else
        return cz_error_set(err, CZ_E_PARSE, "bad duration '%s' (e.g. 250ms, 30s, 5m, 2h)", s);
    if (v > UINT64_MAX / mul) return cz_error_set(err, CZ_E_RANGE, "duration '%s' overflows", s);
    *out = v * mul;
    return CZ_OK;
}

/* Parses a string starting at *pp (at the quote); leaves *pp after it. */
static cz_status parse_string(char *out, size_t cap, const char **pp, cz_error *err) {
    const char *p = *pp;
    char q = *p++;
    size_t n = 0;
    while (*p && *p != q) {
        char c = *p++;
        /* TOML: no control character but tab in a string */
        if (((unsigned char)c < 0x20 && c != '\t') || c == 0x7f)
            return cz_error_set(err, CZ_E_PARSE, "control character 0x%02x in a string",
                                (unsigned)(unsigned char)c);
        if (q == '"' && c == '\\') {
            char e = *p++;
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            default: return cz_error_set(err, CZ_E_PARSE, "unsupported escape '\\%c'", e ? e : ' ');
            }
        }
        if (n + 1 >= cap)
            return cz_error_set(err, CZ_E_RANGE, "string longer than %zu bytes", cap - 1);
        out[n++] = c;
    }
    if (*p != q) return cz_error_set(err, CZ_E_PARSE, "unterminated string");
    out[n] = 0;
    *pp = p + 1;
    return CZ_OK;
}

static cz_status parse_int(int64_t *out, const char **pp, cz_error *err) {
    const char *p = *pp;
    int neg = 0;
    if (*p == '-' || *p == '+') neg = *p++ == '-';
    if (!isdigit((unsigned char)*p)) return cz_error_set(err, CZ_E_PARSE, "expected a value");
    /* TOML: no leading zero, and an underscore only between two digits */
    if (p[0] == '0' && (isdigit((unsigned char)p[1]) || p[1] == '_'))
        return cz_error_set(err, CZ_E_PARSE, "leading zero in an integer");
    int64_t v = 0;
    while (isdigit((unsigned char)*p) || *p == '_') {
        if (*p == '_') {
            if (!isdigit((unsigned char)p[1]))
                return cz_error_set(err, CZ_E_PARSE, "'_' not between two digits");
            p++;
            continue;
        }
        if (v > (INT64_MAX - 9) / 10) return cz_error_set(err, CZ_E_RANGE, "integer overflows");
        v = v * 10 + (*p++ - '0');
    }
    *out = neg ? -v : v;
    *pp = p;
    return CZ_OK;
}

static const char *skip_ws(const char *p) {
    while (*p == ' ' || *p == '\t') p++;
    return p;
}

static cz_status parse_scalar(value *v, const char **pp, cz_error *err) {
    const char *p = *pp;
    if (*p == '"' || *p == '\'') {
        v->type = V_STRING;
        return parse_string(v->str, sizeof v->str, pp, err);
    }
    if (!strncmp(p, "true", 4) && !isalnum((unsigned char)p[4])) {
        v->type = V_BOOL;
        v->boolean = 1;
        *pp = p + 4;
        return CZ_OK;
    }
    if (!strncmp(p, "false", 5) && !isalnum((unsigned char)p[5])) {
        v->type = V_BOOL;
        v->boolean = 0;
        *pp = p + 5;
        return CZ_OK;
    }
    v->type = V_INT;
    cz_status st = parse_int(&v->num, pp, err);
    if (st == CZ_OK && (isalpha((unsigned char)**pp) || **pp == '.'))
        return cz_error_set(err, CZ_E_PARSE,
                            "expected a number, a quoted string, true, false or [...]");
    return st;
}

static cz_status parse_value(value *v, const char *p, cz_error *err) {
    memset(v, 0, sizeof *v);
    cz_status st;
    if (*p == '[') {
        v->type = V_ARRAY;
        p = skip_ws(p + 1);
        while (*p != ']') {
            if (v->n_items == MAX_ITEMS)
                return cz_error_set(err, CZ_E_RANGE, "array longer than %d items", MAX_ITEMS);
            value item;
            memset(&item, 0, sizeof item);
            if ((st = parse_scalar(&item, &p, err)) != CZ_OK) return st;
            if (item.type == V_BOOL || (v->n_items && item.type != v->item_type))
                return cz_error_set(err, CZ_E_PARSE, "arrays hold strings or integers, one kind");
            v->item_type = item.type;
            if (item.type == V_STRING) {
                if (strlen(item.str) >= sizeof v->items[0])
                    return cz_error_set(err, CZ_E_RANGE, "array item too long");
                snprintf(v->items[v->n_items], sizeof v->items[0], "%s", item.str);
            }
            v->item_nums[v->n_items++] = item.num;
            p = skip_ws(p);
            if (*p == ',')
                p = skip_ws(p + 1);
            else if (*p != ']')
                return cz_error_set(err, CZ_E_PARSE, "expected ',' or ']' in the array");
        }
        p++;
    } else if ((st = parse_scalar(v, &p, err)) != CZ_OK) {
        return st;
    }
    p = skip_ws(p);
    if (*p && *p != '#') return cz_error_set(err, CZ_E_PARSE, "unexpected text after the value");
    return CZ_OK;
}

/* ---- keys: one row per key ----
 *
 * Each row parses, defaults (its default is text in the file's own syntax,
 * parsed like a value from a file), prints (--print-config) and documents
 * (--example-config, which dist/cuzk.example.toml is) one key. */

typedef enum {
    K_STRING,      /* char[size] */
    K_BOOL,        /* int */
    K_U32,         /* uint32_t in [min, max] */
    K_U64,         /* uint64_t in [min, max] */
    K_DURATION,    /* uint64_t milliseconds: "250ms", "30s", "5m", "2h" or seconds */
    K_SIZE,        /* uint64_t bytes: "64GiB", "500MB" or bytes; AUTO_ZERO: "auto" = 0 */
    K_CHOICE,      /* char[size], one of choices ("a|b|c") */
    K_U32_LIST,    /* uint32_t[CZ_CONFIG_MAX_LIST] + uint32_t count, items in [min, max] */
    K_STRING_LIST, /* char[CZ_CONFIG_MAX_LIST][size] + uint32_t count */
    K_FIXED,       /* accepted with one value only (choices); else `refusal` */
    K_DEPRECATED   /* accepted for Curio's files with a warning; no effect */
} key_type;

#define AUTO_ZERO 1u /* K_SIZE: 0 is written "auto" (and a literal 0 is refused) */
#define EMPTY_OK  2u /* K_STRING: "" is a value (else refused: no path or address is "") */

typedef struct {
    const char *section, *key;
    key_type type;
    size_t offset, size; /* the field in cz_daemon_config; size: string or item bytes */
    size_t count_offset; /* lists: their uint32_t count */
    uint64_t min, max;   /* integers and list items */
    const char *choices; /* K_CHOICE: "auto|cpu|cuda"; K_FIXED: its value */
    const char *what;    /* lists: what the items are ("GPU ordinals") */
    const char *refusal; /* K_FIXED: why another value is refused; K_SIZE: why below min fails */
    unsigned flags;
    const char *def;     /* the default, as a value in the file */
    const char *example; /* value dist/cuzk.example.toml sets; NULL = the default, commented */
    const char *doc;     /* comment lines of the example ('\n' between lines) */
} key_row;

#define F(field)                                                                                   \
    .offset = offsetof(cz_daemon_config, field), .size = sizeof(((cz_daemon_config *)0)->field)
#define LIST(field, count)                                                                         \
    .offset = offsetof(cz_daemon_config, field),                                                   \
    .size = sizeof(((cz_daemon_config *)0)->field[0]),                                             \
    .count_offset = offsetof(cz_daemon_config, count)
#define DEPRECATED(sec, name)                                                                      \
    { .section = sec, .key = name, .type = K_DEPRECATED }

static const key_row keys[] = {
    {.section = "daemon",
     .key = "listen",
     .type = K_STRING,
     F(listen),
     .def = "\"unix://cuzk.sock\"",
     .example = "\"unix:///run/cuzk/cuzk.sock\"",
     .doc = "Where the gRPC service (cuzk.v1.ProvingEngine) listens: unix://PATH (a\n"
            "relative PATH is under the working directory) or IP:PORT. Curio's\n"
            "[Cuzk] Address must name the same place. The socket is created mode 0600:\n"
            "run cuzk as the user Curio runs as. The systemd unit's runtime directory:"},
    {.section = "daemon",
     .key = "allow_remote",
     .type = K_BOOL,
     F(allow_remote),
     .def = "false",
     .doc = "TCP on an address other than loopback: the service has no TLS and no\n"
            "authentication, so this must be said explicitly."},
    {.section = "daemon",
     .key = "drain_timeout",
     .type = K_DURATION,
     F(drain_timeout_ms),
     .def = "\"60s\"",
     .doc = "On SIGTERM / SIGINT: stop taking calls, let jobs in flight finish for this\n"
            "long, then cancel the rest (a second signal exits at once)."},
    {.section = "daemon",
     .key = "metrics_listen",
     .type = K_STRING,
     F(metrics_listen),
     .flags = EMPTY_OK,
     .def = "\"\"",
     .doc = "HTTP GET /metrics (Prometheus text, the same as the GetMetrics call) on\n"
            "IP:PORT, e.g. \"127.0.0.1:9821\"; \"\" = off. Connections are served\n"
            "concurrently, each within a deadline for its whole request."},
    {.section = "daemon",
     .key = "status_listen",
     .type = K_FIXED,
     .choices = "\"\"",
     .refusal = "the HTTP status server is not implemented; use GetStatus over gRPC, or "
                "[daemon] metrics_listen for HTTP /metrics",
     .def = "\"\"",
     .doc = "An HTTP status server in Curio's file; not implemented: any value but \"\"\n"
            "is an error (use GetStatus or /metrics)."},
    {.section = "daemon",
     .key = "max_request_memory",
     .type = K_SIZE,
     F(max_request_memory),
     .min = 1u << 20,
     .refusal = "a message may be a quarter of it, and below 256 KiB not even a 2 KiB "
                "PoRep request (its C1 envelope is ~134 KB) would be taken",
     .def = "\"1GiB\"",
     .doc = "Request bytes the calls in progress may hold while they are received,\n"
            "decoded and checked (twice each message's size; a 32 GiB PoRep C1 is\n"
            "~50 MB). Counted before the bytes arrive: a message may be a quarter of\n"
            "it (at most 256 MiB; larger ones get RESOURCE_EXHAUSTED), and a call's\n"
            "receive starts once twice that much is free (others wait their turn).\n"
            "At least 1MiB. Outside [memory] total_budget: keep it within\n"
            "safety_margin."},
    {.section = "memory",
     .key = "total_budget",
     .type = K_SIZE,
     F(total_budget),
     .flags = AUTO_ZERO,
     .min = 128u << 20,
     .refusal = "below it not even one partition of the smallest circuit fits (each "
                "reserves 64 MiB of working memory besides its parameters)",
     .def = "\"auto\"",
     .doc = "Host memory the engine may fill with parameters and partitions in flight;\n"
            "\"auto\" = physical memory less safety_margin."},
    {.section = "memory",
     .key = "safety_margin",
     .type = K_SIZE,
     F(safety_margin),
     .flags = AUTO_ZERO,
     .def = "\"auto\"",
     .doc = "Host memory the engine leaves to the system and the programs beside it\n"
            "when total_budget is \"auto\". \"auto\" = 15 % of physical memory, at least\n"
            "5GiB and at most 32GiB (19 GiB of a 128 GiB host)."},
    {.section = "memory",
     .key = "eviction_min_idle",
     .type = K_DURATION,
     F(eviction_min_idle_ms),
     .def = "\"300s\"",
     .doc = "Parameters unused this long may be dropped when memory is needed."},
    DEPRECATED("memory", "pinned_budget"),
    DEPRECATED("memory", "working_memory_budget"),
    {.section = "gpus",
     .key = "backend",
     .type = K_CHOICE,
     F(backend),
     .choices = "auto|cpu|cuda",
     .def = "\"auto\"",
     .doc = "\"auto\": the GPU when a CUDA device answers, else the CPU; \"cuda\": refuse\n"
            "to start without one; \"cpu\": never the GPU."},
    {.section = "gpus",
     .key = "gpu_workers_per_device",
     .type = K_U32,
     F(gpu_workers_per_device),
     .max = 8,
     .def = "0",
     .doc = "Prove workers per back-end context (0..8): a second one overlaps one\n"
            "proof's host work with another's GPU work; on a key that streams (a card\n"
            "smaller than the key), they are also the units that share one pass over its\n"
            "points (at most tuning's gpu_pass_units). 0 = auto: 4 when every device\n"
            "has under 40 GiB for keys (the large keys stream), else 2."},
    {.section = "gpus",
     .key = "devices",
     .type = K_U32_LIST,
     LIST(devices, n_devices),
     .min = 0,
     .max = 255,
     .what = "GPU ordinals",
     .def = "[]",
     .doc = "CUDA ordinals, one back-end context per entry (an ordinal may repeat:\n"
            "those contexts share the device's memory); [] = every device."},
    {.section = "gpus",
     .key = "gpu_threads",
     .type = K_U32,
     F(gpu_threads),
     .max = UINT32_MAX,
     .def = "0",
     .doc = "CPU threads of a prove worker's host-side work; 0 = every core."},
    {.section = "scheduler",
     .key = "max_batch_size",
     .type = K_U32,
     F(max_batch_size),
     .min = 1,
     .max = UINT32_MAX,
     .def = "8",
     .doc = "Up to this many consecutive partitions of the circuit whose parameters the\n"
            "GPU holds are proven before plain priority order resumes (a circuit switch\n"
            "re-uploads its parameters); 1 = plain order."},
    {.section = "scheduler",
     .key = "max_batch_wait_ms",
     .type = K_U64,
     F(max_batch_wait_ms),
     .max = UINT64_MAX,
     .def = "10000",
     .doc = "...unless a partition of another circuit has waited this long (ms)."},
    DEPRECATED("scheduler", "sort_by_type"),
    {.section = "synthesis",
     .key = "threads",
     .type = K_U32,
     F(synthesis_threads),
     .max = CZ_THREADS_MAX,
     .def = "0",
     .doc = "Worker threads for synthesis and the CPU prover; 0 = every core."},
    DEPRECATED("synthesis", "partition_workers"),
    {.section = "pipeline",
     .key = "enabled",
     .type = K_FIXED,
     .choices = "true",
     .refusal = "there is no monolithic mode; the pipeline is always on",
     .def = "true",
     .doc = "Always true: synthesis and proving overlap (there is no monolithic mode)."},
    {.section = "pipeline",
     .key = "max_parallel_synthesis",
     .type = K_U32,
     F(max_parallel_synthesis),
     .max = UINT32_MAX,
     .def = "0",
     .doc = "Partitions synthesized at once; 0 = auto (every core with a GPU, else 2)."},
    {.section = "pipeline",
     .key = "max_gpu_queue_depth",
     .type = K_U32,
     F(max_gpu_queue_depth),
     .max = UINT32_MAX,
     .def = "0",
     .doc = "Synthesized partitions waiting for the prover; 0 = the prove workers."},
    {.section = "pipeline",
     .key = "partitions_ahead",
     .type = K_U32,
     F(partitions_ahead),
     .max = UINT32_MAX,
     .def = "0",
     .doc = "Partitions being synthesized or waiting for the prover, per priority level:\n"
            "what bounds host memory (a 32 GiB partition's witness is 4 GiB); 0 = auto\n"
            "(2 per prove worker + 2, or max_gpu_queue_depth + the prove workers when\n"
            "that is more). CRITICAL jobs and preparations are not held back."},
    {.section = "pipeline",
     .key = "synthesis_nice",
     .type = K_U32,
     F(synthesis_nice),
     .max = 19,
     .def = "0",
     .doc = "The synthesis workers' nice value (0-19; 0 = the daemon's own): they then\n"
            "yield the cores to the prove workers' copies that feed the GPU and to the\n"
            "critical lane (WinningPoSt), which alone takes CRITICAL work then."},
    DEPRECATED("pipeline", "synthesis_lookahead"),
    DEPRECATED("pipeline", "synthesis_concurrency"),
    DEPRECATED("pipeline", "slot_size"),
    {.section = "srs",
     .key = "param_cache",
     .type = K_STRING,
     F(param_cache),
     .def = "\"/var/tmp/filecoin-proof-parameters\"",
     .doc = "Directory of the Groth16 parameters (Filecoin's file names:\n"
            "v28-stacked-proof-of-replication-...params / .vk). By default the one\n"
            "Curio and lotus fill: $FIL_PROOFS_PARAMETER_CACHE when set, else this.\n"
            "Each file is checked against Filecoin's published digests once (remembered\n"
            "in FILE.blake2b); an official name with a wrong digest is refused, and\n"
            "development keys (cuzk setup, FILE.dev) are served with a warning."},
    {.section = "srs",
     .key = "preload",
     .type = K_STRING_LIST,
     LIST(preload, n_preload),
     .what = "circuit ids",
     .def = "[]",
     .doc = "Circuits loaded at start, before the service answers, e.g. [\"porep-32g\"]\n"
            "(porep-32g, winning-post-32g, window-post-32g, snap-32g, ...; sizes 2k 8m\n"
            "512m 32g 64g)."},
    {.section = "engine",
     .key = "result_retention",
     .type = K_DURATION,
     F(result_retention_ms),
     .def = "\"600s\"",
     .doc = "How long a finished proof waits to be fetched with AwaitProof. A request\n"
            "with the same request_id and payload gets it again; another payload under\n"
            "the id of an ended job starts a new proof."},
    {.section = "logging",
     .key = "level",
     .type = K_CHOICE,
     F(log_level),
     .choices = "error|warn|info|debug",
     .def = "\"info\"",
     .doc = "error, warn, info or debug (lines on stderr: the journal under systemd)."},
    {.section = "logging",
     .key = "timeline",
     .type = K_BOOL,
     F(timeline),
     .def = "false",
     .doc = "One line per job event (submit, synthesis, prove, verify) for timing."},
    {.section = "logging",
     .key = "format",
     .type = K_FIXED,
     .choices = "\"text\"",
     .refusal = "only \"text\" logging is implemented",
     .def = "\"text\"",
     .doc = "Only \"text\"."},
};
#define N_KEYS (sizeof keys / sizeof keys[0])

static const char example_header[] =
    "cuzk daemon configuration (`cuzk daemon --config FILE`).\n"
    "\n"
    "Every key is listed with its meaning; the commented ones show their\n"
    "built-in default, so deleting this file's settings changes nothing else.\n"
    "`cuzk daemon --config FILE --print-config` prints what is in effect and\n"
    "checks the file (unknown keys, bad sizes, a bad listen address are errors\n"
    "naming the line). Sizes: \"64GiB\", \"500MB\", a byte count; durations:\n"
    "\"250ms\", \"30s\", \"5m\", \"2h\". The keys and their meanings are those of\n"
    "Curio's cuzk.example.toml where they still apply. This file is written by\n"
    "`cuzk daemon --example-config` from the table in src/daemon/config.c.";

static void *field_of(cz_daemon_config *c, const key_row *k) {
    return (char *)c + k->offset;
}
static const void *cfield_of(const cz_daemon_config *c, const key_row *k) {
    return (const char *)c + k->offset;
}

static const char *type_word(vtype t) {
    static const char *names[] = {"a string", "an integer", "true or false", "an array"};
    return names[t];
}

static cz_status want(const value *v, vtype t, cz_error *err) {
    if (v->type != t) return cz_error_set(err, CZ_E_PARSE, "expected %s", type_word(t));
    return CZ_OK;
}

static cz_status check_range(const key_row *k, int64_t n, cz_error *err) {
    if (n < 0) return cz_error_set(err, CZ_E_RANGE, "%" PRId64 " is negative", n);
    if ((uint64_t)n < k->min || (uint64_t)n > k->max) {
        uint64_t top = k->type == K_U64 ? UINT64_MAX : UINT32_MAX;
        if (k->max == top)
            return cz_error_set(err, CZ_E_RANGE, "must be at least %" PRIu64, k->min);
        return cz_error_set(err, CZ_E_RANGE, "must be %" PRIu64 "..%" PRIu64, k->min, k->max);
    }
    return CZ_OK;
}

/* "a|b|c" contains s as one of its words. */
static int is_choice(const char *choices, const char *s) {
    size_t n = strlen(s);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t w = bar ? (size_t)(bar - p) : strlen(p);
        if (w == n && !memcmp(p, s, n)) return 1;
        p += w + (bar ? 1 : 0);
    }
    return 0;
}

/* "auto, cpu or cuda" */
static void choice_list(char *out, size_t cap, const char *choices) {
    size_t o = 0;
    out[0] = 0;
    for (const char *p = choices; *p && o + 1 < cap;) {
        const char *bar = strchr(p, '|');
        size_t w = bar ? (size_t)(bar - p) : strlen(p);
        const char *sep = o == 0 ? "" : bar ? ", " : " or ";
        int n = snprintf(out + o, cap - o, "%s%.*s", sep, (int)w, p);
        if (n < 0) break;
        o += (size_t)n < cap - o ? (size_t)n : cap - o - 1;
        p += w + (bar ? 1 : 0);
    }
}

static int same_value(const value *a, const value *b) {
    if (a->type != b->type) return 0;
    switch (a->type) {
    case V_STRING: return !strcmp(a->str, b->str);
    case V_INT: return a->num == b->num;
    case V_BOOL: return a->boolean == b->boolean;
    default: return 0;
    }
}

static cz_status set_value(cz_daemon_config *c, const key_row *k, const value *v, cz_error *err) {
    cz_status st = CZ_OK;
    void *f = field_of(c, k);
    switch (k->type) {
    case K_STRING:
    case K_CHOICE:
        if ((st = want(v, V_STRING, err)) != CZ_OK) return st;
        if (strlen(v->str) >= k->size)
            return cz_error_set(err, CZ_E_RANGE, "longer than %zu bytes", k->size - 1);
        if (k->type == K_STRING && !v->str[0] && !(k->flags & EMPTY_OK))
            return cz_error_set(err, CZ_E_RANGE, "empty (name a path or an address%s)",
                                k->offset == offsetof(cz_daemon_config, param_cache)
                                    ? "; \".\" is the working directory"
                                    : "");
        if (k->type == K_CHOICE && !is_choice(k->choices, v->str)) {
            char list[128];
            choice_list(list, sizeof list, k->choices);
            return cz_error_set(err, CZ_E_PARSE, "'%s' is not %s", v->str, list);
        }
        snprintf(f, k->size, "%s", v->str);
        return CZ_OK;
    case K_BOOL:
        if ((st = want(v, V_BOOL, err)) != CZ_OK) return st;
        *(int *)f = v->boolean;
        return CZ_OK;
    case K_U32:
    case K_U64:
        if ((st = want(v, V_INT, err)) != CZ_OK) return st;
        if ((st = check_range(k, v->num, err)) != CZ_OK) return st;
        if (k->type == K_U32)
            *(uint32_t *)f = (uint32_t)v->num;
        else
            *(uint64_t *)f = (uint64_t)v->num;
        return CZ_OK;
    case K_DURATION:
        if (v->type == V_INT) {
            if (v->num < 0) return cz_error_set(err, CZ_E_RANGE, "negative duration");
            if ((uint64_t)v->num > UINT64_MAX / 1000)
                return cz_error_set(err, CZ_E_RANGE, "duration overflows");
            *(uint64_t *)f = (uint64_t)v->num * 1000;
            return CZ_OK;
        }
        if ((st = want(v, V_STRING, err)) != CZ_OK) return st;
        return cz_parse_duration_ms(f, v->str, err);
    case K_SIZE: {
        uint64_t n = 0;
        if (v->type == V_INT) {
            if (v->num < 0) return cz_error_set(err, CZ_E_RANGE, "negative size");
            n = (uint64_t)v->num;
        } else {
            if ((st = want(v, V_STRING, err)) != CZ_OK) return st;
            if ((k->flags & AUTO_ZERO) && !strcmp(v->str, "auto")) {
                *(uint64_t *)f = 0;
                return CZ_OK;
            }
            if ((st = cz_parse_size(&n, v->str, err)) != CZ_OK) return st;
        }
        if ((k->flags & AUTO_ZERO) && n == 0)
            return cz_error_set(err, CZ_E_RANGE, "0 bytes (use \"auto\")");
        if (n < k->min)
            return cz_error_set(err, CZ_E_RANGE, "%" PRIu64 " bytes is below %" PRIu64 " MiB: %s",
                                n, k->min >> 20, k->refusal);
        *(uint64_t *)f = n;
        return CZ_OK;
    }
    case K_U32_LIST:
    case K_STRING_LIST: {
        int strings = k->type == K_STRING_LIST;
        if ((st = want(v, V_ARRAY, err)) != CZ_OK) return st;
        if (v->n_items && v->item_type != (strings ? V_STRING : V_INT))
            return cz_error_set(err, CZ_E_PARSE, "expected %s (%s)", k->what,
                                strings ? "strings" : "integers");
        for (size_t i = 0; i < v->n_items; i++) {
            if (strings) {
                if (strlen(v->items[i]) >= k->size)
                    return cz_error_set(err, CZ_E_RANGE, "item %zu is longer than %zu bytes", i,
                                        k->size - 1);
                snprintf((char *)f + i * k->size, k->size, "%s", v->items[i]);
            } else {
                int64_t n = v->item_nums[i];
                if (n < 0 || (uint64_t)n < k->min || (uint64_t)n > k->max)
                    return cz_error_set(err, CZ_E_RANGE,
                                        "%" PRId64 " is out of range (%" PRIu64 "..%" PRIu64 ")", n,
                                        k->min, k->max);
                ((uint32_t *)f)[i] = (uint32_t)n;
            }
        }
        *(uint32_t *)((char *)c + k->count_offset) = (uint32_t)v->n_items;
        return CZ_OK;
    }
    case K_FIXED: {
        value only;
        const char *p = k->choices;
        if (parse_value(&only, p, err) != CZ_OK) return CZ_E_INTERNAL;
        if ((st = want(v, only.type, err)) != CZ_OK) return st;
        if (!same_value(v, &only)) return cz_error_set(err, CZ_E_UNSUPPORTED, "%s", k->refusal);
        return CZ_OK;
    }
    case K_DEPRECATED: return CZ_OK;
    }
    return CZ_BROKEN(err, "key type %d", (int)k->type);
}

static const key_row *find_key(const char *sec, const char *key) {
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].section, sec) && !strcmp(keys[i].key, key)) return &keys[i];
    return NULL;
}

/* The first row of section s (N_KEYS when none). */
static size_t first_row_of(const char *s) {
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].section, s)) return i;
    return N_KEYS;
}

/* [tuning]: the knobs' table (gpu/settings.h) instead of rows here. */
#define TUNING "tuning"

/* "gpu_mem_limit" of CZ_GPU_MEM_LIMIT, and back. */
static void knob_key(char *out, size_t cap, const char *env) {
    size_t i = 0;
    for (const char *p = env + 3; *p && i + 1 < cap; p++)
        out[i++] = (char)tolower((unsigned char)*p);
    out[i] = 0;
}

static void knob_env(char *out, size_t cap, const char *key) {
    size_t i = snprintf(out, cap, "CZ_");
    for (const char *p = key; *p && i + 1 < cap; p++) out[i++] = (char)toupper((unsigned char)*p);
    out[i] = 0;
}

static int all_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* key = v in [tuning] (a string, or an integer written as text), read as
 * the knob's environment variable would be. */
static cz_status tuning_set(cz_daemon_config *c, const char *key, const value *v, size_t line,
                            size_t *lines, cz_error *err) {
    char env[64];
    knob_env(env, sizeof env, key);
    if (strlen(key) >= sizeof c->tuning[0].key || cz_gpu_knob_find(env) < 0)
        return cz_error_set(err, CZ_E_PARSE,
                            "unknown knob (`cuzk daemon --example-config` lists them)");
    const int k = cz_gpu_knob_find(env);
    if (lines[k])
        return cz_error_set(err, CZ_E_PARSE, "set again (first at line %zu; TOML sets a key once)",
                            lines[k]);
    lines[k] = line;
    char text[128];
    if (v->type == V_STRING) {
        if (strlen(v->str) >= sizeof text) return cz_error_set(err, CZ_E_RANGE, "value too long");
        snprintf(text, sizeof text, "%s", v->str);
    } else if (v->type == V_INT && v->num >= 0) {
        snprintf(text, sizeof text, "%lld", (long long)v->num);
    } else {
        return cz_error_set(err, CZ_E_PARSE, "expected a string or a non-negative integer");
    }
    int is_default = 0;
    cz_status st = cz_gpu_knob_check(env, text, &is_default, err);
    if (st != CZ_OK) return st;
    /* a default is not kept: the configuration is the same with it or not */
    uint32_t i = 0;
    while (i < c->n_tuning && strcmp(c->tuning[i].key, key)) i++;
    if (is_default) {
        if (i < c->n_tuning) c->tuning[i] = c->tuning[--c->n_tuning];
        return CZ_OK;
    }
    if (i == CZ_CONFIG_MAX_TUNING)
        return cz_error_set(err, CZ_E_RANGE, "more than %d knobs", CZ_CONFIG_MAX_TUNING);
    memset(&c->tuning[i], 0, sizeof c->tuning[i]);
    memcpy(c->tuning[i].key, key, strlen(key) + 1);
    memcpy(c->tuning[i].value, text, strlen(text) + 1);
    c->tuning[i].quoted = v->type == V_STRING;
    if (i == c->n_tuning) c->n_tuning++;
    return CZ_OK;
}

typedef struct {
    const cz_daemon_config *cfg;
    char env_of[CZ_CONFIG_MAX_TUNING][64];
} tuning_ctx;

static const char *tuning_lookup(const char *name, void *ctx) {
    const tuning_ctx *t = ctx;
    const char *env = getenv(name);
    if (env) return env;
    for (uint32_t i = 0; i < t->cfg->n_tuning; i++)
        if (!strcmp(t->env_of[i], name)) return t->cfg->tuning[i].value;
    return NULL;
}

cz_status cz_config_apply_tuning(const cz_daemon_config *cfg, cz_error *err) {
    tuning_ctx *t = malloc(sizeof *t);
    if (!t) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    t->cfg = cfg;
    for (uint32_t i = 0; i < cfg->n_tuning; i++)
        knob_env(t->env_of[i], sizeof t->env_of[i], cfg->tuning[i].key);
    cz_status st = cz_gpu_settings_use_lookup(tuning_lookup, t, err);
    free(t);
    return st == CZ_OK ? CZ_OK : cz_error_wrap(err, st, "[tuning]");
}

static int known_section(const char *s) {
    if (!strcmp(s, TUNING)) return 1;
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(keys[i].section, s)) return 1;
    return 0;
}

/* "daemon, memory, ..." in table order. */
static void section_list(char *out, size_t cap) {
    size_t o = 0;
    out[0] = 0;
    for (size_t i = 0; i < N_KEYS; i++) {
        if (i && !strcmp(keys[i].section, keys[i - 1].section)) continue;
        int n = snprintf(out + o, cap - o, "%s%s", o ? ", " : "", keys[i].section);
        if (n < 0 || (size_t)n >= cap - o) break;
        o += (size_t)n;
    }
    if (o + sizeof ", " TUNING < cap) snprintf(out + o, cap - o, ", " TUNING);
}

static cz_status apply(cz_daemon_config *c, const char *sec, const char *key, const value *v,
                       FILE *warn, const char *where, cz_error *err) {
    const key_row *k = find_key(sec, key);
    if (!k) return cz_error_set(err, CZ_E_PARSE, "unknown key");
    if (k->type == K_DEPRECATED) {
        if (warn) fprintf(warn, "%s: [%s] %s has no effect (ignored)\n", where, sec, key);
        return CZ_OK;
    }
    return set_value(c, k, v, err);
}

void cz_config_defaults(cz_daemon_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < N_KEYS; i++) {
        const key_row *k = &keys[i];
        if (!k->def || k->type == K_FIXED || k->type == K_DEPRECATED) continue;
        value v;
        cz_error err;
        /* The table's own text: tests/daemon/test_config holds it to parse. */
        if (parse_value(&v, k->def, &err) != CZ_OK || set_value(cfg, k, &v, &err) != CZ_OK)
            cz_log(CZ_LOG_ERROR, "config: default of [%s] %s: %s", k->section, k->key, err.message);
    }
    /* Filecoin's tools take their parameter directory from this variable
     * first; a value in the file still overrides it. */
    const char *fil_cache = getenv("FIL_PROOFS_PARAMETER_CACHE");
    if (fil_cache && fil_cache[0] && strlen(fil_cache) >= sizeof cfg->param_cache)
        cz_log(CZ_LOG_WARN, "config: FIL_PROOFS_PARAMETER_CACHE is longer than %zu bytes: ignored",
               sizeof cfg->param_cache - 1);
    else if (fil_cache && fil_cache[0])
        snprintf(cfg->param_cache, sizeof cfg->param_cache, "%s", fil_cache);
}

cz_status cz_config_parse(cz_daemon_config *cfg, const char *text, size_t len, const char *name,
                          FILE *warn, cz_error *err) {
    char section[64] = "";
    size_t line_no = 0, pos = 0;
    /* TOML defines a key once and a table once: the line that first set
     * each (0 = not yet), so a repetition names both lines. */
    size_t key_line[N_KEYS] = {0}, section_line[N_KEYS + 1] = {0};
    size_t tuning_line[CZ_GPU_MAX_KNOBS] = {0}; /* the same for [tuning], by knob */
    /* Longer than any line cz_config_print writes (a PATH_MAX value with
     * every byte escaped, its key and quotes), so that what --print-config
     * writes always reads back (a raw tab is printed as \t: a 4 KB line
     * read can be 8 KB printed). */
    char line[2 * PATH_MAX + 256];
    while (pos < len) {
        line_no++;
        size_t end = pos;
        while (end < len && text[end] != '\n') end++;
        size_t n = end - pos;
        if (n >= sizeof line)
            return cz_error_set(err, CZ_E_PARSE, "%s:%zu: line longer than %zu bytes", name,
                                line_no, sizeof line - 1);
        memcpy(line, text + pos, n);
        line[n] = 0;
        pos = end + 1;
        if (n && line[n - 1] == '\r') line[--n] = 0;
        if (memchr(line, 0, n))
            return cz_error_set(err, CZ_E_PARSE, "%s:%zu: NUL byte", name, line_no);
        const char *p = skip_ws(line);
        if (!*p || *p == '#') continue;
        if (*p == '[') {
            const char *q = strchr(p, ']');
            if (!q || q - p - 1 <= 0 || (size_t)(q - p - 1) >= sizeof section)
                return cz_error_set(err, CZ_E_PARSE, "%s:%zu: bad section header", name, line_no);
            char sec[64];
            memcpy(sec, p + 1, (size_t)(q - p - 1));
            sec[q - p - 1] = 0;
            const char *rest = skip_ws(q + 1);
            if (*rest && *rest != '#')
                return cz_error_set(err, CZ_E_PARSE, "%s:%zu: text after the section header", name,
                                    line_no);
            if (!known_section(sec)) {
                char list[256];
                section_list(list, sizeof list);
                return cz_error_set(err, CZ_E_PARSE, "%s:%zu: unknown section [%s] (known: %s)",
                                    name, line_no, sec, list);
            }
            size_t first = first_row_of(sec); /* N_KEYS: [tuning] */
            if (section_line[first])
                return cz_error_set(err, CZ_E_PARSE,
                                    "%s:%zu: [%s] again (defined at line %zu; TOML defines a "
                                    "table once)",
                                    name, line_no, sec, section_line[first]);
            section_line[first] = line_no;
            snprintf(section, sizeof section, "%s", sec);
            continue;
        }
        char key[64];
        size_t k = 0;
        while (isalnum((unsigned char)*p) || *p == '_' || *p == '-') {
            if (k + 1 >= sizeof key)
                return cz_error_set(err, CZ_E_PARSE, "%s:%zu: key too long", name, line_no);
            key[k++] = *p++;
        }
        key[k] = 0;
        p = skip_ws(p);
        if (!k || *p != '=')
            return cz_error_set(err, CZ_E_PARSE, "%s:%zu: expected 'key = value'", name, line_no);
        p = skip_ws(p + 1);
        if (!section[0])
            return cz_error_set(err, CZ_E_PARSE, "%s:%zu: key '%s' outside any [section]", name,
                                line_no, key);
        value v;
        cz_status st = parse_value(&v, p, err);
        char where[PATH_MAX + 32];
        snprintf(where, sizeof where, "%s:%zu", name, line_no);
        if (!strcmp(section, TUNING)) {
            if (st == CZ_OK) st = tuning_set(cfg, key, &v, line_no, tuning_line, err);
            if (st != CZ_OK) return cz_error_wrap(err, st, "%s: [%s] %s", where, section, key);
            continue;
        }
        const key_row *row = find_key(section, key);
        if (st == CZ_OK && row && key_line[row - keys])
            st =
                cz_error_set(err, CZ_E_PARSE, "set again (first at line %zu; TOML sets a key once)",
                             key_line[row - keys]);
        if (st == CZ_OK) st = apply(cfg, section, key, &v, warn, where, err);
        if (st == CZ_OK && row) key_line[row - keys] = line_no;
        if (st != CZ_OK) return cz_error_wrap(err, st, "%s: [%s] %s", where, section, key);
    }
    return CZ_OK;
}

cz_status cz_config_load(cz_daemon_config *cfg, const char *path, FILE *warn, cz_error *err) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return cz_error_set(err, errno == ENOENT ? CZ_E_NOT_FOUND : CZ_E_IO, "%s: %s", path,
                            strerror(errno));
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? 2 * cap : 8192;
            if (cap > (1u << 20)) {
                free(buf);
                fclose(f);
                return cz_error_set(err, CZ_E_RANGE, "%s: larger than 1 MiB", path);
            }
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return cz_error_set(err, CZ_E_NOMEM, "%s: out of memory", path);
            }
            buf = nb;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        if (!r) break;
        len += r;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return cz_error_set(err, CZ_E_IO, "%s: read error", path);
    }
    cz_status st = cz_config_parse(cfg, buf ? buf : "", len, path, warn, err);
    free(buf);
    return st;
}

/* ---- the listen address ---- */

static int is_loopback(const char *host) {
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, host, &a4) == 1) return (ntohl(a4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &a6) == 1) return IN6_IS_ADDR_LOOPBACK(&a6);
    return 0;
}

/* IP:PORT or [IPv6]:PORT with a port in min_port..65535, a loopback
 * address unless allow_remote; `what` names the key in messages. */
static cz_status parse_ip_port(cz_listen_addr *out, const char *l, int allow_remote,
                               unsigned min_port, const char *what, cz_error *err);

cz_status cz_listen_parse(cz_listen_addr *out, const char *l, int allow_remote, cz_error *err) {
    memset(out, 0, sizeof *out);
    const char *path = NULL;
    if (!strncmp(l, "unix://", 7))
        path = l + 7;
    else if (!strncmp(l, "unix:", 5))
        path = l + 5;
    if (path) {
        if (!path[0] || strlen(path) >= sizeof out->path)
            return cz_error_set(err, CZ_E_INVALID_ARG, "listen: unix socket path '%s' is %s", path,
                                path[0] ? "too long" : "empty");
        out->is_unix = 1;
        snprintf(out->path, sizeof out->path, "%s", path);
        return CZ_OK;
    }
    return parse_ip_port(out, l, allow_remote, 1, "listen", err);
}

cz_status cz_metrics_listen_parse(cz_listen_addr *out, const char *l, int allow_remote,
                                  cz_error *err) {
    memset(out, 0, sizeof *out);
    return parse_ip_port(out, l, allow_remote, 0, "metrics_listen", err);
}

static cz_status parse_ip_port(cz_listen_addr *out, const char *l, int allow_remote,
                               unsigned min_port, const char *what, cz_error *err) {
    /* host:port, [v6]:port */
    const char *colon;
    size_t host_len;
    const char *host_start = l;
    if (l[0] == '[') {
        const char *close = strchr(l, ']');
        if (!close || close[1] != ':')
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "%s: bad address '%s' (expected [IPv6]:PORT)", what, l);
        host_start = l + 1;
        host_len = (size_t)(close - l - 1);
        colon = close + 1;
    } else {
        colon = strrchr(l, ':');
        if (!colon)
            return cz_error_set(err, CZ_E_INVALID_ARG, "%s: '%s' is neither %sIP:PORT", what, l,
                                min_port ? "unix://PATH nor " : "");
        host_len = (size_t)(colon - l);
    }
    if (host_len >= sizeof out->host)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: host too long in '%s'", what, l);
    memcpy(out->host, host_start, host_len);
    out->host[host_len] = 0;
    const char *p = colon + 1;
    unsigned long port = 0;
    while (*p >= '0' && *p <= '9' && port <= 65535) port = port * 10 + (unsigned long)(*p++ - '0');
    if (colon[1] == 0 || *p || port < min_port || port > 65535)
        return cz_error_set(err, CZ_E_INVALID_ARG, "%s: bad port in '%s' (expected %u..65535)",
                            what, l, min_port);
    out->port = (unsigned)port;
    if (!strcmp(out->host, "localhost")) snprintf(out->host, sizeof out->host, "127.0.0.1");
    struct in6_addr tmp;
    if (inet_pton(AF_INET, out->host, &tmp) != 1 && inet_pton(AF_INET6, out->host, &tmp) != 1)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s: '%s' is not an IP address (use an IP literal)", what, out->host);
    if (!is_loopback(out->host) && !allow_remote)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "%s: %s is not a loopback address; the daemon's services have no TLS "
                            "and no authentication, so set [daemon] allow_remote = true to "
                            "serve other hosts",
                            what, out->host);
    return CZ_OK;
}

cz_status cz_config_check(const cz_daemon_config *cfg, cz_error *err) {
    cz_listen_addr addr;
    cz_status st = cz_listen_parse(&addr, cfg->listen, cfg->allow_remote, err);
    if (st == CZ_OK && cfg->metrics_listen[0])
        st = cz_metrics_listen_parse(&addr, cfg->metrics_listen, cfg->allow_remote, err);
    if (st != CZ_OK) return st;
    /* [srs] preload: a start loads each circuit before it answers, so an
     * unknown id or a missing file would fail it; said here without
     * loading (the files' contents are checked by the load). */
    cz_srs_files *f = malloc(sizeof *f);
    if (!f) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    for (uint32_t i = 0; st == CZ_OK && i < cfg->n_preload; i++) {
        st = cz_srs_circuit_files(f, cfg->param_cache, cfg->preload[i], err);
        const char *missing = NULL;
        if (st == CZ_OK && access(f->params, R_OK) != 0) missing = f->params;
        if (st == CZ_OK && !missing && access(f->vk, R_OK) != 0) missing = f->vk;
        if (missing)
            st = cz_error_set(err, CZ_E_NOT_FOUND, "cannot read %s: %s", missing, strerror(errno));
        if (st != CZ_OK) cz_error_prefix(err, "[srs] preload \"%s\"", cfg->preload[i]);
    }
    free(f);
    return st;
}

/* ---- printing ---- */

static void print_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '\t')
            fputs("\\t", out);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void print_size(FILE *out, uint64_t n) {
    static const char *units[] = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < 4; i++) {
        unsigned shift = 40 - 10 * (unsigned)i;
        if (n && n % (1ull << shift) == 0) {
            fprintf(out, "\"%" PRIu64 "%s\"", n >> shift, units[i]);
            return;
        }
    }
    fprintf(out, "\"%" PRIu64 "B\"", n);
}

static void print_value(FILE *out, const cz_daemon_config *c, const key_row *k) {
    const void *f = cfield_of(c, k);
    switch (k->type) {
    case K_STRING:
    case K_CHOICE: print_string(out, f); break;
    case K_BOOL: fputs(*(const int *)f ? "true" : "false", out); break;
    case K_U32: fprintf(out, "%" PRIu32, *(const uint32_t *)f); break;
    case K_U64: fprintf(out, "%" PRIu64, *(const uint64_t *)f); break;
    case K_DURATION: {
        uint64_t ms = *(const uint64_t *)f;
        if (ms % 1000)
            fprintf(out, "\"%" PRIu64 "ms\"", ms);
        else
            fprintf(out, "\"%" PRIu64 "s\"", ms / 1000);
        break;
    }
    case K_SIZE: {
        uint64_t n = *(const uint64_t *)f;
        if ((k->flags & AUTO_ZERO) && n == 0)
            fputs("\"auto\"", out);
        else
            print_size(out, n);
        break;
    }
    case K_U32_LIST:
    case K_STRING_LIST: {
        uint32_t n = *(const uint32_t *)((const char *)c + k->count_offset);
        fputc('[', out);
        for (uint32_t i = 0; i < n; i++) {
            if (i) fputs(", ", out);
            if (k->type == K_STRING_LIST)
                print_string(out, (const char *)f + i * k->size);
            else
                fprintf(out, "%" PRIu32, ((const uint32_t *)f)[i]);
        }
        fputc(']', out);
        break;
    }
    case K_FIXED: fputs(k->choices, out); break;
    case K_DEPRECATED: break;
    }
}

void cz_config_print(const cz_daemon_config *c, FILE *out) {
    for (size_t i = 0; i < N_KEYS; i++) {
        const key_row *k = &keys[i];
        if (!i || strcmp(k->section, keys[i - 1].section))
            fprintf(out, "%s[%s]\n", i ? "\n" : "", k->section);
        if (k->type == K_DEPRECATED) continue;
        fprintf(out, "%s = ", k->key);
        print_value(out, c, k);
        fputc('\n', out);
    }
    /* [tuning]: the knobs set to other than their defaults */
    fprintf(out, "\n[" TUNING "]\n");
    for (uint32_t t = 0; t < c->n_tuning; t++) {
        fprintf(out, "%s = ", c->tuning[t].key);
        if (c->tuning[t].quoted)
            print_string(out, c->tuning[t].value);
        else
            fputs(c->tuning[t].value, out);
        fputc('\n', out);
    }
}

static void print_comment(FILE *out, const char *text) {
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(out, n ? "# %.*s\n" : "#\n", (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

void cz_config_print_example(FILE *out) {
    print_comment(out, example_header);
    for (size_t i = 0; i < N_KEYS; i++) {
        const key_row *k = &keys[i];
        if (!i || strcmp(k->section, keys[i - 1].section)) fprintf(out, "\n[%s]\n", k->section);
        if (k->type == K_DEPRECATED) continue;
        if (k->doc) print_comment(out, k->doc);
        if (k->example)
            fprintf(out, "%s = %s\n", k->key, k->example);
        else
            fprintf(out, "#%s = %s\n", k->key, k->def);
    }
    fprintf(out, "\n[" TUNING "]\n");
    print_comment(out,
                  "The GPU layer's and the key loading's knobs, for measurements: the defaults\n"
                  "are the measured best (docs/PERFORMANCE.md). Each is also an environment\n"
                  "variable (the name in capitals with CZ_ before it), which wins when set.");
    for (size_t i = 0; i < cz_gpu_knob_count(); i++) {
        cz_gpu_knob_info kn;
        cz_gpu_knob_at(i, &kn);
        char key[64];
        knob_key(key, sizeof key, kn.name);
        print_comment(out, kn.doc);
        if (!kn.def)
            fprintf(out, "#   %s: unset\n", key);
        else if (all_digits(kn.def))
            fprintf(out, "#%s = %s\n", key, kn.def);
        else
            fprintf(out, "#%s = \"%s\"\n", key, kn.def);
    }
}
