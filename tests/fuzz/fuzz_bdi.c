// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the BDI collector's parsers. Byte 0 picks one: debugfs
 * stats, wb_stats (blank-line separated blocks), or /proc/self/mountinfo
 * attached to a sample with a block-device BDI and a btrfs one. Must never
 * crash or overrun; mount counts and strings stay in bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wbtop/bdi.h"

/* mountinfo onto two BDIs: "7:0" (loop0) and "btrfs-1" on loop2. */
static void mounts(char *text)
{
	struct wb_sample s;
	struct wb_bdi b[2];

	memset(b, 0, sizeof(b));
	strcpy(b[0].name, "7:0");
	strcpy(b[0].dev, "loop0");
	strcpy(b[1].name, "btrfs-1");
	strcpy(b[1].dev, "loop2");
	wb_sample_init(&s);
	s.bdis = b;
	s.nbdis = 2;
	wb_mountinfo_attach(text, &s);
	for (int i = 0; i < 2; i++) {
		if (b[i].nmounts < 0 || b[i].nmounts > WB_MAX_MOUNTS)
			__builtin_trap();
		for (int m = 0; m < b[i].nmounts; m++)
			if (!memchr(b[i].mounts[m], '\0', WB_PATH_LEN))
				__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t st[WB_B_COUNT], valid = 0;
	struct wb_diag d;
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	memset(st, 0, sizeof(st));
	wb_diag_clear(&d);
	switch (data[0] % 3) {
	case 0: wb_bdi_parse_stats(text, data[0] & 0x80 ? 65536 : 4096, st, &valid, "stats", &d); break;
	case 1: {
		struct wb_bdi_wbsum sum;
		struct wb_sample smp;

		wb_sample_init(&smp);
		wb_bdi_parse_wb_stats(text, data[0] & 0x80 ? 65536 : 4096, st, &valid, &sum, "wb_stats", &d);
		smp.g.valid = WB_BIT(WB_G_DIRTY_THRESH) | WB_BIT(WB_G_BG_THRESH);
		wb_bdi_stats_from_wb(&sum, &smp, st, &valid);
		wb_sample_finish(&smp);
		break;
	}
	default: mounts(text); break;
	}
	if (WB_B_COUNT < 64 && valid >> WB_B_COUNT)
		__builtin_trap(); /* a validity bit past the fields */
	free(text);
	return 0;
}
