// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "fabsweep/error.h"

static _Thread_local char errbuf[512];

int fab_err(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return code;
}

const char *fab_errmsg(void)
{
	return errbuf;
}

void fab_err_clear(void)
{
	errbuf[0] = '\0';
}
