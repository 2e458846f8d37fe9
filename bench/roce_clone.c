// SPDX-License-Identifier: MIT
/*
 * roce_clone: clones one real collected RoCE host file (bench/roce_host.sh:
 * a host with its NICs behind a real lldpd, all heard by one leaf) into N
 * host files with consistent identities, as a fleet of hosts would collect
 * them, through the real store.
 *
 *   roce_clone --template host.db --out DIR --hosts N [--first I]
 *              [--per-leaf 32] [--fault-template f.db --fault H]
 *              [--time MS] [--prefix host]
 *
 * Host h (I <= h < I+N) becomes DIR/host%05d.db (--prefix: another
 * file name before the number): system name host%05d, NIC k (the
 * template's ports in order) MAC 0a:hh:hh:hh:00:kk (h in 24 bits; port id and
 * chassis id follow the MACs), management address 198.18.0.0/15 from h,
 * RDMA devices' node and system image GUIDs 0xa088c203000000 + h << 8 + k,
 * module serial numbers MT%05u%02u (h, k), when the template has modules.
 * Its NIC k hears leaf%04d L = (h / per_leaf) * NICs + k (rail-optimised:
 * one leaf per NIC of every group of per_leaf hosts) on port swp%u
 * (h % per_leaf + 1), whose MAC is 0e:ll:ll:00:pp:00 and whose chassis id
 * 0e:ll:ll:00:00:00: every host that hears a leaf names it the same way.
 * The files are written as collect writes its file (FAB_STORE_EXPORT: 1 KiB
 * pages, a rollback journal). Host H is cloned from --fault-template instead (a real host file collected
 * with a fault, e.g. roce_host.sh --pfc4 7). --time sets each file's
 * collection time (default: now); a later time makes a newer view.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/snapshot.h"
#include "fabsweep/store.h"

#define MAX_NICS 64

/* The template: where each identity lives in its model. */
struct tpl {
	struct fab_snapshot *snap;
	uint32_t host;              /* the collected system */
	uint32_t leaf;              /* the stub system its NICs hear, or FAB_NONE */
	uint32_t nic[MAX_NICS];     /* eth port of NIC k */
	unsigned n_nics;
};

static int die(const char *what)
{
	fprintf(stderr, "roce_clone: %s: %s\n", what, fab_errmsg());
	return 3;
}

static int load_template(const char *path, struct tpl *t)
{
	struct fab_store *st = NULL;
	int err = fab_store_open(path, FAB_STORE_READONLY, &st);

	if (!err)
		err = fab_store_load_scan(st, 0, &t->snap);
	fab_store_close(st);
	if (err)
		return err;
	const struct fab_roce *r = t->snap->roce;
	if (!r)
		return fab_err(-EINVAL, "'%s' holds no RoCE data", path);
	t->host = t->leaf = FAB_NONE;
	for (uint32_t i = 0; i < r->n_systems; i++) {
		if (r->systems[i].collected && t->host == FAB_NONE)
			t->host = i;
		else if (!r->systems[i].collected && t->leaf == FAB_NONE)
			t->leaf = i;
	}
	if (t->host == FAB_NONE)
		return fab_err(-EINVAL, "'%s' has no collected system", path);
	for (uint32_t i = 0; i < r->n_eth_ports; i++)
		if (r->eth_ports[i].system_idx == t->host && !(r->eth_ports[i].flags & FAB_ETH_F_STUB) &&
		    t->n_nics < MAX_NICS)
			t->nic[t->n_nics++] = i;
	for (uint32_t i = 0; i < r->n_systems; i++)
		if (r->systems[i].collected && i != t->host)
			return fab_err(-EINVAL, "'%s' holds more than one collected system", path);
	return t->n_nics ? 0 : fab_err(-EINVAL, "'%s': the host has no Ethernet port", path);
}

/* NIC k of the template host an eth port belongs to (its own or heard). */
static unsigned nic_of(const struct tpl *t, uint32_t port)
{
	for (unsigned k = 0; k < t->n_nics; k++)
		if (t->nic[k] == port)
			return k;
	return 0;
}

struct ids {
	unsigned h, per_leaf;
	struct fab_roce *r; /* strings go into its arena */
};

__attribute__((format(printf, 2, 3))) static const char *fmt(struct ids *x, const char *f, ...)
{
	char buf[64];
	va_list ap;

	va_start(ap, f);
	vsnprintf(buf, sizeof(buf), f, ap);
	va_end(ap);
	return fab_roce_strdup(x->r, buf);
}

