/* Optional HTTP endpoint for Prometheus scrapers: GET /metrics returns the
 * same text as the GetMetrics RPC. Plain HTTP/1.0-style, one request per
 * connection. One thread serves every connection by poll (no thread per
 * connection), each within a deadline of CZ_HTTP_METRICS_DEADLINE_MS for
 * the whole exchange, so a slow or stuck client (a byte every second keeps
 * any per-read timeout happy) holds only its own slot, and only that long.
 * A new connection is always taken: when all CZ_HTTP_METRICS_MAX_CONNS
 * slots are held, the one that has waited longest without completing its
 * request is closed (idle connections are shed first, not new scrapes).
 * Bound to a loopback address unless allow_remote. */
#ifndef CZ_DAEMON_HTTP_METRICS_H
#define CZ_DAEMON_HTTP_METRICS_H

#include "cuzk/engine.h"

#define CZ_HTTP_METRICS_MAX_CONNS   256
#define CZ_HTTP_METRICS_DEADLINE_MS 5000

typedef struct cz_http_metrics cz_http_metrics;

/* addr: "IP:port" or "[IPv6]:port"; port 0 picks a free one (see *port). */
cz_status cz_http_metrics_start(cz_http_metrics **out, const char *addr, int allow_remote,
                                cz_engine *engine, int *port, cz_error *err);
void cz_http_metrics_stop(cz_http_metrics *h);

#endif
