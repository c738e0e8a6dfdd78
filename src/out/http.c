// SPDX-License-Identifier: GPL-2.0-or-later
/* The /metrics endpoint on libmicrohttpd: the last sample's expositions, swapped under a mutex. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <zlib.h>

#include "wbtop/http.h"
#include "wbtop/util.h"
#include "wbtop/openmetrics.h"

/*
 * One sample's expositions: [format][gzipped]. The plain responses are made by
 * the sampler; a gzipped one by the HTTP thread, at the first request that
 * takes gzip (MHD runs one internal thread, so one handler at a time). Freed
 * with its last reference: the server's, or a handler's in flight.
 */
struct snap {
	atomic_int ref;
	char *buf[2];                       /* text, OpenMetrics (owned) */
	size_t len[2];
	struct MHD_Response *r[2][2];
};

/*
 * A connection MHD holds, in the order they last had something from us:
 * accepted, or their last request answered. Only MHD's thread touches them
 * (its callbacks), so they take no lock.
 */
struct conn {
	struct conn *prev, *next;
	int fd;
	bool busy;    /* a request between its handler and its completion */
	bool evicted; /* shut down to make room, not yet closed by MHD */
	double since; /* when its request reached the handler (CLOCK_MONOTONIC s), while busy */
	struct sockaddr_storage peer; /* its client's address (port ignored): the limit per address */
};

struct wb_http {
	struct MHD_Daemon *d;
	char addr[INET6_ADDRSTRLEN + 16];
	pthread_mutex_t lock;
	struct snap *cur;                   /* the last sample's; NULL before the first */
	struct MHD_Response *index, *not_found, *not_allowed, *no_sample; /* fixed pages */
	struct conn *oldest, *newest;       /* the connections not evicted */
	unsigned live, max;                 /* how many there are; the limit admit() keeps */
	unsigned per_host;                  /* and the limit per address it keeps */
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
	char host[INET6_ADDRSTRLEN + 2] = "127.0.0.1", q[WB_QUOTE_LEN], qh[WB_QUOTE_LEN];
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
		snprintf(err, n, "--listen %s: expected [ADDR:]PORT (PORT 0-65535, IPv6 as [ADDR]:PORT)",
			 wb_quote(spec, q, sizeof(q)));
		return -EINVAL;
	}
	if (h0 > spec && !hl) { /* "[]:PORT" names no address: not a way to ask for the default */
		snprintf(err, n, "--listen %s: empty address in []: give one ([::1], [::] for every interface) "
			 "or PORT alone for 127.0.0.1", wb_quote(spec, q, sizeof(q)));
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
		snprintf(err, n, "--listen %s: \"%s\" is not an IP address", wb_quote(spec, q, sizeof(q)),
			 wb_quote(host, qh, sizeof(qh)));
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

/* An entry's q: its q parameter (0 to 1, up to 3 decimals), 1 without one; -1 when malformed. */
static double entry_q(const char *params, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		size_t at = i;
		if (params[i] != ';')
			continue;
		at++;
		while (at < len && (params[at] == ' ' || params[at] == '\t'))
			at++;
		if (at + 1 < len && (params[at] == 'q' || params[at] == 'Q') && params[at + 1] == '=') {
			char num[8], *end;
			size_t n = 0;
			double q;
			at += 2;
			while (at < len && n < sizeof(num) - 1 && params[at] != ';' && params[at] != ' ' && params[at] != '\t')
				num[n++] = params[at++];
			num[n] = '\0';
			q = strtod(num, &end);
			return n && *end == '\0' && q >= 0 && q <= 1 && num[0] != '+' && num[0] != '-' ? q : -1;
		}
	}
	return 1;
}

double wb_http_accept_q(const char *header, const char *token, int type_less)
{
	const char *slash = strchr(token, '/');
	size_t tlen = strlen(token), major = slash ? (size_t)(slash - token) : tlen;
	double best = 0;
	int spec = 0; /* of the entry matched: 3 exact, 2 type/ *, 1 * / * or * */

	for (const char *p = header; p && *p;) {
		size_t len = strcspn(p, ","), name;
		const char *e = p;
		int s = 0;
		while (len && (*e == ' ' || *e == '\t'))
			e++, len--;
		name = strcspn(e, ";, \t");
		if (name > len)
			name = len;
		if (name == tlen && strncasecmp(e, token, tlen) == 0)
			s = 3;
		else if (!type_less && name == major + 2 && strncasecmp(e, token, major + 1) == 0 && e[major + 1] == '*')
			s = 2;
		else if (type_less ? name == 1 && e[0] == '*' : name == 3 && strncmp(e, "*/*", 3) == 0)
			s = 1;
		if (s) {
			double q = entry_q(e + name, len - name);
			/* the most specific entry decides; among equals (versions of one type) the highest */
			if (q >= 0 && (s > spec || (s == spec && q > best)))
				best = q, spec = s;
		}
		p = e + len;
		if (*p == ',')
			p++;
	}
	return best;
}