static const char *host_mac(struct ids *x, unsigned k)
{
	return fmt(x, "0a:%02x:%02x:%02x:00:%02x", x->h >> 16 & 0xff, x->h >> 8 & 0xff, x->h & 0xff, k);
}

static unsigned leaf_of(struct ids *x, unsigned nics, unsigned k)
{
	return x->h / x->per_leaf * nics + k;
}

static const char *leaf_mac(struct ids *x, unsigned leaf, unsigned port)
{
	return fmt(x, "0e:%02x:%02x:00:%02x:00", leaf >> 8 & 0xff, leaf & 0xff, port);
}

/* Rewrites every identity of a fresh copy of the template for host x->h. */
static void rename_all(const struct tpl *t, struct ids *x)
{
	struct fab_roce *r = x->r;
	unsigned h = x->h, port = h % x->per_leaf + 1;
	char name[32];

	for (unsigned k = 0; k < t->n_nics; k++) {
		struct fab_eth_port *p = &r->eth_ports[t->nic[k]];
		p->mac = host_mac(x, k);
		if (p->port_id_subtype && !strcmp(p->port_id_subtype, "mac"))
			p->port_id = p->mac;
	}
	struct fab_roce_system *s = &r->systems[t->host];
	snprintf(name, sizeof(name), "host%05u", h);
	s->name = s->hostname = fab_roce_strdup(r, name);
	s->chassis_id = host_mac(x, 0);
	s->mgmt_address = fmt(x, "198.%u.%u.%u", 18 + (h >> 16 & 1), h >> 8 & 0xff, h & 0xff);
	for (size_t i = 0; i < r->n_neighbors; i++) {
		struct fab_lldp_neighbor *n = &r->neighbors[i];
		unsigned k = nic_of(t, n->port_idx), leaf = leaf_of(x, t->n_nics, k);
		n->system_name = fmt(x, "leaf%04u", leaf);
		n->chassis_id = leaf_mac(x, leaf, 0);
		n->mgmt_address = fmt(x, "198.19.%u.%u", 128 + (leaf >> 8 & 0x7f), leaf & 0xff);
		n->port_id = leaf_mac(x, leaf, port);
		n->port_descr = fmt(x, "swp%u", port);
		if (n->remote_port_idx < r->n_eth_ports &&
		    (r->eth_ports[n->remote_port_idx].flags & FAB_ETH_F_STUB)) {
			struct fab_eth_port *q = &r->eth_ports[n->remote_port_idx];
			q->ifname = q->port_descr = n->port_descr;
			q->port_id = n->port_id;
			q->mac = n->port_id;
		}
	}
	/* the stub systems (the leaves heard) as their first neighbour names them */
	for (size_t i = 0; i < r->n_neighbors; i++) {
		const struct fab_lldp_neighbor *n = &r->neighbors[i];
		if (n->remote_system_idx < r->n_systems && !r->systems[n->remote_system_idx].collected) {
			struct fab_roce_system *y = &r->systems[n->remote_system_idx];
			y->name = n->system_name;
			y->chassis_id = n->chassis_id;
			y->mgmt_address = n->mgmt_address;
		}
	}
	/* each NIC's pluggable module its own serial number */
	for (size_t i = 0; i < r->modules.n; i++)
		r->modules.mods[i].serial = fmt(x, "MT%05u%02u", h, nic_of(t, r->modules.mods[i].port_idx));
	for (size_t i = 0; i < r->n_devices; i++) {
		struct fab_rdma_device *d = &r->devices[i];
		d->node_guid = 0xa088c20300000000ull + ((uint64_t)h << 8) + i;
		d->sys_image_guid = d->sys_image_guid ? 0xa088c20300000000ull + ((uint64_t)h << 8) : 0;
	}
}

