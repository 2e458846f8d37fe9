// SPDX-License-Identifier: MIT
/* The rule configuration file: what it accepts, and every way it refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/config.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/rules.h"

static char path[512];

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/test_config_%d.conf", tmp ? tmp : "/tmp", (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	unlink(path);
	return 0;
}

static void write_file(const char *text, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static struct fab_config *load_ok(const char *text)
{
	struct fab_config *cfg = NULL;

	write_file(text, strlen(text));
	if (fab_config_load(path, &cfg))
		fail_msg("unexpected error: %s", fab_errmsg());
	return cfg;
}

/* Loading fails with -EINVAL and "PATH:LINE: ..." containing `what`. */
static void load_bad(const char *text, unsigned line, const char *what)
{
	struct fab_config *cfg = (struct fab_config *)0x1;
	char prefix[600];

	write_file(text, strlen(text));
	assert_int_equal(fab_config_load(path, &cfg), -EINVAL);
	assert_ptr_equal(cfg, (struct fab_config *)0x1); /* untouched */
	snprintf(prefix, sizeof(prefix), "%s:%u: ", path, line);
	if (strncmp(fab_errmsg(), prefix, strlen(prefix)) || !strstr(fab_errmsg(), what))
		fail_msg("wanted '%s...%s', got '%s'", prefix, what, fab_errmsg());
	assert_null(strchr(fab_errmsg(), '\n'));
}

/* Value of a parameter by section and key. */
static double value(const struct fab_config *cfg, const char *section, const char *key,
		    unsigned *line)
{
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < t[i].n_params; k++)
			if (!strcmp(t[i].params[k].section, section) &&
			    !strcmp(t[i].params[k].key, key)) {
				if (line)
					*line = fab_config_value_line(cfg, &t[i], k);
				return fab_config_value(cfg, &t[i], k);
			}
	fail_msg("no parameter [%s] %s", section, key);
	return 0;
}

static void test_defaults(void **state)
{
	struct fab_config *cfg;
	size_t n;
	const struct fab_rule *t = fab_rules_table(&n);

	assert_int_equal(fab_config_defaults(&cfg), 0);
	assert_null(fab_config_path(cfg));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(fab_config_severity(cfg, &t[i]), t[i].severity);
		assert_int_equal(fab_config_rule_line(cfg, &t[i]), 0);
		for (size_t k = 0; k < t[i].n_params; k++) {
			assert_true(fab_config_value(cfg, &t[i], k) == t[i].params[k].def);
			/* NULL config means defaults too */
			assert_true(fab_config_value(NULL, &t[i], k) == t[i].params[k].def);
		}
	}
	/* ibqueryerrors' suggested values */
	assert_true(value(cfg, "thresholds", "SymbolErrorCounter", NULL) == 10);
	assert_true(value(cfg, "thresholds", "PortXmitDiscards", NULL) == 100);
	assert_true(value(cfg, "thresholds", "PortXmitWait", NULL) == 1000);
	assert_true(value(cfg, "rates", "LinkDownedCounter", NULL) == FAB_PARAM_OFF);
	size_t ns;
	fab_config_suppressions(cfg, &ns);
	assert_int_equal(ns, 0);
	fab_config_free(cfg);
	fab_config_free(NULL);
}

