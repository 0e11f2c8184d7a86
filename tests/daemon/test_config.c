/* The daemon's TOML configuration reader: values, sizes, durations, and the
 * exact file:line of each kind of error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "daemon/config.h"
#include "engine/srs.h"
#include "gpu/settings.h"
#include "harness/harness.h"

static cz_status parse(cz_daemon_config *c, const char *text, cz_error *err) {
    cz_config_defaults(c);
    return cz_config_parse(c, text, strlen(text), "t.toml", NULL, err);
}

/* The error starts with want_prefix and contains want_part. */
static void expect_error(const char *text, const char *want_prefix, const char *want_part) {
    cz_daemon_config c;
    cz_error err = {0};
    cz_status st = parse(&c, text, &err);
    CHECK(st != CZ_OK);
    int ok = !strncmp(err.message, want_prefix, strlen(want_prefix)) &&
             strstr(err.message, want_part) != NULL;
    if (!ok)
        printf("input:\n%s\ngot: %s\nwant: %s ... %s\n", text, err.message, want_prefix, want_part);
    CHECK(ok);
}

static void test_values(void) {
    cz_daemon_config c;
    cz_error err = {0};
    const char *text = "# comment\n"
                       "[daemon]\n"
                       "listen = \"unix:///run/curio/cuzk.sock\"  # trailing comment\n"
                       "drain_timeout = \"90s\"\n"
                       "metrics_listen = \"127.0.0.1:9821\"\n"
                       "\n"
                       "[memory]\n"
                       "total_budget = \"12GiB\"\n"
                       "safety_margin = '512 MiB'\n"
                       "eviction_min_idle = \"5m\"\n"
                       "[gpus]\n"
                       "devices = [0, 1, 3]\n"
                       "gpu_workers_per_device = 3\n"
                       "backend = \"cpu\"\n"
                       "[scheduler]\n"
                       "max_batch_size = 4\n"
                       "max_batch_wait_ms = 2500\n"
                       "[pipeline]\n"
                       "enabled = true\n"
                       "max_parallel_synthesis = 4\n"
                       "slot_size = 2\n"
                       "[srs]\n"
                       "param_cache = \"/data/zk/params\"\n"
                       "preload = [\"porep-2k\", \"porep-32g\"]\n"
                       "[engine]\n"
                       "result_retention = 120\n"
                       "[logging]\n"
                       "level = \"debug\"\n"
                       "timeline = true\n";
    CHECK(parse(&c, text, &err) == CZ_OK);
    CHECK(!strcmp(c.listen, "unix:///run/curio/cuzk.sock"));
    CHECK(c.drain_timeout_ms == 90000);
    CHECK(!strcmp(c.metrics_listen, "127.0.0.1:9821"));
    CHECK(c.total_budget == 12ull << 30);
    CHECK(c.safety_margin == 512ull << 20);
    CHECK(c.eviction_min_idle_ms == 300000);
    CHECK(c.n_devices == 3 && c.devices[0] == 0 && c.devices[1] == 1 && c.devices[2] == 3);
    CHECK(c.gpu_workers_per_device == 3 && !strcmp(c.backend, "cpu"));
    CHECK(c.max_parallel_synthesis == 4);
    CHECK(c.max_batch_size == 4 && c.max_batch_wait_ms == 2500);
    CHECK(!strcmp(c.param_cache, "/data/zk/params"));
    CHECK(c.n_preload == 2 && !strcmp(c.preload[1], "porep-32g"));
    CHECK(c.result_retention_ms == 120000);
    CHECK(!strcmp(c.log_level, "debug") && c.timeline == 1);

    /* print -> parse gives the same configuration. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cz_config_print(&c, f);
    fclose(f);
    cz_daemon_config c2;
    cz_config_defaults(&c2);
    CHECK(cz_config_parse(&c2, buf, len, "printed", NULL, &err) == CZ_OK);
    CHECK(!memcmp(&c, &c2, sizeof c));
    free(buf);

    /* Defaults (each parsed from its row's text): a unix socket under the
     * working directory, auto budget, ... */
    cz_config_defaults(&c);
    CHECK(!strcmp(c.listen, "unix://cuzk.sock") && c.total_budget == 0);
    CHECK(c.drain_timeout_ms == 60000 && c.safety_margin == 0);
    CHECK(c.eviction_min_idle_ms == 300000 && c.result_retention_ms == 600000);
    CHECK(c.gpu_workers_per_device == 0 && !strcmp(c.backend, "auto") && c.n_devices == 0);
    CHECK(!strcmp(c.param_cache, "/var/tmp/filecoin-proof-parameters") &&
          !strcmp(c.log_level, "info") && !c.timeline);
    CHECK(c.max_request_memory == 1ull << 30 && c.metrics_listen[0] == 0 && !c.allow_remote);
    CHECK(c.max_batch_size == 8 && c.max_batch_wait_ms == 10000);
    /* Curio's files: any batch size >= 1 loads (1 = plain order). */
    CHECK(parse(&c, "[scheduler]\nmax_batch_size = 1\nmax_batch_wait_ms = 0\n", &err) == CZ_OK);
    CHECK(c.max_batch_size == 1 && c.max_batch_wait_ms == 0);
    CHECK(parse(&c, "[scheduler]\nmax_batch_size = 30\n", &err) == CZ_OK && c.max_batch_size == 30);
    CHECK(parse(&c, "[memory]\ntotal_budget = \"auto\"\n", &err) == CZ_OK && c.total_budget == 0);
}

