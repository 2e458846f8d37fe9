// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "readfile.h"

int fab_read_small_file(const char *path, const char *what, size_t max, char **out,
			size_t *len)
{
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fab_err(-errno, "cannot open %s '%s': %s", what, path, strerror(errno));
	if (fstat(fd, &sb) != 0) {
		err = fab_err(-errno, "cannot read %s '%s': %s", what, path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		err = fab_err(-EINVAL, "%s '%s' is not a regular file", what, path);
		goto out;
	}
	if ((uint64_t)sb.st_size > max) {
		err = fab_err(-E2BIG, "%s '%s' is larger than %zu bytes", what, path, max);
		goto out;
	}
	if (!(buf = malloc((size_t)sb.st_size + 1))) {
		err = fab_err(-ENOMEM, "out of memory reading '%s'", path);
		goto out;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)sb.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = fab_err(-errno, "cannot read %s '%s': %s", what, path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return err;
}
