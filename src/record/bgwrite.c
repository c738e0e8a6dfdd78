// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A recording's frames written by a thread of their own. A write(2) that
 * dirties the page cache can sleep in balance_dirty_pages for as long as the
 * machine is over its dirty limit - seconds, when a slow device holds the
 * limit under writeback - and the sampling loop slept with it: a recorder at
 * -d 1 took 30 samples in 58 s beside a 0.5 MiB/s device, just while the
 * machine was held. Now only this thread waits; the samples are taken on time
 * and queued (in order, whole frames), and a failed write stops the queue.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "wbrec_internal.h"
#include "wbtop/util.h"

/* Queued past this, put() waits for the thread: memory is not given up for a device that never drains. */
#define QUEUE_MAX (16u << 20)

struct item {
	struct item *next;
	size_t n;
	bool sample;
	uint8_t data[];
};

struct wb_bgwrite {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work, idle;
	int fd;
	struct item *head, *tail;
	size_t queued;          /* bytes in the queue */
	bool busy, quit;        /* the thread holds an item; asked to end */
	int err;                /* errno of the failed write; nothing written after it */
	uint64_t done_bytes, done_samples; /* whole frames written since create or rebase */
};

/* The thread: take the oldest frame, write it unlocked, count it; after a failure drop the rest. */
static void *run(void *arg)
{
	struct wb_bgwrite *q = arg;
	struct item *it;
	int e;

	pthread_mutex_lock(&q->mu);
	for (;;) {
		while (!q->head && !q->quit)
			pthread_cond_wait(&q->work, &q->mu);
		if (!q->head)
			break;
		it = q->head;
		q->head = it->next;
		if (!q->head)
			q->tail = NULL;
		q->busy = true;
		e = q->err;
		pthread_mutex_unlock(&q->mu);
		if (!e)
			e = wb_write_all(q->fd, it->data, it->n);
		pthread_mutex_lock(&q->mu);
		q->busy = false;
		q->queued -= it->n;
		if (!e && !q->err) {
			q->done_bytes += it->n;
			q->done_samples += it->sample;
		} else if (!q->err) {
			q->err = e;
		}
		free(it);
		if (!q->head)
			pthread_cond_broadcast(&q->idle);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct wb_bgwrite *wbrec_bgwrite_create(int fd)
{
	struct wb_bgwrite *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->fd = fd;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->idle, NULL);
	if (wb_thread_start(&q->thread, run, q) != 0) {
		pthread_cond_destroy(&q->idle);
		pthread_cond_destroy(&q->work);
		pthread_mutex_destroy(&q->mu);
		free(q);
		return NULL;
	}
	return q;
}

/* Wait until the queue is written (or dropped after a failure); with q->mu held. */
static void wait_idle(struct wb_bgwrite *q)
{
	while (q->head || q->busy)
		pthread_cond_wait(&q->idle, &q->mu);
}

int wbrec_bgwrite_put(struct wb_bgwrite *q, const uint8_t *frame, size_t n, bool sample)
{
	struct item *it;
	int e;

	pthread_mutex_lock(&q->mu);
	if (!q->err && q->queued + n > QUEUE_MAX)
		wait_idle(q);
	e = q->err;
	pthread_mutex_unlock(&q->mu);
	if (e)
		return -e;
	if (!(it = malloc(sizeof(*it) + n)))
		return -ENOMEM;
	it->next = NULL;
	it->n = n;
	it->sample = sample;
	memcpy(it->data, frame, n);
	pthread_mutex_lock(&q->mu);
	if (q->tail)
		q->tail->next = it;
	else
		q->head = it;
	q->tail = it;
	q->queued += n;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
	return 0;
}

bool wbrec_bgwrite_idle(struct wb_bgwrite *q)
{
	bool idle;

	pthread_mutex_lock(&q->mu);
	idle = !q->head && !q->busy && !q->err;
	pthread_mutex_unlock(&q->mu);
	return idle;
}

int wbrec_bgwrite_error(struct wb_bgwrite *q)
{
	int e;

	pthread_mutex_lock(&q->mu);
	e = q->err;
	pthread_mutex_unlock(&q->mu);
	return -e;
}

int wbrec_bgwrite_drain(struct wb_bgwrite *q)
{
	int e;

	pthread_mutex_lock(&q->mu);
	wait_idle(q);
	e = q->err;
	pthread_mutex_unlock(&q->mu);
	return -e;
}

void wbrec_bgwrite_done(struct wb_bgwrite *q, uint64_t *bytes, uint64_t *samples)
{
	pthread_mutex_lock(&q->mu);
	*bytes = q->done_bytes;
	*samples = q->done_samples;
	pthread_mutex_unlock(&q->mu);
}

void wbrec_bgwrite_rebase(struct wb_bgwrite *q, int fd)
{
	pthread_mutex_lock(&q->mu);
	wait_idle(q);
	q->fd = fd;
	q->done_bytes = q->done_samples = 0;
	pthread_mutex_unlock(&q->mu);
}

void wbrec_bgwrite_destroy(struct wb_bgwrite *q)
{
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->quit = true;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->mu);
	pthread_join(q->thread, NULL); /* the thread writes what is queued first */
	pthread_cond_destroy(&q->idle);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->mu);
	free(q);
}
