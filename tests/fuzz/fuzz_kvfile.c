// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: kernel "key value [unit]" text (meminfo, vmstat, node
 * meminfo) through wb_kv_parse with every unit, prefix sums and required
 * keys; one-number files (sysfs knobs, sysctls) through wb_kvfile_u64 on a
 * memfd. Must never crash or overrun; bad values are reported, not stored.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wbtop/kvfile.h"

static const struct wb_kv_key keys[] = {
	{ "nr_dirty", 0, WB_KV_NUM, false, true },
	{ "MemFree", 1, WB_KV_KB, false, true },
	{ "Dirty", 2, WB_KV_KB, false, false },
	{ "BdiWriteBandwidth", 3, WB_KV_KBPS, false, false },
	{ "state", 4, WB_KV_HEX, false, false },
	{ "pgscan_", 5, WB_KV_NUM, true, false },
	{ "nr_writeback", 6, WB_KV_NUM, false, false },
};

/* The one-number reader, on the input as a file. */
static void one_number(const uint8_t *data, size_t size)
{
	struct wb_kvfile f;
	struct wb_diag d;
	char path[64];
	uint64_t v;
	int fd = memfd_create("kv", 0);

	if (fd < 0)
		return;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		wb_diag_clear(&d);
		if (wb_kvfile_init(&f, path) == 0) {
			wb_kvfile_u64(&f, &d, &v);
			wb_kvfile_finish(&f);
		}
	}
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	uint64_t v[8] = { 0 }, valid = 0;
	struct wb_diag d;
	const char *end = NULL;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	wb_diag_clear(&d);
	wb_kv_parse(text, keys, sizeof(keys) / sizeof(keys[0]), size % 2 ? 4096 : 65536, v, &valid, "fuzz", &d);
	if (valid & ~(uint64_t)0x7f)
		__builtin_trap(); /* a bit for a key that is not in the table */
	if (wb_parse_u64(text, &end, &v[0]) && (end <= text || end > text + size))
		__builtin_trap(); /* a number was read: end is past it, inside the text */
	if (size < 64)
		one_number(data, size);
	free(text);
	return 0;
}
