// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the SA's event MADs watch receives
 * (scanner/notice.c): whatever arrives as a Report or an InformInfo answer
 * (the first 256 bytes of the input, zero padded). A Report decodes only
 * when it is one (class SA, method Report, attribute Notice), and its one-
 * line description is NUL-terminated printable ASCII in any buffer size; an
 * InformInfo answer is accepted only as a GetResp echo with status 0; the
 * ReportResp echoes everything but method and status; the simulator path's
 * SMInfo answer is a GetResp. Seeds: the captured MADs of fixtures/mads/.
 * Build and run: fuzz/README.md.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzcheck.h"
#include "scanner/madwin.h"
#include "scanner/notice.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[FAB_MAD_SIZE] = { 0 }, out[FAB_MAD_SIZE];
	struct fab_notice n;
	char small[12], line[200];
	unsigned status;

	memcpy(mad, data, size < FAB_MAD_SIZE ? size : FAB_MAD_SIZE);
	if (fab_notice_decode(mad, &n) == 0) {
		FUZZ_REQUIRE(mad[1] == FAB_MAD_CLASS_SA && mad[3] == FAB_MAD_REPORT);
		FUZZ_REQUIRE(n.type < 128 && n.producer <= 0xffffff);
		FUZZ_REQUIRE(n.generic || n.trap == 0);
		fab_notice_describe(&n, line, sizeof(line));
		FUZZ_REQUIRE(memchr(line, 0, sizeof(line)) && fuzz_text_is_safe(line));
		for (const char *c = line; *c; c++)
			FUZZ_REQUIRE(*c >= ' ' && *c < 0x7f);
		fab_notice_describe(&n, small, sizeof(small));
		FUZZ_REQUIRE(memchr(small, 0, sizeof(small)) && !strncmp(small, line, strlen(small)));
	} else {
		FUZZ_REQUIRE(mad[1] != FAB_MAD_CLASS_SA || mad[3] != FAB_MAD_REPORT ||
			     mad[16] != 0 || mad[17] != FAB_SA_ATTR_NOTICE);
	}
	for (int sub = 0; sub < 2; sub++) {
		int rc = fab_inform_check(mad, sub, &status);
		FUZZ_REQUIRE(rc == 0 || rc == -EREMOTEIO || rc == -EPROTO);
		if (rc == 0)
			FUZZ_REQUIRE((status & 0x7fff) == 0 && mad[3] == FAB_MAD_GET_RESP &&
				     mad[FAB_SA_DATA_OFFS + 23] == sub);
	}
	fab_report_resp(mad, out);
	FUZZ_REQUIRE(out[3] == FAB_MAD_REPORT_RESP && out[4] == 0 && out[5] == 0);
	FUZZ_REQUIRE(!memcmp(out, mad, 3) && !memcmp(out + 6, mad + 6, FAB_MAD_SIZE - 6));
	if (fab_sminfo_is_get(mad)) {
		fab_sminfo_notactive(mad, 0x1234, out);
		FUZZ_REQUIRE(out[3] == FAB_MAD_GET_RESP && out[FAB_MAD_DATA_OFFS + 20] == 0);
		FUZZ_REQUIRE(!memcmp(out + 8, mad + 8, 8));
	}
	return 0;
}