/* The complete example of docs/config.md loads and means what it says. */
static void test_doc_example(void **state)
{
	char doc[1200];
	const char *fx = getenv("FIXTURES");
	FILE *f;
	static char text[1 << 16];

	snprintf(doc, sizeof(doc), "%s/../docs/config.md", fx ? fx : "fixtures");
	assert_non_null(f = fopen(doc, "r"));
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	char *ex = strstr(text, "## A complete example");
	assert_non_null(ex);
	char *start = strstr(ex, "```\n") + 4, *end = strstr(start, "```");
	*end = '\0';
	struct fab_config *cfg = load_ok(start);
	unsigned line;

	assert_string_equal(fab_config_path(cfg), path);
	assert_true(value(cfg, "thresholds", "SymbolErrorCounter", &line) == 100);
	assert_int_equal(line, 3);
	assert_true(value(cfg, "thresholds", "PortXmitWait", NULL) == FAB_PARAM_OFF);
	assert_true(value(cfg, "thresholds", "PortRcvErrors", &line) == 10); /* default */
	assert_int_equal(line, 0);
	assert_true(value(cfg, "rates", "SymbolErrorCounter", NULL) == 1);
	assert_true(value(cfg, "expect", "speed.host-leaf", NULL) == FAB_SPEED_HDR);
	assert_true(value(cfg, "expect", "width.leaf-spine", NULL) == 0); /* auto */
	assert_true(value(cfg, "expect", "mtu", NULL) == 5);
	assert_true(value(cfg, "topology.asymmetric", "min_peers", NULL) == 4);
	assert_int_equal(fab_config_severity(cfg, fab_rule_find("port.congestion")), -1);
	assert_int_equal(fab_config_severity(cfg, fab_rule_find("sm.no_standby")), FAB_SEV_ERROR);
	assert_int_not_equal(fab_config_rule_line(cfg, fab_rule_find("sm.no_standby")), 0);
	assert_int_equal(fab_config_severity(cfg, fab_rule_find("port.errors")), FAB_SEV_WARNING);
	size_t ns;
	const struct fab_suppression *s = fab_config_suppressions(cfg, &ns);
	assert_int_equal(ns, 1);
	assert_string_equal(s[0].rule, "port.errors");
	assert_string_equal(s[0].pattern, "leaf003/5");
	assert_string_equal(s[0].until, "2026-06-30");
	int64_t ms;
	assert_int_equal(fab_time_parse("2026-07-01T00:00:00Z", &ms), 0);
	assert_true(s[0].until_ms == ms); /* through the whole day */
	fab_config_free(cfg);
}

/* ibqueryerrors' thresholds file style pasted under [thresholds]. */
static void test_ibqueryerrors_paste(void **state)
{
	struct fab_config *cfg = load_ok(
		"[thresholds]\n"
		"# Define error thresholds here\n"
		"SymbolErrorCounter=10\n"
		"LinkErrorRecoveryCounter=10\n"
		"LinkDownedCounter=10\n"
		"PortRcvErrors=10\n"
		"PortRcvRemotePhysicalErrors=100\n"
		"PortRcvSwitchRelayErrors=100\n"
		"PortXmitDiscards=100\n"
		"PortXmitConstraintErrors=100\n"
		"PortRcvConstraintErrors=100\n"
		"LocalLinkIntegrityErrors=10\n"
		"ExcessiveBufferOverrunErrors=10\n"
		"VL15Dropped=100\n"
		"PortXmitWait=5000\n");
	unsigned line;

	assert_true(value(cfg, "thresholds", "PortXmitWait", &line) == 5000);
	assert_int_equal(line, 15);
	assert_true(value(cfg, "thresholds", "VL15Dropped", &line) == 100);
	assert_int_equal(line, 14);
	fab_config_free(cfg);
}

