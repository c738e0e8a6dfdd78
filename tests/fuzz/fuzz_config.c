// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the settings file (wbtoprc: [display] key = value,
 * hidden_columns over several lines) through wb_config_load. Must never
 * crash or overrun; a refusal or a warning names its line; what it reads
 * is in range and every hidden column is one a table has.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wbtop/config.h"

static char path[64];

static void remove_file(void)
{
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wb_config c;
	enum wb_table t;
	char msg[512];
	int col, rc;
	FILE *f;

	if (size > 64 * 1024)
		return 0;
	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/wbtop-fuzz-config-%d", (int)getpid());
		atexit(remove_file);
	}
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	rc = wb_config_load(&c, path, msg, sizeof(msg));
	if (rc != 0 && !strstr(msg, path))
		__builtin_trap(); /* a refusal or a warning names the file (and its line) */
	if (c.nhidden < 0 || c.nhidden > WB_CONFIG_MAX_HIDDEN || (c.warn != 0 && (c.warn < 0.01 || c.warn > 1000)) ||
	    (c.delay != 0 && (c.delay < 0.05 || c.delay > 86400)) || !memchr(c.theme, '\0', sizeof(c.theme)))
		__builtin_trap();
	for (int i = 0; i < c.nhidden; i++)
		if (!memchr(c.hidden[i], '\0', WB_CONFIG_NAME) || wb_config_column(c.hidden[i], &t, &col) != 0)
			__builtin_trap();
	return 0;
}
