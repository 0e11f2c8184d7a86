/* Optional HTTP endpoint for Prometheus scrapers: GET /metrics returns the
 * same text as the GetMetrics RPC. Plain HTTP/1.0-style, one request per
 * connection. Connections are served concurrently (a thread each, at most
 * CZ_HTTP_METRICS_MAX_CONNS; more are answered 503 at once), each within a
 * deadline of CZ_HTTP_METRICS_DEADLINE_MS for the whole exchange, so one
 * slow or stuck client (a byte every second keeps any per-read timeout
 * happy) holds only its own connection, and only that long. Bound to a
 * loopback address unless allow_remote. */
#ifndef CZ_DAEMON_HTTP_METRICS_H
#define CZ_DAEMON_HTTP_METRICS_H

#include "cuzk/engine.h"

#define CZ_HTTP_METRICS_MAX_CONNS   16
#define CZ_HTTP_METRICS_DEADLINE_MS 5000

typedef struct cz_http_metrics cz_http_metrics;

/* addr: "IP:port" or "[IPv6]:port"; port 0 picks a free one (see *port). */
cz_status cz_http_metrics_start(cz_http_metrics **out, const char *addr, int allow_remote,
                                cz_engine *engine, int *port, cz_error *err);
void cz_http_metrics_stop(cz_http_metrics *h);

#endif
