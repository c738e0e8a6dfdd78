/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /metrics endpoint: libmicrohttpd with its own thread serves the last
 * exposition handed to wb_http_publish(). A scrape never waits for the
 * sampler and the sampler never waits for a client; a scrape costs the same
 * at any rate. Only GET and HEAD on /metrics and /; nothing reaches the file
 * system or the kernel.
 */
#ifndef WBTOP_HTTP_H
#define WBTOP_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

#define WB_HTTP_MAX_CONNECTIONS 256 /* beyond this, a new one closes the longest waiting (or is refused) */
#define WB_HTTP_MAX_PER_HOST    128 /* one address cannot take them all */
#define WB_HTTP_TIMEOUT_S       10  /* an idle or slow connection is closed after this */
#define WB_HTTP_ANSWER_GRACE_S  1   /* an answer in progress longer than this can be closed to make room */

struct wb_http;

/*
 * "[ADDR:]PORT", "[v6]:PORT" or ":PORT" into a socket address; ADDR defaults
 * to 127.0.0.1 ("[]:PORT" is refused). 0 or -EINVAL with a one-line message
 * in err.
 */
int wb_http_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len,
		       char *err, size_t n);
/* Bind and start serving. Caller stops with wb_http_stop(); NULL with err set. */
struct wb_http *wb_http_start(const char *spec, char *err, size_t n);
/* "127.0.0.1:9488": the address bound (port 0 resolved). Owned by h. */
const char *wb_http_address(const struct wb_http *h);
/*
 * Serve these from now on: the Prometheus text and the OpenMetrics renderings
 * of one sample. Takes both buffers (malloc'd); they are freed once no scrape
 * uses them. h is a struct wb_http (void for use as a callback).
 */
void wb_http_publish(void *h, char *text, size_t tlen, char *om, size_t olen);
/*
 * Content negotiation (RFC 9110 12.5), pure: the q-value the header gives
 * token ("application/openmetrics-text", or "gzip" with type_less), from its
 * most specific matching entry (type/subtype, then type/ *, then * / *; for
 * encodings the name, then *); 0 when none matches or the header is NULL.
 * OpenMetrics is served when its q is above 0 and above text/plain's (text is
 * the default, ties included); gzip when its q is above 0.
 */
double wb_http_accept_q(const char *header, const char *token, int type_less);
int wb_http_wants_om(const char *accept);
int wb_http_takes_gzip(const char *accept_encoding);
/* Stop serving, wait for the server thread, free everything (NULL: no-op). */
void wb_http_stop(struct wb_http *h);

#endif
