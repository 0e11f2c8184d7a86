/* HTTP /metrics (see http_metrics.h). */
#include "daemon/http_metrics.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "daemon/config.h"
#include "util/log.h"

/* One connection: its request as read so far, then its answer as sent so
 * far, within one deadline for the whole exchange. */
typedef struct {
    int fd;          /* -1: the slot is free */
    uint64_t opened; /* ms: the oldest idle connection is shed first */
    uint64_t deadline;
    size_t got; /* request bytes read (the headers only matter) */
    char req[1024];
    char *out; /* the answer (malloc'ed), sent from out_off */
    size_t out_len, out_off;
} conn;

struct cz_http_metrics {
    int fd;
    int stop_pipe[2];
    pthread_t thread;
    cz_engine *engine;
    conn conns[CZ_HTTP_METRICS_MAX_CONNS];
    uint64_t shed; /* idle connections closed to make room (logged at stop) */
};

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void conn_close(conn *c) {
    if (c->fd >= 0) close(c->fd);
    free(c->out);
    memset(c, 0, sizeof *c);
    c->fd = -1;
}

/* Sets the answer and stops reading. */
static void conn_answer(conn *c, const char *status, const char *body) {
    size_t blen = strlen(body);
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, blen);
    c->out = malloc((size_t)n + blen);
    if (!c->out) { /* nothing to send: the connection just closes */
        c->out_len = c->out_off = 0;
        return;
    }
    memcpy(c->out, head, (size_t)n);
    memcpy(c->out + n, body, blen);
    c->out_len = (size_t)n + blen;
    c->out_off = 0;
}

/* The request is complete: only its request line matters. */
static void conn_route(cz_http_metrics *h, conn *c) {
    c->req[c->got] = 0;
    if (strncmp(c->req, "GET ", 4) != 0)
        return conn_answer(c, "405 Method Not Allowed", "only GET /metrics\n");
    const char *path = c->req + 4;
    size_t plen = strcspn(path, " ?\r\n");
    if (plen != 8 || strncmp(path, "/metrics", 8) != 0)
        return conn_answer(c, "404 Not Found", "only GET /metrics\n");
    char *text = NULL;
    cz_error err = {0};
    if (cz_engine_metrics(h->engine, &text, &err) != CZ_OK)
        return conn_answer(c, "500 Internal Server Error", err.message);
    conn_answer(c, "200 OK", text);
    free(text);
}

/* Reads what is there (never blocks); routes once the headers end, the
 * peer stops sending, or the buffer is full. */
static void conn_read(cz_http_metrics *h, conn *c) {
    while (!c->out) {
        ssize_t r = recv(c->fd, c->req + c->got, sizeof c->req - 1 - c->got, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 && errno == EAGAIN) return;
        if (r < 0) return conn_close(c);
        c->got += (size_t)r;
        c->req[c->got] = 0;
        if (r == 0 || c->got == sizeof c->req - 1 || strstr(c->req, "\r\n\r\n") ||
            strstr(c->req, "\n\n")) {
            conn_route(h, c);
            if (!c->out) return conn_close(c); /* no memory for the answer */
        }
    }
}

/* Sends what the socket takes (never blocks); closes when all is sent. */
static void conn_write(conn *c) {
    while (c->out_off < c->out_len) {
        ssize_t w =
            send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && errno == EAGAIN) return;
        if (w <= 0) break;
        c->out_off += (size_t)w;
    }
    conn_close(c);
}

/* The connection open longest, among those still reading their request
 * (idle_only) or among all; NULL when none is open. */
static conn *oldest(cz_http_metrics *h, int idle_only) {
    conn *best = NULL;
    for (unsigned i = 0; i < CZ_HTTP_METRICS_MAX_CONNS; i++) {
        conn *c = &h->conns[i];
        if (c->fd >= 0 && (!idle_only || !c->out) && (!best || c->opened < best->opened)) best = c;
    }
    return best;
}

/* A free slot for a new connection. When every slot is taken, the
 * connection that has waited longest without completing its request is
 * shed (a client holding a connection open idle, or dripping bytes, is
 * what fills the table; a new scrape is what it is there for); when all
 * are answering, the oldest answer is cut. New connections are never
 * refused for want of a slot. */
static conn *take_slot(cz_http_metrics *h) {
    for (unsigned i = 0; i < CZ_HTTP_METRICS_MAX_CONNS; i++)
        if (h->conns[i].fd < 0) return &h->conns[i];
    conn *victim = oldest(h, 1);
    if (!victim) victim = oldest(h, 0);
    conn_close(victim);
    h->shed++;
    return victim;
}

