/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gzip request bodies (Content-Encoding: gzip): see otlp.h. One gzip
 * member, inflated by zlib into a buffer that doubles from a guess up to
 * the cap (plus one byte, to tell "exactly max" from "more"): memory is
 * bounded by the cap and the time by the bytes written, so a bomb stops
 * after max + 1 bytes. A second member, or any byte after the first, is
 * refused as trailing garbage.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

#include "otlp.h"

int otlp_gunzip(const void *in, size_t len, size_t max, void **out, size_t *outlen)
{
	z_stream z = { 0 };
	unsigned char *buf = NULL, *nb;
	size_t cap, limit, left = len;
	int ret, rc = -EBADMSG;

	*out = NULL;
	*outlen = 0;
	if (max == 0)
		max = OTLP_BODY_MAX;
	if (len == 0 || max == SIZE_MAX)
		return -EBADMSG;
	limit = max + 1;
	cap = len < limit / 4 ? len * 4 : limit;
	if (cap < 4096)
		cap = limit < 4096 ? limit : 4096;
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	if ((buf = malloc(cap)) == NULL) {
		rc = -ENOMEM;
		goto done;
	}
	z.next_in = (unsigned char *)in;
	for (;;) {
		if (z.avail_in == 0 && left > 0) {
			z.avail_in = left > UINT_MAX ? UINT_MAX : (unsigned)left;
			left -= z.avail_in;
		}
		if (z.total_out == cap) {
			if (cap == limit) {
				rc = -EMSGSIZE;
				goto done;
			}
			cap = cap > limit / 2 ? limit : cap * 2;
			if ((nb = realloc(buf, cap)) == NULL) {
				rc = -ENOMEM;
				goto done;
			}
			buf = nb;
		}
		z.next_out = buf + z.total_out;
		z.avail_out = (cap - z.total_out) > UINT_MAX ? UINT_MAX : (unsigned)(cap - z.total_out);
		ret = inflate(&z, Z_NO_FLUSH);
		if (ret == Z_STREAM_END)
			break;
		if (ret == Z_MEM_ERROR) {
			rc = -ENOMEM;
			goto done;
		}
		if (ret != Z_OK && !(ret == Z_BUF_ERROR && z.avail_out == 0))
			goto done;	/* bad data, or cut short (no input left) */
	}
	if (z.avail_in != 0 || left != 0)
		goto done;		/* trailing bytes */
	if (z.total_out > max) {
		rc = -EMSGSIZE;
		goto done;
	}
	*outlen = z.total_out;
	*out = buf;
	buf = NULL;
	rc = 0;
done:
	inflateEnd(&z);
	free(buf);
	return rc;
}
