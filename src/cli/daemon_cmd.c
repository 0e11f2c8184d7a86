/* cuzk daemon [--config FILE] [--listen ADDR] [--print-config] [--example-config] */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "daemon/config.h"
#include "daemon/daemon.h"

static void daemon_usage(FILE *out) {
    fprintf(out, "usage: cuzk daemon [--config FILE] [--listen ADDR] [--print-config] "
                 "[--example-config]\n"
                 "  --config FILE     TOML configuration (default: none, built-in defaults)\n"
                 "  --listen ADDR     unix://PATH or IP:PORT (overrides [daemon] listen)\n"
                 "  --print-config    print the effective configuration and exit\n"
                 "  --example-config  print every key with its meaning and default (the file\n"
                 "                    installed as cuzk.example.toml) and exit\n");
}

int cz_cmd_daemon(int argc, char **argv) {
    const char *config_path = NULL, *listen = NULL;
    int print = 0;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "--config") || !strcmp(argv[i], "-c")) && i + 1 < argc) {
            config_path = argv[++i];
        } else if ((!strcmp(argv[i], "--listen") || !strcmp(argv[i], "-l")) && i + 1 < argc) {
            listen = argv[++i];
        } else if (!strcmp(argv[i], "--print-config")) {
            print = 1;
        } else if (!strcmp(argv[i], "--example-config")) {
            cz_config_print_example(stdout);
            return 0;
        } else if (cz_cli_is_help(argv[i])) {
            daemon_usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "cuzk daemon: unknown or incomplete option '%s'\n", argv[i]);
            daemon_usage(stderr);
            return 2;
        }
    }
    cz_daemon_config cfg;
    cz_config_defaults(&cfg);
    cz_error err = {0};
    if (config_path && cz_config_load(&cfg, config_path, stderr, &err) != CZ_OK) {
        fprintf(stderr, "cuzk daemon: %s\n", err.message);
        return 2;
    }
    if (listen) {
        if (strlen(listen) >= sizeof cfg.listen) {
            fprintf(stderr, "cuzk daemon: --listen too long\n");
            return 2;
        }
        snprintf(cfg.listen, sizeof cfg.listen, "%s", listen);
        cz_listen_addr addr;
        if (cz_listen_parse(&addr, cfg.listen, cfg.allow_remote, &err) != CZ_OK) {
            fprintf(stderr, "cuzk daemon: --listen: %s\n", err.message);
            return 2;
        }
    }
    /* the same checks whether it prints or serves */
    if (cz_config_check(&cfg, &err) != CZ_OK) {
        fprintf(stderr, "cuzk daemon: %s\n", err.message);
        return 2;
    }
    if (print) {
        cz_config_print(&cfg, stdout);
        return 0;
    }
    int forced = 0;
    if (cz_daemon_run(&cfg, &forced, &err) != CZ_OK) return cz_cli_fail("daemon", &err);
    if (forced) {
        fflush(stderr);
        _exit(1);
    }
    return 0;
}
