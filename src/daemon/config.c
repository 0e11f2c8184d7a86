/* TOML-subset configuration reader (see config.h). */
#include "daemon/config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/parallel.h"

void cz_config_defaults(cz_daemon_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->listen, sizeof cfg->listen, "unix://cuzk.sock");
    cfg->drain_timeout_ms = 60000;
    cfg->safety_margin = 5ull << 30;
    cfg->eviction_min_idle_ms = 300000;
    cfg->gpu_workers_per_device = 2;
    snprintf(cfg->backend, sizeof cfg->backend, "auto");
    /* Not Rust's collector (no waiting for a batch to fill, no shared
     * synthesis): the prove queue keeps up to this many consecutive units of
     * the circuit whose parameters the GPU holds before plain order resumes.
     * A circuit switch re-uploads a key (44 GiB for 32 GiB PoRep: over
     * PCIe, comparable to one partition's 2-4 s of GPU time), so runs of 8
     * bound that overhead to about 1/8 of a unit per unit while circuits
     * compete, and the other circuit waits at most 8 units (never longer
     * than max_batch_wait_ms) for its turn. A file saying 1 (Rust's
     * default, batching off there) keeps plain order here. */
    cfg->max_batch_size = 8;
    cfg->max_batch_wait_ms = 10000;
    snprintf(cfg->param_cache, sizeof cfg->param_cache, "params");
    cfg->result_retention_ms = 600000;
    snprintf(cfg->log_level, sizeof cfg->log_level, "info");
}

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
    int64_t v = 0;
    while (isdigit((unsigned char)*p) || *p == '_') {
        if (*p == '_') {
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

/* ---- keys ---- */

static cz_status want(const value *v, vtype t, cz_error *err) {
    static const char *names[] = {"a string", "an integer", "true or false", "an array"};
    if (v->type != t) return cz_error_set(err, CZ_E_PARSE, "expected %s", names[t]);
    return CZ_OK;
}

static cz_status get_u32(uint32_t *out, const value *v, cz_error *err) {
    cz_status st = want(v, V_INT, err);
    if (st != CZ_OK) return st;
    if (v->num < 0 || v->num > UINT32_MAX)
        return cz_error_set(err, CZ_E_RANGE, "%" PRId64 " is out of range (0..%u)", v->num,
                            UINT32_MAX);
    *out = (uint32_t)v->num;
    return CZ_OK;
}

static cz_status get_duration(uint64_t *out, const value *v, cz_error *err) {
    if (v->type == V_INT) {
        if (v->num < 0) return cz_error_set(err, CZ_E_RANGE, "negative duration");
        *out = (uint64_t)v->num * 1000;
        return CZ_OK;
    }
    cz_status st = want(v, V_STRING, err);
    return st == CZ_OK ? cz_parse_duration_ms(out, v->str, err) : st;
}

static cz_status get_size(uint64_t *out, const value *v, cz_error *err) {
    if (v->type == V_INT) {
        if (v->num < 0) return cz_error_set(err, CZ_E_RANGE, "negative size");
        *out = (uint64_t)v->num;
        return CZ_OK;
    }
    cz_status st = want(v, V_STRING, err);
    return st == CZ_OK ? cz_parse_size(out, v->str, err) : st;
}

static cz_status get_str(char *out, size_t cap, const value *v, cz_error *err) {
    cz_status st = want(v, V_STRING, err);
    if (st != CZ_OK) return st;
    if (strlen(v->str) >= cap)
        return cz_error_set(err, CZ_E_RANGE, "longer than %zu bytes", cap - 1);
    snprintf(out, cap, "%s", v->str);
    return CZ_OK;
}

static cz_status apply(cz_daemon_config *c, const char *sec, const char *key, const value *v,
                       FILE *warn, const char *where, cz_error *err) {
#define IS(s, k) (!strcmp(sec, s) && !strcmp(key, k))
    if (IS("daemon", "listen")) return get_str(c->listen, sizeof c->listen, v, err);
    if (IS("daemon", "allow_remote")) {
        cz_status st = want(v, V_BOOL, err);
        if (st == CZ_OK) c->allow_remote = v->boolean;
        return st;
    }
    if (IS("daemon", "drain_timeout")) return get_duration(&c->drain_timeout_ms, v, err);
    if (IS("daemon", "metrics_listen"))
        return get_str(c->metrics_listen, sizeof c->metrics_listen, v, err);
    if (IS("daemon", "status_listen")) {
        char s[256];
        cz_status st = get_str(s, sizeof s, v, err);
        if (st == CZ_OK && s[0])
            return cz_error_set(err, CZ_E_UNSUPPORTED,
                                "the HTTP status server is not implemented; use GetStatus "
                                "over gRPC, or [daemon] metrics_listen for HTTP /metrics");
        return st;
    }
    if (IS("memory", "total_budget")) {
        if (v->type == V_STRING && !strcmp(v->str, "auto")) {
            c->total_budget = 0;
            return CZ_OK;
        }
        cz_status st = get_size(&c->total_budget, v, err);
        if (st == CZ_OK && c->total_budget == 0)
            return cz_error_set(err, CZ_E_RANGE, "0 bytes (use \"auto\")");
        return st;
    }
    if (IS("memory", "safety_margin")) return get_size(&c->safety_margin, v, err);
    if (IS("memory", "eviction_min_idle")) return get_duration(&c->eviction_min_idle_ms, v, err);
    if (IS("gpus", "devices")) {
        cz_status st = want(v, V_ARRAY, err);
        if (st != CZ_OK) return st;
        if (v->n_items && v->item_type != V_INT)
            return cz_error_set(err, CZ_E_PARSE, "expected GPU ordinals (integers)");
        for (size_t i = 0; i < v->n_items; i++) {
            if (v->item_nums[i] < 0 || v->item_nums[i] > 255)
                return cz_error_set(err, CZ_E_RANGE, "GPU ordinal %" PRId64 " out of range",
                                    v->item_nums[i]);
            c->devices[i] = (uint32_t)v->item_nums[i];
        }
        c->n_devices = (uint32_t)v->n_items;
        return CZ_OK;
    }
    if (IS("gpus", "gpu_threads")) return get_u32(&c->gpu_threads, v, err);
    if (IS("gpus", "backend")) {
        char s[16];
        cz_status st = get_str(s, sizeof s, v, err);
        if (st != CZ_OK) return st;
        if (strcmp(s, "auto") && strcmp(s, "cpu") && strcmp(s, "cuda"))
            return cz_error_set(err, CZ_E_PARSE, "'%s' is not auto, cpu or cuda", s);
        snprintf(c->backend, sizeof c->backend, "%s", s);
        return CZ_OK;
    }
    if (IS("gpus", "gpu_workers_per_device")) {
        cz_status st = get_u32(&c->gpu_workers_per_device, v, err);
        if (st == CZ_OK && (c->gpu_workers_per_device < 1 || c->gpu_workers_per_device > 8))
            return cz_error_set(err, CZ_E_RANGE, "must be 1..8");
        return st;
    }
    if (IS("scheduler", "max_batch_size")) {
        /* Accepted for Curio's files; the meaning is the same-circuit run
         * length of the prove queue (see cz_config_defaults). */
        uint32_t n = 0;
        cz_status st = get_u32(&n, v, err);
        if (st == CZ_OK && n < 1) return cz_error_set(err, CZ_E_RANGE, "must be at least 1");
        if (st == CZ_OK) c->max_batch_size = n;
        return st;
    }
    if (IS("scheduler", "max_batch_wait_ms")) {
        cz_status st = want(v, V_INT, err);
        if (st == CZ_OK && v->num < 0) st = cz_error_set(err, CZ_E_RANGE, "negative");
        if (st == CZ_OK) c->max_batch_wait_ms = (uint64_t)v->num;
        return st;
    }
    if (IS("synthesis", "threads")) {
        /* becomes CZ_THREADS, whose range it must respect */
        cz_status st = get_u32(&c->synthesis_threads, v, err);
        if (st == CZ_OK && c->synthesis_threads > CZ_THREADS_MAX)
            return cz_error_set(err, CZ_E_RANGE, "must be 0 (every core) to %d", CZ_THREADS_MAX);
        return st;
    }
    if (IS("pipeline", "enabled")) {
        cz_status st = want(v, V_BOOL, err);
        if (st == CZ_OK && !v->boolean)
            return cz_error_set(err, CZ_E_UNSUPPORTED,
                                "there is no monolithic mode; the pipeline is always on");
        return st;
    }
    if (IS("pipeline", "max_parallel_synthesis"))
        return get_u32(&c->max_parallel_synthesis, v, err);
    if (IS("pipeline", "max_gpu_queue_depth")) return get_u32(&c->max_gpu_queue_depth, v, err);
    if (IS("srs", "param_cache")) return get_str(c->param_cache, sizeof c->param_cache, v, err);
    if (IS("srs", "preload")) {
        cz_status st = want(v, V_ARRAY, err);
        if (st != CZ_OK) return st;
        if (v->n_items && v->item_type != V_STRING)
            return cz_error_set(err, CZ_E_PARSE, "expected circuit ids (strings)");
        for (size_t i = 0; i < v->n_items; i++) {
            if (strlen(v->items[i]) >= sizeof c->preload[0])
                return cz_error_set(err, CZ_E_RANGE, "circuit id too long");
            snprintf(c->preload[i], sizeof c->preload[0], "%s", v->items[i]);
        }
        c->n_preload = (uint32_t)v->n_items;
        return CZ_OK;
    }
    if (IS("engine", "result_retention")) return get_duration(&c->result_retention_ms, v, err);
    if (IS("logging", "level")) {
        char s[16];
        cz_status st = get_str(s, sizeof s, v, err);
        if (st != CZ_OK) return st;
        if (strcmp(s, "error") && strcmp(s, "warn") && strcmp(s, "info") && strcmp(s, "debug"))
            return cz_error_set(err, CZ_E_PARSE, "'%s' is not error, warn, info or debug", s);
        snprintf(c->log_level, sizeof c->log_level, "%s", s);
        return CZ_OK;
    }
    if (IS("logging", "timeline")) {
        cz_status st = want(v, V_BOOL, err);
        if (st == CZ_OK) c->timeline = v->boolean;
        return st;
    }
    if (IS("logging", "format")) {
        char s[16];
        cz_status st = get_str(s, sizeof s, v, err);
        if (st == CZ_OK && strcmp(s, "text"))
            return cz_error_set(err, CZ_E_UNSUPPORTED, "only \"text\" logging is implemented");
        return st;
    }
    /* Keys the Rust daemon accepts but ignores: warn, do not fail. */
    static const char *deprecated[][2] = {
        {"memory", "pinned_budget"},         {"memory", "working_memory_budget"},
        {"synthesis", "partition_workers"},  {"scheduler", "sort_by_type"},
        {"pipeline", "synthesis_lookahead"}, {"pipeline", "synthesis_concurrency"},
        {"pipeline", "slot_size"},
    };
    for (size_t i = 0; i < sizeof deprecated / sizeof deprecated[0]; i++)
        if (IS(deprecated[i][0], deprecated[i][1])) {
            if (warn) fprintf(warn, "%s: [%s] %s has no effect (ignored)\n", where, sec, key);
            return CZ_OK;
        }
#undef IS
    return cz_error_set(err, CZ_E_PARSE, "unknown key");
}

static int known_section(const char *s) {
    static const char *names[] = {"daemon",   "memory", "gpus",   "scheduler", "synthesis",
                                  "pipeline", "srs",    "engine", "logging"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i])) return 1;
    return 0;
}

