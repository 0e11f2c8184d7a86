/* Optional HTTP endpoint for Prometheus scrapers: GET /metrics returns the
 * same text as the GetMetrics RPC. Plain HTTP/1.0-style, one request per
 * connection, one connection at a time (a scraper every few seconds), read
 * and write timeouts of 2 s so that a stuck client cannot hold it. Bound to
 * a loopback address unless allow_remote. */
#ifndef CZ_DAEMON_HTTP_METRICS_H
#define CZ_DAEMON_HTTP_METRICS_H

#include "cuzk/engine.h"

typedef struct cz_http_metrics cz_http_metrics;

/* addr: "IP:port" or "[IPv6]:port"; port 0 picks a free one (see *port). */
cz_status cz_http_metrics_start(cz_http_metrics **out, const char *addr, int allow_remote,
                                cz_engine *engine, int *port, cz_error *err);
void cz_http_metrics_stop(cz_http_metrics *h);

#endif
