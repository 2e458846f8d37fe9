// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for site rule files (docs/site-rules.md): the strict
 * header parser, fab_site_rules_parse() (rules/site_load.c), and, for a file
 * it accepts, compiling its query in the sandbox (store/site_query.c) against
 * an empty database of the current schema, as `fabsweep rules` does. Nothing
 * runs: compiling is where the authorizer decides. Seeds:
 * fuzz/corpus/site_rule/ (run as the ctest test fuzz/site_rule in every
 * build; fuzz/CMakeLists.txt builds the libFuzzer binary with
 * -DFABSWEEP_FUZZ=ON):
 *
 *   build-fuzz/fuzz/fuzz_site_rule -max_len=8192 -max_total_time=300 CORPUS_COPY
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fabsweep/site_rules.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store_site.h"
#include "fuzz/fuzzcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fab_site_db *db;
	struct fab_site_rules *rs;
	struct fab_site_rule *r;
	size_t n;

	if (!db)
		FUZZ_REQUIRE(fab_site_db_open(NULL, &db) == 0); /* kept for the process */
	if (fab_site_rules_parse((const char *)data, size, "fuzz.sql", &rs))
		return 0; /* out of memory */
	r = fab_site_rules_list(rs, &n);
	FUZZ_REQUIRE(n == 1);
	if (r->status == FAB_SITE_BROKEN) {
		FUZZ_REQUIRE(r->error && !strncmp(r->error, "fuzz.sql", 8) && r->err < 0);
		FUZZ_REQUIRE(fuzz_text_is_safe(r->error)); /* the file passed as text, or is named by a byte in hex */
	} else {
		FUZZ_REQUIRE(r->status == FAB_SITE_LOADED);
		FUZZ_REQUIRE(r->id && !strncmp(r->id, FAB_SITE_ID_PREFIX, 5) &&
			     strlen(r->id) <= FAB_SITE_ID_MAX);
		FUZZ_REQUIRE(r->severity < FAB_SEV__COUNT);
		FUZZ_REQUIRE(r->time_limit > 0 && r->time_limit <= FAB_SITE_TIME_MAX);
		/* what `rules` prints is safe on a terminal */
		FUZZ_REQUIRE(fuzz_text_is_safe(r->title) && fuzz_text_is_safe(r->remediation));
		FUZZ_REQUIRE(!r->rationale || fuzz_text_is_safe(r->rationale));
		FUZZ_REQUIRE(r->sql >= r->text && r->sql <= r->text + strlen(r->text));
		int err = fab_site_db_query(db, r->path, r->sql, r->time_limit, 0, 0, NULL, NULL);
		FUZZ_REQUIRE(err == 0 || err == -EPERM || err == -EINVAL || err == -ETIME ||
			     err == -E2BIG || err == -ENOMEM || err == -EIO);
	}
	fab_site_rules_free(rs);
	return 0;
}