static void accept_all(cz_http_metrics *h) {
    for (;;) {
        int fd = accept4(h->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
            /* Out of descriptors: the listener stays readable, so a bare
             * return would spin; an idle connection gives its descriptor
             * up, or, with none held, the loop pauses a moment. */
            conn *idle = oldest(h, 1);
            if (!idle) {
                struct timespec pause = {0, 50 * 1000000};
                nanosleep(&pause, NULL);
                return;
            }
            conn_close(idle);
            h->shed++;
            continue;
        }
        if (fd < 0) return; /* EAGAIN: nothing more to take */
        conn *c = take_slot(h);
        c->fd = fd;
        c->opened = now_ms();
        c->deadline = c->opened + CZ_HTTP_METRICS_DEADLINE_MS;
        /* A scraper's request is usually there already: answer it now, so a
         * burst of scrapes passes through few slots. */
        conn_read(h, c);
        if (c->fd >= 0 && c->out) conn_write(c);
    }
}

/* One thread: every connection is a state in h->conns, served by poll. */
static void *loop(void *arg) {
    cz_http_metrics *h = arg;
    struct pollfd p[CZ_HTTP_METRICS_MAX_CONNS + 2];
    unsigned idx[CZ_HTTP_METRICS_MAX_CONNS];
    for (;;) {
        uint64_t now = now_ms(), next = UINT64_MAX;
        nfds_t n = 2;
        p[0] = (struct pollfd){h->fd, POLLIN, 0};
        p[1] = (struct pollfd){h->stop_pipe[0], POLLIN, 0};
        for (unsigned i = 0; i < CZ_HTTP_METRICS_MAX_CONNS; i++) {
            conn *c = &h->conns[i];
            if (c->fd < 0) continue;
            if (now >= c->deadline) { /* too slow, in or out: dropped */
                conn_close(c);
                continue;
            }
            if (c->deadline < next) next = c->deadline;
            idx[n - 2] = i;
            p[n++] = (struct pollfd){c->fd, c->out ? POLLOUT : POLLIN, 0};
        }
        int timeout = next == UINT64_MAX ? -1 : (int)(next - now);
        int r = poll(p, n, timeout);
        if (r < 0 && errno != EINTR) break;
        if (r <= 0) continue;
        if (p[1].revents) break;
        for (nfds_t k = 2; k < n; k++) {
            conn *c = &h->conns[idx[k - 2]];
            if (!p[k].revents || c->fd != p[k].fd) continue;
            if (!c->out) conn_read(h, c);
            if (c->fd >= 0 && c->out) conn_write(c);
        }
        if (p[0].revents & POLLIN) accept_all(h);
    }
    return NULL;
}

cz_status cz_http_metrics_start(cz_http_metrics **out, const char *addr, int allow_remote,
                                cz_engine *engine, int *port, cz_error *err) {
    *out = NULL;
    cz_listen_addr la;
    cz_status st = cz_metrics_listen_parse(&la, addr, allow_remote, err);
    if (st != CZ_OK) return st;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    socklen_t sl;
    struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, la.host, &s4->sin_addr) == 1) {
        s4->sin_family = AF_INET;
        s4->sin_port = htons((uint16_t)la.port);
        sl = sizeof *s4;
    } else {
        inet_pton(AF_INET6, la.host, &s6->sin6_addr); /* an IP literal: parsed above */
        s6->sin6_family = AF_INET6;
        s6->sin6_port = htons((uint16_t)la.port);
        sl = sizeof *s6;
    }
    cz_http_metrics *h = calloc(1, sizeof *h);
    if (!h) return cz_error_set(err, CZ_E_NOMEM, "out of memory");
    h->engine = engine;
    for (unsigned i = 0; i < CZ_HTTP_METRICS_MAX_CONNS; i++) h->conns[i].fd = -1;
    h->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    if (h->fd >= 0) setsockopt(h->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&ss, sl) != 0 ||
        listen(h->fd, CZ_HTTP_METRICS_MAX_CONNS) != 0) {
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
    /* The loop has ended: what it still held is cut. */
    for (unsigned i = 0; i < CZ_HTTP_METRICS_MAX_CONNS; i++) conn_close(&h->conns[i]);
    if (h->shed)
        cz_log(CZ_LOG_INFO, "HTTP /metrics: %" PRIu64 " idle connection(s) were shed", h->shed);
    close(h->fd);
    close(h->stop_pipe[0]);
    close(h->stop_pipe[1]);
    free(h);
}
