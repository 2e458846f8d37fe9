// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "xmlw.h"

#define W(x) ((xmlTextWriterPtr)(x)->writer)
#define XC(s) ((const xmlChar *)(s))

static int out_write(void *ctx, const char *buf, int len)
{
	FILE *f = ctx;

	return fwrite(buf, 1, (size_t)len, f) == (size_t)len ? len : -1;
}

/* libxml2 returns < 0 on failure: the one conversion to an errno. */
static void check(struct fab_xw *x, int ret)
{
	if (ret < 0 && !x->err)
		x->err = -EIO;
}

int fab_xw_open(struct fab_xw *x, FILE *f, const char *indent)
{
	memset(x, 0, sizeof(*x));
	x->f = f;
	xmlOutputBufferPtr out = xmlOutputBufferCreateIO(out_write, NULL, f, NULL);
	if (!out)
		return x->err = -ENOMEM;
	x->writer = xmlNewTextWriter(out); /* takes out only on success */
	if (!x->writer) {
		xmlOutputBufferClose(out);
		return x->err = -ENOMEM;
	}
	check(x, xmlTextWriterSetIndent(W(x), 1));
	check(x, xmlTextWriterSetIndentString(W(x), XC(indent)));
	check(x, xmlTextWriterStartDocument(W(x), "1.0", "UTF-8", NULL));
	return x->err;
}

int fab_xw_close(struct fab_xw *x)
{
	if (x->writer) {
		if (!x->err)
			check(x, xmlTextWriterEndDocument(W(x)));
		if (!x->err)
			check(x, xmlTextWriterFlush(W(x)));
		xmlFreeTextWriter(W(x)); /* closes the output buffer, not f */
		x->writer = NULL;
	}
	fab_report_text_free(&x->clean);
	if (!x->err && ferror(x->f))
		x->err = -EIO;
	return x->err;
}

void fab_xw_start(struct fab_xw *x, const char *name)
{
	if (!x->err)
		check(x, xmlTextWriterStartElement(W(x), XC(name)));
}

void fab_xw_end(struct fab_xw *x)
{
	if (!x->err)
		check(x, xmlTextWriterEndElement(W(x)));
}

/* Attribute whose value is known to be plain characters (numbers, names). */
static void attr_plain(struct fab_xw *x, const char *name, const char *value)
{
	if (!x->err)
		check(x, xmlTextWriterWriteAttribute(W(x), XC(name), XC(value)));
}

void fab_xw_attr_lit(struct fab_xw *x, const char *name, const char *value)
{
	if (value)
		attr_plain(x, name, value);
}

void fab_xw_attr(struct fab_xw *x, const char *name, const char *value)
{
	if (!value || x->err)
		return;
	attr_plain(x, name, fab_report_text_clean(&x->clean, value));
}

void fab_xw_attr_u64(struct fab_xw *x, const char *name, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	attr_plain(x, name, p);
}

void fab_xw_attr_i64(struct fab_xw *x, const char *name, int64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%" PRId64, v);
	attr_plain(x, name, buf);
}

void fab_xw_attr_guid(struct fab_xw *x, const char *name, uint64_t guid)
{
	static const char hex[] = "0123456789abcdef";
	char buf[FAB_GUID_STRLEN] = "0x";

	/* as fab_guid_format() writes it, without printf: reports write many */
	for (int i = 0; i < 16; i++)
		buf[2 + i] = hex[(guid >> (60 - 4 * i)) & 15];
	buf[18] = '\0';
	attr_plain(x, name, buf);
}

void fab_xw_attr_time(struct fab_xw *x, const char *name, int64_t ms)
{
	char buf[FAB_TIME_STRLEN];

	fab_time_format(ms, buf);
	attr_plain(x, name, buf);
}

void fab_xw_attr_double(struct fab_xw *x, const char *name, double v)
{
	char buf[32];

	if (v >= 0 && v < 1e15 && v == (double)(uint64_t)v) {
		fab_xw_attr_u64(x, name, (uint64_t)v);
		return;
	}
	snprintf(buf, sizeof(buf), "%g", v);
	attr_plain(x, name, buf);
}

void fab_xw_text(struct fab_xw *x, const char *s)
{
	if (!s || x->err)
		return;
	check(x, xmlTextWriterWriteString(W(x), XC(fab_report_text_clean(&x->clean, s))));
}

void fab_xw_elem_text(struct fab_xw *x, const char *name, const char *s)
{
	if (!s)
		return;
	fab_xw_start(x, name);
	fab_xw_text(x, s);
	fab_xw_end(x);
}
