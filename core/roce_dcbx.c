// SPDX-License-Identifier: MIT
/*
 * IEEE 802.1Qaz (DCBX) in the RoCE model: pure, bounds-checked decoders of
 * the ETS, PFC and Application Priority TLVs, the application tables as
 * text, and the TLVs a port advertised decoded into its fab_dcbx.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/names.h"
#include "fabsweep/roce.h"

/* ---- 802.1Qaz decoders (pure) ----------------------------------------- */

#define ETS_INFO_LEN 21 /* flags byte, 4 bytes prio table, 8 bw, 8 tsa */
#define PFC_INFO_LEN 2

static void decode_ets_tables(const uint8_t *p, struct fab_ets *e)
{
	for (unsigned i = 0; i < 4; i++) {
		e->prio_tc[2 * i] = p[i] >> 4;
		e->prio_tc[2 * i + 1] = p[i] & 0x0f;
	}
	memcpy(e->tc_bw, p + 4, FAB_PRIOS);
	memcpy(e->tsa, p + 12, FAB_PRIOS);
}

int fab_dcbx_decode_ets_cfg(const uint8_t *info, size_t len, struct fab_ets *out)
{
	struct fab_ets e = { .valid = true };

	if (!info || len != ETS_INFO_LEN)
		return -EBADMSG;
	e.willing = info[0] >> 7 & 1;
	e.cbs = info[0] >> 6 & 1;
	e.max_tcs = info[0] & 0x07;
	if (!e.max_tcs)
		e.max_tcs = 8;
	decode_ets_tables(info + 1, &e);
	*out = e;
	return 0;
}

int fab_dcbx_decode_ets_reco(const uint8_t *info, size_t len, struct fab_ets *out)
{
	struct fab_ets e = { .valid = true };

	if (!info || len != ETS_INFO_LEN)
		return -EBADMSG;
	decode_ets_tables(info + 1, &e); /* byte 0 is reserved */
	*out = e;
	return 0;
}

int fab_dcbx_decode_pfc(const uint8_t *info, size_t len, struct fab_pfc *out)
{
	if (!info || len != PFC_INFO_LEN)
		return -EBADMSG;
	*out = (struct fab_pfc){
		.valid = true,
		.willing = info[0] >> 7 & 1,
		.mbc = info[0] >> 6 & 1,
		.cap = info[0] & 0x0f,
		.enabled = info[1],
	};
	return 0;
}

int fab_dcbx_decode_app(const uint8_t *info, size_t len,
			struct fab_app_entry *out, size_t cap, size_t *out_n)
{
	/* 1 reserved byte, then 3-byte entries: prio(7..5) sel(2..0), protocol */
	if (!info || len < 1 || (len - 1) % 3 != 0)
		return -EBADMSG;
	size_t n = (len - 1) / 3;
	for (size_t i = 0; i < n && i < cap; i++) {
		const uint8_t *e = info + 1 + 3 * i;
		out[i] = (struct fab_app_entry){
			.priority = e[0] >> 5,
			.selector = e[0] & 0x07,
			.protocol = (uint16_t)(e[1] << 8 | e[2]),
		};
	}
	*out_n = n;
	return 0;
}

/* ---- application priority tables as text ------------------------------ */

static const char *const app_sels[] = {
	[FAB_APP_SEL_ETHERTYPE] = "ether", [FAB_APP_SEL_TCP] = "tcp",
	[FAB_APP_SEL_UDP] = "udp",	   [FAB_APP_SEL_PORT] = "port",
	[FAB_APP_SEL_DSCP] = "dscp",
};

size_t fab_app_format(const struct fab_app_entry *e, size_t n, char *buf,
		      size_t cap)
{
	size_t off = 0;

	if (cap)
		buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char one[48];
		unsigned sel = e[i].selector;
		const char *name = sel < ARRAY_SIZE(app_sels) ? app_sels[sel] : NULL;
		int k;

		if (name && sel == FAB_APP_SEL_ETHERTYPE)
			k = snprintf(one, sizeof(one), "%s%s:0x%04x=%u", i ? "," : "",
				     name, e[i].protocol, e[i].priority);
		else if (name)
			k = snprintf(one, sizeof(one), "%s%s:%u=%u", i ? "," : "", name,
				     e[i].protocol, e[i].priority);
		else
			k = snprintf(one, sizeof(one), "%ssel%u:%u=%u", i ? "," : "", sel,
				     e[i].protocol, e[i].priority);
		if (k < 0)
			continue;
		if (off < cap)
			snprintf(buf + off, cap - off, "%s", one);
		off += (size_t)k;
	}
	return off;
}

