// SPDX-License-Identifier: MIT
/*
 * The counter model for the RDMA ports of RoCE hosts: the kernel exposes a
 * port's PortCounters in sysfs (<dev>/ports/<n>/counters/<name>) under names
 * of its own; these are the same counters, with the same widths and
 * saturation, as the PMA of an InfiniBand port answers. Mapped here once,
 * so that `ready --local` judges them as `ready` judges an InfiniBand port.
 */
#include <string.h>

#include "fabsweep/counter.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"

/* The kernel's names (drivers/infiniband/core/sysfs.c, the port's
 * "counters" group) of the PortCounters fields. */
static const char *const sysfs_names[] = {
	[FAB_CTR_SYMBOL_ERRORS] = "symbol_error",
	[FAB_CTR_LINK_ERROR_RECOVERY] = "link_error_recovery",
	[FAB_CTR_LINK_DOWNED] = "link_downed",
	[FAB_CTR_RCV_ERRORS] = "port_rcv_errors",
	[FAB_CTR_RCV_REMOTE_PHYS_ERRORS] = "port_rcv_remote_physical_errors",
	[FAB_CTR_RCV_SWITCH_RELAY_ERRORS] = "port_rcv_switch_relay_errors",
	[FAB_CTR_XMIT_DISCARDS] = "port_xmit_discards",
	[FAB_CTR_XMIT_CONSTRAINT_ERRORS] = "port_xmit_constraint_errors",
	[FAB_CTR_RCV_CONSTRAINT_ERRORS] = "port_rcv_constraint_errors",
	[FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS] = "local_link_integrity_errors",
	[FAB_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = "excessive_buffer_overrun_errors",
	[FAB_CTR_VL15_DROPPED] = "VL15_dropped",
	[FAB_CTR_XMIT_WAIT] = "port_xmit_wait",
};

int fab_counter_sysfs_parse(const char *name)
{
	for (unsigned k = 0; name && k < ARRAY_SIZE(sysfs_names); k++)
		if (sysfs_names[k] && !strcmp(sysfs_names[k], name))
			return (int)k;
	return -1;
}

const char *fab_counter_sysfs_name(unsigned ctr)
{
	return ctr < ARRAY_SIZE(sysfs_names) ? sysfs_names[ctr] : NULL;
}

void fab_counter_rdma_sample(const struct fab_roce *r, uint32_t port, int64_t at_ms,
			     struct fab_counter_sample *out)
{
	const struct fab_rdma_port *p = &r->rdma_ports[port];

	memset(out, 0, sizeof(*out));
	out->port_idx = port;
	out->sampled_at_ms = at_ms;
	for (uint32_t k = 0; k < p->ctr_count && p->ctr_first + k < r->n_counters; k++) {
		const struct fab_rdma_counter *c = &r->counters[p->ctr_first + k];
		int ctr = fab_rdma_counter_kind(c) == FAB_RDMA_CTR_PORT ? fab_counter_sysfs_parse(c->name) : -1;

		if (ctr < 0)
			continue;
		out->v[ctr] = c->value;
		out->valid |= 1u << ctr;
	}
}
