// SPDX-License-Identifier: MIT
/* What the ibnetdiscover importer tests share: importing, counting, finding. */
#ifndef TOPO_HELPERS_H
#define TOPO_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"
#include "fabsweep/topo.h"

static inline struct fab_snapshot *load(const char *file)
{
	const char *fx = getenv("FIXTURES");
	struct fab_snapshot *s = fab_snapshot_new();
	char path[4096];
	int rc;

	snprintf(path, sizeof(path), "%s/real/ibnetdiscover/%s",
		 fx ? fx : "fixtures", file);
	rc = fab_topo_import_file(path, s);
	if (rc)
		print_message("import of %s: %s\n", path, fab_errmsg());
	assert_int_equal(rc, 0);
	return s;
}

static inline struct fab_snapshot *parse_len(const char *text, size_t len)
{
	struct fab_snapshot *s = fab_snapshot_new();
	int rc = fab_topo_import(text, len, "t.topo", s);

	if (rc)
		print_message("import: %s\n", fab_errmsg());
	assert_int_equal(rc, 0);
	return s;
}

static inline struct fab_snapshot *parse(const char *text)
{
	return parse_len(text, strlen(text));
}

/* Import must fail with code and a message starting with prefix. */
static inline void parse_fails(const char *text, size_t len, int code,
			const char *prefix, const char *contains)
{
	struct fab_snapshot *s = fab_snapshot_new();
	int rc = fab_topo_import(text, len, "t.topo", s);

	if (rc != code || strncmp(fab_errmsg(), prefix, strlen(prefix)) ||
	    (contains && !strstr(fab_errmsg(), contains)))
		print_message("rc %d, message: %s\n", rc, fab_errmsg());
	assert_int_equal(rc, code);
	assert_int_equal(strncmp(fab_errmsg(), prefix, strlen(prefix)), 0);
	if (contains)
		assert_non_null(strstr(fab_errmsg(), contains));
	/* the snapshot is left as it was */
	assert_int_equal(s->n_nodes, 0);
	assert_int_equal(s->n_ports, 0);
	assert_int_equal(s->n_links, 0);
	assert_null(s->source);
	fab_snapshot_free(s);
}

static inline void fails(const char *text, const char *prefix, const char *contains)
{
	parse_fails(text, strlen(text), -EINVAL, prefix, contains);
}

static inline size_t count_type(const struct fab_snapshot *s, unsigned type)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_nodes; i++)
		n += s->nodes[i].type == type;
	return n;
}

/* Links whose two ends both run at width/speed. */
static inline size_t count_links(const struct fab_snapshot *s, unsigned width,
			  unsigned speed)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_links; i++) {
		const struct fab_port *a = &s->ports[s->links[i].a];
		const struct fab_port *b = &s->ports[s->links[i].b];
		n += a->width_active == width && a->speed_active == speed &&
		     b->width_active == width && b->speed_active == speed;
	}
	return n;
}

static inline size_t count_descs_ending(const struct fab_snapshot *s, char ch)
{
	size_t n = 0;

	for (size_t i = 0; i < s->n_nodes; i++) {
		size_t len = strlen(s->nodes[i].desc);
		n += len && s->nodes[i].desc[len - 1] == ch;
	}
	return n;
}

static inline const struct fab_node *node(const struct fab_snapshot *s, uint64_t guid)
{
	uint32_t i = fab_snapshot_find_node(s, guid);

	assert_int_not_equal(i, FAB_NONE);
	return &s->nodes[i];
}

static inline const struct fab_port *port(const struct fab_snapshot *s, uint64_t guid,
				   unsigned num)
{
	const struct fab_port *p =
		fab_snapshot_port(s, fab_snapshot_find_node(s, guid), num);

	assert_non_null(p);
	return p;
}

/* The other end of a resolved port. */
static inline const struct fab_port *peer(const struct fab_snapshot *s,
				   const struct fab_port *p)
{
	assert_int_not_equal(p->remote_idx, FAB_NONE);
	assert_true(p->remote_idx < s->n_ports);
	return &s->ports[p->remote_idx];
}

static inline uint64_t guid_of(const struct fab_snapshot *s, const struct fab_port *p)
{
	return s->nodes[p->node_idx].guid;
}

/* Every resolved port's peer points back, every switch has port 0 first. */
static inline void check_invariants(const struct fab_snapshot *s)
{
	for (size_t i = 0; i < s->n_ports; i++) {
		const struct fab_port *p = &s->ports[i];
		if (p->remote_idx != FAB_NONE) {
			assert_int_equal(s->ports[p->remote_idx].remote_idx, i);
			assert_int_equal(guid_of(s, &s->ports[p->remote_idx]),
					 p->remote_guid);
			assert_int_equal(s->ports[p->remote_idx].port_num,
					 p->remote_port);
		}
	}
	for (size_t i = 0; i < s->n_nodes; i++) {
		const struct fab_node *n = &s->nodes[i];
		const struct fab_port *p = fab_node_ports(s, n);
		if (n->type == FAB_NODE_SWITCH) {
			assert_non_null(p);
			assert_int_equal(p[0].port_num, 0);
			assert_int_equal(p[0].lid, n->lid);
		}
		for (uint32_t k = 1; k < n->port_count; k++)
			assert_true(p[k - 1].port_num < p[k].port_num);
	}
}

/* ------------------------------------------------------------------ */
/* Real files                                                          */


#endif
