// SPDX-License-Identifier: MIT
/*
 * Ethernet and host rules of the RoCE part: LLDP adjacencies (no neighbour,
 * heard one way only), link speeds, and the RDMA devices' PCIe links and
 * firmware. Each is linear in the RoCE part (plus sorting).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/roce.h"
#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

static bool collected_lldp(const struct fab_roce *r, const struct fab_eth_port *p)
{
	const struct fab_roce_system *s;

	if (p->system_idx >= r->n_systems || (p->flags & FAB_ETH_F_STUB) ||
	    !(p->flags & FAB_ETH_F_LLDP))
		return false;
	s = &r->systems[p->system_idx];
	return s->collected && s->lldp;
}

/* ---- lldp.no_neighbor -------------------------------------------------------- */

int check_lldp_no_neighbor(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	const struct roce_view *v = ctx->roce;
	int err = 0;

	for (size_t i = 0; !err && i < r->n_eth_ports; i++) {
		const struct fab_eth_port *p = &r->eth_ports[i];

		/* a port someone heard is lldp.asymmetric's business */
		if (!collected_lldp(r, p) || !roce_is_up(p) || v->heard[i] ||
		    v->link_of[i] != FAB_NONE)
			continue;
		err = rule_emit_eth(ctx, (uint32_t)i, FAB_NONE, "state=up; lldp=1; neighbors=0",
				    "up and running LLDP, but hears no neighbour");
	}
	return err;
}

/* ---- lldp.asymmetric ----------------------------------------------------------- */

int check_lldp_asymmetric(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	int err = 0;

	for (size_t i = 0; !err && i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];
		uint8_t both = FAB_LINK_A_HEARD_B | FAB_LINK_B_HEARD_A;
		uint32_t deaf, hearer;

		if ((l->heard & both) == both || !(l->heard & both))
			continue;
		deaf = l->heard & FAB_LINK_A_HEARD_B ? l->b : l->a;
		hearer = deaf == l->a ? l->b : l->a;
		/* a stub, or a port whose system does not run LLDP there, cannot hear */
		if (!collected_lldp(r, &r->eth_ports[deaf]))
			continue;
		err = rule_emit_eth(ctx, deaf, hearer, "hears_peer=0; heard_by_peer=1",
				    "hears no LLDP from the other end, which hears this one");
	}
	return err;
}

/* ---- eth.speed_mismatch ------------------------------------------------------------- */

static void speed_text(char *buf, size_t len, int32_t mbps)
{
	if (mbps >= 1000 && mbps % 1000 == 0)
		snprintf(buf, len, "%d Gb/s", mbps / 1000);
	else
		snprintf(buf, len, "%d Mb/s", mbps);
}

/* The speed most links of each tier run (ties: the faster), from the
 * votes (rules/roce_votes.c: this part's links and, for part of a fabric,
 * the rest's), which come sorted by tier and ascending speed. */
static void tier_modes(const struct fab_roce_votes *votes, int32_t mode[FAB_TIER_COUNT])
{
	uint32_t best[FAB_TIER_COUNT] = { 0 };

	for (int t = 0; t < FAB_TIER_COUNT; t++)
		mode[t] = 0;
	for (size_t i = 0; i < votes->n_speeds; i++) {
		const struct fab_roce_speed_vote *x = &votes->speeds[i];
		int t = fab_tier(x->role_a, x->role_b);

		if (x->links >= best[t]) { /* ascending: ties go to the faster */
			best[t] = x->links;
			mode[t] = x->mbps;
		}
	}
}

