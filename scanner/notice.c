// SPDX-License-Identifier: MIT
/*
 * The SA's event MADs (scanner/notice.h): InformInfo, Report(Notice),
 * ReportResp and the simulator path's SMInfo answer. Offsets are the
 * InfiniBand Architecture's (vol. 1, 13.4 and 14.2.5.1); every field is
 * big-endian on the wire.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fabsweep/names.h"
#include "scanner/madwin.h"
#include "scanner/notice.h"

/* The common MAD header. */
#define M_CLASS 1
#define M_CLASS_VERSION 2
#define M_METHOD 3
#define M_STATUS 4 /* 16 bits; directed route: bit 15 of byte 4 is Direction */
#define M_TID 8
#define M_ATTR 16

/* InformInfo, from the start of the SA data. */
#define II_LID_BEGIN 16
#define II_LID_END 18
#define II_IS_GENERIC 22
#define II_SUBSCRIBE 23
#define II_TYPE 24
#define II_TRAP 26
#define II_QPN_RESP 28 /* QPN (24 bits), reserved (3), RespTimeValue (5) */
#define II_PRODUCER 32 /* reserved (8), ProducerType (24) */
#define II_RESP_TIME 18 /* 4.096 us x 2^18: about a second (stored, never used by OpenSM) */

/* Notice, from the start of the SA data. */
#define N_TYPE 0     /* IsGeneric (1), Type (7) */
#define N_PRODUCER 0 /* the low 24 bits of the first word */
#define N_TRAP 4
#define N_ISSUER_LID 6
#define N_DETAILS 10 /* 54 bytes */
#define N_ISSUER_GID 64

/* SMInfo, from the start of the SMP data. */
#define SMI_GUID 0
#define SMI_PRIO_STATE 20

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

void fab_inform_encode(uint8_t ii[FAB_INFORM_LEN], bool subscribe)
{
	memset(ii, 0, FAB_INFORM_LEN); /* GID 0: no port named */
	put16(ii + II_LID_BEGIN, 0xffff); /* all sources, no access check */
	ii[II_IS_GENERIC] = 1;
	ii[II_SUBSCRIBE] = subscribe;
	put16(ii + II_TYPE, 0xffff);
	put16(ii + II_TRAP, 0xffff);
	/* QPN 1 (the SM overwrites it with the sender's); an unsubscribe must
	 * carry the same value as the subscription to match it */
	put32(ii + II_QPN_RESP, 1u << 8 | II_RESP_TIME);
	put32(ii + II_PRODUCER, 0xffffff);
}

int fab_inform_check(const uint8_t *mad, bool subscribe, unsigned *status_out)
{
	const uint8_t *d = mad + FAB_SA_DATA_OFFS;
	unsigned status = get16(mad + M_STATUS);

	*status_out = status;
	if (mad[M_CLASS] != FAB_MAD_CLASS_SA || mad[M_METHOD] != FAB_MAD_GET_RESP ||
	    get16(mad + M_ATTR) != FAB_SA_ATTR_INFORMINFO)
		return -EPROTO;
	if (status & 0x7fff)
		return -EREMOTEIO;
	if (d[II_SUBSCRIBE] != subscribe || !d[II_IS_GENERIC] || get16(d + II_TRAP) != 0xffff)
		return -EPROTO;
	return 0;
}

/* Trap-specific DataDetails (offsets from DataDetails). */
static void decode_details(const uint8_t *dd, struct fab_notice *n)
{
	switch (n->trap) {
	case FAB_TRAP_GID_IN:
	case FAB_TRAP_GID_OUT:
		n->guid = get64(dd + 6 + 8); /* the GID at [6..21]: its interface ID */
		break;
	case FAB_TRAP_LINK_STATE:
		n->lid = get16(dd);
		break;
	case FAB_TRAP_CAPMASK:
		n->lid = get16(dd + 2);
		n->cap_mask = get32(dd + 6);
		break;
	case FAB_TRAP_SYSGUID:
		n->lid = get16(dd + 2);
		n->guid = get64(dd + 6);
		break;
	case FAB_TRAP_BAD_MKEY:
		n->lid = get16(dd + 2);
		n->method = dd[6];
		n->attr_id = get16(dd + 8);
		n->mkey = get64(dd + 14);
		break;
	case FAB_TRAP_BAD_PKEY:
	case FAB_TRAP_BAD_QKEY:
		n->lid = get16(dd + 2);
		n->lid2 = get16(dd + 4);
		n->key = get32(dd + 6);
		break;
	case FAB_TRAP_BAD_SWITCH_PKEY:
		n->lid = get16(dd + 2);
		n->lid2 = get16(dd + 4);
		n->key = get16(dd + 6);
		n->sw_lid = get16(dd + 48);
		n->port = dd[50];
		break;
	}
}

