/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmvmask.c - byte ranges of an MMV file that a comparison must ignore.
 *
 *   mmvmask [-v] FILE   print "FIRST LAST" lines, 1-based inclusive (the
 *                       numbering of cmp -l): the generations (9-24), the
 *                       pid (33-36) and, for each label record, the
 *                       payload bytes after the first NUL; with -v also
 *                       the 8 value bytes of every value record (for runs
 *                       whose values depend on timing)
 *   mmvmask -s FILE     as without -s, and also the bytes of every string
 *                       slot after its first NUL (where PCP 7 copies past
 *                       a string's end, docs/compatibility.md)
 *   mmvmask -z FILE     exit 0 if every label payload is zero after its
 *                       first NUL, 1 if not
 *   mmvmask -Z FILE     the same for every string slot
 *
 * Reads raw offsets (docs/mmv-format.md §2) so it depends on neither
 * library's headers.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *data;
static long size;

static int64_t get(long off, int len)
{
	int64_t v = 0;

	if (off < 0 || off + len > size)
		return -1;
	if (len == 4) {
		int32_t x;
		memcpy(&x, data + off, 4);
		v = x;
	} else {
		memcpy(&v, data + off, 8);
	}
	return v;
}

/*
 * The bytes after the first NUL of @count 256-byte records at @off, each
 * a NUL-terminated text of @len bytes at @at: printed as ranges to mask,
 * or with @zero checked to be zero (1: some is not).
 */
static int tails(int64_t off, int64_t count, long at, long len, int zero)
{
	int bad = 0;

	for (int64_t j = 0; j < count; j++) {
		long p = (long)(off + 256 * j) + at, k = 0;

		while (k < len && p + k < size && data[p + k])
			k++;
		if (!zero && k + 1 < len)
			printf("%ld %ld\n", p + k + 2, p + len);
		for (k++; zero && k < len && p + k < size; k++)
			bad |= data[p + k] != 0;
	}
	return bad;
}

int main(int argc, char **argv)
{
	int values = 0, zero = 0, strs = 0, bad = 0;
	const char *path;
	FILE *f;
	int64_t tocs, i, j;


	if (argc == 3 && !strcmp(argv[1], "-v"))
		values = 1;
	else if (argc == 3 && !strcmp(argv[1], "-s"))
		strs = 1;
	else if (argc == 3 && !strcmp(argv[1], "-z"))
		zero = 1;
	else if (argc == 3 && !strcmp(argv[1], "-Z"))
		zero = strs = 1;
	else if (argc != 2) {
		fprintf(stderr, "usage: mmvmask [-v|-s|-z|-Z] FILE\n");
		return 2;
	}
	path = argv[argc - 1];
	f = fopen(path, "rb");
	if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 40) {
		fprintf(stderr, "mmvmask: cannot read %s\n", path);
		return 2;
	}
	rewind(f);
	data = malloc(size);
	if (!data || fread(data, 1, size, f) != (size_t)size)
		return 2;
	fclose(f);
	if (!zero)
		printf("9 24\n33 36\n");
	tocs = get(24, 4);
	for (i = 0; i < tocs; i++) {
		int64_t type = get(40 + 16 * i, 4);
		int64_t count = get(40 + 16 * i + 4, 4);
		int64_t off = get(40 + 16 * i + 8, 8);

		if (type == 6 && !(zero && strs))
			bad |= tails(off, count, 12, 244, zero);	/* label payloads */
		if (type == 5 && strs)
			bad |= tails(off, count, 0, 256, zero);		/* string slots */
		for (j = 0; j < count && type == 4 && values; j++)
			printf("%ld %ld\n", (long)(off + 32 * j + 1), (long)(off + 32 * j + 8));
	}
	return bad;
}
