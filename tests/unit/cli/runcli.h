/* SPDX-License-Identifier: MIT */
/*
 * Runs the fabsweep executable ($FABSWEEP, set by ctest) as a user would,
 * with stdout and stderr captured: the command line's own tests (options,
 * exit codes, what is printed). What a command does is tested on the
 * library (tests/unit/pipeline/); cli/ is not in fabsweep_core.
 */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h" /* the exit codes, FAB_EXIT_* (nothing of cli/ is linked) */

extern char **environ;

/* What the last run printed. */
static char cli_out[1 << 16], cli_err[1 << 14];

static void cli_slurp(FILE *f, char *buf, size_t len)
{
	rewind(f);
	size_t n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* Runs fabsweep with the arguments up to NULL; returns its exit status
 * (-1 when it did not exit normally). */
static int cli_run(const char *first, ...)
{
	const char *bin = getenv("FABSWEEP");
	char *argv[40];
	int argc = 0, status = 0;
	FILE *fo = tmpfile(), *fe = tmpfile();
	posix_spawn_file_actions_t fa;
	va_list ap;
	pid_t pid;

	assert_non_null(bin);
	assert_true(fo && fe);
	argv[argc++] = (char *)"fabsweep";
	va_start(ap, first);
	for (const char *a = first; a && argc < 39; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fileno(fo), 1);
	posix_spawn_file_actions_adddup2(&fa, fileno(fe), 2);
	assert_int_equal(posix_spawn(&pid, bin, &fa, NULL, argv, environ), 0);
	posix_spawn_file_actions_destroy(&fa);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	cli_slurp(fo, cli_out, sizeof(cli_out));
	cli_slurp(fe, cli_err, sizeof(cli_err));
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