int check_eth_speed_mismatch(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	int32_t mode[FAB_TIER_COUNT], slower;
	char s1[32], s2[32], tier[48];
	int err = 0;

	tier_modes(ctx->roce->votes, mode);
	for (size_t i = 0; !err && i < r->n_links; i++) {
		const struct fab_eth_link *l = &r->links[i];
		int32_t a, b, m;
		int t;

		if (!roce_link_speed(r, l, &slower))
			continue;
		a = r->eth_ports[l->a].speed_mbps;
		b = r->eth_ports[l->b].speed_mbps;
		t = fab_tier(roce_sys_role(r, l->a), roce_sys_role(r, l->b));
		m = mode[t];
		fab_tier_name(t, tier, sizeof(tier));
		rbuf_reset(&ctx->ev);
		if (a != b) {
			uint32_t slow = a < b ? l->a : l->b, fast = a < b ? l->b : l->a;
			speed_text(s1, sizeof(s1), r->eth_ports[slow].speed_mbps);
			speed_text(s2, sizeof(s2), r->eth_ports[fast].speed_mbps);
			rbuf_printf(&ctx->ev, "speed_mbps=%d; peer_speed_mbps=%d",
				    r->eth_ports[slow].speed_mbps, r->eth_ports[fast].speed_mbps);
			err = rule_emit_eth(ctx, slow, fast, rbuf_str(&ctx->ev),
					    "the ends run different speeds (%s here, %s at the other end)",
					    s1, s2);
		} else if (a < m) {
			speed_text(s1, sizeof(s1), a);
			speed_text(s2, sizeof(s2), m);
			rbuf_printf(&ctx->ev, "speed_mbps=%d; tier=%s; tier_speed_mbps=%d", a, tier, m);
			err = rule_emit_eth(ctx, l->a, l->b, rbuf_str(&ctx->ev),
					    "runs %s, while most %s links run %s", s1, tier, s2);
		}
	}
	return err;
}

/* ---- pcie.degraded ------------------------------------------------------------------ */

static void pcie_text(char *buf, size_t len, unsigned width, double gts)
{
	char w[16], s[24];

	if (width)
		snprintf(w, sizeof(w), "x%u", width);
	else
		snprintf(w, sizeof(w), "x?");
	if (gts > 0)
		snprintf(s, sizeof(s), "%g GT/s", gts);
	else
		snprintf(s, sizeof(s), "? GT/s");
	snprintf(buf, len, "%s at %s", w, s);
}

int check_pcie_degraded(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	unsigned min_w = (unsigned)rule_param(ctx, 0);
	double min_s = rule_param(ctx, 1);
	char now[48], can[48];
	int err = 0;

	for (size_t i = 0; !err && i < r->n_devices; i++) {
		const struct fab_rdma_device *d = &r->devices[i];
		unsigned w = d->pcie_width, mw = d->pcie_max_width;
		double s = d->pcie_speed_gts, ms = d->pcie_max_speed_gts;
		bool below_max = (w && mw && w < mw) || (s > 0 && ms > 0 && s + 0.01 < ms);
		bool below_min = (min_w && w && w < min_w) || (min_s > 0 && s > 0 && s + 0.01 < min_s);

		if (!below_max && !below_min)
			continue;
		pcie_text(now, sizeof(now), w, s);
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "pcie_width=%u; pcie_max_width=%u; pcie_speed_gts=%g; pcie_max_speed_gts=%g; pci_address=%s",
			    w, mw, s, ms, d->pci_address ? d->pci_address : "-");
		if (below_max) {
			pcie_text(can, sizeof(can), mw, ms);
			err = rule_emit_rdma(ctx, (uint32_t)i, NULL, rbuf_str(&ctx->ev),
					     "PCIe link runs %s, below the device's %s", now, can);
		} else {
			if (!min_s)
				snprintf(can, sizeof(can), "x%u", min_w);
			else if (!min_w)
				snprintf(can, sizeof(can), "%g GT/s", min_s);
			else
				pcie_text(can, sizeof(can), min_w, min_s);
			err = rule_emit_rdma(ctx, (uint32_t)i, NULL, rbuf_str(&ctx->ev),
					     "PCIe link runs %s, below the expected %s", now, can);
		}
	}
	return err;
}

/* ---- fw.mismatch ------------------------------------------------------------------------ */

