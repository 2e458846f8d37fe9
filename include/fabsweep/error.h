/* SPDX-License-Identifier: MIT */
/*
 * Error reporting: functions return 0 or a negative errno; the one-line
 * message that says what went wrong is kept per thread and printed once,
 * by the command line.
 */
#pragma once

/* Records a message (printf-style) and returns code, for `return fab_err(...)`. */
int fab_err(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last recorded message of this thread ("" when none). */
const char *fab_errmsg(void);
/* Forgets the last message. */
void fab_err_clear(void);
