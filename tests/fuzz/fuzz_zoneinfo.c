// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: /proc/zoneinfo text through wb_zoneinfo_parse. Must
 * never crash, overrun or leak; node ids and counts stay in bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/zoneinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct wb_node *nodes = NULL;
	struct wb_zone *zones = NULL;
	size_t nn = 0, nz = 0;
	struct wb_diag d;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	wb_diag_clear(&d);
	if (wb_zoneinfo_parse(text, "fuzz", &nodes, &nn, &zones, &nz, &d) == 0) {
		if (nn > WB_MAX_NODES || (nn && !nodes) || (nz && !zones))
			__builtin_trap();
	}
	free(nodes);
	free(zones);
	free(text);
	return 0;
}
