// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the rule configuration parser, fab_config_parse()
 * (rules/config.c). Seeds: fuzz/corpus/config/ (they also run as a plain
 * unit test, tests/unit/rules/test_config.c). Build and run from the
 * repository root:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
 *     -D_GNU_SOURCE -DFABSWEEP_VERSION='"fuzz"' -Iinclude -I. -o /tmp/fuzz_config \
 *     fuzz/fuzz_config.c rules/config.c rules/params.c rules/table.c \
 *     rules/engine.c rules/check_*.c core/[a-z]*.c -lm
 *   mkdir -p /tmp/corpus_config && cp fuzz/corpus/config/[a-z]* /tmp/corpus_config/
 *   /tmp/fuzz_config -max_len=8192 -max_total_time=300 /tmp/corpus_config
 */
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/config.h"
#include "fabsweep/rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fab_config *cfg = NULL;

	if (fab_config_parse((const char *)data, size, "fuzz", &cfg) == 0) {
		size_t n, ns;
		const struct fab_rule *t = fab_rules_table(&n);
		/* touch what was parsed */
		for (size_t i = 0; i < n; i++) {
			(void)fab_config_severity(cfg, &t[i]);
			for (size_t k = 0; k < t[i].n_params; k++)
				(void)fab_config_value(cfg, &t[i], k);
		}
		(void)fab_config_suppressions(cfg, &ns);
		fab_config_free(cfg);
	}
	return 0;
}