static void test_sizes(void) {
    static const struct {
        const char *s;
        unsigned long long v;
    } good[] = {{"0", 0},
                {"1000", 1000},
                {"1B", 1},
                {"4KiB", 4096},
                {"3MiB", 3 << 20},
                {"2 GiB", 2ull << 30},
                {"1TiB", 1ull << 40},
                {"5GB", 5000000000ull},
                {"7MB", 7000000},
                {"9KB", 9000}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t v = 1;
        cz_error err = {0};
        CHECK(cz_parse_size(&v, good[i].s, &err) == CZ_OK && v == good[i].v);
    }
    const char *bad[] = {"1.5GiB",        "", "GiB", "12gb", "12 G", "-1", "18446744073709551616",
                         "17179869184GiB"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t v;
        cz_error err = {0};
        CHECK(cz_parse_size(&v, bad[i], &err) != CZ_OK);
    }
    uint64_t ms;
    cz_error err = {0};
    CHECK(cz_parse_duration_ms(&ms, "250ms", &err) == CZ_OK && ms == 250);
    CHECK(cz_parse_duration_ms(&ms, "2h", &err) == CZ_OK && ms == 7200000);
    CHECK(cz_parse_duration_ms(&ms, "42", &err) == CZ_OK && ms == 42000);
    CHECK(cz_parse_duration_ms(&ms, "5 m", &err) != CZ_OK);
    CHECK(cz_parse_duration_ms(&ms, "1d", &err) != CZ_OK);
}

