/* SPDX-License-Identifier: MIT */
/*
 * Private to reports/: the XML writer, a thin layer over libxml2's
 * xmlTextWriter that streams to a FILE. Every attribute value and text node
 * goes through fab_xw_attr() / fab_xw_text(): they make the string valid XML
 * characters and let xmlTextWriter escape it. Element and attribute names are
 * literals. The first error is kept; later calls do nothing.
 */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "text.h"

struct fab_xw {
	void *writer; /* xmlTextWriterPtr */
	FILE *f;      /* borrowed */
	int err;
	struct fab_report_text clean;
};

/* Starts a document (XML declaration; elements indented by indent) on f. */
int fab_xw_open(struct fab_xw *x, FILE *f, const char *indent);
/* Ends open elements, flushes to f, frees the writer; returns x->err. */
int fab_xw_close(struct fab_xw *x);

void fab_xw_start(struct fab_xw *x, const char *name);
void fab_xw_end(struct fab_xw *x);
/* Attribute with untrusted value; NULL skips the attribute. */
void fab_xw_attr(struct fab_xw *x, const char *name, const char *value);
/* Attribute whose value is a literal of this program (an enum name, a
 * formatted number): not cleaned, still escaped by xmlTextWriter. */
void fab_xw_attr_lit(struct fab_xw *x, const char *name, const char *value);
void fab_xw_attr_u64(struct fab_xw *x, const char *name, uint64_t v);
void fab_xw_attr_i64(struct fab_xw *x, const char *name, int64_t v);
void fab_xw_attr_guid(struct fab_xw *x, const char *name, uint64_t guid);
void fab_xw_attr_time(struct fab_xw *x, const char *name, int64_t ms);
void fab_xw_attr_double(struct fab_xw *x, const char *name, double v);
/* Text content of the open element (untrusted). */
void fab_xw_text(struct fab_xw *x, const char *s);
/* <name>s</name>; NULL writes nothing. */
void fab_xw_elem_text(struct fab_xw *x, const char *name, const char *s);