int fab_notice_decode(const uint8_t *mad, struct fab_notice *out)
{
	const uint8_t *d = mad + FAB_SA_DATA_OFFS;

	if (mad[M_CLASS] != FAB_MAD_CLASS_SA || mad[M_METHOD] != FAB_MAD_REPORT ||
	    get16(mad + M_ATTR) != FAB_SA_ATTR_NOTICE)
		return -EPROTO;
	memset(out, 0, sizeof(*out));
	out->tid = get32(mad + M_TID + 4);
	out->generic = d[N_TYPE] >> 7;
	out->type = d[N_TYPE] & 0x7f;
	out->producer = get32(d + N_PRODUCER) & 0xffffff;
	out->trap = out->generic ? get16(d + N_TRAP) : 0;
	out->issuer_lid = get16(d + N_ISSUER_LID);
	out->issuer_guid = get64(d + N_ISSUER_GID + 8);
	if (out->generic)
		decode_details(d + N_DETAILS, out);
	return 0;
}

void fab_report_resp(const uint8_t *report, uint8_t *resp)
{
	memcpy(resp, report, FAB_MAD_SIZE);
	resp[M_METHOD] = FAB_MAD_REPORT_RESP;
	put16(resp + M_STATUS, 0);
}

bool fab_sminfo_is_get(const uint8_t *mad)
{
	return (mad[M_CLASS] == FAB_MAD_CLASS_SMI || mad[M_CLASS] == FAB_MAD_CLASS_SMI_DR) &&
	       mad[M_METHOD] == FAB_MAD_GET && get16(mad + M_ATTR) == 0x0020;
}

void fab_sminfo_notactive(const uint8_t *get, uint64_t port_guid, uint8_t *resp)
{
	memcpy(resp, get, FAB_MAD_SIZE);
	resp[M_METHOD] = FAB_MAD_GET_RESP;
	/* status 0; a directed-route answer travels back: Direction set */
	resp[M_STATUS] = get[M_CLASS] == FAB_MAD_CLASS_SMI_DR ? 0x80 : 0;
	resp[M_STATUS + 1] = 0;
	memset(resp + FAB_MAD_DATA_OFFS, 0, 64);
	put64(resp + FAB_MAD_DATA_OFFS + SMI_GUID, port_guid);
	resp[FAB_MAD_DATA_OFFS + SMI_PRIO_STATE] = 0; /* priority 0, notactive */
}

void fab_notice_describe(const struct fab_notice *n, char *buf, size_t len)
{
	char g[FAB_GUID_STRLEN];

	fab_guid_format(n->trap == FAB_TRAP_GID_IN || n->trap == FAB_TRAP_GID_OUT ||
			n->trap == FAB_TRAP_SYSGUID ? n->guid : n->issuer_guid, g);
	if (!n->generic) {
		snprintf(buf, len, "vendor notice (vendor 0x%06x) from LID %u", n->producer,
			 n->issuer_lid);
		return;
	}
	switch (n->trap) {
	case FAB_TRAP_GID_IN:
	case FAB_TRAP_GID_OUT:
		snprintf(buf, len, "port %s %s service", g, n->trap == FAB_TRAP_GID_IN ? "in" : "out of");
		break;
	case FAB_TRAP_LINK_STATE:
		snprintf(buf, len, "link state change at switch LID %u (%s)", n->lid, g);
		break;
	case FAB_TRAP_CAPMASK:
		snprintf(buf, len, "capability mask of LID %u is 0x%08x", n->lid, n->cap_mask);
		break;
	case FAB_TRAP_SYSGUID:
		snprintf(buf, len, "system image GUID of LID %u is %s", n->lid, g);
		break;
	case FAB_TRAP_BAD_MKEY:
		snprintf(buf, len, "bad M_Key 0x%016llx at LID %u (method 0x%02x, attribute 0x%04x)",
			 (unsigned long long)n->mkey, n->lid, n->method, n->attr_id);
		break;
	case FAB_TRAP_BAD_PKEY:
	case FAB_TRAP_BAD_QKEY:
		snprintf(buf, len, "bad %s_Key 0x%x from LID %u to LID %u",
			 n->trap == FAB_TRAP_BAD_PKEY ? "P" : "Q", n->key, n->lid, n->lid2);
		break;
	case FAB_TRAP_BAD_SWITCH_PKEY:
		snprintf(buf, len, "bad P_Key 0x%04x from LID %u to LID %u at switch LID %u port %u",
			 n->key, n->lid, n->lid2, n->sw_lid, n->port);
		break;
	default:
		snprintf(buf, len, "trap %u (type %u) from LID %u", n->trap, n->type, n->issuer_lid);
	}
}