static void test_syntax_accepted(void **state)
{
	/* BOM, CRLF, comments anywhere, spaces, tabs, repeated sections */
	struct fab_config *cfg = load_ok(
		"\xef\xbb\xbf# site config\r\n"
		"\r\n"
		"  [ rates ]  # comment\r\n"
		"\tSymbolErrorCounter\t=\t0.5 # half a symbol error per second\r\n"
		"[expect]\n"
		"width.host-leaf = 4x\n"
		"speed.spine-core = FDR10\n"
		"[rates]\n"
		"PortRcvErrors = off\n"
		"[rules]\n"
		"port.errors = error\n"
		"port.congestion = on\n"
		"[suppress]\n"
		"port.* = host01 HCA-1/1 until 2026-03-01\n"
		"port.* = host02* until 2026-03-02   # second for the same key\n"
		"[sm.no_standby]\n"
		"min_standby = 2\n");

	assert_true(value(cfg, "rates", "SymbolErrorCounter", NULL) == 0.5);
	assert_true(value(cfg, "rates", "PortRcvErrors", NULL) == FAB_PARAM_OFF);
	assert_true(value(cfg, "expect", "width.host-leaf", NULL) == FAB_WIDTH_4X);
	assert_true(value(cfg, "expect", "speed.spine-core", NULL) == FAB_SPEED_FDR10);
	assert_true(value(cfg, "sm.no_standby", "min_standby", NULL) == 2);
	assert_int_equal(fab_config_severity(cfg, fab_rule_find("port.errors")), FAB_SEV_ERROR);
	assert_int_equal(fab_config_severity(cfg, fab_rule_find("port.congestion")), FAB_SEV_INFO);
	size_t ns;
	const struct fab_suppression *s = fab_config_suppressions(cfg, &ns);
	assert_int_equal(ns, 2);
	assert_string_equal(s[0].pattern, "host01 HCA-1/1");
	assert_int_equal(s[0].line, 14);
	assert_string_equal(s[1].pattern, "host02*");
	assert_string_equal(s[1].until, "2026-03-02");
	fab_config_free(cfg);
}

static void test_errors(void **state)
{
	load_bad("[thresholds]\nSymbolErrorCounter = 10\n[treshold]\n", 3, "unknown section [treshold]; known: [expect], [thresholds], [rates]");
	load_bad("[thresholds]\n\nSymbolErrors = 10\n", 3, "unknown key 'SymbolErrors' in [thresholds]; known: SymbolErrorCounter");
	load_bad("[thresholds]\nSymbolErrorCounter = ten\n", 2, "takes a whole number or 'off', not 'ten'");
	load_bad("[roce]\npriority = 9\n", 2, "'priority' in [roce] takes a whole number from 0 to 7, not '9'");
	load_bad("[roce]\ncnp_priority = 8\n", 2, "'cnp_priority' in [roce] takes 'auto' or a whole number from 0 to 7, not '8'");
	load_bad("[thresholds]\nSymbolErrorCounter = -1\n", 2, "not '-1'");
	load_bad("[thresholds]\nSymbolErrorCounter = 10.5\n", 2, "not '10.5'");
	load_bad("[thresholds]\nSymbolErrorCounter = 99999999999999999999999\n", 2, "whole number");
	load_bad("[rates]\nPortRcvErrors = fast\n", 2, "a number per second");
	load_bad("[rates]\nPortRcvErrors = nan\n", 2, "a number per second");
	load_bad("[rates]\nPortRcvErrors = -2\n", 2, "a number per second");
	load_bad("[expect]\nwidth.leaf-spine = 3X\n", 2, "a width (1X");
	load_bad("[expect]\nwidth.leaf-spine = 1X,4X\n", 2, "a width");
	load_bad("[expect]\nspeed.leaf-spine = 4X\n", 2, "a speed (SDR");
	load_bad("[expect]\nwidth.leaf-host = 4X\n", 2, "unknown key 'width.leaf-host' in [expect]");
	load_bad("[expect]\nmtu = 1000\n", 2, "an MTU in bytes");
	load_bad("[sm.no_standby]\nmin_standby = 0\n", 2, "takes a whole number from 1 to 15, not '0'");
	load_bad("[sm.no_standby]\nmin_standby = 16\n", 2, "not '16'");
	load_bad("SymbolErrorCounter=10\n", 1, "outside any section; counter thresholds go under [thresholds]");
	load_bad("# x\nfoo = 1\n", 2, "'foo' is outside any section");
	load_bad("[thresholds]\nSymbolErrorCounter = 10\nPortRcvErrors = 5\nSymbolErrorCounter = 20\n", 4,
		 "'SymbolErrorCounter' is set twice in [thresholds] (first at line 2)");
	load_bad("[rules]\nport.erors = off\n", 2, "unknown rule 'port.erors' in [rules]");
	load_bad("[rules]\nport.errors = loud\n", 2, "takes on, off, error, warning or info, not 'loud'");
	load_bad("[rules]\nport.errors = off\nport.errors = on\n", 3, "set twice in [rules] (first at line 2)");
	load_bad("[suppress]\nport.errors = leaf01/7\n", 2, "needs an expiry date");
	load_bad("[suppress]\nport.errors = leaf01/7 until 2026-02-30\n", 2, "'2026-02-30' is not a date");
	load_bad("[suppress]\nport.errors = leaf01/7 until tomorrow\n", 2, "'tomorrow' is not a date");
	load_bad("[suppress]\nport.errors = until 2026-02-01\n", 2, "needs a node/port pattern");
	load_bad("[suppress]\nprot.* = leaf01 until 2026-02-01\n", 2, "'prot.*' in [suppress] matches no rule");
	load_bad("[thresholds]\nSymbolErrorCounter 10\n", 2, "expected 'key = value' or '[section]'");
	load_bad("[thresholds] extra\n", 1, "a section header is '[name]' alone on its line");
	load_bad("[thresholds\n", 1, "a section header");
	load_bad("[thresholds]\nSymbolErrorCounter =\n", 2, "'SymbolErrorCounter' has no value");
	load_bad("[thresholds]\n= 10\n", 2, "no key");

	/* a line over the limit, a NUL byte */
	char big[FAB_CONFIG_LINE_MAX + 64];
	memset(big, '#', sizeof(big));
	big[0] = '\n';
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	load_bad(big, 2, "longer than");
	struct fab_config *cfg = (struct fab_config *)0x1;
	write_file("[thresholds]\nSymbolErrorCounter = 1\0 0\n", 38);
	assert_int_equal(fab_config_load(path, &cfg), -EINVAL);
	assert_non_null(strstr(fab_errmsg(), ":2: a NUL byte"));
}

