// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for what a port advertises over LLDP: the IEEE 802.1Qaz
 * TLV decoders (fab_dcbx_decode_ets_cfg/_ets_reco/_pfc/_app, core/roce.c),
 * fab_roce_decode_tlvs() over a port's list of organisationally specific
 * TLVs as lldpd hands them over, the Application Priority text form
 * (fab_app_format/fab_app_parse must give the entries back) and the
 * sanitizer every LLDP string goes through (fab_roce_strdup_safe).
 *
 * Input: a sequence of TLVs, each
 *   flags(1) [oui(3) unless flags bit 0] subtype(1) len(2, big-endian,
 *   taken modulo 508) info(len)
 * With flags bit 0 the OUI is IEEE 802.1 (00-80-C2); with bit 1 as well the
 * subtype is forced into 9..12 (ETS configuration, ETS recommendation, PFC,
 * APP), so that most inputs reach the decoders. Seeds: fuzz/corpus/lldp/,
 * the TLVs of fixtures/lldp/ in this framing. Build and run: fuzz/README.md.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/roce.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define INFO_MAX 507 /* 511 - OUI - subtype */
#define TLVS_MAX 64

/* A decoder that refuses its input must leave out untouched. */
static void check_decoders(const uint8_t *info, size_t len)
{
	struct fab_ets e, e0;
	struct fab_pfc p, p0;
	struct fab_app_entry apps[8], apps0[8];
	size_t n = 12345;

	memset(&e, 0xa5, sizeof(e));
	e0 = e;
	if (fab_dcbx_decode_ets_cfg(info, len, &e)) {
		FUZZ_REQUIRE(len != 21 && !memcmp(&e, &e0, sizeof(e)));
	} else {
		FUZZ_REQUIRE(len == 21 && e.valid && e.max_tcs >= 1 && e.max_tcs <= 8);
		for (unsigned i = 0; i < FAB_PRIOS; i++)
			FUZZ_REQUIRE(e.prio_tc[i] <= 15);
	}
	memset(&e, 0x5a, sizeof(e));
	e0 = e;
	if (fab_dcbx_decode_ets_reco(info, len, &e))
		FUZZ_REQUIRE(len != 21 && !memcmp(&e, &e0, sizeof(e)));
	else
		FUZZ_REQUIRE(len == 21 && e.valid && !e.willing && !e.cbs);
	memset(&p, 0xa5, sizeof(p));
	p0 = p;
	if (fab_dcbx_decode_pfc(info, len, &p))
		FUZZ_REQUIRE(len != 2 && !memcmp(&p, &p0, sizeof(p)));
	else
		FUZZ_REQUIRE(len == 2 && p.valid && p.cap <= 15 && p.enabled == info[1]);
	memset(apps, 0xa5, sizeof(apps));
	memcpy(apps0, apps, sizeof(apps));
	if (fab_dcbx_decode_app(info, len, apps, 8, &n)) {
		FUZZ_REQUIRE(!memcmp(apps, apps0, sizeof(apps)) && n == 12345);
	} else {
		FUZZ_REQUIRE(len >= 1 && (len - 1) % 3 == 0 && n == (len - 1) / 3);
		for (size_t i = 0; i < n && i < 8; i++)
			FUZZ_REQUIRE(apps[i].priority <= 7 && apps[i].selector <= 7);
		/* entries past cap are not written */
		for (size_t i = n; i < 8; i++)
			FUZZ_REQUIRE(!memcmp(&apps[i], &apps0[i], sizeof(apps[i])));
	}
}

