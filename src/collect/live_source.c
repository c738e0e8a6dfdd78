// SPDX-License-Identifier: GPL-2.0-or-later
/* The live source: the kernel's collectors (live.c) behind struct wb_source, as the replay source is. */
#include <stdio.h>

#include "wbtop/live.h"
#include "wbtop/source.h"

/* The next sample from the kernel; -1 when nothing under the root could be read. */
static int live_read(void *ctx, struct wb_sample *s)
{
	wb_live_read(ctx, s);
	return s->level < 0 ? -1 : 0;
}

static const struct wb_diag *live_diag(void *ctx)
{
	return wb_live_diag(ctx);
}

static void live_need_procs(void *ctx, bool on)
{
	wb_live_need_procs(ctx, on);
}

struct wb_live *wb_live_source_open(const struct wb_live_opts *o, bool procs_always, struct wb_source *src,
				    char *err, size_t errlen)
{
	struct wb_live *l = wb_live_create(o, err, errlen);

	if (!l)
		return NULL;
	*src = (struct wb_source){ .ctx = l, .read = live_read, .diag = live_diag,
				   .need_procs = procs_always ? NULL : live_need_procs, .procs = wb_live_has_procs(l) };
	return l;
}
