// SPDX-License-Identifier: MIT
/*
 * LLDP through liblldpctl: one lldpd control socket gives one system (its
 * local chassis), its LLDP interfaces with the custom TLVs it sends on each,
 * and every neighbour heard on them with the custom TLVs they sent. lldpd
 * does not decode IEEE 802.1Qaz itself; it hands those TLVs over as custom
 * ones, which core/roce.c decodes.
 *
 * liblldpctl's default transport blocks without a timeout; we give it our
 * own send/receive callbacks on a socket with SO_RCVTIMEO/SO_SNDTIMEO so a
 * hung lldpd costs at most the timeout.
 */
#include <errno.h>
#include <lldpctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce_collect.h"
#include "fabsweep/snapshot.h"

struct conn_ctx {
	int fd;
	int timed_out;
	int sys_errno;
};

static ssize_t cb_send(lldpctl_conn_t *conn, const uint8_t *data, size_t len,
		       void *user)
{
	struct conn_ctx *c = user;
	ssize_t n;

	(void)conn;
	while ((n = send(c->fd, data, len, MSG_NOSIGNAL)) < 0 && errno == EINTR)
		;
	if (n >= 0)
		return n;
	c->sys_errno = errno;
	c->timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
	return LLDPCTL_ERR_CALLBACK_FAILURE;
}

static ssize_t cb_recv(lldpctl_conn_t *conn, const uint8_t *data, size_t len,
		       void *user)
{
	struct conn_ctx *c = user;
	ssize_t n;

	(void)conn;
	while ((n = recv(c->fd, (void *)data, len, 0)) < 0 && errno == EINTR)
		;
	if (n > 0)
		return n;
	if (n == 0)
		return LLDPCTL_ERR_EOF;
	c->sys_errno = errno;
	c->timed_out = errno == EAGAIN || errno == EWOULDBLOCK;
	return LLDPCTL_ERR_CALLBACK_FAILURE;
}

/* liblldpctl logs through this; library code stays quiet (house style 9). */
static void lldpctl_quiet(int severity, const char *msg)
{
	(void)severity;
	(void)msg;
}

static int connect_socket(const char *path, int timeout_ms, int *out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_ms / 1000,
			      .tv_usec = (timeout_ms % 1000) * 1000 };
	int fd, err;

	if (strlen(path) >= sizeof(sa.sun_path))
		return fab_err(-ENAMETOOLONG, "lldpd socket path '%s' is too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return fab_err(-errno, "lldpd socket '%s': %s", path, strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		err = -errno;
		close(fd);
		return fab_err(err, "cannot connect to lldpd at '%s': %s%s", path,
			       strerror(-err),
			       err == -ENOENT || err == -ECONNREFUSED
				       ? "; is lldpd running there? (--lldp-socket)"
				       : err == -EACCES ? "; run as root or in group _lldpd" : "");
	}
	*out = fd;
	return 0;
}

/* Error of the last liblldpctl call as a message. */
static int lldp_fail(lldpctl_conn_t *conn, const struct conn_ctx *c,
		     const char *path, const char *what)
{
	if (c->timed_out)
		return fab_err(-ETIMEDOUT, "lldpd at '%s' did not answer (%s) in time", path, what);
	if (c->sys_errno)
		return fab_err(-c->sys_errno, "lldpd at '%s': %s: %s", path, what,
			       strerror(c->sys_errno));
	lldpctl_error_t e = lldpctl_last_error(conn);
	return fab_err(e == LLDPCTL_ERR_NOMEM ? -ENOMEM : -EPROTO, "lldpd at '%s': %s: %s",
		       path, what, lldpctl_strerror(e));
}

static const char *get_safe(struct fab_roce *r, lldpctl_atom_t *a, lldpctl_key_t k)
{
	const char *s = lldpctl_atom_get_str(a, k);

	return s && *s ? fab_roce_strdup_safe(r, s) : NULL;
}

/* First IPv4 management address, else the first one. */
static const char *mgmt_address(struct fab_roce *r, lldpctl_atom_t *chassis)
{
	lldpctl_atom_t *list = lldpctl_atom_get(chassis, lldpctl_k_chassis_mgmt);
	const char *first = NULL, *v4 = NULL;

	if (!list)
		return NULL;
	for (lldpctl_atom_iter_t *it = lldpctl_atom_iter(list); it;
	     it = lldpctl_atom_iter_next(list, it)) {
		lldpctl_atom_t *m = lldpctl_atom_iter_value(list, it);
		if (!m)
			continue;
		const char *ip = lldpctl_atom_get_str(m, lldpctl_k_mgmt_ip);
		if (ip && *ip) {
			if (!first)
				first = fab_roce_strdup_safe(r, ip);
			if (!v4 && !strchr(ip, ':'))
				v4 = fab_roce_strdup_safe(r, ip);
		}
		lldpctl_atom_dec_ref(m);
	}
	lldpctl_atom_dec_ref(list);
	return v4 ? v4 : first;
}