/* A new file with the schema: a copy of DIR/.schema.db, made once. */
static int copy_file(const char *from, const char *to)
{
	char buf[1 << 16];
	int in = open(from, O_RDONLY), out = -1, err = 0;
	ssize_t n;

	if (in < 0 || (out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		err = -errno;
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err = -EIO;
	if (in >= 0)
		close(in);
	if (out >= 0 && close(out))
		err = err ? err : -errno;
	return err ? fab_err(err, "cannot copy '%s' to '%s'", from, to) : 0;
}

/* One clone: a deep copy of the template through a scratch model. */
static int write_clone(const struct tpl *t, const char *schema, const char *path,
		       unsigned h, unsigned per_leaf, int64_t at)
{
	struct fab_snapshot *s = fab_snapshot_new();
	struct fab_store *st = NULL;
	char tmp[4200];
	int err;

	if (!s || !fab_snapshot_roce(s))
		return fab_err(-ENOMEM, "out of memory");
	/* the template's model, copied (merge copies collected systems only;
	 * resolving makes the stubs and links again, as collect does) */
	if ((err = fab_roce_merge(s->roce, t->snap->roce, NULL, NULL)))
		goto out;
	struct ids x = { .h = h, .per_leaf = per_leaf, .r = s->roce };
	struct tpl c = *t;
	c.host = 0;
	for (unsigned k = 0; k < t->n_nics; k++)
		c.nic[k] = k; /* the host's ports come first in the copy, in order */
	if ((err = fab_roce_resolve(s->roce)))
		goto out;
	rename_all(&c, &x);
	if ((err = fab_roce_resolve(s->roce)))
		goto out;
	s->roce->systems[0].collected_at_ms = at;
	s->started_at_ms = at;
	s->finished_at_ms = at + 1;
	s->status = t->snap->status;
	s->host = s->roce->systems[0].name;
	s->source = t->snap->source;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if ((err = copy_file(schema, tmp)) || (err = fab_store_open(tmp, FAB_STORE_WRITE | FAB_STORE_EXPORT, &st)) ||
	    (err = fab_store_write_scan(st, s)))
		goto out;
	fab_store_close(st);
	st = NULL;
	if (rename(tmp, path))
		err = fab_err(-errno, "cannot rename '%s'", tmp);
out:
	fab_store_close(st);
	fab_snapshot_free(s);
	return err;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "template", required_argument, NULL, 't' }, { "out", required_argument, NULL, 'o' },
		{ "hosts", required_argument, NULL, 'n' },    { "first", required_argument, NULL, 'f' },
		{ "per-leaf", required_argument, NULL, 'p' }, { "fault-template", required_argument, NULL, 'F' },
		{ "fault", required_argument, NULL, 'H' },    { "time", required_argument, NULL, 'T' },
		{ "prefix", required_argument, NULL, 'N' },     { NULL, 0, NULL, 0 },
	};
	const char *tplf = NULL, *dir = NULL, *faultf = NULL, *prefix = "host";
	unsigned n = 0, first = 0, per_leaf = 32, fault = UINT32_MAX;
	int64_t at = fab_now_ms();
	int c;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't': tplf = optarg; break;
		case 'o': dir = optarg; break;
		case 'n': n = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'f': first = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'p': per_leaf = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'F': faultf = optarg; break;
		case 'H': fault = (unsigned)strtoul(optarg, NULL, 10); break;
		case 'T': at = strtoll(optarg, NULL, 10); break;
		case 'N': prefix = optarg; break;
		default: return 2;
		}
	}
	if (!tplf || !dir || !n || !per_leaf || first + n > 1u << 17 || per_leaf > 255 ||
	    (fault != UINT32_MAX && !faultf)) {
		fprintf(stderr, "usage: roce_clone --template host.db --out DIR --hosts N [--first I] [--per-leaf 32]"
				" [--fault-template f.db --fault H] [--time MS] [--prefix host]\n"
				"  (first + N <= 131072, per-leaf <= 255)\n");
		return 2;
	}
	struct tpl t = { 0 }, ft = { 0 };
	if (load_template(tplf, &t) || (faultf && load_template(faultf, &ft)))
		return die("template");
	char schema[4096], path[4096];
	struct fab_store *st = NULL;
	snprintf(schema, sizeof(schema), "%s/.schema.db", dir);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "roce_clone: cannot create '%s': %s\n", dir, strerror(errno));
		return 3;
	}
	unlink(schema);
	if (fab_store_open(schema, FAB_STORE_WRITE | FAB_STORE_EXPORT, &st))
		return die("schema");
	fab_store_close(st);
	int ret = 0;
	for (unsigned h = first; !ret && h < first + n; h++) {
		snprintf(path, sizeof(path), "%s/%s%05u.db", dir, prefix, h);
		if (write_clone(h == fault ? &ft : &t, schema, path, h, per_leaf, at))
			ret = die(path);
	}
	unlink(schema);
	fab_snapshot_free(t.snap);
	fab_snapshot_free(ft.snap);
	return ret;
}
