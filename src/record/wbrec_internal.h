/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The on-disk layout shared by writer.c and reader.c (see wbrec(5)). Not installed. */
#ifndef WBTOP_WBREC_INTERNAL_H
#define WBTOP_WBREC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define WBREC_MAGIC "WBREC\r\n\x1a"     /* 8 bytes: text-mode and EOF damage show */
#define WBREC_FRAME_MAGIC 0x52465742u   /* "BWFR" little-endian */
#define WBREC_FRAME_HDR 28

enum { FR_KEY = 1, FR_DELTA = 2, FR_NOTE = 3 };
enum { H_HOST = 1, H_KERNEL, H_BOOT_ID, H_TOOL, H_PAGE_SIZE, H_INTERVAL, H_CREATED };

static inline void le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const uint8_t *p) { return rd32(p) | (uint64_t)rd32(p + 4) << 32; }

/* CRC-32 (IEEE), table-driven (format.c). */
uint32_t wbrec_crc32(const uint8_t *p, size_t n);

#endif
