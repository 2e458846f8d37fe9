// SPDX-License-Identifier: MIT
/* Parameter values as the config file writes them; the capped text buffer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/config.h"
#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"
#include "rules_priv.h"

/* ---- rbuf ---------------------------------------------------------------- */

void rbuf_init(struct rbuf *b)
{
	memset(b, 0, sizeof(*b));
}

void rbuf_free(struct rbuf *b)
{
	free(b->p);
	rbuf_init(b);
}

void rbuf_reset(struct rbuf *b)
{
	b->len = 0;
	b->full = false;
	if (b->p)
		b->p[0] = '\0';
}

static bool rbuf_reserve(struct rbuf *b, size_t need)
{
	if (need <= b->cap)
		return true;
	size_t ncap = b->cap ? b->cap : 256;
	while (ncap < need)
		ncap *= 2;
	if (ncap > RBUF_CAP)
		ncap = RBUF_CAP;
	if (ncap <= b->cap)
		return false;
	char *p = realloc(b->p, ncap);
	if (!p) {
		b->nomem = true;
		return false;
	}
	b->p = p;
	b->cap = ncap;
	return true;
}

void rbuf_printf(struct rbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->full || b->nomem)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (!rbuf_reserve(b, b->len + (size_t)n + 1)) {
		if (b->nomem || b->cap <= b->len + 4)
			return;
		n = (int)(b->cap - b->len - 1); /* cut at the cap */
		b->full = true;
	}
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void rbuf_sep(struct rbuf *b, const char *sep)
{
	if (b->len)
		rbuf_printf(b, "%s", sep);
}

const char *rbuf_str(const struct rbuf *b)
{
	return b->p ? b->p : "";
}

/* ---- tiers ---------------------------------------------------------------- */

void fab_tier_name(int tier, char *buf, size_t len)
{
	unsigned a = (unsigned)tier / FAB_ROLE__COUNT, b = (unsigned)tier % FAB_ROLE__COUNT;

	snprintf(buf, len, "%s-%s", fab_role_name(a), fab_role_name(b));
}

/* ---- parameter values ------------------------------------------------------ */

void fab_param_format(const struct fab_rule_param *p, double v, char *buf, size_t len)
{
	switch (p->type) {
	case FAB_PARAM_WIDTH:
	case FAB_PARAM_SPEED: {
		const char *n = p->type == FAB_PARAM_WIDTH ? fab_width_name((unsigned)v)
							   : fab_speed_name((unsigned)v);
		snprintf(buf, len, "%s", v == 0 || !n ? "auto" : n);
		return;
	}
	case FAB_PARAM_MTU:
		if (v < 0)
			snprintf(buf, len, "off");
		else
			snprintf(buf, len, "%u", fab_mtu_bytes((unsigned)v));
		return;
	case FAB_PARAM_RATE:
	case FAB_PARAM_RATIO:
	case FAB_PARAM_REAL: /* off: below 0, or REAL's own (it takes negative numbers) */
		if (p->type == FAB_PARAM_REAL ? v == FAB_PARAM_REAL_OFF : v < 0)
			snprintf(buf, len, "off");
		else
			snprintf(buf, len, "%g", v);
		return;
	case FAB_PARAM_INT_AUTO:
		if (v < 0)
			snprintf(buf, len, "auto");
		else
			snprintf(buf, len, "%.0f", v);
		return;
	case FAB_PARAM_SLS: {
		unsigned m = v < 0 ? 0 : (unsigned)v, at = 0;

		buf[0] = 0;
		for (unsigned a = 0; a < 16 && at < len; a++) {
			if (!(m >> a & 1))
				continue;
			unsigned b = a;
			while (b + 1 < 16 && (m >> (b + 1) & 1))
				b++;
			at += (unsigned)snprintf(buf + at, len - at, b > a ? "%s%u-%u" : "%s%u",
						 at ? "," : "", a, b);
			a = b;
		}
		return;
	}
	default:
		if (v < 0)
			snprintf(buf, len, "off");
		else
			snprintf(buf, len, "%.0f", v);
		return;
	}
}

const char *fab_param_expect(const struct fab_rule_param *p)
{
	switch (p->type) {
	case FAB_PARAM_COUNT:
	case FAB_PARAM_INCREASE:
		return "a whole number or 'off'";
	case FAB_PARAM_RATE:
		return "a number per second (like 10 or 0.5) or 'off'";
	case FAB_PARAM_RATIO:
		return "a number (like 1e-12 or 0.000001) or 'off'";
	case FAB_PARAM_WIDTH:
		return "a width (1X, 2X, 4X, 8X, 12X) or 'auto'";
	case FAB_PARAM_SPEED:
		return "a speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR) or 'auto'";
	case FAB_PARAM_MTU:
		return "an MTU in bytes (256, 512, 1024, 2048, 4096) or 'off'";
	case FAB_PARAM_INT_AUTO:
		return "'auto' or a whole number";
	case FAB_PARAM_SLS:
		return "service levels 0 to 15, as a list of numbers and ranges (like 0-14 or 0,2,4-7)";
	case FAB_PARAM_REAL:
		return "a number (like -12, 2.5 or 1e-6) or 'off'";
	default:
		return "a whole number";
	}
}

