/* HTTP /metrics (see http_metrics.h). */
#include "daemon/http_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct cz_http_metrics {
    int fd;
    int stop_pipe[2];
    pthread_t thread;
    cz_engine *engine;
};

static void send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static void reply(int fd, const char *status, const char *body) {
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, strlen(body));
    send_all(fd, head, (size_t)n);
    send_all(fd, body, strlen(body));
}

static void serve_one(cz_http_metrics *h, int fd) {
    struct timeval tv = {2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char req[4096];
    size_t n = 0;
    /* Only the request line matters; read until the end of the headers. */
    while (n < sizeof req - 1) {
        ssize_t r = recv(fd, req + n, sizeof req - 1 - n, 0);
        if (r <= 0) break;
        n += (size_t)r;
        req[n] = 0;
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n")) break;
    }
    req[n] = 0;
    if (strncmp(req, "GET ", 4) != 0) {
        reply(fd, "405 Method Not Allowed", "only GET /metrics\n");
        return;
    }
    const char *path = req + 4;
    size_t plen = strcspn(path, " ?\r\n");
    if (plen != 8 || strncmp(path, "/metrics", 8) != 0) {
        reply(fd, "404 Not Found", "only GET /metrics\n");
        return;
    }
    char *text = NULL;
    cz_error err = {0};
    if (cz_engine_metrics(h->engine, &text, &err) != CZ_OK) {
        reply(fd, "500 Internal Server Error", err.message);
        return;
    }
    reply(fd, "200 OK", text);
    free(text);
}

static void *loop(void *arg) {
    cz_http_metrics *h = arg;
    for (;;) {
        struct pollfd p[2] = {{h->fd, POLLIN, 0}, {h->stop_pipe[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[1].revents) break;
        if (!(p[0].revents & POLLIN)) continue;
        int c = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) continue;
        serve_one(h, c);
        close(c);
    }
    return NULL;
}

cz_status cz_http_metrics_start(cz_http_metrics **out, const char *addr, int allow_remote,
                                cz_engine *engine, int *port, cz_error *err) {
    *out = NULL;
    char host[64];
    const char *colon;
    if (addr[0] == '[') {
        const char *close_b = strchr(addr, ']');
        if (!close_b || close_b[1] != ':' || (size_t)(close_b - addr - 1) >= sizeof host)
            return cz_error_set(err, CZ_E_INVALID_ARG, "metrics_listen: bad address '%s'", addr);
        memcpy(host, addr + 1, (size_t)(close_b - addr - 1));
        host[close_b - addr - 1] = 0;
        colon = close_b + 1;
    } else {
        colon = strrchr(addr, ':');
        if (!colon || (size_t)(colon - addr) >= sizeof host)
            return cz_error_set(err, CZ_E_INVALID_ARG, "metrics_listen: '%s' is not IP:PORT", addr);
        memcpy(host, addr, (size_t)(colon - addr));
        host[colon - addr] = 0;
    }
    char *end;
    long pnum = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || pnum < 0 || pnum > 65535)
        return cz_error_set(err, CZ_E_INVALID_ARG, "metrics_listen: bad port in '%s'", addr);
    if (!strcmp(host, "localhost")) snprintf(host, sizeof host, "127.0.0.1");
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    int loopback;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)pnum);
        sl = sizeof *s4;
        loopback = (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1) {
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)pnum);
        sl = sizeof *s6;
        loopback = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr);
    } else {
        return cz_error_set(err, CZ_E_INVALID_ARG, "metrics_listen: '%s' is not an IP address",
                            host);
    }
    if (!loopback && !allow_remote)
        return cz_error_set(err, CZ_E_INVALID_ARG,
                            "metrics_listen: %s is not a loopback address (set [daemon] "
                            "allow_remote = true to expose it)",
                            host);
    cz_http_metrics *h = calloc(1, sizeof *h);
    if (!h) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    h->engine = engine;
    h->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (h->fd >= 0) setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&ss, sl) != 0 || listen(h->fd, 16) != 0) {
        int e = errno;
        if (h->fd >= 0) close(h->fd);
        free(h);
        return cz_error_set(err, CZ_E_IO, "metrics_listen: cannot listen on %s: %s", addr,
                            strerror(e));
    }
    if (port) {
        struct sockaddr_storage b;
        socklen_t bl = sizeof b;
        getsockname(h->fd, (struct sockaddr *)&b, &bl);
        *port = ntohs(b.ss_family == AF_INET ? ((struct sockaddr_in *)&b)->sin_port
                                             : ((struct sockaddr_in6 *)&b)->sin6_port);
    }
    if (pipe2(h->stop_pipe, O_CLOEXEC) != 0 || pthread_create(&h->thread, NULL, loop, h) != 0) {
        close(h->fd);
        free(h);
        return cz_error_set(err, CZ_E_IO, "metrics_listen: cannot start its thread");
    }
    *out = h;
    return CZ_OK;
}

void cz_http_metrics_stop(cz_http_metrics *h) {
    if (!h) return;
    if (write(h->stop_pipe[1], "x", 1) != 1) { /* the loop also ends on close */
    }
    pthread_join(h->thread, NULL);
    close(h->fd);
    close(h->stop_pipe[0]);
    close(h->stop_pipe[1]);
    free(h);
}
