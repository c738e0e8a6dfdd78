// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --openmetrics-file written by a thread of its own. Rewriting the file
 * dirties some 30 KB of page cache a sample, and over the machine's dirty
 * limit that write sleeps in balance_dirty_pages for seconds: beside a
 * 0.5 MiB/s device holding the limit, 15 samples at -d 1 took 38 s (a gap
 * of 7 s), the UI or batch loop held with it. The sink now waits for the
 * write a short while (a normal one takes well under a millisecond, and its
 * error is then said with its own sample); past that the loop goes on, the
 * thread finishes on its own, and only the newest text is kept for it: a
 * textfile is read for its latest sample.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wbtop/openmetrics.h"
#include "wbtop/util.h"

#define WAIT_MS 100 /* what a sample waits for its own write */

struct wb_textfile {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	bool threaded, quit;
	char *path;
	char *text;             /* the newest text, not yet taken by the thread; NULL none */
	size_t len;
	unsigned long put, written; /* texts handed over, and written (or failed) */
	int rc;                 /* the newest finished write's: 0 or -errno */
	char err[256];
};

static void *run(void *arg)
{
	struct wb_textfile *t = arg;
	char err[sizeof(t->err)], *text;
	size_t len;
	unsigned long seq;
	int rc;

	pthread_mutex_lock(&t->mu);
	for (;;) {
		while (!t->text && !t->quit)
			pthread_cond_wait(&t->work, &t->mu);
		if (!t->text)
			break;
		text = t->text;
		len = t->len;
		seq = t->put;
		t->text = NULL;
		pthread_mutex_unlock(&t->mu);
		err[0] = '\0';
		rc = wb_om_write_file(t->path, text, len, err, sizeof(err));
		free(text);
		pthread_mutex_lock(&t->mu);
		t->rc = rc;
		memcpy(t->err, err, sizeof(err));
		t->written = seq;
		pthread_cond_broadcast(&t->done);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

struct wb_textfile *wb_textfile_create(const char *path)
{
	struct wb_textfile *t = calloc(1, sizeof(*t));

	if (!t || !(t->path = strdup(path))) {
		free(t);
		return NULL;
	}
	pthread_mutex_init(&t->mu, NULL);
	pthread_cond_init(&t->work, NULL);
	pthread_cond_init(&t->done, NULL);
	t->threaded = wb_thread_start(&t->thread, run, t) == 0; /* else written in put() */
	return t;
}

/* Now plus ms as an absolute CLOCK_REALTIME time (pthread_cond_timedwait's clock). */
static struct timespec after_ms(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += ms * 1000000L;
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	return ts;
}

int wb_textfile_put(struct wb_textfile *t, const char *text, size_t len, char *err, size_t n)
{
	struct timespec until = after_ms(WAIT_MS);
	char *copy;
	int rc;

	if (!t->threaded)
		return wb_om_write_file(t->path, text, len, err, n);
	if (!(copy = malloc(len ? len : 1)))
		return -ENOMEM;
	memcpy(copy, text, len);
	pthread_mutex_lock(&t->mu);
	free(t->text); /* an older text the thread has not taken: this one replaces it */
	t->text = copy;
	t->len = len;
	t->put++;
	pthread_cond_signal(&t->work);
	while (t->written != t->put && pthread_cond_timedwait(&t->done, &t->mu, &until) == 0)
		;
	rc = t->rc; /* this sample's write, or (still under way) the newest one that finished */
	snprintf(err, n, "%s", t->err);
	pthread_mutex_unlock(&t->mu);
	return rc;
}

void wb_textfile_destroy(struct wb_textfile *t)
{
	if (!t)
		return;
	if (t->threaded) {
		pthread_mutex_lock(&t->mu);
		t->quit = true;
		pthread_cond_signal(&t->work);
		pthread_mutex_unlock(&t->mu);
		pthread_join(t->thread, NULL); /* the newest text is written first */
	}
	pthread_cond_destroy(&t->done);
	pthread_cond_destroy(&t->work);
	pthread_mutex_destroy(&t->mu);
	free(t->text);
	free(t->path);
	free(t);
}