static bool is_off(const char *s)
{
	return !strcmp(s, "off");
}

static int parse_whole(const char *s, double min, double max, double *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || (double)v < min || (double)v > max)
		return -EINVAL;
	*out = (double)v;
	return 0;
}

int fab_param_parse(const struct fab_rule_param *p, const char *s, double *out)
{
	switch (p->type) {
	case FAB_PARAM_COUNT:
	case FAB_PARAM_INCREASE:
		if (is_off(s)) {
			*out = FAB_PARAM_OFF;
			return 0;
		}
		return parse_whole(s, p->min, p->max, out);
	case FAB_PARAM_INT:
		return parse_whole(s, p->min, p->max, out);
	case FAB_PARAM_INT_AUTO:
		if (!strcmp(s, "auto")) {
			*out = FAB_PARAM_AUTO;
			return 0;
		}
		return parse_whole(s, p->min, p->max, out);
	case FAB_PARAM_RATE:
	case FAB_PARAM_RATIO:
	case FAB_PARAM_REAL: { /* only REAL takes a negative number */
		bool real = p->type == FAB_PARAM_REAL;
		char *end;
		double v;

		if (is_off(s)) {
			*out = real ? FAB_PARAM_REAL_OFF : FAB_PARAM_OFF;
			return 0;
		}
		if ((*s < '0' || *s > '9') && *s != '.' && !(real && *s == '-'))
			return -EINVAL;
		errno = 0;
		v = strtod(s, &end);
		if (errno || *end || !isfinite(v) || v < p->min || v > p->max)
			return -EINVAL;
		*out = v;
		return 0;
	}
	case FAB_PARAM_WIDTH:
	case FAB_PARAM_SPEED: {
		if (!strcmp(s, "auto")) {
			*out = 0;
			return 0;
		}
		if (strchr(s, ','))
			return -EINVAL;
		int m = p->type == FAB_PARAM_WIDTH ? fab_widths_parse(s) : fab_speeds_parse(s);
		if (m <= 0)
			return -EINVAL;
		*out = m;
		return 0;
	}
	case FAB_PARAM_SLS: {
		unsigned m = 0;

		for (const char *c = s;;) {
			char *end;
			if (*c < '0' || *c > '9')
				return -EINVAL;
			unsigned long a = strtoul(c, &end, 10), b = a;
			if (*end == '-') {
				c = end + 1;
				if (*c < '0' || *c > '9')
					return -EINVAL;
				b = strtoul(c, &end, 10);
			}
			if (a > 15 || b > 15 || b < a)
				return -EINVAL;
			for (unsigned long k = a; k <= b; k++)
				m |= 1u << k;
			if (!*end)
				break;
			if (*end != ',')
				return -EINVAL;
			c = end + 1;
		}
		*out = m;
		return 0;
	}
	case FAB_PARAM_MTU: {
		double bytes;
		int m;

		if (is_off(s)) {
			*out = FAB_PARAM_OFF;
			return 0;
		}
		if (parse_whole(s, 256, 4096, &bytes) ||
		    (m = fab_mtu_from_bytes((unsigned)bytes)) <= 0)
			return -EINVAL;
		*out = m;
		return 0;
	}
	default:
		return -EINVAL;
	}
}

/* ---- counter increase limits ---------------------------------------------- */

void fab_rules_increase_limits(const struct fab_config *cfg, struct fab_counter_limits *out)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	for (size_t k = 0; k < FAB_CTR__COUNT; k++)
		out->allowed[k] = FAB_PARAM_OFF;
	for (size_t i = 0; i < n; i++) {
		const struct fab_rule *r = &t[i];

		if (r->retired || r->check != check_counters || fab_config_severity(cfg, r) < 0)
			continue;
		for (size_t k = 0; k < r->n_params; k++) {
			const struct fab_rule_param *p = &r->params[k];
			double v = fab_config_value(cfg, r, k);

			if (p->type != FAB_PARAM_INCREASE || p->arg < 0 || p->arg >= FAB_CTR__COUNT ||
			    v < 0)
				continue;
			if (out->allowed[p->arg] < 0 || v < out->allowed[p->arg])
				out->allowed[p->arg] = v; /* the strictest rule */
		}
	}
}
