// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "fabsweep/error.h"
#include "fabsweep/store.h"
#include "fabsweep/store_prune.h"

const char *fab_cli_default_db(void)
{
	const char *env = getenv("FABSWEEP_DB");

	if (env && *env)
		return env;
	return geteuid() == 0 ? "/var/lib/fabsweep/fabsweep.db" : "./fabsweep.db";
}

int fab_cli_parse_int(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int fab_cli_parse_scan(const char *s, int64_t *out)
{
	long v;

	if (!strcmp(s, "latest")) {
		*out = 0;
		return 0;
	}
	if (fab_cli_parse_int(s, -1000000, 1L << 40, &v))
		return -EINVAL;
	*out = v;
	return 0;
}

int fab_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	if (cmd)
		fprintf(stderr, "fabsweep %s: ", cmd);
	else
		fputs("fabsweep: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return FAB_EXIT_USAGE;
}

int fab_cli_fail(void)
{
	const char *m = fab_errmsg();

	fprintf(stderr, "fabsweep: %s\n", *m ? m : "failed");
	return FAB_EXIT_RUNTIME;
}

int fab_cli_tty(FILE *f)
{
	return isatty(fileno(f));
}

int fab_cli_resolve_baseline(struct fab_store *st, const char *ref, int64_t *out)
{
	int64_t id;

	if (!fab_cli_parse_scan(ref, &id))
		return fab_store_resolve_scan(st, id, out);
	return fab_store_baseline_resolve(st, ref, out);
}