/* Version strings compared by their numbers: "20.39.1002" > "20.9.1000". */
static int vercmp(const char *a, const char *b)
{
	while (*a || *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			char *ea, *eb;
			unsigned long long x = strtoull(a, &ea, 10), y = strtoull(b, &eb, 10);
			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return 0;
}

static const struct fab_roce *fw_roce; /* qsort has no context */

static int str0cmp(const char *a, const char *b)
{
	if (a == b) /* the RoCE part holds one copy of a fleet's few models */
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}

/* Same model: same HCA type and board id (PSID). */
static int cmp_model(const struct fab_rdma_device *a, const struct fab_rdma_device *b)
{
	int c = str0cmp(a->hca_type, b->hca_type);

	return c ? c : str0cmp(a->board_id, b->board_id);
}

static int cmp_fw(const void *x, const void *y)
{
	uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
	const struct fab_rdma_device *a = &fw_roce->devices[i], *b = &fw_roce->devices[j];
	int c = cmp_model(a, b);

	if (!c)
		c = str0cmp(a->fw_ver, b->fw_ver); /* (both set: check_fw_mismatch sorts only those) */
	return c ? c : (i < j ? -1 : i > j);
}

struct fw_group {
	const char *fw; /* what most devices of the model run */
	uint32_t n_fw, n_model;
};

static void fw_groups(const struct fab_roce *r, const uint32_t *idx, size_t n,
		      struct fw_group *g)
{
	for (size_t i = 0, j; i < n; i = j) {
		const struct fab_rdma_device *first = &r->devices[idx[i]];
		const char *best = NULL;
		uint32_t nbest = 0;

		for (j = i; j < n && !cmp_model(first, &r->devices[idx[j]]); j++)
			;
		for (size_t k = i, m; k < j; k = m) {
			const char *fw = r->devices[idx[k]].fw_ver;
			for (m = k; m < j && !strcmp(fw, r->devices[idx[m]].fw_ver); m++)
				;
			if (m - k > nbest || (m - k == nbest && vercmp(fw, best) > 0)) {
				best = fw;
				nbest = (uint32_t)(m - k);
			}
		}
		for (size_t k = i; k < j; k++)
			g[idx[k]] = (struct fw_group){ best, nbest, (uint32_t)(j - i) };
	}
}

int check_fw_mismatch(struct fab_rule_ctx *ctx)
{
	const struct fab_roce *r = ctx->snap->roce;
	uint32_t *idx = malloc((r->n_devices + 1) * sizeof(*idx));
	struct fw_group *g = calloc(r->n_devices + 1, sizeof(*g));
	size_t n = 0;
	int err = 0;

	if (!idx || !g) {
		err = fab_err(-ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < r->n_devices; i++)
		if (r->devices[i].fw_ver && r->devices[i].hca_type)
			idx[n++] = (uint32_t)i;
	fw_roce = r;
	qsort(idx, n, sizeof(*idx), cmp_fw);
	fw_roce = NULL;
	fw_groups(r, idx, n, g);
	for (size_t i = 0; !err && i < r->n_devices; i++) {
		const struct fab_rdma_device *d = &r->devices[i];

		if (!g[i].fw || !strcmp(d->fw_ver, g[i].fw))
			continue;
		rbuf_reset(&ctx->tmp);
		rbuf_printf(&ctx->tmp, "%s", d->hca_type);
		if (d->board_id)
			rbuf_printf(&ctx->tmp, " (board %s)", d->board_id);
		rbuf_reset(&ctx->ev);
		rbuf_printf(&ctx->ev, "fw_ver=%s; hca_type=%s; board_id=%s; usual_fw_ver=%s",
			    d->fw_ver, d->hca_type, d->board_id ? d->board_id : "-", g[i].fw);
		err = rule_emit_rdma(ctx, (uint32_t)i, NULL, rbuf_str(&ctx->ev),
				     "runs firmware %s; %u of the %u %s devices run %s", d->fw_ver,
				     g[i].n_fw, g[i].n_model, rbuf_str(&ctx->tmp), g[i].fw);
	}
out:
	free(idx);
	free(g);
	return err;
}