int wb_http_wants_om(const char *accept)
{
	double om = wb_http_accept_q(accept, "application/openmetrics-text", 0);

	return om > 0 && om > wb_http_accept_q(accept, "text/plain", 0);
}

int wb_http_takes_gzip(const char *accept_encoding)
{
	return wb_http_accept_q(accept_encoding, "gzip", 1) > 0;
}

/* Whether the client asked for OpenMetrics (Prometheus does, with the highest q in its Accept). */
static bool wants_om(struct MHD_Connection *c)
{
	return wb_http_wants_om(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
}

/* A response for one exposition: a copy of buf (the snapshot keeps buf to gzip it). */
static struct MHD_Response *plain(const char *buf, size_t len, const char *ctype)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, (void *)buf, MHD_RESPMEM_MUST_COPY);

	if (r) {
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
		MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	}
	return r;
}

/* buf gzipped (fastest level) as a response that owns the result; NULL on failure. */
static struct MHD_Response *gzipped(const char *buf, size_t len, const char *ctype)
{
	z_stream z = { 0 };
	size_t cap;
	char *out;
	struct MHD_Response *r = NULL;

	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	cap = deflateBound(&z, len);
	out = malloc(cap);
	z.next_in = (Bytef *)buf;
	z.avail_in = (uInt)len;
	z.next_out = (Bytef *)out;
	z.avail_out = (uInt)cap;
	if (out && deflate(&z, Z_FINISH) == Z_STREAM_END)
		r = MHD_create_response_from_buffer_with_free_callback(z.total_out, out, free);
	deflateEnd(&z);
	if (!r) {
		free(out);
		return NULL;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_VARY, "Accept, Accept-Encoding");
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_ENCODING, "gzip");
	return r;
}

/* Drop a reference; the last one frees the snapshot (responses in flight stay with MHD). */
static void snap_unref(struct snap *sn)
{
	if (!sn || atomic_fetch_sub(&sn->ref, 1) != 1)
		return;
	for (int f = 0; f < 2; f++) {
		for (int g = 0; g < 2; g++)
			if (sn->r[f][g])
				MHD_destroy_response(sn->r[f][g]);
		free(sn->buf[f]);
	}
	free(sn);
}

/* ---- making room: MHD's timeout is per idle period, so slow clients could keep every slot ---- */

static void conn_unlink(struct wb_http *h, struct conn *k)
{
	*(k->prev ? &k->prev->next : &h->oldest) = k->next;
	*(k->next ? &k->next->prev : &h->newest) = k->prev;
	k->prev = k->next = NULL;
}

static void conn_append(struct wb_http *h, struct conn *k)
{
	k->prev = h->newest;
	*(h->newest ? &h->newest->next : &h->oldest) = k;
	h->newest = k;
}

/* Whether a and b are one host's (family and address; the port aside). */
static bool same_host(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->sa_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
			       sizeof(struct in6_addr));
	return false;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Our record of c (NULL: not tracked, out of memory at its start). */
static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* MHD_OPTION_NOTIFY_CONNECTION: track each connection from its start to its close. */
static void conn_notify(void *cls, struct MHD_Connection *c, void **ctx, enum MHD_ConnectionNotificationCode what)
{
	struct wb_http *h = cls;
	struct conn *k = *ctx;
	const union MHD_ConnectionInfo *ci;

	if (what == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ca = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (!ci || !(k = calloc(1, sizeof(*k))))
			return;
		k->fd = ci->connect_fd;
		if (ca && ca->client_addr && (ca->client_addr->sa_family == AF_INET || ca->client_addr->sa_family == AF_INET6))
			memcpy(&k->peer, ca->client_addr, ca->client_addr->sa_family == AF_INET ? sizeof(struct sockaddr_in)
												 : sizeof(struct sockaddr_in6));
		conn_append(h, k);
		h->live++;
		*ctx = k;
	} else if (k) { /* closed: before MHD closes its socket, so k->fd is still this connection's */
		if (!k->evicted) {
			conn_unlink(h, k);
			h->live--;
		}
		free(k);
		*ctx = NULL;
	}
}

/* Close k's socket with a reset: what is still queued for its client is dropped at once. */
static void conn_reset(const struct conn *k)
{
	struct linger rst = { .l_onoff = 1, .l_linger = 0 };

	(void)setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &rst, sizeof(rst));
}