static void chassis_caps(lldpctl_atom_t *chassis, uint16_t *avail, uint16_t *en,
			 bool *has)
{
	long a = lldpctl_atom_get_int(chassis, lldpctl_k_chassis_cap_available);
	long e = lldpctl_atom_get_int(chassis, lldpctl_k_chassis_cap_enabled);

	*has = a >= 0 && e >= 0;
	*avail = a >= 0 ? (uint16_t)a : 0;
	*en = e >= 0 ? (uint16_t)e : 0;
}

/* Appends the custom TLVs of a port atom (local or neighbour). */
static int read_tlvs(struct fab_roce *r, lldpctl_atom_t *port, uint32_t *first,
		     uint32_t *count)
{
	lldpctl_atom_t *list = lldpctl_atom_get(port, lldpctl_k_custom_tlvs);
	int err = 0;

	*first = (uint32_t)r->n_tlvs;
	*count = 0;
	if (!list)
		return 0; /* none, or lldpd built without custom TLV support */
	for (lldpctl_atom_iter_t *it = lldpctl_atom_iter(list); it && !err;
	     it = lldpctl_atom_iter_next(list, it)) {
		lldpctl_atom_t *t = lldpctl_atom_iter_value(list, it);
		size_t olen = 0, ilen = 0;

		if (!t)
			continue;
		const uint8_t *oui = lldpctl_atom_get_buffer(t, lldpctl_k_custom_tlv_oui, &olen);
		long sub = lldpctl_atom_get_int(t, lldpctl_k_custom_tlv_oui_subtype);
		const uint8_t *info =
			lldpctl_atom_get_buffer(t, lldpctl_k_custom_tlv_oui_info_string, &ilen);
		if (oui && olen == 3 && sub >= 0 && sub <= 255 && ilen <= 507) {
			uint32_t o = (uint32_t)oui[0] << 16 | (uint32_t)oui[1] << 8 | oui[2];
			err = fab_roce_add_tlv(r, o, (unsigned)sub, info ? info : (const uint8_t *)"",
					       info ? ilen : 0);
			if (!err)
				(*count)++;
		}
		lldpctl_atom_dec_ref(t);
	}
	lldpctl_atom_dec_ref(list);
	return err;
}

