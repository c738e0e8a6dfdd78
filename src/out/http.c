// SPDX-License-Identifier: GPL-2.0-or-later
/* The /metrics endpoint on libmicrohttpd: the last exposition, swapped under a mutex. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>
#include <zlib.h>

#include "wbtop/http.h"
#include "wbtop/openmetrics.h"

struct wb_http {
	struct MHD_Daemon *d;
	char addr[INET6_ADDRSTRLEN + 16];
	pthread_mutex_t lock;
	struct MHD_Response *text, *om;     /* the last sample's; NULL before the first */
	struct MHD_Response *text_gz, *om_gz; /* the same gzipped, once a client asked for it */
	atomic_bool want_gz;                /* a client accepts gzip: compress from the next sample */
	struct MHD_Response *index, *not_found, *not_allowed, *no_sample; /* fixed pages */
};

static const char index_html[] =
	"<!DOCTYPE html>\n<html><head><title>wbtop</title></head>\n"
	"<body><h1>wbtop</h1><p>Linux writeback, per device: <a href=\"/metrics\">/metrics</a></p></body></html>\n";

/* The port of spec (digits only, 0-65535); -1 if it is not one. */
static int parse_port(const char *p)
{
	long v = 0;

	if (!*p || strlen(p) > 5)
		return -1;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v <= 65535 ? (int)v : -1;
}

int wb_http_parse_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len, char *err, size_t n)
{
	char host[INET6_ADDRSTRLEN + 2] = "127.0.0.1";
	const char *colon = strrchr(spec, ':'), *port = colon ? colon + 1 : spec, *h0 = spec;
	size_t hl = colon ? (size_t)(colon - spec) : 0;
	struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
	int p = parse_port(port);

	if (hl >= 2 && spec[0] == '[' && spec[hl - 1] == ']')
		h0++, hl -= 2; /* [v6]:PORT */
	else if (colon && memchr(spec, ':', hl))
		hl = sizeof(host); /* a bare IPv6 address: ambiguous, refused below */
	if (p < 0 || hl >= sizeof(host)) {
		snprintf(err, n, "--listen %s: expected [ADDR:]PORT (PORT 0-65535, IPv6 as [ADDR]:PORT)", spec);
		return -EINVAL;
	}
	if (hl)
		snprintf(host, sizeof(host), "%.*s", (int)hl, h0);
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
		v4->sin_family = AF_INET;
		v4->sin_port = htons((uint16_t)p);
		*len = sizeof(*v4);
	} else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons((uint16_t)p);
		*len = sizeof(*v6);
	} else {
		snprintf(err, n, "--listen %s: \"%s\" is not an IP address", spec, host);
		return -EINVAL;
	}
	return 0;
}

/* A listening socket on spec, its bound address as text in addr. fd or -errno. */
static int listen_on(const char *spec, char *addr, size_t alen, char *err, size_t n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char host[INET6_ADDRSTRLEN];
	int fd, one = 1, rc;

	if ((rc = wb_http_parse_addr(spec, &ss, &len, err, n)))
		return rc;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&ss, &len)) {
		rc = -errno;
		snprintf(err, n, "--listen %s: %s", spec, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (ss.ss_family == AF_INET) {
		struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
		inet_ntop(AF_INET, &v4->sin_addr, host, sizeof(host));
		snprintf(addr, alen, "%s:%u", host, ntohs(v4->sin_port));
	} else {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
		inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof(host));
		snprintf(addr, alen, "[%s]:%u", host, ntohs(v6->sin6_port));
	}
	return fd;
}

/* A fixed page (static text, kept for the server's life). */
static struct MHD_Response *page(const char *body, const char *ctype, const char *allow)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body,
								  MHD_RESPMEM_PERSISTENT);

	if (r && ctype)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (r && allow)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	return r;
}

/* Whether the client asked for OpenMetrics (Prometheus does, first in its Accept). */
static bool wants_om(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);

	return a && strstr(a, "application/openmetrics-text");
}

/* Whether the client takes gzip (Prometheus does). */
static bool wants_gz(struct MHD_Connection *c)
{
	const char *a = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING);

	return a && strstr(a, "gzip");
}

/* Every request: GET/HEAD on / and /metrics, 405 for other methods, 404 for other paths. */
static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct wb_http *h = cls;
	struct MHD_Response *r;
	enum MHD_Result ret;
	unsigned status = MHD_HTTP_OK;

	(void)version, (void)upload, (void)upload_size, (void)con_cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, h->not_allowed);
	if (strcmp(url, "/") == 0)
		return MHD_queue_response(c, MHD_HTTP_OK, h->index);
	if (strcmp(url, "/metrics"))
		return MHD_queue_response(c, MHD_HTTP_NOT_FOUND, h->not_found);
	if (wants_gz(c) && !atomic_load(&h->want_gz))
		atomic_store(&h->want_gz, true);
	pthread_mutex_lock(&h->lock);
	r = wants_om(c) ? (wants_gz(c) && h->om_gz ? h->om_gz : h->om)
			: (wants_gz(c) && h->text_gz ? h->text_gz : h->text);
	if (!r)
		r = h->no_sample, status = MHD_HTTP_SERVICE_UNAVAILABLE;
	ret = MHD_queue_response(c, status, r); /* MHD holds its own reference from here */
	pthread_mutex_unlock(&h->lock);
	return ret;
}

