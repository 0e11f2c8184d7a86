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
#include <time.h>
#include <unistd.h>

struct cz_http_metrics {
    int fd;
    int stop_pipe[2];
    pthread_t thread;
    cz_engine *engine;
    /* Connections being served: their sockets (shut down at stop so that
     * their threads return at once) and how many there are. */
    pthread_mutex_t lock;
    pthread_cond_t idle;
    int conns[CZ_HTTP_METRICS_MAX_CONNS];
    unsigned n_conns;
    int stopping;
};

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Waits until fd is ready for events or the deadline passes; 1 when ready. */
static int wait_ready(int fd, short events, uint64_t deadline) {
    for (;;) {
        uint64_t now = now_ms();
        if (now >= deadline) return 0;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, (int)(deadline - now));
        if (r < 0 && errno == EINTR) continue;
        return r > 0 && !(p.revents & POLLNVAL);
    }
}

static void send_all(int fd, const char *p, size_t n, uint64_t deadline) {
    while (n) {
        if (!wait_ready(fd, POLLOUT, deadline)) return;
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

static void reply(int fd, const char *status, const char *body, uint64_t deadline) {
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, strlen(body));
    send_all(fd, head, (size_t)n, deadline);
    send_all(fd, body, strlen(body), deadline);
}

/* One connection, within one deadline for reading the request and writing
 * the answer. */
static void serve_one(cz_http_metrics *h, int fd) {
    uint64_t deadline = now_ms() + CZ_HTTP_METRICS_DEADLINE_MS;
    char req[4096];
    size_t n = 0;
    /* Only the request line matters; read until the end of the headers. */
    while (n < sizeof req - 1) {
        if (!wait_ready(fd, POLLIN, deadline)) return; /* too slow: dropped */
        ssize_t r = recv(fd, req + n, sizeof req - 1 - n, MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) continue;
        if (r <= 0) break;
        n += (size_t)r;
        req[n] = 0;
        if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n")) break;
    }
    req[n] = 0;
    if (strncmp(req, "GET ", 4) != 0) {
        reply(fd, "405 Method Not Allowed", "only GET /metrics\n", deadline);
        return;
    }
    const char *path = req + 4;
    size_t plen = strcspn(path, " ?\r\n");
    if (plen != 8 || strncmp(path, "/metrics", 8) != 0) {
        reply(fd, "404 Not Found", "only GET /metrics\n", deadline);
        return;
    }
    char *text = NULL;
    cz_error err = {0};
    if (cz_engine_metrics(h->engine, &text, &err) != CZ_OK) {
        reply(fd, "500 Internal Server Error", err.message, deadline);
        return;
    }
    reply(fd, "200 OK", text, deadline);
    free(text);
}

typedef struct {
    cz_http_metrics *h;
    int fd;
} conn_arg;

static void *conn_thread(void *arg) {
    conn_arg a = *(conn_arg *)arg;
    free(arg);
    serve_one(a.h, a.fd);
    pthread_mutex_lock(&a.h->lock);
    for (unsigned i = 0; i < a.h->n_conns; i++)
        if (a.h->conns[i] == a.fd) {
            a.h->conns[i] = a.h->conns[--a.h->n_conns];
            break;
        }
    close(a.fd);
    pthread_cond_broadcast(&a.h->idle);
    pthread_mutex_unlock(&a.h->lock);
    return NULL;
}

/* A thread for the connection, or 503 at once when CZ_HTTP_METRICS_MAX_CONNS
 * are being served. */
static void dispatch(cz_http_metrics *h, int c) {
    pthread_mutex_lock(&h->lock);
    int room = !h->stopping && h->n_conns < CZ_HTTP_METRICS_MAX_CONNS;
    if (room) h->conns[h->n_conns++] = c;
    pthread_mutex_unlock(&h->lock);
    if (room) {
        conn_arg *a = malloc(sizeof *a);
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        int ok = a && (a->h = h, a->fd = c, pthread_create(&t, &attr, conn_thread, a) == 0);
        pthread_attr_destroy(&attr);
        if (ok) return;
        free(a);
        pthread_mutex_lock(&h->lock);
        for (unsigned i = 0; i < h->n_conns; i++)
            if (h->conns[i] == c) {
                h->conns[i] = h->conns[--h->n_conns];
                break;
            }
        pthread_mutex_unlock(&h->lock);
    }
    reply(c, "503 Service Unavailable", "too many connections\n", now_ms() + 100);
    close(c);
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
        dispatch(h, c);
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
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->idle, NULL);
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
    /* Connections still served are cut (their polls return) and waited for. */
    pthread_mutex_lock(&h->lock);
    h->stopping = 1;
    for (unsigned i = 0; i < h->n_conns; i++) shutdown(h->conns[i], SHUT_RDWR);
    while (h->n_conns) pthread_cond_wait(&h->idle, &h->lock);
    pthread_mutex_unlock(&h->lock);
    pthread_mutex_destroy(&h->lock);
    pthread_cond_destroy(&h->idle);
    close(h->fd);
    close(h->stop_pipe[0]);
    close(h->stop_pipe[1]);
    free(h);
}
