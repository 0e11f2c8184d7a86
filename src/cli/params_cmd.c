/* cuzk params check | table: what a parameter directory holds, against
 * Filecoin's published table (filecoin/common/params_table.h).
 *
 *   check [DIR]  every file of DIR (default: $FIL_PROOFS_PARAMETER_CACHE,
 *                else /var/tmp/filecoin-proof-parameters, as Filecoin's
 *                tools do) as official / official name with a WRONG digest
 *                / development / unknown; exit 1 when a digest is wrong;
 *   table        the built-in table as JSON, in parameters.json's shape. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "filecoin/common/params_table.h"

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void size_text(char *out, size_t cap, uint64_t bytes) {
    if (bytes >= (1ull << 30))
        snprintf(out, cap, "%.1f GiB", (double)bytes / (double)(1ull << 30));
    else if (bytes >= (1ull << 20))
        snprintf(out, cap, "%.1f MiB", (double)bytes / (double)(1ull << 20));
    else
        snprintf(out, cap, "%llu B", (unsigned long long)bytes);
}

/* The sorted names of DIR's entries that are not cuzk's side files; NULL
 * after a message when DIR cannot be read. */
static char **list_dir(size_t *n, const char *dir) {
    *n = 0;
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "cuzk params check: cannot read '%s': %s\n", dir, strerror(errno));
        return NULL;
    }
    char **names = NULL;
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || cz_fc_param_is_side_file(de->d_name)) continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        if (!(names[*n] = strdup(de->d_name))) break;
        (*n)++;
    }
    closedir(d);
    if (!names) names = malloc(sizeof *names);
    if (names) qsort(names, *n, sizeof *names, cmp_names);
    return names;
}

static int params_check(const char *dir) {
    size_t n = 0;
    char **names = list_dir(&n, dir);
    if (!names) return 1;
    printf("parameters in %s (against Filecoin's v28 table, %zu files)\n", dir,
           cz_fc_param_table_len);
    size_t count[4] = {0}, errors = 0;
    for (size_t i = 0; i < n; i++) {
        char path[4096], sz[32];
        if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path) {
            fprintf(stderr, "cuzk params check: %s/%s: path too long\n", dir, names[i]);
            errors++;
            continue;
        }
        cz_cli_progress bar;
        cz_cli_progress_begin(&bar, stderr, "hashing");
        cz_fc_param_verdict v;
        cz_error err = {0};
        cz_status st = cz_fc_param_classify(&v, path, NULL, 0, cz_cli_progress_fn, &bar, &err);
        cz_cli_progress_end(&bar);
        if (st == CZ_E_IO && strstr(err.message, "not a regular file")) continue;
        if (st != CZ_OK) {
            printf("  ERROR: %s\n", err.message);
            errors++;
            continue;
        }
        count[v.cls]++;
        size_text(sz, sizeof sz, v.size);
        printf("  %-54s %s (%s%s%s)\n", cz_fc_param_class_text(v.cls), names[i], sz,
               v.digest[0] ? ", digest " : "", v.digest);
        if (v.cls == CZ_FC_PARAM_WRONG_DIGEST)
            printf(
                "      expected digest %s: fetch it again (Filecoin's paramfetch) or remove it\n",
                v.entry->digest);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    printf("%zu official, %zu WRONG digest, %zu development, %zu unknown%s\n",
           count[CZ_FC_PARAM_OFFICIAL], count[CZ_FC_PARAM_WRONG_DIGEST],
           count[CZ_FC_PARAM_DEVELOPMENT], count[CZ_FC_PARAM_UNKNOWN],
           errors ? ", some unreadable" : "");
    if (count[CZ_FC_PARAM_DEVELOPMENT])
        printf("WARNING: development keys are NOT a trusted setup: proofs made with them do not "
               "verify on chain\n");
    return count[CZ_FC_PARAM_WRONG_DIGEST] || errors ? 1 : 0;
}

static void params_table(void) {
    printf("{\n");
    for (size_t i = 0; i < cz_fc_param_table_len; i++) {
        const cz_fc_param_entry *e = &cz_fc_param_table[i];
        printf("  \"%s\": {\n    \"cid\": \"%s\",\n    \"digest\": \"%s\",\n"
               "    \"sector_size\": %llu\n  }%s\n",
               e->name, e->cid, e->digest, (unsigned long long)e->sector_size,
               i + 1 < cz_fc_param_table_len ? "," : "");
    }
    printf("}\n");
}

int cz_cmd_params(int argc, char **argv) {
    static const char usage[] =
        "usage: cuzk params check [DIR]\n"
        "       cuzk params table\n"
        "  check: every file of DIR against Filecoin's published v28 table (its name, and\n"
        "  the first 16 bytes of BLAKE2b-512 of the file, as Filecoin's fetch tools check):\n"
        "    official, digest ok\n"
        "    official name, digest WRONG   a partial or corrupt download (exit status 1)\n"
        "    development                   made by cuzk setup (a FILE.dev record beside it):\n"
        "                                  NOT a trusted setup, proofs fail on chain\n"
        "    unknown                       not in the table (not read)\n"
        "  A digest is remembered in FILE.blake2b with the file's size and time, so only\n"
        "  new or changed files are read (a 32 GiB key: about a minute). DIR defaults to\n"
        "  $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters.\n"
        "  table: the built-in table as JSON (parameters.json's shape).\n";
    if (argc < 2 || cz_cli_is_help(argv[1])) {
        fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "table")) {
        if (argc > 2 && cz_cli_is_help(argv[2])) return fputs(usage, stdout), 0;
        if (argc > 2) {
            fprintf(stderr, "cuzk params table: unexpected argument '%s'\n", argv[2]);
            return 2;
        }
        params_table();
        return 0;
    }
    if (!strcmp(argv[1], "check")) {
        if (argc > 2 && cz_cli_is_help(argv[2])) return fputs(usage, stdout), 0;
        if (argc > 3 || (argc == 3 && argv[2][0] == '-')) {
            fprintf(stderr, "cuzk params check: unexpected argument '%s'\n%s", argv[argc - 1],
                    usage);
            return 2;
        }
        return params_check(argc == 3 ? argv[2] : cz_cli_param_dir_default());
    }
    fprintf(stderr, "cuzk params: unknown sub-command '%s' (check, table)\n", argv[1]);
    return 2;
}
