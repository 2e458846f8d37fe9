// SPDX-License-Identifier: MIT
/*
 * Host state from sysfs under a configurable root ("/sys", or a fixture
 * tree in tests): network interfaces (class/net) with their ECN and DCQCN
 * settings (class/net/<netdev>/ecn), RDMA devices and their
 * ports, counters and hw_counters (class/infiniband), the netdev of each
 * RoCE port and the PCIe link of each device.
 *
 * Files are read with open()/read(), never stdio. Optional attributes
 * differ between drivers and kernels: a missing one is unknown, not an
 * error. Directories that exist but cannot be read are recorded in
 * snapshot->errors (what "sysfs").
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/names.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"

#define ATTR_MAX 4096 /* a sysfs attribute is at most a page */
#define ARPHRD_ETHER_TYPE 1

/* Reads an attribute, trims trailing whitespace; length or negative errno. */
static int read_attr(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t len = 0;

	if (fd < 0)
		return -errno;
	while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = -errno;
			close(fd);
			return e;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if (memchr(buf, '\0', len))
		len = strlen(buf);
	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' ' ||
		       buf[len - 1] == '\t' || buf[len - 1] == '\r'))
		buf[--len] = '\0';
	return (int)len;
}

/* path = a/b[/c] into buf; false when it does not fit. */
static bool join(char *buf, size_t cap, const char *a, const char *b, const char *c)
{
	int n = c ? snprintf(buf, cap, "%s/%s/%s", a, b, c)
		  : snprintf(buf, cap, "%s/%s", a, b);
	return n > 0 && (size_t)n < cap;
}

/* An attribute of dir as a safe string in the model, NULL if absent/empty. */
static const char *attr_str(struct fab_roce *r, const char *dir, const char *name)
{
	char path[PATH_MAX], buf[ATTR_MAX];

	if (!join(path, sizeof(path), dir, name, NULL) || read_attr(path, buf, sizeof(buf)) <= 0)
		return NULL;
	return fab_roce_strdup_safe(r, buf);
}

static bool attr_long(const char *dir, const char *name, long *out)
{
	char path[PATH_MAX], buf[64], *end;

	if (!join(path, sizeof(path), dir, name, NULL) || read_attr(path, buf, sizeof(buf)) <= 0)
		return false;
	errno = 0;
	long v = strtol(buf, &end, 0);
	if (errno || end == buf)
		return false;
	*out = v;
	return true;
}

static void record(struct fab_snapshot *snap, const char *sys, const char *path, int err)
{
	fab_snapshot_add_error(snap, 0, -1, "sysfs", "%s: cannot read '%s': %s", sys, path,
			       strerror(-err));
	if (snap->status == FAB_SCAN_COMPLETE)
		snap->status = FAB_SCAN_PARTIAL;
}

