/* SPDX-License-Identifier: MIT */
/* Private to store/: the handle and helpers shared by its files. */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>

struct fab_store {
	sqlite3 *db;
	char *path;
	bool writable;
};

/* Each returns 0 or a negative errno with the message set. */
int fab_store_exec(struct fab_store *st, const char *sql, const char *what);
int fab_store_prepare(struct fab_store *st, const char *sql, sqlite3_stmt **out);
int fab_store_begin(struct fab_store *st);
/* Commits when err is 0, else rolls back; returns err or the commit's error. */
int fab_store_finish(struct fab_store *st, int err);