static void test_errors(void) {
    expect_error("[daemon]\nlisten = \"x\"\nlistne = \"y\"\n", "t.toml:3: [daemon] listne",
                 "unknown key");
    expect_error("\n\n[deamon]\n", "t.toml:3:", "unknown section [deamon]");
    expect_error("[memory]\n\n total_budget = \"1.5GiB\"\n", "t.toml:3: [memory] total_budget",
                 "bad size '1.5GiB'");
    expect_error("[memory]\ntotal_budget = \"1TB2\"\n", "t.toml:2:", "bad size");
    expect_error("[memory]\neviction_min_idle = \"5 minutes\"\n", "t.toml:2:", "bad duration");
    expect_error("[daemon]\nlisten = \"unterminated\n", "t.toml:2: [daemon] listen",
                 "unterminated string");
    expect_error("[daemon]\nlisten \"x\"\n", "t.toml:2:", "expected 'key = value'");
    expect_error("listen = \"x\"\n", "t.toml:1:", "outside any [section]");
    expect_error("[gpus]\ngpu_workers_per_device = \"two\"\n", "t.toml:2:", "expected an integer");
    expect_error("[gpus]\ngpu_workers_per_device = 9\n", "t.toml:2:", "0..8");
    expect_error("[gpus]\ndevices = [0, \"1\"]\n", "t.toml:2:", "one kind");
    expect_error("[gpus]\nbackend = \"opencl\"\n", "t.toml:2:", "not auto, cpu or cuda");
    expect_error("[pipeline]\nenabled = false\n", "t.toml:2:", "no monolithic mode");
    expect_error("[scheduler]\nmax_batch_size = 0\n", "t.toml:2: [scheduler] max_batch_size",
                 "at least 1");
    expect_error("[scheduler]\nmax_batch_wait_ms = -5\n", "t.toml:2:", "negative");
    expect_error("[daemon]\nallow_remote = yes\n", "t.toml:2:", "expected");
    expect_error("[daemon]\nlisten = \"a\" \"b\"\n", "t.toml:2:", "unexpected text");
    expect_error("[logging]\nlevel = \"verbose\"\n", "t.toml:2:", "not error, warn, info or debug");
    expect_error("[daemon]\nstatus_listen = \"127.0.0.1:9821\"\n", "t.toml:2:", "not implemented");
    expect_error("[memory]\ntotal_budget = 0\n", "t.toml:2:", "auto");
    expect_error("[srs]\npreload = [1]\n", "t.toml:2:", "circuit ids");
    /* What TOML refuses: a key set twice (also with the same value), a
     * table defined twice; both name the first line too. */
    expect_error("[daemon]\nlisten = \"unix://a\"\ndrain_timeout = 5\nlisten = \"unix://a\"\n",
                 "t.toml:4: [daemon] listen", "set again (first at line 2");
    expect_error("[srs]\nparam_cache = \"p\"\n[logging]\nlevel = \"info\"\n[srs]\n",
                 "t.toml:5:", "[srs] again (defined at line 1");
    expect_error("[memory]\npinned_budget = 1\npinned_budget = 2\n", "t.toml:3:", "set again");
    /* What cannot work: no request fits 0 bytes of request memory, no
     * partition a 1-byte budget, and "" names no directory. */
    expect_error("[daemon]\nmax_request_memory = \"0\"\n", "t.toml:2: [daemon] max_request_memory",
                 "below 1 MiB");
    expect_error("[daemon]\nmax_request_memory = 1048575\n", "t.toml:2:", "below 1 MiB");
    expect_error("[memory]\ntotal_budget = \"1\"\n", "t.toml:2: [memory] total_budget",
                 "below 128 MiB");
    expect_error("[srs]\nparam_cache = \"\"\n", "t.toml:2: [srs] param_cache", "empty");
    expect_error("[daemon]\nlisten = ''\n", "t.toml:2: [daemon] listen", "empty");
    expect_error("[gpus]\ngpu_workers_per_device = 07\n", "t.toml:2:", "leading zero");
    expect_error("[gpus]\ngpu_threads = 1__0\n", "t.toml:2:", "'_' not between two digits");
    expect_error("[gpus]\ngpu_threads = 10_\n", "t.toml:2:", "'_' not between two digits");
    expect_error("[srs]\nparam_cache = \"a\x01z\"\n", "t.toml:2:", "control character 0x01");
    {
        cz_daemon_config c;
        cz_error err = {0};
        CHECK(parse(&c,
                    "[daemon]\nmax_request_memory = \"1MiB\"\nmetrics_listen = \"\"\n"
                    "[memory]\ntotal_budget = \"128MiB\"\n[srs]\nparam_cache = \".\"\n",
                    &err) == CZ_OK);
        CHECK(c.max_request_memory == 1u << 20 && c.total_budget == 128u << 20);
        CHECK(parse(&c, "[gpus]\ngpu_threads = 1_000\ngpu_workers_per_device = 0_1\n", &err) ==
              CZ_E_PARSE); /* 0_1: a leading zero */
        CHECK(parse(&c, "[gpus]\ngpu_threads = 1_000\n[srs]\nparam_cache = \"a\tb\"\n", &err) ==
                  CZ_OK &&
              c.gpu_threads == 1000 && !strcmp(c.param_cache, "a\tb"));
    }

    /* Deprecated keys warn and do not fail. */
    cz_daemon_config c;
    cz_error err = {0};
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    cz_config_defaults(&c);
    const char *text = "[memory]\npinned_budget = \"50GiB\"\n";
    CHECK(cz_config_parse(&c, text, strlen(text), "t.toml", w, &err) == CZ_OK);
    fclose(w);
    CHECK(strstr(buf, "t.toml:2: [memory] pinned_budget has no effect") != NULL);
    free(buf);
    /* A missing file names the path. */
    CHECK(cz_config_load(&c, "/nonexistent/cuzk.toml", NULL, &err) == CZ_E_NOT_FOUND);
    CHECK(strstr(err.message, "/nonexistent/cuzk.toml") != NULL);
    /* Without an error report the status is still the reader's, not a
     * stand-in from the message plumbing. */
    const char *bad = "[daemon]\nlisten = 5\n";
    CHECK(cz_config_parse(&c, bad, strlen(bad), "t.toml", NULL, NULL) == CZ_E_PARSE);
    bad = "[gpus]\ngpu_workers_per_device = 9\n";
    CHECK(cz_config_parse(&c, bad, strlen(bad), "t.toml", NULL, NULL) == CZ_E_RANGE);
}

/* Random byte edits of a valid file: the reader never crashes (ASan run)
 * and every error names the file and a line within it. */
