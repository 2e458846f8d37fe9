// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "atomic.h"

#define OUT_BUFSZ (1u << 20) /* reports are large and written in small pieces */

int fab_report_file_open(const char *path, struct fab_report_file *out)
{
	struct fab_report_file rf = { 0 };
	size_t len = strlen(path);
	int fd = -1, err;

	if (!len)
		return fab_err(-EINVAL, "empty report file name");
	rf.path = strdup(path);
	rf.tmp = malloc(len + sizeof(".tmpXXXXXX"));
	if (!rf.path || !rf.tmp) {
		err = fab_err(-ENOMEM, "out of memory opening '%s'", path);
		goto fail;
	}
	memcpy(rf.tmp, path, len);
	memcpy(rf.tmp + len, ".tmpXXXXXX", sizeof(".tmpXXXXXX"));
	fd = mkostemp(rf.tmp, O_CLOEXEC);
	if (fd < 0) {
		err = fab_err(-errno, "cannot create '%s': %s; check that the directory exists and is writable",
			      rf.tmp, strerror(errno));
		free(rf.tmp);
		rf.tmp = NULL;
		goto fail;
	}
	/* mkstemp makes 0600; a report is for reading by others */
	(void)fchmod(fd, 0644);
	rf.f = fdopen(fd, "w");
	if (!rf.f) {
		err = fab_err(-errno, "cannot open '%s': %s", rf.tmp, strerror(errno));
		close(fd);
		unlink(rf.tmp);
		goto fail;
	}
	setvbuf(rf.f, NULL, _IOFBF, OUT_BUFSZ);
	*out = rf;
	return 0;
fail:
	free(rf.tmp);
	free(rf.path);
	return err;
}

/* fsync of the directory that holds path, so that the rename is durable. */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);

	if (!copy)
		return;
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(copy);
}

int fab_report_file_commit(struct fab_report_file *rf)
{
	int err = 0;

	if (!rf->f)
		return fab_err(-EINVAL, "report file already closed");
	if (fflush(rf->f) || ferror(rf->f) || fsync(fileno(rf->f))) {
		err = fab_err(errno ? -errno : -EIO, "cannot write '%s': %s", rf->tmp,
			      strerror(errno ? errno : EIO));
		goto out;
	}
	int ret = fclose(rf->f);
	rf->f = NULL;
	if (ret) {
		err = fab_err(-errno, "cannot write '%s': %s", rf->tmp, strerror(errno));
		goto out;
	}
	if (rename(rf->tmp, rf->path)) {
		err = fab_err(-errno, "cannot rename '%s' to '%s': %s", rf->tmp, rf->path,
			      strerror(errno));
		goto out;
	}
	free(rf->tmp);
	rf->tmp = NULL;
	sync_dir(rf->path);
out:
	fab_report_file_abort(rf);
	return err;
}

void fab_report_file_abort(struct fab_report_file *rf)
{
	if (rf->f) {
		fclose(rf->f);
		rf->f = NULL;
	}
	if (rf->tmp) {
		unlink(rf->tmp);
		free(rf->tmp);
		rf->tmp = NULL;
	}
	free(rf->path);
	rf->path = NULL;
}