cz_status cz_config_parse(cz_daemon_config *cfg, const char *text, size_t len, const char *name,
                          FILE *warn, cz_error *err) {
    char section[64] = "";
    size_t line_no = 0, pos = 0;
    char line[4096];
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
            if (!known_section(sec))
                return cz_error_set(err, CZ_E_PARSE,
                                    "%s:%zu: unknown section [%s] (known: daemon, memory, gpus, "
                                    "scheduler, synthesis, pipeline, srs, engine, logging)",
                                    name, line_no, sec);
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
        if (st == CZ_OK) st = apply(cfg, section, key, &v, warn, where, err);
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
    /* host:port, [v6]:port */
    const char *colon;
    size_t host_len;
    const char *host_start = l;
    if (l[0] == '[') {
        const char *close = strchr(l, ']');
        if (!close || close[1] != ':')
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "listen: bad address '%s' (expected [IPv6]:PORT)", l);
        host_start = l + 1;
        host_len = (size_t)(close - l - 1);
        colon = close + 1;
    } else {
        colon = strrchr(l, ':');
        if (!colon)
            return cz_error_set(err, CZ_E_INVALID_ARG,
                                "listen: '%s' is neither unix://PATH nor IP:PORT", l);
        host_len = (size_t)(colon - l);
    }
    if (host_len >= sizeof out->host)
        return cz_error_set(err, CZ_E_INVALID_ARG, "listen: host too long in '%s'", l);
    memcpy(out->host, host_start, host_len);
    out->host[host_len] = 0;
    const char *p = colon + 1;
    unsigned long port = 0;
    while (*p >= '0' && *p <= '9' && port <= 65535) port = port * 10 + (unsigned long)(*p++ - '0');
    if (colon[1] == 0 || *p || port < 1 || port > 65535)
        return cz_error_set(err, CZ_E_INVALID_ARG, "listen: bad port in '%s' (expected 1..65535)",
                            l);
    out->port = (unsigned)port;
    if (!strcmp(out->host, "localhost")) snprintf(out->host, sizeof out->host, "127.0.0.1");
    struct in6_addr tmp;
    if (inet_pton(AF_INET, out->host, &tmp) != 1 && inet_pton(AF_INET6, out->host, &tmp) != 1)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "listen: '%s' is not an IP address (use an IP literal)", out->host);
    if (!is_loopback(out->host) && !allow_remote)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "listen: %s is not a loopback address; the gRPC service has no TLS "
                            "and no authentication, so set [daemon] allow_remote = true to "
                            "serve other hosts",
                            out->host);
    return CZ_OK;
}