static void test_mutations(void) {
    const char *base = "[daemon]\nlisten = \"unix://x.sock\"\ndrain_timeout = \"5s\"\n"
                       "[memory]\ntotal_budget = \"12GiB\"\n[gpus]\ndevices = [0, 1]\n"
                       "[srs]\npreload = [\"porep-2k\"]\nparam_cache = 'p'\n";
    static const char alphabet[] = "[]=\"'#\n\\ ,0123456789abcGiBms_-.\t";
    size_t len = strlen(base);
    unsigned iters = cz_test_iters(3000);
    char buf[512];
    for (unsigned it = 0; it < iters; it++) {
        memcpy(buf, base, len + 1);
        size_t n = len;
        unsigned edits = 1 + (unsigned)(cz_test_rand64() % 4);
        for (unsigned k = 0; k < edits; k++) {
            size_t at = (size_t)(cz_test_rand64() % n);
            unsigned op = (unsigned)(cz_test_rand64() % 3);
            char ch = alphabet[cz_test_rand64() % (sizeof alphabet - 1)];
            if (op == 0) {
                buf[at] = ch;
            } else if (op == 1 && n + 1 < sizeof buf) {
                memmove(buf + at + 1, buf + at, n - at + 1);
                buf[at] = ch;
                n++;
            } else if (n > 1) {
                memmove(buf + at, buf + at + 1, n - at);
                n--;
            }
        }
        size_t lines = 1;
        for (size_t i = 0; i < n; i++) lines += buf[i] == '\n';
        cz_daemon_config c;
        cz_error err = {0};
        cz_config_defaults(&c);
        if (cz_config_parse(&c, buf, n, "t.toml", NULL, &err) != CZ_OK) {
            unsigned line = 0;
            int ok = sscanf(err.message, "t.toml:%u:", &line) == 1 && line >= 1 && line <= lines;
            if (!ok) printf("input:\n%s\nerror: %s\n", buf, err.message);
            CHECK(ok);
        }
    }
}

/* The fuzzer's finding (scripts/fuzz.sh config): a value that --print-config
 * writes longer than it was read (a raw tab is printed as \t, a quote as
 * \") must read back: 4000 tabs and quotes in a path, a line of ~4 KB read
 * and ~8 KB printed. */
static void test_long_printed_line(void) {
    static char text[4200], value[4001];
    for (int i = 0; i < 4000; i++) value[i] = i % 2 ? '\t' : 'x';
    value[4000] = 0;
    snprintf(text, sizeof text, "[srs]\nparam_cache=\"%s\"\n", value);
    cz_daemon_config c, c2;
    cz_error err = {0};
    CHECK(parse(&c, text, &err) == CZ_OK && !strcmp(c.param_cache, value));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cz_config_print(&c, f);
    fclose(f);
    cz_config_defaults(&c2);
    cz_status st = cz_config_parse(&c2, buf, len, "printed", NULL, &err);
    if (st != CZ_OK) printf("printed configuration: %s\n", err.message);
    CHECK(st == CZ_OK && !strcmp(c2.param_cache, value));
    free(buf);
}

/* cz_config_check: what --print-config and a start both refuse, beyond
 * single keys: the addresses against allow_remote, and [srs] preload. */
static void expect_check(const char *text, const char *want) {
    cz_daemon_config c;
    cz_error err = {0};
    CHECK(parse(&c, text, &err) == CZ_OK);
    cz_status st = cz_config_check(&c, &err);
    int ok = want ? st != CZ_OK && strstr(err.message, want) != NULL : st == CZ_OK;
    if (!ok) printf("input:\n%s\ngot: %s\nwant: %s\n", text, st ? err.message : "OK", want);
    CHECK(ok);
}