/*
 * MHD_OPTION_NOTIFY_COMPLETED: the request is answered; the connection waits
 * again, newest. One MHD gave up on (its timeout), or one still answering
 * when wbtop stops (MHD_stop_daemon), is reset: closed normally, the rest of
 * its answer stayed queued in the kernel, past wbtop's exit, for as long as
 * the client kept its window shut (256 slow readers: 17 MB).
 */
static void conn_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct wb_http *h = cls;
	struct conn *k = conn_of(c);

	(void)con_cls;
	if (k && (toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED || toe == MHD_REQUEST_TERMINATED_DAEMON_SHUTDOWN))
		conn_reset(k);
	if (!k || k->evicted)
		return;
	k->busy = false;
	conn_unlink(h, k);
	conn_append(h, k);
}

/*
 * The connection to close for a new one (from host's, when not NULL): the
 * one that has waited longest without a request in progress, else the
 * answer in progress longest if that is past WB_HTTP_ANSWER_GRACE_S. A
 * scrape is answered in milliseconds; a client reading a large answer
 * slowly (a small window, a byte a second) kept it in progress until MHD's
 * timeout, which is per idle period, and 256 of them kept every scrape out
 * (openmetrics_slowread). NULL: none to close.
 */
static struct conn *victim(struct wb_http *h, const struct sockaddr *host)
{
	struct conn *k, *slow = NULL;
	double now = mono_now();

	for (k = h->oldest; k; k = k->next) {
		if (host && !same_host(host, (struct sockaddr *)&k->peer))
			continue;
		if (!k->busy)
			return k;
		if (!slow || k->since < slow->since)
			slow = k;
	}
	return slow && now - slow->since >= WB_HTTP_ANSWER_GRACE_S ? slow : NULL;
}

/* How many of the connections not evicted are from addr's host. */
static unsigned from_host(const struct wb_http *h, const struct sockaddr *addr)
{
	unsigned n = 0;

	for (const struct conn *k = h->oldest; k; k = k->next)
		n += same_host(addr, (const struct sockaddr *)&k->peer);
	return n;
}

/*
 * The accept policy: with every slot taken, a new connection shuts down
 * victim() - a client trickling its headers a byte at a time, one idle
 * between requests, or one reading its answer slowly - so a scrape gets in
 * at once (256 such clients held the endpoint for as long as they kept
 * trickling). The same within one address's share, kept here rather than
 * by MHD's limit per address: that refused before this was asked, so 128
 * idle connections from 127.0.0.1 - where every local client comes from, by
 * default - kept a local scraper out, and it counted those shut down until
 * MHD had closed them (a burst of 60 scrapes from there lost 3). MHD closes
 * the one shut down at its next turn; its limit is set a little higher for
 * that (start_daemon). Refused only when every connection (of the address's
 * share, or in all) is in a request that began within the grace.
 */
static enum MHD_Result admit(void *cls, const struct sockaddr *addr, socklen_t len)
{
	struct wb_http *h = cls;
	struct conn *k;

	(void)len;
	if (from_host(h, addr) >= h->per_host)
		k = victim(h, addr);
	else if (h->live >= h->max)
		k = victim(h, NULL);
	else
		return MHD_YES;
	if (!k)
		return MHD_NO;
	conn_reset(k); /* an answer still queued would otherwise stay in the kernel (conn_done) */
	shutdown(k->fd, SHUT_RDWR); /* MHD reads its end, or fails to write, and closes it */
	conn_unlink(h, k);
	k->evicted = true;
	h->live--;
	return MHD_YES;
}

/* Whether the client takes gzip (Prometheus does). */
static bool wants_gz(struct MHD_Connection *c)
{
	return wb_http_takes_gzip(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT_ENCODING));
}

/* Every request: GET/HEAD on / and /metrics, 405 for other methods, 404 for other paths. */
/*
 * The server's thread yields to the sampler, once, at its first request: a
 * storm of scrapes on a busy machine (50 clients, 1000 a second, beside
 * other work) delayed samples to 1.2 s apart at -d 0.5. PRIO_PROCESS with
 * 0 is the calling thread on Linux; lowering one's own priority needs no
 * privilege, and a failure leaves it as it was.
 */