/*
 * MHD with its own thread on the listening socket fd. The thread starts with
 * SIGINT, SIGTERM and SIGHUP blocked, so that they reach the sampler's sleep
 * and stop it at once.
 */
static struct MHD_Daemon *start_daemon(struct wb_http *h, int fd)
{
	sigset_t stop, old;
	struct MHD_Daemon *d;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, handle, h,
			     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)WB_HTTP_MAX_CONNECTIONS,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)WB_HTTP_MAX_PER_HOST,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WB_HTTP_TIMEOUT_S,
			     MHD_OPTION_END);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return d;
}

struct wb_http *wb_http_start(const char *spec, char *err, size_t n)
{
	struct wb_http *h = calloc(1, sizeof(*h));
	int fd;

	if (!h) {
		snprintf(err, n, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&h->lock, NULL);
	h->index = page(index_html, "text/html; charset=utf-8", NULL);
	h->not_found = page("not found: try /metrics\n", "text/plain; charset=utf-8", NULL);
	h->not_allowed = page("only GET and HEAD\n", "text/plain; charset=utf-8", "GET, HEAD");
	h->no_sample = page("no sample yet\n", "text/plain; charset=utf-8", NULL);
	fd = listen_on(spec, h->addr, sizeof(h->addr), err, n);
	if (fd >= 0 && h->index && h->not_found && h->not_allowed && h->no_sample)
		h->d = start_daemon(h, fd);
	if (!h->d) {
		if (fd >= 0) {
			snprintf(err, n, "--listen %s: the HTTP server did not start", spec);
			close(fd);
		}
		wb_http_stop(h);
		return NULL;
	}
	return h;
}

const char *wb_http_address(const struct wb_http *h)
{
	return h->addr;
}

/* A response owning buf (freed by MHD with the response); gz: buf is gzipped. */
static struct MHD_Response *owned(char *buf, size_t len, const char *ctype, bool gz)
{
	struct MHD_Response *r = buf ? MHD_create_response_from_buffer_with_free_callback(len, buf, free) : NULL;

	if (!r) {
		free(buf);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	if (gz)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	return r;
}

/* buf gzipped (fastest level: this runs in the sampler) into a new buffer the caller frees; NULL on failure. */
static char *gzip(const char *buf, size_t len, size_t *out_len)
{
	z_stream z = { 0 };
	char *out = NULL;

	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	*out_len = deflateBound(&z, len);
	out = malloc(*out_len);
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)*out_len;
	if (out && deflate(&z, Z_FINISH) == Z_STREAM_END) {
		*out_len = z.total_out;
	} else {
		free(out);
		out = NULL;
	}
	deflateEnd(&z);
	return out;
}

/* Swap in one sample's responses together; the old ones go when their last scrape ends. */
static void swap(struct wb_http *h, struct MHD_Response *nw[4])
{
	struct MHD_Response **slot[4] = { &h->text, &h->om, &h->text_gz, &h->om_gz }, *old[4];

	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < 4; i++) {
		old[i] = *slot[i];
		*slot[i] = nw[i];
	}
	pthread_mutex_unlock(&h->lock);
	for (int i = 0; i < 4; i++)
		if (old[i])
			MHD_destroy_response(old[i]);
}

void wb_http_publish(void *hv, char *text, size_t tlen, char *om, size_t olen)
{
	struct wb_http *h = hv;
	bool gz = atomic_load(&h->want_gz);
	size_t tgl = 0, ogl = 0;
	char *tg = gz && text ? gzip(text, tlen, &tgl) : NULL, *og = gz && om ? gzip(om, olen, &ogl) : NULL;
	struct MHD_Response *t = owned(text, tlen, WB_OM_CTYPE_TEXT, false);
	struct MHD_Response *o = owned(om, olen, WB_OM_CTYPE_OM, false);

	if (!t || !o) { /* out of memory: keep serving the previous sample */
		if (t)
			MHD_destroy_response(t);
		if (o)
			MHD_destroy_response(o);
		free(tg);
		free(og);
		return;
	}
	/* without a gzip of this sample, none of an older one either */
	swap(h, (struct MHD_Response *[4]){ t, o, owned(tg, tgl, WB_OM_CTYPE_TEXT, true),
					    owned(og, ogl, WB_OM_CTYPE_OM, true) });
}

void wb_http_stop(struct wb_http *h)
{
	struct MHD_Response *r[] = { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };

	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d); /* joins the server thread, closes the socket */
	r[0] = h->text, r[1] = h->om, r[2] = h->index, r[3] = h->not_found;
	r[4] = h->not_allowed, r[5] = h->no_sample, r[6] = h->text_gz, r[7] = h->om_gz;
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (r[i])
			MHD_destroy_response(r[i]);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