static void test_check(void) {
    expect_check("[daemon]\nmetrics_listen = \"0.0.0.0:0\"\n",
                 "metrics_listen: 0.0.0.0 is not a loopback address");
    expect_check("[daemon]\nmetrics_listen = \"[::]:0\"\n", "metrics_listen: :: is not a loopback");
    expect_check("[daemon]\nmetrics_listen = \"192.0.2.7:9821\"\n", "192.0.2.7 is not a loopback");
    expect_check("[daemon]\nmetrics_listen = \"127.0.0.1:65536\"\n", "metrics_listen: bad port");
    expect_check("[daemon]\nmetrics_listen = \"9821\"\n",
                 "metrics_listen: '9821' is neither IP:PORT");
    expect_check("[daemon]\nmetrics_listen = \"localhost:0\"\n", NULL);
    expect_check("[daemon]\nmetrics_listen = \"[::1]:9821\"\n", NULL);
    expect_check("[daemon]\nallow_remote = true\nmetrics_listen = \"0.0.0.0:0\"\n", NULL);
    expect_check("[srs]\npreload = [\"porep-1t\"]\n",
                 "[srs] preload \"porep-1t\": unknown circuit id");
    /* A known id whose files are missing, then present (empty files: the
     * check reads no content, a start's load does). */
    char dir[] = "/tmp/cz-config-check-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char text[512], path[600];
    snprintf(text, sizeof text, "[srs]\nparam_cache = \"%s\"\npreload = [\"winning-post-2k\"]\n",
             dir);
    expect_check(text, "[srs] preload \"winning-post-2k\": cannot read");
    cz_srs_files f;
    cz_error err = {0};
    CHECK(cz_srs_circuit_files(&f, dir, "winning-post-2k", &err) == CZ_OK);
    CHECK(!strncmp(f.params, dir, strlen(dir)) && strstr(f.params, ".params") != NULL);
    FILE *p = fopen(f.params, "w");
    CHECK(p != NULL);
    if (p) fclose(p);
    expect_check(text, ".vk: No such file"); /* the .params is there now */
    p = fopen(f.vk, "w");
    CHECK(p != NULL);
    if (p) fclose(p);
    expect_check(text, NULL);
    remove(f.params);
    remove(f.vk);
    snprintf(path, sizeof path, "%s", dir);
    CHECK(rmdir(path) == 0);
}

/* [tuning]: the GPU knobs by name, read as their environment variables;
 * a default is not kept; the environment wins over the file. */
static void test_tuning(void) {
    cz_daemon_config c;
    cz_error err = {0};
    CHECK(parse(&c,
                "[tuning]\ngpu_mem_limit = \"24GiB\"\ngpu_tail_dense = 101\ngpu_msm_acc2 = 3\n"
                "gpu_ntt_maxb = 7\n",
                &err) == CZ_OK);
    CHECK(c.n_tuning == 3); /* gpu_msm_acc2 = 3 is the default */
    CHECK(!strcmp(c.tuning[0].key, "gpu_mem_limit") && c.tuning[0].quoted &&
          !strcmp(c.tuning[0].value, "24GiB"));
    CHECK(!strcmp(c.tuning[1].value, "101") && !c.tuning[1].quoted);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cz_config_print(&c, f);
    fclose(f);
    CHECK(strstr(buf, "[tuning]\ngpu_mem_limit = \"24GiB\"\ngpu_tail_dense = 101\n") != NULL);
    cz_daemon_config c2;
    cz_config_defaults(&c2);
    CHECK(cz_config_parse(&c2, buf, len, "printed", NULL, &err) == CZ_OK);
    CHECK(!memcmp(&c, &c2, sizeof c));
    free(buf);
    unsetenv("CZ_GPU_MEM_LIMIT");
    setenv("CZ_GPU_NTT_MAXB", "5", 1);
    CHECK(cz_config_apply_tuning(&c, &err) == CZ_OK);
    const cz_gpu_settings *k = cz_gpu_settings_get();
    CHECK(k->has_mem_limit && k->mem_limit == 24ull << 30 && k->tail_dense == 101);
    CHECK(k->ntt_maxb == 5); /* the environment wins */
    unsetenv("CZ_GPU_NTT_MAXB");
    cz_gpu_settings_use(NULL);
    expect_error("[tuning]\ngpu_warp_drive = 1\n", "t.toml:2: [tuning] gpu_warp_drive",
                 "unknown knob");
    expect_error("[tuning]\ngpu_mem_limit = \"lots\"\n", "t.toml:2: [tuning] gpu_mem_limit",
                 "CZ_GPU_MEM_LIMIT");
    expect_error("[tuning]\ngpu_stream_chunk = 1000\n", "t.toml:2: [tuning] gpu_stream_chunk",
                 "not a power of two");
    expect_error("[tuning]\ngpu_tail_dense = 5\ngpu_tail_dense = 6\n",
                 "t.toml:3: [tuning] gpu_tail_dense", "first at line 2");
    expect_error("[tuning]\n[tuning]\n", "t.toml:2: [tuning] again", "line 1");
    expect_error("[tuning]\ngpu_tail_dense = true\n", "t.toml:2: [tuning] gpu_tail_dense",
                 "a string or a non-negative integer");
}

int main(void) {
    cz_test_init("daemon/config");
    test_tuning();
    test_values();
    test_sizes();
    test_errors();
    test_mutations();
    test_long_printed_line();
    test_check();
    return cz_test_finish("daemon/config");
}