/* The text form gives the same entries back. */
static void check_app_text(const struct fab_app_entry *e, size_t n)
{
	size_t need = fab_app_format(e, n, NULL, 0);
	char *buf = malloc(need + 1);
	struct fab_app_entry *back = calloc(n + 1, sizeof(*back));
	size_t got = 0;

	if (!buf || !back)
		goto out;
	FUZZ_REQUIRE(fab_app_format(e, n, buf, need + 1) == need && strlen(buf) == need);
	FUZZ_REQUIRE(fab_app_parse(buf, back, n + 1, &got) == 0 && got == n);
	for (size_t i = 0; i < n; i++)
		FUZZ_REQUIRE(back[i].priority == e[i].priority &&
			     back[i].selector == e[i].selector &&
			     back[i].protocol == e[i].protocol);
	/* a short buffer is cut, NUL-terminated, and says how much it needs */
	if (need > 4)
		FUZZ_REQUIRE(fab_app_format(e, n, buf, 4) == need && strlen(buf) == 3);
out:
	free(buf);
	free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { .p = data, .len = size };
	struct fab_roce *r = fab_roce_new();
	size_t n_8021 = 0;

	if (!r)
		return 0;
	while (fuzz_left(&in) && r->n_tlvs < TLVS_MAX) {
		uint8_t flags = fuzz_u8(&in), o[3] = { 0x00, 0x80, 0xc2 };
		if (!(flags & 1))
			fuzz_bytes(&in, o, 3);
		uint32_t oui = (uint32_t)o[0] << 16 | (uint32_t)o[1] << 8 | o[2];
		unsigned sub = fuzz_u8(&in);
		if ((flags & 3) == 3)
			sub = FAB_8021_ETS_CFG + sub % 4;
		size_t len = fuzz_u16(&in) % (INFO_MAX + 1);
		if (len > in.len - in.off)
			len = in.len - in.off;
		const uint8_t *info = in.p + in.off;
		in.off += len;

		check_decoders(info, len);
		/* the same bytes as an LLDP string (system name, port id...) */
		char *str = malloc(len + 1);
		if (str) {
			memcpy(str, info, len);
			str[len] = '\0';
			const char *safe = fab_roce_strdup_safe(r, str);
			FUZZ_REQUIRE(!safe || fuzz_text_is_safe(safe));
			free(str);
		}
		if (fab_roce_add_tlv(r, oui, sub, info, len))
			goto out;
		n_8021 += oui == FAB_OUI_8021 && sub >= FAB_8021_ETS_CFG && sub <= FAB_8021_APP;
	}

	struct fab_dcbx d;
	if (fab_roce_decode_tlvs(r, 0, (uint32_t)r->n_tlvs, &d))
		goto out;
	FUZZ_REQUIRE(d.bad_tlvs <= n_8021);
	if (d.pfc.valid)
		FUZZ_REQUIRE(d.pfc.cap <= 15);
	if (d.ets.valid)
		FUZZ_REQUIRE(d.ets.max_tcs >= 1 && d.ets.max_tcs <= 8);
	if (d.app_valid) {
		FUZZ_REQUIRE(d.app_first <= r->n_apps && d.app_count <= r->n_apps - d.app_first);
		for (uint32_t i = 0; i < d.app_count; i++) {
			const struct fab_app_entry *e = &r->apps[d.app_first + i];
			FUZZ_REQUIRE(e->priority <= 7 && e->selector <= 7);
		}
		/* an APP TLV with no entry leaves r->apps NULL */
		check_app_text(d.app_count ? &r->apps[d.app_first] : NULL, d.app_count);
	} else {
		FUZZ_REQUIRE(d.app_count == 0);
	}
	/* a window of the list decodes too (a neighbour's TLVs among others) */
	if (r->n_tlvs > 2 && fab_roce_decode_tlvs(r, 1, (uint32_t)r->n_tlvs, &d))
		goto out;
	/* a range that wraps around is empty, not a wild read */
	if (fab_roce_decode_tlvs(r, UINT32_MAX - 1, 5, &d))
		goto out;
	FUZZ_REQUIRE(!d.app_valid && !d.pfc.valid && !d.ets.valid && !d.bad_tlvs);
out:
	fab_roce_free(r);
	return 0;
}