static void lower(char *s)
{
	for (; s && *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static int read_neighbor(struct fab_roce *r, uint32_t port_idx, lldpctl_atom_t *nb)
{
	struct fab_lldp_neighbor *n = fab_roce_add_neighbor(r, port_idx);
	uint32_t ni = (uint32_t)r->n_neighbors - 1;
	lldpctl_atom_t *ch;
	uint32_t tf, tc;
	struct fab_dcbx d;
	int err;

	if (!n)
		return -ENOMEM;
	n->port_id = get_safe(r, nb, lldpctl_k_port_id);
	n->port_id_subtype = get_safe(r, nb, lldpctl_k_port_id_subtype);
	n->port_descr = get_safe(r, nb, lldpctl_k_port_descr);
	long ttl = lldpctl_atom_get_int(nb, lldpctl_k_port_ttl);
	if ((ch = lldpctl_atom_get(nb, lldpctl_k_port_chassis))) {
		n->chassis_id = get_safe(r, ch, lldpctl_k_chassis_id);
		n->chassis_id_subtype = get_safe(r, ch, lldpctl_k_chassis_id_subtype);
		n->system_name = get_safe(r, ch, lldpctl_k_chassis_name);
		n->system_descr = get_safe(r, ch, lldpctl_k_chassis_descr);
		n->mgmt_address = mgmt_address(r, ch);
		chassis_caps(ch, &n->cap_available, &n->cap_enabled, &n->has_caps);
		if (ttl <= 0)
			ttl = lldpctl_atom_get_int(ch, lldpctl_k_chassis_ttl);
		lldpctl_atom_dec_ref(ch);
	}
	n->ttl = ttl > 0 ? (uint32_t)ttl : 0;
	if ((err = read_tlvs(r, nb, &tf, &tc)) || (err = fab_roce_decode_tlvs(r, tf, tc, &d)))
		return err;
	n = &r->neighbors[ni];
	n->tlv_first = tf;
	n->tlv_count = tc;
	n->dcbx = d;
	return 0;
}

static int read_interface(struct fab_roce *r, uint32_t sys, lldpctl_atom_t *iface)
{
	const char *name = lldpctl_atom_get_str(iface, lldpctl_k_interface_name);
	lldpctl_atom_t *port, *list;
	uint32_t pi, tf, tc;
	struct fab_dcbx d;
	int err = 0;

	if (!name || !*name)
		return 0;
	if ((pi = fab_roce_find_eth_port(r, sys, name)) == FAB_NONE) {
		struct fab_eth_port *p = fab_roce_add_eth_port(r, sys);
		if (!p || !(p->ifname = fab_roce_strdup_safe(r, name)))
			return -ENOMEM;
		pi = (uint32_t)r->n_eth_ports - 1;
	}
	r->eth_ports[pi].flags |= FAB_ETH_F_LLDP;
	if (!(port = lldpctl_get_port(iface)))
		return 0; /* vanished meanwhile */
	{
		struct fab_eth_port *p = &r->eth_ports[pi];
		p->port_id = get_safe(r, port, lldpctl_k_port_id);
		p->port_id_subtype = get_safe(r, port, lldpctl_k_port_id_subtype);
		p->port_descr = get_safe(r, port, lldpctl_k_port_descr);
		if (p->port_id && p->port_id_subtype && !strcmp(p->port_id_subtype, "mac") &&
		    !p->mac) {
			char *m = (char *)fab_roce_strdup(r, p->port_id);
			lower(m);
			p->mac = m;
		}
	}
	if (!(err = read_tlvs(r, port, &tf, &tc)) && !(err = fab_roce_decode_tlvs(r, tf, tc, &d))) {
		struct fab_eth_port *p = &r->eth_ports[pi];
		p->tlv_first = tf;
		p->tlv_count = tc;
		p->adv = d;
	}
	if (!err && (list = lldpctl_atom_get(port, lldpctl_k_port_neighbors))) {
		for (lldpctl_atom_iter_t *it = lldpctl_atom_iter(list); it && !err;
		     it = lldpctl_atom_iter_next(list, it)) {
			lldpctl_atom_t *nb = lldpctl_atom_iter_value(list, it);
			if (!nb)
				continue;
			err = read_neighbor(r, pi, nb);
			lldpctl_atom_dec_ref(nb);
		}
		lldpctl_atom_dec_ref(list);
	}
	lldpctl_atom_dec_ref(port);
	return err;
}

int fab_roce_collect_lldp(struct fab_roce *r, struct fab_snapshot *snap,
			  const char *path, int timeout_ms, uint32_t *out)
{
	struct conn_ctx c = { .fd = -1 };
	lldpctl_conn_t *conn = NULL;
	lldpctl_atom_t *chassis = NULL, *ifaces = NULL;
	struct fab_roce_system *s;
	uint32_t si;
	int err;

	(void)snap; /* errors are the caller's to record */
	if (timeout_ms <= 0)
		timeout_ms = FAB_ROCE_DEFAULT_TIMEOUT_MS;
	lldpctl_log_callback(lldpctl_quiet);
	if ((err = connect_socket(path, timeout_ms, &c.fd)))
		return err;
	if (!(conn = lldpctl_new(cb_send, cb_recv, &c))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	if (!(chassis = lldpctl_get_local_chassis(conn))) {
		err = lldp_fail(conn, &c, path, "local chassis");
		goto out;
	}
	if (!(ifaces = lldpctl_get_interfaces(conn))) {
		err = lldp_fail(conn, &c, path, "interfaces");
		goto out;
	}
	if (!(s = fab_roce_add_system(r))) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	si = (uint32_t)r->n_systems - 1;
	s->name = get_safe(r, chassis, lldpctl_k_chassis_name);
	s->chassis_id = get_safe(r, chassis, lldpctl_k_chassis_id);
	s->chassis_id_subtype = get_safe(r, chassis, lldpctl_k_chassis_id_subtype);
	s->description = get_safe(r, chassis, lldpctl_k_chassis_descr);
	s->mgmt_address = mgmt_address(r, chassis);
	chassis_caps(chassis, &s->cap_available, &s->cap_enabled, &s->has_caps);
	{
		size_t len = strlen(path) + 6;
		char *src = malloc(len);
		if (src) {
			snprintf(src, len, "lldp:%s", path);
			s->source = fab_roce_strdup(r, src);
			free(src);
		}
	}
	s->lldp = true;
	s->collected = true;
	s->collected_at_ms = fab_now_ms();
	if (!s->name)
		s->name = s->chassis_id ? s->chassis_id : "?";

	for (lldpctl_atom_iter_t *it = lldpctl_atom_iter(ifaces); it && !err;
	     it = lldpctl_atom_iter_next(ifaces, it)) {
		lldpctl_atom_t *iface = lldpctl_atom_iter_value(ifaces, it);
		if (!iface)
			continue;
		err = read_interface(r, si, iface);
		lldpctl_atom_dec_ref(iface);
	}
	if (err == -ENOMEM)
		fab_err(err, "out of memory");
	else if (err || c.timed_out || c.sys_errno)
		err = lldp_fail(conn, &c, path, "ports");
	if (!err)
		*out = si;
out:
	if (chassis)
		lldpctl_atom_dec_ref(chassis);
	if (ifaces)
		lldpctl_atom_dec_ref(ifaces);
	lldpctl_release(conn);
	if (c.fd >= 0)
		close(c.fd);
	return err;
}
