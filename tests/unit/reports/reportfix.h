/* SPDX-License-Identifier: MIT */
/*
 * Helpers of the report tests: temporary paths, reading files back, schema
 * validation of XML reports, and an HTML parse that lists what could run.
 * Header-only, for cmocka tests (it asserts).
 */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

/* "$TMPDIR/<name>_<pid><suffix>" */
static inline void rfix_path(char *buf, size_t len, const char *name, const char *suffix)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(buf, len, "%s/%s_%d%s", tmp && *tmp ? tmp : "/tmp", name, (int)getpid(), suffix);
}

/* Whether s (len bytes, NUL-terminated) is valid UTF-8 without control
 * bytes other than newline and tab: what every output must be, whatever
 * the fabric sent. */
static inline int rfix_clean_text(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 && s[i] != '\n' && s[i] != '\t')
			return 0;
	return xmlCheckUTF8((const unsigned char *)s);
}

static inline char *rfix_slurp(const char *path, size_t *len_out)
{
	FILE *f = fopen(path, "rb");
	size_t len;
	char *buf;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), len);
	buf[len] = '\0';
	fclose(f);
	if (len_out)
		*len_out = len;
	return buf;
}

/* docs/fabsweep-report.xsd of the source tree. */
static inline void rfix_xsd_path(char *buf, size_t len)
{
	const char *fx = getenv("FIXTURES"); /* <src>/fixtures, set by ctest */

	if (fx && *fx) {
		snprintf(buf, len, "%s/../docs/fabsweep-report.xsd", fx);
	} else {
		/* __FILE__ is <src>/tests/unit/reports/reportfix.h */
		snprintf(buf, len, "%s", __FILE__);
		char *cut = strstr(buf, "tests/unit/reports/");
		assert_non_null(cut);
		snprintf(cut, len - (size_t)(cut - buf), "docs/fabsweep-report.xsd");
	}
}

/* Parses an XML report and validates it against the schema; returns the
 * document (free with xmlFreeDoc). Fails the test when it is invalid. */
static inline xmlDocPtr rfix_xml_valid(const char *path)
{
	char xsd[1024];
	xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);

	assert_non_null(doc);
	rfix_xsd_path(xsd, sizeof(xsd));
	xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(xsd);
	assert_non_null(pc);
	xmlSchemaPtr schema = xmlSchemaParse(pc);
	assert_non_null(schema);
	xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
	int ret = xmlSchemaValidateDoc(vc, doc);
	if (ret)
		fprintf(stderr, "%s does not validate against %s\n", path, xsd);
	assert_int_equal(ret, 0);
	xmlSchemaFreeValidCtxt(vc);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pc);
	return doc;
}

/* Number of nodes an XPath (prefix r: = the report namespace) selects. */
static inline long rfix_count(xmlDocPtr doc, const char *xpath)
{
	xmlXPathContextPtr c = xmlXPathNewContext(doc);
	long n;

	xmlXPathRegisterNs(c, BAD_CAST "r", BAD_CAST "urn:fabsweep:report:1");
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST xpath, c);
	assert_non_null(o);
	n = o->nodesetval ? o->nodesetval->nodeNr : 0;
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(c);
	return n;
}

/* String value of an XPath expression (malloc'd). */
static inline char *rfix_string(xmlDocPtr doc, const char *xpath)
{
	xmlXPathContextPtr c = xmlXPathNewContext(doc);

	xmlXPathRegisterNs(c, BAD_CAST "r", BAD_CAST "urn:fabsweep:report:1");
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST xpath, c);
	assert_non_null(o);
	xmlChar *v = xmlXPathCastToString(o);
	char *s = strdup((const char *)v);
	xmlFree(v);
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(c);
	return s;
}

/* What in an HTML page could run or fetch something. */
struct rfix_live {
	int scripts;       /* <script> elements */
	int styles;        /* <style> elements */
	int handlers;      /* on* attributes */
	int fetchers;      /* elements that load something: img, iframe, object, embed, link other than the icon, ... */
	int js_urls;       /* attributes whose value starts with javascript: */
	int csp_meta;      /* <meta http-equiv=Content-Security-Policy> */
	int style_attrs;   /* style="" attributes (CSP would block them) */
	int src_attrs;     /* any src= attribute */
};

static inline void rfix_walk(xmlNodePtr n, struct rfix_live *l)
{
	static const char *const fetch[] = { "img", "iframe", "object", "embed", "frame", "video",
					     "audio", "source", "base", "form", "image", "use",
					     "foreignObject", NULL };

	for (; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		const char *name = (const char *)n->name;
		l->scripts += !strcasecmp(name, "script");
		l->styles += !strcasecmp(name, "style");
		for (int i = 0; fetch[i]; i++)
			l->fetchers += !strcasecmp(name, fetch[i]);
		if (!strcasecmp(name, "link")) {
			xmlChar *href = xmlGetProp(n, BAD_CAST "href");
			l->fetchers += !href || strcmp((const char *)href, "data:,");
			xmlFree(href);
		}
		if (!strcasecmp(name, "meta")) {
			xmlChar *he = xmlGetProp(n, BAD_CAST "http-equiv");
			l->csp_meta += he && !strcasecmp((const char *)he, "Content-Security-Policy");
			xmlFree(he);
		}
		for (xmlAttrPtr a = n->properties; a; a = a->next) {
			const char *an = (const char *)a->name;
			xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
			const char *vs = v ? (const char *)v : "";
			while (*vs == ' ' || *vs == '\t' || *vs == '\n')
				vs++;
			l->handlers += !strncasecmp(an, "on", 2);
			l->style_attrs += !strcasecmp(an, "style");
			l->src_attrs += !strcasecmp(an, "src");
			l->js_urls += !strncasecmp(vs, "javascript:", 11);
			xmlFree(v);
		}
		rfix_walk(n->children, l);
	}
}

/* Parses an HTML file as a browser-like parser would (libxml2's HTML
 * parser) and counts what in it could run or fetch. */
static inline struct rfix_live rfix_html_live(const char *path, htmlDocPtr *doc_out)
{
	struct rfix_live l = { 0 };
	htmlDocPtr doc = htmlReadFile(path, "UTF-8", HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
							     HTML_PARSE_NONET);

	assert_non_null(doc);
	rfix_walk(xmlDocGetRootElement(doc), &l);
	if (doc_out)
		*doc_out = doc;
	else
		xmlFreeDoc(doc);
	return l;
}
