// SPDX-License-Identifier: MIT
/*
 * madspy: an LD_PRELOAD shim that logs every MAD a process sends through
 * libibumad (umad_send: class, method, attribute, and an SMP's M_Key) and
 * every open(), one line each, to the file $MADSPY_LOG. It sees
 * libibnetdisc's and libibmad's MADs too, so it counts any tool's MADs.
 * Used by tests/integration/test_reliability_security.sh (only Gets, keys,
 * files opened) and bench/bench_scan.sh (MADs by attribute). Build:
 *   cc -shared -fPIC -O2 -o madspy.so madspy.c -libumad -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad.h>

static void logline(const char *line)
{
	const char *log = getenv("MADSPY_LOG");
	static int (*real_open)(const char *, int, ...);
	if (!log)
		return;
	if (!real_open)
		real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	int fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0) {}
		close(fd);
	}
}

int umad_send(int fd, int agentid, void *umad, int length, int timeout_ms, int retries)
{
	static int (*real)(int, int, void *, int, int, int);
	const uint8_t *m = umad_get_mad(umad);
	char line[120];

	if (!real)
		real = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
	/* SMPs (classes 0x01, 0x81): also the M_Key, bytes 24-31 */
	if (m[1] == 0x01 || m[1] == 0x81) {
		unsigned long long k = 0;
		for (int i = 24; i < 32; i++)
			k = k << 8 | m[i];
		snprintf(line, sizeof(line), "mad class 0x%02x method 0x%02x attr 0x%04x mkey %016llx\n",
			 m[1], m[3], (unsigned)(m[16] << 8 | m[17]), k);
	} else {
		snprintf(line, sizeof(line), "mad class 0x%02x method 0x%02x attr 0x%04x\n",
			 m[1], m[3], (unsigned)(m[16] << 8 | m[17]));
	}
	logline(line);
	return real(fd, agentid, umad, length, timeout_ms, retries);
}

#define WRAP_OPEN(name)                                                        \
	int name(const char *path, int flags, ...)                             \
	{                                                                      \
		static int (*real)(const char *, int, ...);                   \
		char line[4200];                                               \
		va_list ap;                                                    \
		va_start(ap, flags);                                           \
		mode_t mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0; \
		va_end(ap);                                                    \
		if (!real)                                                     \
			real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
		snprintf(line, sizeof(line), "open %s\n", path);               \
		logline(line);                                                 \
		return real(path, flags, mode);                                \
	}
WRAP_OPEN(open)
WRAP_OPEN(open64)
