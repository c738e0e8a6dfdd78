/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Per-node and per-zone state: /proc/zoneinfo and each node's meminfo. */
#ifndef WBTOP_ZONEINFO_H
#define WBTOP_ZONEINFO_H

#include "wbtop/kvfile.h"
#include "wbtop/sample.h"

#define WB_MAX_NODES 64

struct wb_zoneinfo {
	char *root;                        /* owned */
	bool live;                         /* root is "/": node MemFree from the zones' free pages */
	struct wb_kvfile zoneinfo;
	struct wb_kvfile node_meminfo[WB_MAX_NODES];
	bool node_open[WB_MAX_NODES];
};

int wb_zoneinfo_open(struct wb_zoneinfo *z, const char *root);
/* The highest node in a sysfs node list ("0", "0-3,6"), -1 if malformed or past WB_MAX_NODES. */
int wb_node_list_last(const char *s);
/* Replace s->nodes/s->zones with what the files say now. */
void wb_zoneinfo_read(struct wb_zoneinfo *z, struct wb_sample *s, struct wb_diag *d);
void wb_zoneinfo_close(struct wb_zoneinfo *z);

/*
 * Parse zoneinfo text into freshly allocated arrays (caller frees *nodes and
 * *zones). Pure, for tests and fuzzing. Returns 0 or -ENOMEM.
 */
int wb_zoneinfo_parse(const char *buf, const char *what, struct wb_node **nodes,
		      size_t *nnodes, struct wb_zone **zones, size_t *nzones,
		      struct wb_diag *d);

#endif