int fab_app_parse(const char *s, struct fab_app_entry *out, size_t cap,
		  size_t *out_n)
{
	size_t n = 0;

	if (!s)
		return -EINVAL;
	while (*s) {
		const char *colon = strchr(s, ':');
		unsigned long sel = 0, proto, prio;
		char *end;

		if (!colon)
			return -EINVAL;
		size_t nl = (size_t)(colon - s);
		bool found = false;
		for (unsigned k = 0; k < ARRAY_SIZE(app_sels); k++)
			if (app_sels[k] && strlen(app_sels[k]) == nl &&
			    !strncmp(s, app_sels[k], nl)) {
				sel = k;
				found = true;
			}
		if (!found) {
			if (nl < 4 || strncmp(s, "sel", 3))
				return -EINVAL;
			sel = strtoul(s + 3, &end, 10);
			if (end != colon || sel > 7)
				return -EINVAL;
		}
		proto = strtoul(colon + 1, &end, 0);
		if (end == colon + 1 || *end != '=' || proto > 0xffff)
			return -EINVAL;
		s = end + 1;
		prio = strtoul(s, &end, 10);
		if (end == s || prio > 7 || (*end && (*end != ',' || !end[1])))
			return -EINVAL;
		if (n < cap)
			out[n] = (struct fab_app_entry){ .priority = (uint8_t)prio,
							 .selector = (uint8_t)sel,
							 .protocol = (uint16_t)proto };
		n++;
		s = *end ? end + 1 : end;
	}
	*out_n = n;
	return 0;
}

const char *fab_tsa_name(unsigned tsa)
{
	switch (tsa) {
	case FAB_TSA_STRICT: return "strict";
	case FAB_TSA_CBS: return "cbs";
	case FAB_TSA_ETS: return "ets";
	case FAB_TSA_VENDOR: return "vendor";
	default: return NULL;
	}
}

/* ---- the 802.1Qaz TLVs of a port ----------------------------------------- */

int fab_roce_decode_tlvs(struct fab_roce *r, uint32_t first, uint32_t count,
			 struct fab_dcbx *out)
{
	struct fab_dcbx d = { 0 };
	struct fab_app_entry apps[170]; /* (511 - 4 - 1) / 3 entries at most */

	for (uint32_t i = first; i < first + count && i < r->n_tlvs; i++) {
		const struct fab_lldp_tlv *t = &r->tlvs[i];
		int bad = 0;
		size_t n;

		if (t->oui != FAB_OUI_8021)
			continue;
		switch (t->subtype) {
		case FAB_8021_ETS_CFG:
			bad = fab_dcbx_decode_ets_cfg(t->info, t->len, &d.ets);
			break;
		case FAB_8021_ETS_RECO:
			bad = fab_dcbx_decode_ets_reco(t->info, t->len, &d.ets_reco);
			break;
		case FAB_8021_PFC:
			bad = fab_dcbx_decode_pfc(t->info, t->len, &d.pfc);
			break;
		case FAB_8021_APP:
			bad = fab_dcbx_decode_app(t->info, t->len, apps, ARRAY_SIZE(apps), &n);
			if (bad)
				break;
			if (n > ARRAY_SIZE(apps))
				n = ARRAY_SIZE(apps);
			/* a second APP TLV continues the first one's table */
			if (d.app_valid && d.app_first + d.app_count == r->n_apps) {
				uint32_t f;
				if (fab_roce_add_apps(r, apps, n, &f))
					return -ENOMEM;
				d.app_count += (uint32_t)n;
			} else if (!d.app_valid) {
				if (fab_roce_add_apps(r, apps, n, &d.app_first))
					return -ENOMEM;
				d.app_count = (uint32_t)n;
				d.app_valid = true;
			}
			break;
		default:
			continue;
		}
		if (bad && d.bad_tlvs < UINT8_MAX)
			d.bad_tlvs++;
	}
	*out = d;
	return 0;
}