static void yield_to_sampler(void)
{
	static _Thread_local bool done;
	int nv;

	if (done)
		return;
	done = true;
	errno = 0;
	nv = getpriority(PRIO_PROCESS, 0);
	if (errno == 0 && nv < 19)
		(void)setpriority(PRIO_PROCESS, 0, nv + 5 > 19 ? 19 : nv + 5);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
	struct wb_http *h = cls;
	struct MHD_Response *r;
	struct snap *sn;
	struct conn *k;
	enum MHD_Result ret;
	bool om, gz;

	(void)version, (void)upload, (void)upload_size, (void)con_cls;
	yield_to_sampler();
	if ((k = conn_of(c)) && !k->busy) {
		k->busy = true; /* not shut down to make room until answered (conn_done) or past the grace */
		k->since = mono_now();
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, h->not_allowed);
	if (strcmp(url, "/") == 0)
		return MHD_queue_response(c, MHD_HTTP_OK, h->index);
	if (strcmp(url, "/metrics"))
		return MHD_queue_response(c, MHD_HTTP_NOT_FOUND, h->not_found);
	om = wants_om(c), gz = wants_gz(c);
	pthread_mutex_lock(&h->lock);
	sn = h->cur;
	if (sn)
		atomic_fetch_add(&sn->ref, 1);
	pthread_mutex_unlock(&h->lock);
	if (!sn)
		return MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, h->no_sample);
	if (gz && !sn->r[om][1]) /* compressed once per sample, here: the sampler never pays for it */
		sn->r[om][1] = gzipped(sn->buf[om], sn->len[om], om ? WB_OM_CTYPE_OM : WB_OM_CTYPE_TEXT);
	r = sn->r[om][gz && sn->r[om][1]];
	ret = MHD_queue_response(c, MHD_HTTP_OK, r); /* MHD holds its own reference from here */
	snap_unref(sn);
	return ret;
}

/*
 * MHD with its own thread on the listening socket fd: one thread, no pool, so
 * handlers never run at the same time (the lazy gzip relies on it). It starts
 * with SIGINT, SIGTERM and SIGHUP blocked, so that they reach the sampler's
 * sleep and stop it at once.
 */
static struct MHD_Daemon *start_daemon(struct wb_http *h, int fd)
{
	sigset_t stop, old;
	struct MHD_Daemon *d;
	/*
	 * Under a low open-files limit, a quarter of it: with 64, 256 idle
	 * clients took every descriptor and the collectors could open no file
	 * (devices not read, /sys/class/bdi not listed) until they timed out.
	 */
	unsigned long long lim = wb_fd_limit();
	unsigned conns = lim && lim / 4 < WB_HTTP_MAX_CONNECTIONS ? (unsigned)(lim / 4 > 4 ? lim / 4 : 4)
							     : WB_HTTP_MAX_CONNECTIONS;
	unsigned per_host = conns / 2 < WB_HTTP_MAX_PER_HOST ? (conns / 2 > 2 ? conns / 2 : 2) : WB_HTTP_MAX_PER_HOST;
	/*
	 * MHD's limit over ours: the evicted ones until MHD has closed them (it
	 * accepts up to 11 a turn; at its limit it stops accepting for a turn).
	 */
	unsigned slack = conns / 4 + 1 < 16 ? conns / 4 + 1 : 16;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	h->max = conns, h->per_host = per_host;
	d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD, 0, admit, h, handle, h,
			     MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
			     MHD_OPTION_CONNECTION_LIMIT, conns + slack,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)WB_HTTP_TIMEOUT_S,
			     MHD_OPTION_NOTIFY_CONNECTION, conn_notify, h,
			     MHD_OPTION_NOTIFY_COMPLETED, conn_done, h,
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

void wb_http_publish(void *hv, char *text, size_t tlen, char *om, size_t olen)
{
	struct wb_http *h = hv;
	struct snap *sn = calloc(1, sizeof(*sn)), *old;

	if (!sn) {
		free(text);
		free(om);
		return; /* out of memory: keep serving the previous sample */
	}
	atomic_init(&sn->ref, 1);
	sn->buf[0] = text, sn->len[0] = tlen;
	sn->buf[1] = om, sn->len[1] = olen;
	sn->r[0][0] = text ? plain(text, tlen, WB_OM_CTYPE_TEXT) : NULL;
	sn->r[1][0] = om ? plain(om, olen, WB_OM_CTYPE_OM) : NULL;
	if (!sn->r[0][0] || !sn->r[1][0]) {
		snap_unref(sn);
		return;
	}
	pthread_mutex_lock(&h->lock);
	old = h->cur;
	h->cur = sn;
	pthread_mutex_unlock(&h->lock);
	snap_unref(old);
}

void wb_http_stop(struct wb_http *h)
{
	struct MHD_Response *r[4];

	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d); /* joins the server thread, closes the socket */
	snap_unref(h->cur);
	r[0] = h->index, r[1] = h->not_found, r[2] = h->not_allowed, r[3] = h->no_sample;
	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++)
		if (r[i])
			MHD_destroy_response(r[i]);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