static void test_missing_file(void **state)
{
	struct fab_config *cfg = (struct fab_config *)0x1;

	unlink(path);
	assert_int_equal(fab_config_load(path, &cfg), -ENOENT);
	assert_ptr_equal(cfg, (struct fab_config *)0x1);
	assert_non_null(strstr(fab_errmsg(), "cannot read config file"));
	assert_non_null(strstr(fab_errmsg(), path));
}

/* Every parameter's type round-trips through format and parse. */
static void test_param_values(void **state)
{
	const struct fab_rule *r = fab_rule_find("link.speed_degraded");
	double v;
	char buf[32];

	assert_non_null(r);
	assert_int_equal(fab_param_parse(&r->params[0], "auto", &v), 0);
	assert_true(v == 0);
	assert_int_equal(fab_param_parse(&r->params[0], "NDR", &v), 0);
	fab_param_format(&r->params[0], v, buf, sizeof(buf));
	assert_string_equal(buf, "NDR");
	assert_int_equal(fab_param_parse(&r->params[0], "", &v), -EINVAL);
	r = fab_rule_find("mtu.mismatch");
	assert_int_equal(fab_param_parse(&r->params[0], "2048", &v), 0);
	assert_true(v == 4);
	fab_param_format(&r->params[0], v, buf, sizeof(buf));
	assert_string_equal(buf, "2048");
	fab_param_format(&r->params[0], FAB_PARAM_OFF, buf, sizeof(buf));
	assert_string_equal(buf, "off");
	/* service levels: numbers and ranges, a 16-bit mask */
	r = fab_rule_find("routing.credit_loop");
	assert_int_equal(fab_param_parse(&r->params[0], "0,2,4-7,15", &v), 0);
	assert_true(v == (1 | 4 | 0xf0 | 0x8000));
	fab_param_format(&r->params[0], v, buf, sizeof(buf));
	assert_string_equal(buf, "0,2,4-7,15");
	fab_param_format(&r->params[0], r->params[0].def, buf, sizeof(buf));
	assert_string_equal(buf, "0-14");
	assert_int_equal(fab_param_parse(&r->params[0], "16", &v), -EINVAL);
	assert_int_equal(fab_param_parse(&r->params[0], "3-1", &v), -EINVAL);
	assert_int_equal(fab_param_parse(&r->params[0], "1,", &v), -EINVAL);
	assert_int_equal(fab_param_parse(&r->params[0], "", &v), -EINVAL);
	r = fab_rule_find("port.error_rate");
	assert_int_equal(fab_param_parse(&r->params[0], ".25", &v), 0);
	assert_true(v == 0.25);
	fab_param_format(&r->params[0], v, buf, sizeof(buf));
	assert_string_equal(buf, "0.25");
	assert_int_equal(fab_param_parse(&r->params[0], "1e3", &v), 0);
	assert_true(v == 1000);
	assert_int_equal(fab_param_parse(&r->params[0], "inf", &v), -EINVAL);
	assert_int_equal(fab_param_parse(&r->params[0], "1x", &v), -EINVAL);
	/* 'auto' or a whole number in range */
	r = fab_rule_find("roce.cnp_mismatch");
	assert_int_equal(fab_param_parse(&r->params[0], "auto", &v), 0);
	assert_true(v == FAB_PARAM_AUTO);
	fab_param_format(&r->params[0], v, buf, sizeof(buf));
	assert_string_equal(buf, "auto");
	assert_int_equal(fab_param_parse(&r->params[0], "0", &v), 0);
	assert_true(v == 0);
	fab_param_format(&r->params[0], v, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	assert_int_equal(fab_param_parse(&r->params[0], "64", &v), -EINVAL);
	assert_int_equal(fab_param_parse(&r->params[1], "8", &v), -EINVAL);
	assert_int_equal(fab_param_parse(&r->params[1], "off", &v), -EINVAL);
}


/* The fuzz seeds (fuzz/corpus/config/) parse as their names say ("bad_*"
 * fail), and mutations of them never crash or leak. */
static void test_fuzz_corpus(void **state)
{
	const char *fx = getenv("FIXTURES");
	char dir[1200], p[1500];
	static char buf[8192], mut[8300];
	struct dirent *e;
	DIR *d;
	size_t seeds = 0;
	uint32_t rnd = 12345;

	snprintf(dir, sizeof(dir), "%s/../fuzz/corpus/config", fx ? fx : "fixtures");
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d))) {
		struct fab_config *cfg = NULL;
		FILE *f;
		size_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		assert_non_null(f = fopen(p, "rb"));
		len = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		int err = fab_config_parse(buf, len, e->d_name, &cfg);
		if (!strncmp(e->d_name, "bad_", 4)) {
			if (!err)
				fail_msg("seed %s parses but should not", e->d_name);
		} else if (err) {
			fail_msg("seed %s: %s", e->d_name, fab_errmsg());
		}
		fab_config_free(cfg);
		seeds++;
		/* mutations: flip, overwrite, cut, duplicate */
		for (int i = 0; i < 3000; i++) {
			size_t ml = len;
			memcpy(mut, buf, len);
			for (int k = 0; k < 1 + (int)(rnd % 4); k++) {
				rnd = rnd * 1103515245u + 12345u;
				size_t at = ml ? (rnd >> 8) % ml : 0;
				switch ((rnd >> 4) % 4) {
				case 0: if (ml) mut[at] ^= (char)(1u << ((rnd >> 16) % 8)); break;
				case 1: if (ml) mut[at] = "[]=# \n\r\t0x*?/.-"[(rnd >> 16) % 15]; break;
				case 2: ml = at; break;
				default:
					if (ml + 64 < sizeof(mut)) {
						size_t n = (rnd >> 20) % 64;
						if (n > ml - at)
							n = ml - at;
						memmove(mut + at + n, mut + at, ml - at);
						ml += n;
					}
				}
			}
			cfg = NULL;
			if (!fab_config_parse(mut, ml, "mutant", &cfg))
				fab_config_free(cfg);
		}
	}
	closedir(d);
	assert_true(seeds >= 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test_setup_teardown(test_doc_example, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ibqueryerrors_paste, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syntax_accepted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_file, setup, teardown),
		cmocka_unit_test(test_param_values),
		cmocka_unit_test(test_fuzz_corpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