static int cmp_names(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int only_entries(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Sorted entries of a directory (not . or ..); count or negative errno. */
static int list_dir(const char *path, struct dirent ***out)
{
	int n = scandir(path, out, only_entries, cmp_names);

	return n < 0 ? -errno : n;
}

static void free_list(struct dirent **l, int n)
{
	for (int i = 0; i < n; i++)
		free(l[i]);
	free(l);
}

static bool is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* ---- ECN and DCQCN: class/net/<netdev>/ecn (mlx5) ------------------------- */

/*
 * <ecn>/<point>/enable/0..7 into *out (bit n: priority n). true when all
 * eight files hold a number; a file that is missing or holds something else
 * leaves the point unknown, one that exists but cannot be read is recorded.
 */
static bool ecn_enable(struct fab_snapshot *snap, const char *sys, const char *ecn,
		       const char *point, uint8_t *out)
{
	char dir[PATH_MAX], path[PATH_MAX], buf[32], idx[4], *end;
	uint8_t bits = 0;

	if (!join(dir, sizeof(dir), ecn, point, "enable") || !is_dir(dir))
		return false;
	for (unsigned k = 0; k < FAB_PRIOS; k++) {
		int n;

		snprintf(idx, sizeof(idx), "%u", k);
		if (!join(path, sizeof(path), dir, idx, NULL))
			return false;
		if ((n = read_attr(path, buf, sizeof(buf))) < 0) {
			if (n != -ENOENT)
				record(snap, sys, path, n);
			return false;
		}
		errno = 0;
		long v = strtol(buf, &end, 10);
		if (errno || end == buf || *end || v < 0)
			return false;
		if (v)
			bits |= (uint8_t)(1u << k);
	}
	*out = bits;
	return true;
}

/* What the driver exposes under ifdir/ecn; nothing (known = 0) without it. */
static void read_ecn(struct fab_snapshot *snap, const char *sys, const char *ifdir,
		     struct fab_ecn *out)
{
	char ecn[PATH_MAX], np[PATH_MAX];
	struct fab_ecn e = { 0 };
	long v;

	if (!join(ecn, sizeof(ecn), ifdir, "ecn", NULL) || !is_dir(ecn))
		return;
	if (ecn_enable(snap, sys, ecn, "roce_np", &e.np_enabled))
		e.known |= FAB_ECN_NP;
	if (ecn_enable(snap, sys, ecn, "roce_rp", &e.rp_enabled))
		e.known |= FAB_ECN_RP;
	if (join(np, sizeof(np), ecn, "roce_np", NULL)) {
		if (attr_long(np, "cnp_dscp", &v) && v >= 0 && v <= 63) {
			e.cnp_dscp = (uint8_t)v;
			e.known |= FAB_ECN_CNP_DSCP;
		}
		if (attr_long(np, "cnp_802p_prio", &v) && v >= 0 && v < FAB_PRIOS) {
			e.cnp_prio = (uint8_t)v;
			e.known |= FAB_ECN_CNP_PRIO;
		}
	}
	*out = e;
}

/* ---- class/net ------------------------------------------------------------ */

/* The last component of the symbolic link dir/name ("master" -> ../bond0:
 * "bond0") as a safe string in the model; NULL when there is none. */
static const char *link_name(struct fab_roce *r, const char *dir, const char *name)
{
	char path[PATH_MAX], buf[PATH_MAX];
	ssize_t n;

	if (!join(path, sizeof(path), dir, name, NULL) || (n = readlink(path, buf, sizeof(buf) - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	const char *base = strrchr(buf, '/');
	return base && base[1] ? fab_roce_strdup_safe(r, base + 1) : base ? NULL : fab_roce_strdup_safe(r, buf);
}

static int read_net(struct fab_roce *r, struct fab_snapshot *snap, uint32_t sys,
		    const char *root)
{
	char dir[PATH_MAX], ifdir[PATH_MAX];
	struct dirent **ents;
	int n, err = 0;

	if (!join(dir, sizeof(dir), root, "class/net", NULL))
		return 0;
	if ((n = list_dir(dir, &ents)) < 0) {
		if (n != -ENOENT)
			record(snap, r->systems[sys].name, dir, n);
		return 0;
	}
	for (int i = 0; i < n && !err; i++) {
		const char *name = ents[i]->d_name;
		long type = ARPHRD_ETHER_TYPE, v;

		if (!strcmp(name, "lo") || !join(ifdir, sizeof(ifdir), dir, name, NULL) ||
		    !is_dir(ifdir))
			continue; /* bonding_masters and the like are files */
		if (attr_long(ifdir, "type", &type) && type != ARPHRD_ETHER_TYPE)
			continue; /* IPoIB, tunnels, ... */
		uint32_t pi = fab_roce_find_eth_port(r, sys, name);
		if (pi == FAB_NONE) {
			struct fab_eth_port *p = fab_roce_add_eth_port(r, sys);
			if (!p || !(p->ifname = fab_roce_strdup_safe(r, name))) {
				err = -ENOMEM;
				break;
			}
			pi = (uint32_t)r->n_eth_ports - 1;
		}
		const char *mac = attr_str(r, ifdir, "address");
		const char *state = attr_str(r, ifdir, "operstate");
		struct fab_eth_port *p = &r->eth_ports[pi];
		p->flags |= FAB_ETH_F_SYSFS;
		if (mac) {
			for (char *c = (char *)mac; *c; c++)
				if (*c >= 'A' && *c <= 'Z')
					*c = (char)(*c - 'A' + 'a');
			p->mac = mac;
		}
		p->state = state;
		p->master = link_name(r, ifdir, "master");
		if (attr_long(ifdir, "mtu", &v) && v > 0 && v <= UINT32_MAX)
			p->mtu = (uint32_t)v;
		/* speed reads -1 or fails with EINVAL while the link is down */
		p->speed_mbps = attr_long(ifdir, "speed", &v) && v > 0 && v < INT32_MAX
					? (int32_t)v : -1;
		read_ecn(snap, r->systems[sys].name, ifdir, &p->ecn);
	}
	free_list(ents, n);
	return err;
}

/* ---- class/infiniband -------------------------------------------------------- */

static uint64_t parse_guid(const char *s)
{
	uint64_t g = 0;
	unsigned digits = 0;

	for (; s && *s; s++) {
		int d;
		if (*s == ':')
			continue;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return 0;
		if (++digits > 16)
			return 0;
		g = g << 4 | (uint64_t)d;
	}
	return g;
}

/* "16.0 GT/s PCIe" -> 16.0; "Unknown" -> 0 */
static double parse_gts(const char *s)
{
	char *end;
	double v = s ? strtod(s, &end) : 0;

	return s && end != s && v > 0 && v < 1000 ? v : 0;
}

/* "16" or "x16" -> 16 */
static uint8_t parse_width(const char *s)
{
	char *end;

	if (!s)
		return 0;
	if (*s == 'x' || *s == 'X')
		s++;
	long v = strtol(s, &end, 10);
	return end != s && v > 0 && v <= 32 ? (uint8_t)v : 0;
}

/* "4: ACTIVE" -> 4, within [0, max) */
static uint8_t parse_numbered(const char *s, unsigned max)
{
	char *end;

	if (!s)
		return 0;
	long v = strtol(s, &end, 10);
	return end != s && v > 0 && (unsigned long)v < max ? (uint8_t)v : 0;
}

static void read_pci(struct fab_roce *r, struct fab_rdma_device *d, const char *devdir)
{
	char dev[PATH_MAX], path[PATH_MAX], buf[ATTR_MAX];

	if (!join(dev, sizeof(dev), devdir, "device", NULL))
		return;
	/* The PCI address: from uevent, else the name the symlink points at. */
	if (join(path, sizeof(path), dev, "uevent", NULL) && read_attr(path, buf, sizeof(buf)) > 0) {
		char *k = strstr(buf, "PCI_SLOT_NAME=");
		if (k) {
			k += strlen("PCI_SLOT_NAME=");
			k[strcspn(k, "\n")] = '\0';
			d->pci_address = fab_roce_strdup_safe(r, k);
		}
	}
	if (!d->pci_address)
		d->pci_address = link_name(r, devdir, "device");
	const char *cs = attr_str(r, dev, "current_link_speed");
	const char *ms = attr_str(r, dev, "max_link_speed");
	d->pcie_speed_gts = parse_gts(cs);
	d->pcie_max_speed_gts = parse_gts(ms);
	d->pcie_width = parse_width(attr_str(r, dev, "current_link_width"));
	d->pcie_max_width = parse_width(attr_str(r, dev, "max_link_width"));
}

/* The netdev of a RoCE port: the GID table's, else the device's only (or
 * dev_port-matching) netdev. */
static const char *port_netdev(struct fab_roce *r, const char *devdir,
			       const char *portdir, unsigned port_num)
{
	char path[PATH_MAX], buf[ATTR_MAX];
	struct dirent **ents;
	const char *found = NULL;
	int n;

	for (unsigned g = 0; g < 2; g++) {
		char idx[16];
		snprintf(idx, sizeof(idx), "%u", g);
		if (join(path, sizeof(path), portdir, "gid_attrs/ndevs", idx) &&
		    read_attr(path, buf, sizeof(buf)) > 0)
			return fab_roce_strdup_safe(r, buf);
	}
	if (!join(path, sizeof(path), devdir, "device/net", NULL) || (n = list_dir(path, &ents)) <= 0)
		return NULL;
	if (n == 1) {
		found = fab_roce_strdup_safe(r, ents[0]->d_name);
	} else {
		for (int i = 0; i < n && !found; i++) {
			char ndir[PATH_MAX];
			long dp;
			if (join(ndir, sizeof(ndir), path, ents[i]->d_name, NULL) &&
			    attr_long(ndir, "dev_port", &dp) && dp == (long)port_num - 1)
				found = fab_roce_strdup_safe(r, ents[i]->d_name);
		}
	}
	free_list(ents, n);
	return found;
}

static int read_counters(struct fab_roce *r, uint32_t pi, const char *portdir,
			 const char *sub, unsigned kind)
{
	char dir[PATH_MAX], path[PATH_MAX], buf[64];
	struct dirent **ents;
	int n, err = 0;

	if (!join(dir, sizeof(dir), portdir, sub, NULL) || (n = list_dir(dir, &ents)) < 0)
		return 0;
	for (int i = 0; i < n && !err; i++) {
		char *end;
		if (!join(path, sizeof(path), dir, ents[i]->d_name, NULL) ||
		    read_attr(path, buf, sizeof(buf)) <= 0)
			continue; /* some counters cannot be read on some firmware */
		errno = 0;
		unsigned long long v = strtoull(buf, &end, 10);
		if (errno || end == buf || *end || buf[0] == '-')
			continue;
		err = fab_roce_add_counter(r, pi, kind, ents[i]->d_name, v);
	}
	free_list(ents, n);
	return err;
}

static int cmp_port_names(const struct dirent **a, const struct dirent **b)
{
	long x = strtol((*a)->d_name, NULL, 10), y = strtol((*b)->d_name, NULL, 10);

	return x < y ? -1 : x > y;
}

static int read_device(struct fab_roce *r, struct fab_snapshot *snap, uint32_t sys,
		       const char *devdir, const char *name)
{
	char pdir[PATH_MAX], portdir[PATH_MAX];
	struct fab_rdma_device *d = fab_roce_add_device(r, sys);
	struct dirent **ents;
	int n, err = 0;

	if (!d || !(d->name = fab_roce_strdup_safe(r, name)))
		return -ENOMEM;
	uint32_t di = (uint32_t)r->n_devices - 1;
	d->node_guid = parse_guid(attr_str(r, devdir, "node_guid"));
	d->sys_image_guid = parse_guid(attr_str(r, devdir, "sys_image_guid"));
	d->node_desc = attr_str(r, devdir, "node_desc");
	d->fw_ver = attr_str(r, devdir, "fw_ver");
	d->hca_type = attr_str(r, devdir, "hca_type");
	d->board_id = attr_str(r, devdir, "board_id");
	read_pci(r, d, devdir);

	if (!join(pdir, sizeof(pdir), devdir, "ports", NULL))
		return 0;
	if ((n = scandir(pdir, &ents, only_entries, cmp_port_names)) < 0) {
		if (errno != ENOENT)
			record(snap, r->systems[sys].name, pdir, -errno);
		return 0;
	}
	for (int i = 0; i < n && !err; i++) {
		char *end;
		long num = strtol(ents[i]->d_name, &end, 10);
		struct fab_rdma_port *p;

		if (*end || num < 1 || num > 255 ||
		    !join(portdir, sizeof(portdir), pdir, ents[i]->d_name, NULL))
			continue;
		if (!(p = fab_roce_add_rdma_port(r, di))) {
			err = -ENOMEM;
			break;
		}
		uint32_t pi = (uint32_t)r->n_rdma_ports - 1;
		const char *state = attr_str(r, portdir, "state");
		const char *phys = attr_str(r, portdir, "phys_state");
		const char *rate = attr_str(r, portdir, "rate");
		const char *ll = attr_str(r, portdir, "link_layer");
		const char *nd = ll && !strcmp(ll, "Ethernet")
					 ? port_netdev(r, devdir, portdir, (unsigned)num) : NULL;
		p = &r->rdma_ports[pi];
		p->port_num = (uint8_t)num;
		p->state = parse_numbered(state, FAB_STATE__COUNT);
		p->phys_state = parse_numbered(phys, FAB_PHYS__COUNT);
		p->rate = rate;
		p->rate_gbps = parse_gts(rate);
		p->link_layer = ll;
		p->netdev = nd;
		if (!state)
			record(snap, r->systems[sys].name, portdir, -ENOENT);
		if (!err)
			err = read_counters(r, pi, portdir, "counters", FAB_RDMA_CTR_PORT);
		if (!err)
			err = read_counters(r, pi, portdir, "counters_ext", FAB_RDMA_CTR_EXT);
		if (!err)
			err = read_counters(r, pi, portdir, "hw_counters", FAB_RDMA_CTR_HW);
	}
	free_list(ents, n);
	return err;
}

static int read_infiniband(struct fab_roce *r, struct fab_snapshot *snap, uint32_t sys,
			   const char *root)
{
	char dir[PATH_MAX], devdir[PATH_MAX];
	struct dirent **ents;
	int n, err = 0;

	if (!join(dir, sizeof(dir), root, "class/infiniband", NULL))
		return 0;
	if ((n = list_dir(dir, &ents)) < 0) {
		if (n != -ENOENT)
			record(snap, r->systems[sys].name, dir, n);
		return 0;
	}
	for (int i = 0; i < n && !err; i++)
		if (join(devdir, sizeof(devdir), dir, ents[i]->d_name, NULL) && is_dir(devdir))
			err = read_device(r, snap, sys, devdir, ents[i]->d_name);
	free_list(ents, n);
	return err;
}

int fab_roce_collect_sysfs(struct fab_roce *r, struct fab_snapshot *snap,
			   uint32_t system_idx, const char *root)
{
	int err;

	if (!root)
		root = "/sys";
	if ((err = read_net(r, snap, system_idx, root)))
		return err;
	return read_infiniband(r, snap, system_idx, root);
}

bool fab_roce_have_ib_devices(const char *root)
{
	char dir[PATH_MAX], pdir[PATH_MAX], path[PATH_MAX], buf[64];
	struct dirent **devs, **ports;
	bool ib = false;
	int n, m;

	if (!root)
		root = "/sys";
	if (!join(dir, sizeof(dir), root, "class/infiniband", NULL) || (n = list_dir(dir, &devs)) <= 0)
		return false;
	for (int i = 0; i < n && !ib; i++) {
		if (!join(pdir, sizeof(pdir), dir, devs[i]->d_name, "ports") ||
		    (m = list_dir(pdir, &ports)) <= 0) {
			ib = true; /* a device we cannot look into: let the IB scan decide */
			continue;
		}
		for (int k = 0; k < m && !ib; k++)
			if (!join(path, sizeof(path), pdir, ports[k]->d_name, "link_layer") ||
			    read_attr(path, buf, sizeof(buf)) <= 0 || strcmp(buf, "Ethernet"))
				ib = true;
		free_list(ports, m);
	}
	free_list(devs, n);
	return ib;
}
