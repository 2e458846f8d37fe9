// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the rtnetlink DCB reply parser,
 * fab_dcb_parse_reply() (host/dcb.c): arbitrary bytes as one
 * netlink message (nlmsghdr included). Either -EBADMSG with the output
 * untouched, or a description within its limits. Then the request builder
 * and the parser agree: a request built for an interface name taken from the
 * input parses (it has the reply's layout) with the same name.
 *
 * Seeds: fuzz/corpus/dcb/ (the captured replies of fixtures/dcb/ and a full
 * IEEE reply laid out as the kernel's dcbnl_ieee_fill() writes it). Build
 * and run: fuzz/README.md.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/roce_collect.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reply(const struct fab_dcb_info *d)
{
	FUZZ_REQUIRE(memchr(d->ifname, 0, sizeof(d->ifname)));
	FUZZ_REQUIRE(d->error <= 0 && d->error >= -4095);
	FUZZ_REQUIRE(d->dcbx_mode >= -1 && d->dcbx_mode <= 255);
	FUZZ_REQUIRE(d->n_apps <= FAB_DCB_MAX_APPS);
	FUZZ_REQUIRE(!d->apps_truncated || d->n_apps == FAB_DCB_MAX_APPS);
	FUZZ_REQUIRE(!d->n_apps || d->app_table);
	for (size_t i = 0; i < d->n_apps; i++)
		FUZZ_REQUIRE(d->apps[i].priority <= 7 && d->apps[i].selector <= 7);
	if (d->error) /* an error reply says nothing else */
		FUZZ_REQUIRE(!d->ifname[0] && !d->n_apps && !d->pfc.valid && !d->ets.valid);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fab_dcb_info d, d0; /* large: not on the stack */
	uint8_t req[64];
	char ifname[17];

	memset(&d, 0xa5, sizeof(d));
	d0 = d;
	int rc = fab_dcb_parse_reply(data, size, &d);
	if (rc) {
		FUZZ_REQUIRE(rc == -EBADMSG && !memcmp(&d, &d0, sizeof(d)));
	} else {
		check_reply(&d);
	}

	/* request -> parser round trip, with a name made of the first bytes */
	size_t n = size < 16 ? size : 16;
	memcpy(ifname, data, n);
	ifname[n] = '\0';
	size_t len = strlen(ifname);
	int rl = fab_dcb_build_request(ifname, (uint32_t)size, req, sizeof(req));
	if (len < 1 || len > 15) {
		FUZZ_REQUIRE(rl == -EINVAL);
		return 0;
	}
	FUZZ_REQUIRE(rl > 0 && (size_t)rl <= sizeof(req) && rl % 4 == 0);
	FUZZ_REQUIRE(fab_dcb_parse_reply(req, (size_t)rl, &d) == 0);
	FUZZ_REQUIRE(!strcmp(d.ifname, ifname) && !d.error && !d.n_apps && d.dcbx_mode == -1);
	/* and every truncation of it (an exact-size copy, so that a sanitizer
	 * sees any overread) is refused */
	for (int cut = 0; cut < rl; cut++) {
		uint8_t *h = malloc(cut ? (size_t)cut : 1);
		if (!h)
			break;
		memcpy(h, req, (size_t)cut);
		FUZZ_REQUIRE(fab_dcb_parse_reply(h, (size_t)cut, &d) == -EBADMSG);
		free(h);
	}
	return 0;
}
