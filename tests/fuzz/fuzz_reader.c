// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target for the recording reader: any bytes as a .wbrec file;
 * open, then decode every sample and note. Must never crash, overrun or
 * leak; malformed input must fail with a message.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "wbtop/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[256], warn[256];
	int fd = memfd_create("wbrec", 0);
	struct wb_rec_reader *r;
	struct wb_sample s;

	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = wb_rec_open(path, err, sizeof(err), warn, sizeof(warn));
	close(fd);
	if (!r) {
		if (!err[0])
			__builtin_trap(); /* a failure must say why */
		return 0;
	}
	wb_sample_init(&s);
	for (size_t i = 0; i < wb_rec_count(r); i++)
		if (wb_rec_read(r, i, &s, err, sizeof(err)) && !err[0])
			__builtin_trap();
	if (wb_rec_count(r) > 2) /* random access too */
		wb_rec_read(r, wb_rec_count(r) / 2, &s, err, sizeof(err));
	for (size_t k = 0; k < wb_rec_notes(r); k++)
		wb_rec_note_at(r, k, NULL);
	wb_sample_finish(&s);
	wb_rec_close_reader(r);
	return 0;
}