cz_status cz_config_check(const cz_daemon_config *cfg, cz_error *err) {
    cz_listen_addr addr;
    return cz_listen_parse(&addr, cfg->listen, cfg->allow_remote, err);
}

static void print_duration(FILE *out, const char *key, uint64_t ms) {
    if (ms % 1000)
        fprintf(out, "%s = \"%" PRIu64 "ms\"\n", key, ms);
    else
        fprintf(out, "%s = \"%" PRIu64 "s\"\n", key, ms / 1000);
}

static void print_string(FILE *out, const char *key, const char *s) {
    fprintf(out, "%s = \"", key);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', out);
        if (*s == '\n')
            fputs("\\n", out);
        else if (*s == '\t')
            fputs("\\t", out);
        else
            fputc(*s, out);
    }
    fputs("\"\n", out);
}

void cz_config_print(const cz_daemon_config *c, FILE *out) {
    fprintf(out, "[daemon]\n");
    print_string(out, "listen", c->listen);
    fprintf(out, "allow_remote = %s\n", c->allow_remote ? "true" : "false");
    print_duration(out, "drain_timeout", c->drain_timeout_ms);
    print_string(out, "metrics_listen", c->metrics_listen);
    fprintf(out, "\n[memory]\n");
    if (c->total_budget)
        fprintf(out, "total_budget = \"%" PRIu64 "B\"\n", c->total_budget);
    else
        fprintf(out, "total_budget = \"auto\"\n");
    fprintf(out, "safety_margin = \"%" PRIu64 "B\"\n", c->safety_margin);
    print_duration(out, "eviction_min_idle", c->eviction_min_idle_ms);
    fprintf(out, "\n[gpus]\ndevices = [");
    for (uint32_t i = 0; i < c->n_devices; i++) fprintf(out, "%s%u", i ? ", " : "", c->devices[i]);
    fprintf(out, "]\ngpu_threads = %u\ngpu_workers_per_device = %u\n", c->gpu_threads,
            c->gpu_workers_per_device);
    print_string(out, "backend", c->backend);
    fprintf(out, "\n[scheduler]\nmax_batch_size = %u\nmax_batch_wait_ms = %" PRIu64 "\n",
            c->max_batch_size, c->max_batch_wait_ms);
    fprintf(out, "\n[synthesis]\nthreads = %u\n", c->synthesis_threads);
    fprintf(out,
            "\n[pipeline]\nenabled = true\nmax_parallel_synthesis = %u\nmax_gpu_queue_depth = %u\n",
            c->max_parallel_synthesis, c->max_gpu_queue_depth);
    fprintf(out, "\n[srs]\n");
    print_string(out, "param_cache", c->param_cache);
    fprintf(out, "preload = [");
    for (uint32_t i = 0; i < c->n_preload; i++)
        fprintf(out, "%s\"%s\"", i ? ", " : "", c->preload[i]);
    fprintf(out, "]\n\n[engine]\n");
    print_duration(out, "result_retention", c->result_retention_ms);
    fprintf(out, "\n[logging]\n");
    print_string(out, "level", c->log_level);
    fprintf(out, "timeline = %s\n", c->timeline ? "true" : "false");
}
