// SPDX-License-Identifier: MIT
/*
 * ibdiagnet2.db_csv into a snapshot (fabsweep/ibdiag.h, docs/imports.md).
 * Two phases, like the ibnetdiscover importer: the reader (ibdiag_csv.c)
 * hands every row of the sections read here to a handler that keeps a
 * small record; then the records are checked as a whole and resolved by
 * GUID through sorted arrays, and only then is the snapshot filled.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fabsweep/error.h"
#include "fabsweep/ibdiag.h"
#include "fabsweep/names.h"
#include "fabsweep/scan.h"
#include "fabsweep/snapshot.h"
#include "import/ibdiag_priv.h"

struct inode {
	uint64_t guid, sys_guid;
	uint8_t type, nports;
	uint32_t vendor, device, revision;
	uint8_t desc[FAB_DESC_RAW], desc_len;
	size_t line;
	uint32_t first, count; /* its ports in the sorted port records */
};

struct iport {
	uint64_t node_guid, guid;
	uint32_t node;   /* index in the node records (sorted by GUID) */
	uint8_t num, state, phys, lmc, mtu, mtu_cap, op_vls, vl_cap, vl_high, arb_high, arb_low;
	uint8_t width_active, width_enabled, width_supported;
	uint16_t lid, sm_lid, speed_active, speed_enabled, speed_supported;
	uint32_t cap_mask;
	size_t line;
	uint32_t snap_idx;
};

struct ilink {
	uint64_t g[2];
	uint8_t p[2];
	size_t line;
};

struct ism {
	uint64_t node_guid, port_guid;
	uint8_t port, state, prio;
	uint32_t act;
};

struct ipm {
	uint64_t node_guid;
	uint8_t port;
	bool extended;
	uint32_t valid;
	uint64_t v[FAB_CTR__COUNT];
	size_t line;
};

struct ifw {
	uint64_t guid;
	char version[40], psid[24];
	size_t line;
};

struct imp {
	const char *name;   /* the input, in messages */
	const char *source; /* what snap->source names: the directory or the input */
	struct inode *nodes;
	size_t n_nodes, cap_nodes;
	struct iport *ports;
	size_t n_ports, cap_ports;
	struct ilink *links;
	size_t n_links, cap_links;
	struct ism *sms;
	size_t n_sms, cap_sms;
	struct ipm *pms;
	size_t n_pms, cap_pms;
	uint64_t *switches;
	size_t n_switches, cap_switches;
	struct ifw *fws;
	size_t n_fws, cap_fws;
	int64_t time_ms;
	char skipped_stages[256]; /* RUN_INFO Args: --skip ... */
	struct ibd_phys phys;     /* PHY_DB16 (ibdiag_phys.c) */
};

/* A new zeroed record at the end of imp->arr. */
#define RECORD(imp, arr, type) \
	((type *)fab_array_grow((void **)&(imp)->arr, &(imp)->n_##arr, &(imp)->cap_##arr, \
				sizeof(*(imp)->arr)))

/* Reads columns 0..n of row into v (absent: *absent bit set). */
static int nums(struct ibd_reader *r, const struct ibd_row *row, size_t n, uint64_t *v,
		uint32_t *absent)
{
	*absent = 0;
	for (size_t k = 0; k < n; k++) {
		int rc = ibd_u64(r, row, k, &v[k]);
		if (rc < 0)
			return rc;
		if (rc) {
			v[k] = 0;
			*absent |= 1u << k;
		}
	}
	return 0;
}

static int range(struct ibd_reader *r, const struct ibd_row *row, size_t k, uint64_t v,
		 uint64_t max)
{
	if (v <= max)
		return 0;
	return ibd_err(r, row->line, -EINVAL, "%s %" PRIu64 " is out of range (at most %" PRIu64 ")",
		       row->names[k], v, max);
}

/* ---- the sections ------------------------------------------------------- */

enum { N_DESC, N_NPORTS, N_TYPE, N_SYSGUID, N_GUID, N_DEVICE, N_REV, N_VENDOR, N__COUNT };
static const char *const node_cols[] = {
	"NodeDesc", "NumPorts", "NodeType", "SystemImageGUID", "NodeGUID", "DeviceID", "revision",
	"VendorID",
};

static int node_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	uint64_t v[N__COUNT] = { 0 };
	int rc;

	for (size_t k = N_NPORTS; k < N__COUNT; k++) /* (NodeDesc is text) */
		if ((rc = ibd_u64(r, row, k, &v[k])) < 0)
			return rc;
	if ((rc = range(r, row, N_NPORTS, v[N_NPORTS], 254)) ||
	    (rc = range(r, row, N_TYPE, v[N_TYPE], 3)) || (v[N_TYPE] == 0 &&
	    (rc = ibd_err(r, row->line, -EINVAL, "NodeType 0 is not a node type"))))
		return rc;
	struct inode *n = RECORD(imp, nodes, struct inode);
	if (!n)
		return fab_err(-ENOMEM, "%s: out of memory", imp->name);
	const char *desc = ibd_text(row, N_DESC);
	size_t dl = strlen(desc);
	*n = (struct inode){
		.guid = v[N_GUID], .sys_guid = v[N_SYSGUID], .type = (uint8_t)v[N_TYPE],
		.nports = (uint8_t)v[N_NPORTS], .vendor = (uint32_t)v[N_VENDOR],
		.device = (uint32_t)v[N_DEVICE], .revision = (uint32_t)v[N_REV],
		.desc_len = (uint8_t)(dl > FAB_DESC_RAW ? FAB_DESC_RAW : dl), .line = row->line,
	};
	memcpy(n->desc, desc, n->desc_len);
	return 0;
}

enum { P_NODE, P_GUID, P_NUM, P_LID, P_SMLID, P_LMC, P_WACT, P_WSUP, P_WEN, P_SEN, P_SACT,
       P_SSUP, P_PHYS, P_STATE, P_MTU, P_MTUCAP, P_OPVLS, P_CAPMASK, P_VLCAP, P_VLHIGH,
       P_ARBHIGH, P_ARBLOW, P__COUNT };
static const char *const port_cols[] = {
	"NodeGuid", "PortGuid", "PortNum", "LID", "MSMLID", "LMC", "LinkWidthActv", "LinkWidthSup",
	"LinkWidthEn", "LinkSpeedEn", "LinkSpeedActv", "LinkSpeedSup", "PortPhyState", "PortState",
	"NMTU", "MTUCap", "OpVLs", "CapMsk", "VLCap", "VLHighLimit", "VLArbHighCap", "VLArbLowCap",
};

/* ibdiagnet's speed word: the base speeds (1 SDR, 2 DDR, 4 QDR) in the
 * low byte, the extended ones above (0x100 FDR, 0x200 EDR, 0x400 HDR,
 * 0x800 NDR, 0x1000 XDR), FDR10 at 0x10000 (Mellanox's extension). */
static uint16_t speeds(uint64_t w)
{
	static const struct { uint64_t bit; uint16_t speed; } map[] = {
		{ 0x1, FAB_SPEED_SDR }, { 0x2, FAB_SPEED_DDR }, { 0x4, FAB_SPEED_QDR },
		{ 0x10000, FAB_SPEED_FDR10 }, { 0x100, FAB_SPEED_FDR }, { 0x200, FAB_SPEED_EDR },
		{ 0x400, FAB_SPEED_HDR }, { 0x800, FAB_SPEED_NDR }, { 0x1000, FAB_SPEED_XDR },
	};
	uint16_t out = 0;

	for (size_t i = 0; i < ARRAY_SIZE(map); i++)
		if (w & map[i].bit)
			out |= map[i].speed;
	return out;
}

/* The active speed is one: an extended speed overrides the base one. */
static uint16_t fastest(uint16_t mask)
{
	while (mask & (mask - 1))
		mask &= (uint16_t)(mask - 1);
	/* mask - 1 clears the lowest bit; what is left is the highest */
	return mask;
}

static int port_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	uint64_t v[P__COUNT];
	uint32_t absent;
	int rc;

	if ((rc = nums(r, row, P__COUNT, v, &absent)) ||
	    (rc = range(r, row, P_NUM, v[P_NUM], 254)) ||
	    (rc = range(r, row, P_LID, v[P_LID], 0xffff)) ||
	    (rc = range(r, row, P_SMLID, v[P_SMLID], 0xffff)) ||
	    (rc = range(r, row, P_LMC, v[P_LMC], 7)) ||
	    (rc = range(r, row, P_STATE, v[P_STATE], FAB_STATE__COUNT - 1)) ||
	    (rc = range(r, row, P_PHYS, v[P_PHYS], FAB_PHYS__COUNT - 1)) ||
	    (rc = range(r, row, P_MTU, v[P_MTU], 5)) || (rc = range(r, row, P_MTUCAP, v[P_MTUCAP], 5)) ||
	    (rc = range(r, row, P_OPVLS, v[P_OPVLS], 15)) || (rc = range(r, row, P_VLCAP, v[P_VLCAP], 15)) ||
	    (rc = range(r, row, P_VLHIGH, v[P_VLHIGH], 255)) ||
	    (rc = range(r, row, P_ARBHIGH, v[P_ARBHIGH], 255)) ||
	    (rc = range(r, row, P_ARBLOW, v[P_ARBLOW], 255)))
		return rc;
	struct iport *p = RECORD(imp, ports, struct iport);
	if (!p)
		return fab_err(-ENOMEM, "%s: out of memory", imp->name);
	uint16_t active = speeds(v[P_SACT]);
	*p = (struct iport){
		.node_guid = v[P_NODE], .guid = v[P_GUID], .num = (uint8_t)v[P_NUM],
		.lid = (uint16_t)v[P_LID], .sm_lid = (uint16_t)v[P_SMLID], .lmc = (uint8_t)v[P_LMC],
		.width_active = (uint8_t)v[P_WACT], .width_supported = (uint8_t)v[P_WSUP],
		.width_enabled = (uint8_t)v[P_WEN], .speed_active = fastest(active),
		.speed_enabled = speeds(v[P_SEN]), .speed_supported = speeds(v[P_SSUP]),
		.phys = (uint8_t)v[P_PHYS], .state = (uint8_t)v[P_STATE], .mtu = (uint8_t)v[P_MTU],
		.mtu_cap = (uint8_t)v[P_MTUCAP], .op_vls = (uint8_t)v[P_OPVLS],
		.vl_cap = (uint8_t)v[P_VLCAP], .vl_high = (uint8_t)v[P_VLHIGH],
		.arb_high = (uint8_t)v[P_ARBHIGH], .arb_low = (uint8_t)v[P_ARBLOW],
		.cap_mask = (uint32_t)v[P_CAPMASK], .line = row->line,
	};
	return 0;
}

static const char *const link_cols[] = { "NodeGuid1", "PortNum1", "NodeGuid2", "PortNum2" };

static int link_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	uint64_t v[4];
	uint32_t absent;
	int rc;

	if ((rc = nums(r, row, 4, v, &absent)) || (rc = range(r, row, 1, v[1], 254)) ||
	    (rc = range(r, row, 3, v[3], 254)))
		return rc;
	struct ilink *l = RECORD(imp, links, struct ilink);
	if (!l)
		return fab_err(-ENOMEM, "%s: out of memory", imp->name);
	*l = (struct ilink){ .g = { v[0], v[2] }, .p = { (uint8_t)v[1], (uint8_t)v[3] },
			     .line = row->line };
	return 0;
}

static const char *const switch_cols[] = { "NodeGUID" };

static int switch_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	uint64_t g;
	int rc = ibd_u64(r, row, 0, &g);

	if (rc)
		return rc < 0 ? rc : ibd_err(r, row->line, -EINVAL, "a switch without a NodeGUID");
	uint64_t *s = RECORD(imp, switches, uint64_t);
	if (!s)
		return fab_err(-ENOMEM, "%s: out of memory", imp->name);
	*s = g;
	return 0;
}

static const char *const sm_cols[] = { "NodeGUID", "PortGUID", "PortNumber", "ActCount", "SmState",
					"Priority" };

static int sm_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	uint64_t v[6];
	uint32_t absent;
	int rc;

	if ((rc = nums(r, row, 6, v, &absent)) || (rc = range(r, row, 2, v[2], 254)) ||
	    (rc = range(r, row, 3, v[3], UINT32_MAX)) || (rc = range(r, row, 4, v[4], 3)) ||
	    (rc = range(r, row, 5, v[5], 15)))
		return rc;
	struct ism *s = RECORD(imp, sms, struct ism);
	if (!s)
		return fab_err(-ENOMEM, "%s: out of memory", imp->name);
	*s = (struct ism){ .node_guid = v[0], .port_guid = v[1], .port = (uint8_t)v[2],
			   .act = (uint32_t)v[3], .state = (uint8_t)v[4], .prio = (uint8_t)v[5] };
	return 0;
}

/* PM_INFO: the PortCounters columns, then the 64-bit ones of
 * PortCountersExtended that replace them when present. */
enum { M_NODE, M_PORT, M__FIRST };
/* the counters PM_INFO has: PortCounters' and PortCountersExtended's */
#define M_CTRS (FAB_CTR_MULTICAST_RCV_PKTS + 1)
static const char *const pm_cols[] = {
	"NodeGUID", "PortNumber",
	[M__FIRST + FAB_CTR_SYMBOL_ERRORS] = "SymbolErrorCounter",
	[M__FIRST + FAB_CTR_LINK_ERROR_RECOVERY] = "LinkErrorRecoveryCounter",
	[M__FIRST + FAB_CTR_LINK_DOWNED] = "LinkDownedCounter",
	[M__FIRST + FAB_CTR_RCV_ERRORS] = "PortRcvErrors",
	[M__FIRST + FAB_CTR_RCV_REMOTE_PHYS_ERRORS] = "PortRcvRemotePhysicalErrors",
	[M__FIRST + FAB_CTR_RCV_SWITCH_RELAY_ERRORS] = "PortRcvSwitchRelayErrors",
	[M__FIRST + FAB_CTR_XMIT_DISCARDS] = "PortXmitDiscards",
	[M__FIRST + FAB_CTR_XMIT_CONSTRAINT_ERRORS] = "PortXmitConstraintErrors",
	[M__FIRST + FAB_CTR_RCV_CONSTRAINT_ERRORS] = "PortRcvConstraintErrors",
	[M__FIRST + FAB_CTR_LOCAL_LINK_INTEGRITY_ERRORS] = "LocalLinkIntegrityErrors",
	[M__FIRST + FAB_CTR_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = "ExcessiveBufferOverrunErrors",
	[M__FIRST + FAB_CTR_VL15_DROPPED] = "VL15Dropped",
	[M__FIRST + FAB_CTR_XMIT_WAIT] = "PortXmitWait",
	[M__FIRST + FAB_CTR_XMIT_DATA] = "PortXmitData",
	[M__FIRST + FAB_CTR_RCV_DATA] = "PortRcvData",
	[M__FIRST + FAB_CTR_XMIT_PKTS] = "PortXmitPkts",
	[M__FIRST + FAB_CTR_RCV_PKTS] = "PortRcvPkts",
	[M__FIRST + FAB_CTR_UNICAST_XMIT_PKTS] = "PortUniCastXmitPkts",
	[M__FIRST + FAB_CTR_UNICAST_RCV_PKTS] = "PortUniCastRcvPkts",
	[M__FIRST + FAB_CTR_MULTICAST_XMIT_PKTS] = "PortMultiCastXmitPkts",
	[M__FIRST + FAB_CTR_MULTICAST_RCV_PKTS] = "PortMultiCastRcvPkts",
	[M__FIRST + M_CTRS + 0] = "PortXmitDataExtended",
	[M__FIRST + M_CTRS + 1] = "PortRcvDataExtended",
	[M__FIRST + M_CTRS + 2] = "PortXmitPktsExtended",
	[M__FIRST + M_CTRS + 3] = "PortRcvPktsExtended",
};
#define M__COUNT ARRAY_SIZE(pm_cols)
_Static_assert(M__COUNT <= IBD_COLS_MAX && M__COUNT <= 32, "pm_cols");
static const uint8_t pm_ext[] = { FAB_CTR_XMIT_DATA, FAB_CTR_RCV_DATA, FAB_CTR_XMIT_PKTS,
				  FAB_CTR_RCV_PKTS };

static int pm_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	uint64_t v[M__COUNT];
	uint32_t absent;
	int rc;

	if ((rc = nums(r, row, M__COUNT, v, &absent)) || (rc = range(r, row, M_PORT, v[M_PORT], 254)))
		return rc;
	struct ipm *m = RECORD(imp, pms, struct ipm);
	if (!m)
		return fab_err(-ENOMEM, "%s: out of memory", imp->name);
	*m = (struct ipm){ .node_guid = v[M_NODE], .port = (uint8_t)v[M_PORT], .line = row->line };
	for (unsigned c = 0; c < M_CTRS; c++)
		if (!(absent & (1u << (M__FIRST + c)))) {
			m->v[c] = v[M__FIRST + c];
			m->valid |= 1u << c;
		}
	/* the 64-bit values where ibdiagnet read PortCountersExtended */
	m->extended = true;
	for (size_t i = 0; i < ARRAY_SIZE(pm_ext); i++)
		m->extended &= !(absent & (1u << (M__FIRST + M_CTRS + i)));
	for (size_t i = 0; m->extended && i < ARRAY_SIZE(pm_ext); i++)
		m->v[pm_ext[i]] = v[M__FIRST + M_CTRS + i], m->valid |= 1u << pm_ext[i];
	if (!m->extended) /* unicast and multicast exist only there */
		m->valid &= ~((1u << FAB_CTR_UNICAST_XMIT_PKTS) | (1u << FAB_CTR_UNICAST_RCV_PKTS) |
			      (1u << FAB_CTR_MULTICAST_XMIT_PKTS) | (1u << FAB_CTR_MULTICAST_RCV_PKTS));
	return 0;
}

/* NODES_INFO: the firmware (the extended version where the device has one:
 * Quantum-2 and ConnectX-7 report 31.2012.1068 there and zeros in the
 * old fields) and the PSID. */
enum { F_GUID, F_XMAJ, F_XMIN, F_XSUB, F_MAJ, F_MIN, F_SUB, F__NUMS, F_PSID = F__NUMS };
static const char *const fw_cols[] = {
	"NodeGUID", "FWInfo_Extended_Major", "FWInfo_Extended_Minor", "FWInfo_Extended_SubMinor",
	"FWInfo_Major", "FWInfo_Minor", "FWInfo_SubMinor", "FWInfo_PSID",
};

static int fw_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	uint64_t v[F__NUMS];
	uint32_t absent;
	int rc;

	if ((rc = nums(r, row, F__NUMS, v, &absent)))
		return rc;
	for (size_t k = F_XMAJ; k < F__NUMS; k++)
		if ((rc = range(r, row, k, v[k], UINT32_MAX)))
			return rc;
	struct ifw *f = RECORD(imp, fws, struct ifw);
	if (!f)
		return fab_err(-ENOMEM, "%s: out of memory", imp->name);
	bool ext = v[F_XMAJ] || v[F_XMIN] || v[F_XSUB];
	const char *psid = ibd_text(row, F_PSID);
	f->guid = v[F_GUID];
	f->line = row->line;
	snprintf(f->version, sizeof(f->version), "%" PRIu64 ".%" PRIu64 ".%" PRIu64,
		 v[ext ? F_XMAJ : F_MAJ], v[ext ? F_XMIN : F_MIN], v[ext ? F_XSUB : F_SUB]);
	if (!ext && !v[F_MAJ] && !v[F_MIN] && !v[F_SUB])
		f->version[0] = '\0'; /* not reported */
	/* the PSID is text from the device: only its first 16 bytes, cleaned when stored */
	snprintf(f->psid, sizeof(f->psid), "%.16s", psid ? psid : "");
	return 0;
}

static const char *const run_cols[] = { "Date", "Args" };

static int run_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	struct imp *imp = ctx;
	const char *date = ibd_text(row, 0), *args = ibd_text(row, 1), *skip;
	struct tm tm = { 0 };
	const char *e = date ? strptime(date, "%Y-%m-%d %H:%M:%S", &tm) : NULL;

	if (date && *date && !e)
		return ibd_err(r, row->line, -EINVAL, "Date '%.40s' is not YYYY-MM-DD HH:MM:SS", date);
	if (e)
		imp->time_ms = (int64_t)timegm(&tm) * 1000;
	/* "--skip dup_guids,links,pm": the stages whose data is absent */
	if (args && (skip = strstr(args, "--skip ")))
		snprintf(imp->skipped_stages, sizeof(imp->skipped_stages), "%.*s",
			 (int)strcspn(skip + 7, " "), skip + 7);
	return 0;
}

static int ber_row(void *ctx, struct ibd_reader *r, const struct ibd_row *row)
{
	return ibd_ber_row(&((struct imp *)ctx)->phys, r, row);
}

#define SECTION(n, c, req, fn) { .name = n, .cols = c, .n_cols = ARRAY_SIZE(c), .required = req, .row = fn }
static const struct ibd_section sections[] = {
	SECTION("RUN_INFO", run_cols, 0, run_row),
	SECTION("NODES", node_cols, (1u << N_DESC) | (1u << N_NPORTS) | (1u << N_TYPE) | (1u << N_GUID),
		node_row),
	SECTION("PORTS", port_cols, (1u << P_NODE) | (1u << P_GUID) | (1u << P_NUM), port_row),
	SECTION("LINKS", link_cols, 0xf, link_row),
	SECTION("SWITCHES", switch_cols, 1, switch_row),
	SECTION("SM_INFO", sm_cols, 0x3f, sm_row),
	SECTION("PM_INFO", pm_cols, (1u << M_NODE) | (1u << M_PORT), pm_row),
	SECTION("NODES_INFO", fw_cols, 1u << F_GUID, fw_row),
	SECTION("PHY_DB16", ibd_ber_cols, (1u << IBD_BER_NODE) | (1u << IBD_BER_PORT), ber_row),
};

/* ---- checking and resolving ------------------------------------------------ */

static int cmp_node(const void *a, const void *b)
{
	const struct inode *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_port(const void *a, const void *b)
{
	const struct iport *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static uint32_t node_find(const struct imp *imp, uint64_t guid)
{
	size_t lo = 0, hi = imp->n_nodes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (imp->nodes[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < imp->n_nodes && imp->nodes[lo].guid == guid ? (uint32_t)lo : FAB_NONE;
}

/* The port record of (node GUID, number), or NULL. */
static struct iport *port_find(const struct imp *imp, uint64_t guid, unsigned num)
{
	uint32_t ni = node_find(imp, guid);

	if (ni == FAB_NONE)
		return NULL;
	const struct inode *n = &imp->nodes[ni];
	size_t lo = n->first, hi = (size_t)n->first + n->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (imp->ports[mid].num < num)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (size_t)n->first + n->count && imp->ports[lo].num == num ? &imp->ports[lo] : NULL;
}

static int resolve(struct imp *imp)
{
	if (!imp->n_nodes)
		return fab_err(-EINVAL, "%s: no NODES section with a node: not ibdiagnet2.db_csv", imp->name);
	qsort(imp->nodes, imp->n_nodes, sizeof(*imp->nodes), cmp_node);
	for (size_t i = 1; i < imp->n_nodes; i++)
		if (imp->nodes[i].guid == imp->nodes[i - 1].guid)
			return fab_err(-EINVAL, "%s:%zu: node 0x%016" PRIx64 " again (first at line %zu)",
				       imp->name, imp->nodes[i].line, imp->nodes[i].guid,
				       imp->nodes[i - 1].line);
	for (size_t i = 0; i < imp->n_ports; i++) {
		struct iport *p = &imp->ports[i];
		if ((p->node = node_find(imp, p->node_guid)) == FAB_NONE)
			return fab_err(-EINVAL, "%s:%zu: a port of node 0x%016" PRIx64 ", which NODES does not list",
				       imp->name, p->line, p->node_guid);
	}
	if (imp->n_ports)
		qsort(imp->ports, imp->n_ports, sizeof(*imp->ports), cmp_port);
	for (size_t i = 0; i < imp->n_ports; i++) {
		const struct iport *p = &imp->ports[i];
		struct inode *n = &imp->nodes[p->node];
		if (i && p->node == p[-1].node && p->num == p[-1].num)
			return fab_err(-EINVAL, "%s:%zu: port %u of node 0x%016" PRIx64 " again (first at line %zu)",
				       imp->name, p->line, p->num, n->guid, p[-1].line);
		if (!n->count++)
			n->first = (uint32_t)i;
	}
	for (size_t i = 0; i < imp->n_switches; i++) {
		uint32_t ni = node_find(imp, imp->switches[i]);
		if (ni == FAB_NONE || imp->nodes[ni].type != FAB_NODE_SWITCH)
			return fab_err(-EINVAL, "%s: SWITCHES lists 0x%016" PRIx64 ", which NODES %s",
				       imp->name, imp->switches[i],
				       ni == FAB_NONE ? "does not list" : "says is no switch");
	}
	return 0;
}

/* ---- filling the snapshot -------------------------------------------------- */

static int fill_nodes(struct imp *imp, struct fab_snapshot *snap)
{
	/* the counts are known: each array is filled once, never regrown */
	if (fab_snapshot_reserve(snap, imp->n_nodes, imp->n_ports, imp->n_pms))
		return -ENOMEM;
	for (size_t i = 0; i < imp->n_nodes; i++) {
		struct inode *t = &imp->nodes[i];
		struct fab_node *n = fab_snapshot_add_node(snap);
		uint32_t ni = (uint32_t)(snap->n_nodes - 1);

		if (!n)
			return -ENOMEM;
		*n = (struct fab_node){
			.guid = t->guid, .sys_guid = t->sys_guid, .type = t->type, .num_ports = t->nports,
			.vendor_id = t->vendor, .device_id = t->device, .revision = t->revision,
			.hops = -1, .port_first = (uint32_t)snap->n_ports,
		};
		fab_node_set_desc(n, t->desc, t->desc_len);
		uint16_t switch_lid = t->count && !imp->ports[t->first].num ? imp->ports[t->first].lid : 0;
		for (uint32_t k = 0; k < t->count; k++) {
			struct iport *ip = &imp->ports[t->first + k];
			struct fab_port *p = fab_snapshot_add_port(snap);

			if (!p)
				return -ENOMEM;
			ip->snap_idx = (uint32_t)(snap->n_ports - 1);
			*p = (struct fab_port){
				.node_idx = ni, .port_num = ip->num, .state = ip->state,
				.phys_state = ip->phys, .guid = ip->guid,
				/* a switch answers at port 0's LID on every port */
				.lid = t->type == FAB_NODE_SWITCH ? switch_lid : ip->lid,
				.lmc = ip->lmc, .sm_lid = ip->sm_lid, .width_active = ip->width_active,
				.width_enabled = ip->width_enabled, .width_supported = ip->width_supported,
				.speed_active = ip->speed_active, .speed_enabled = ip->speed_enabled,
				.speed_supported = ip->speed_supported, .mtu_active = ip->mtu,
				.mtu_cap = ip->mtu_cap, .op_vls = ip->op_vls, .cap_mask = ip->cap_mask,
				.vl_cap = ip->vl_cap, .vl_high_limit = ip->vl_high,
				.vlarb_high_cap = ip->arb_high, .vlarb_low_cap = ip->arb_low,
				.remote_idx = FAB_NONE,
			};
			n = &snap->nodes[ni];
			n->port_count++;
			if (t->type == FAB_NODE_SWITCH)
				n->lid = switch_lid;
			else if (!n->lid && ip->state == FAB_STATE_ACTIVE)
				n->lid = ip->lid;
		}
	}
	return 0;
}

static int fill_links(struct imp *imp, struct fab_snapshot *snap)
{
	for (size_t i = 0; i < imp->n_links; i++) {
		const struct ilink *l = &imp->links[i];
		struct iport *e[2];

		for (int k = 0; k < 2; k++)
			if (!(e[k] = port_find(imp, l->g[k], l->p[k])))
				return fab_err(-EINVAL, "%s:%zu: a link to port %u of 0x%016" PRIx64
					       ", which PORTS does not list", imp->name, l->line, l->p[k], l->g[k]);
		struct fab_port *a = &snap->ports[e[0]->snap_idx], *b = &snap->ports[e[1]->snap_idx];
		if ((a->remote_idx != FAB_NONE && a->remote_idx != e[1]->snap_idx) ||
		    (b->remote_idx != FAB_NONE && b->remote_idx != e[0]->snap_idx) || a == b)
			return fab_err(-EINVAL, "%s:%zu: port %u of 0x%016" PRIx64 " is cabled twice",
				       imp->name, l->line, l->p[0], l->g[0]);
		a->remote_idx = e[1]->snap_idx;
		a->remote_guid = l->g[1];
		a->remote_port = l->p[1];
		b->remote_idx = e[0]->snap_idx;
		b->remote_guid = l->g[0];
		b->remote_port = l->p[0];
	}
	for (size_t i = 0; i < snap->n_ports; i++) {
		struct fab_port *p = &snap->ports[i];
		if (p->port_num && p->phys_state == FAB_PHYS_LINKUP && p->remote_idx == FAB_NONE)
			p->flags |= FAB_F_NO_REMOTE;
	}
	return 0;
}

/* Firmware onto the nodes: snapshot nodes are in the node records' order. */
static int fill_fw(struct imp *imp, struct fab_snapshot *snap)
{
	for (size_t i = 0; i < imp->n_fws; i++) {
		const struct ifw *f = &imp->fws[i];
		uint32_t ni = node_find(imp, f->guid);
		char clean[sizeof(f->psid) * 4];

		if (ni == FAB_NONE)
			return fab_err(-EINVAL, "%s:%zu: firmware of node 0x%016" PRIx64 ", which NODES does not list",
				       imp->name, f->line, f->guid);
		struct fab_node *n = &snap->nodes[ni];
		fab_text_sanitize((const uint8_t *)f->psid, strlen(f->psid), clean, sizeof(clean));
		if ((f->version[0] && !(n->fw_version = fab_snapshot_strdup(snap, f->version, SIZE_MAX))) ||
		    (clean[0] && !(n->psid = fab_snapshot_strdup(snap, clean, SIZE_MAX))))
			return -ENOMEM;
	}
	return 0;
}

static int fill_rest(struct imp *imp, struct fab_snapshot *snap)
{
	for (size_t i = 0; i < imp->n_sms; i++) {
		const struct ism *t = &imp->sms[i];
		const struct iport *ip = port_find(imp, t->node_guid, t->port);
		struct fab_sm *sm = fab_snapshot_add_sm(snap);

		if (!sm)
			return -ENOMEM;
		*sm = (struct fab_sm){ .port_guid = t->port_guid, .state = t->state, .priority = t->prio,
				       .act_count = t->act, .port_idx = ip ? ip->snap_idx : FAB_NONE,
				       .lid = ip ? snap->ports[ip->snap_idx].lid : 0 };
	}
	for (size_t i = 0; i < imp->n_pms; i++) {
		const struct ipm *m = &imp->pms[i];
		const struct iport *ip = port_find(imp, m->node_guid, m->port);

		if (!ip)
			return fab_err(-EINVAL, "%s:%zu: counters of port %u of 0x%016" PRIx64
				       ", which PORTS does not list", imp->name, m->line, m->port, m->node_guid);
		struct fab_counter_sample *c = fab_snapshot_add_sample(snap);
		if (!c)
			return -ENOMEM;
		*c = (struct fab_counter_sample){ .port_idx = ip->snap_idx, .extended = m->extended,
						  .sampled_at_ms = imp->time_ms, .valid = m->valid };
		memcpy(c->v, m->v, sizeof(c->v));
	}
	snap->started_at_ms = snap->finished_at_ms = imp->time_ms;
	snap->status = FAB_SCAN_COMPLETE;
	if (imp->skipped_stages[0]) {
		snap->status = FAB_SCAN_PARTIAL;
		if (fab_snapshot_add_error(snap, 0, -1, "import",
					   "ibdiagnet ran with --skip %s: what those stages read is not here",
					   imp->skipped_stages))
			return -ENOMEM;
	}
	if (!(snap->source = fab_snapshot_printf(snap, "ibdiagnet2:%s", imp->source)))
		return -ENOMEM;
	if (imp->n_links && fab_snapshot_build_links(snap))
		return -ENOMEM;
	if (fab_snapshot_index(snap))
		return -ENOMEM;
	fab_topology_assign_roles(snap);
	return 0;
}

static int import(const char *text, size_t len, const char *name, const char *source,
		  fab_ibdiag_note_fn note, void *note_ctx, struct fab_snapshot *snap)
{
	struct imp imp = { .name = name, .source = source };
	char skipped[1024];
	int err;

	if (snap->n_nodes || snap->n_ports)
		return fab_err(-EINVAL, "%s: the snapshot to import into is not empty", imp.name);
	err = ibd_read(text ? text : "", text ? len : 0, imp.name, sections, ARRAY_SIZE(sections),
		       &imp, skipped, sizeof(skipped));
	size_t unmatched = 0;
	if (!err && !(err = resolve(&imp)) &&
	    (err = fill_nodes(&imp, snap)) == 0 && (err = fill_links(&imp, snap)) == 0 &&
	    (err = fill_fw(&imp, snap)) == 0 && (err = fill_rest(&imp, snap)) == 0)
		err = ibd_ber_fill(&imp.phys, snap, &unmatched);
	if (err == -ENOMEM)
		err = fab_err(-ENOMEM, "%s: out of memory", imp.name);
	if (err) {
		snap->n_nodes = snap->n_ports = snap->n_links = snap->n_samples = 0;
		snap->n_sms = snap->n_errors = snap->n_ber = 0;
	} else if (note && unmatched) {
		char msg[300];
		snprintf(msg, sizeof(msg), "%s: %zu PHY_DB16 row%s name ports PORTS does not list: skipped",
			 imp.name, unmatched, unmatched == 1 ? "" : "s");
		note(msg, note_ctx);
	}
	if (!err && note && skipped[0]) {
		char msg[1200];
		snprintf(msg, sizeof(msg), "%s: sections not read (fabsweep's model has no place for them): %s",
			 imp.name, skipped);
		note(msg, note_ctx);
	}
	free(imp.nodes);
	free(imp.ports);
	free(imp.links);
	free(imp.sms);
	free(imp.pms);
	free(imp.switches);
	free(imp.fws);
	ibd_phys_free(&imp.phys);
	return err;
}

int fab_ibdiag_import(const char *text, size_t len, const char *name, fab_ibdiag_note_fn note,
		      void *note_ctx, struct fab_snapshot *snap)
{
	name = name ? name : "<input>";
	return import(text, len, name, name, note, note_ctx, snap);
}

int ibd_map(const char *path, const char *what, struct ibd_map *m)
{
	struct stat st;
	int fd, err = 0;

	memset(m, 0, sizeof(*m));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 || fstat(fd, &st)) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return fab_err(err, "cannot read '%s': %s%s", path, strerror(-err), what);
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > FAB_IBDIAG_FILE_MAX) {
		close(fd);
		return fab_err(-EINVAL, "'%s' is %s", path, S_ISREG(st.st_mode) ?
			       "too large for an ibdiagnet2 file" : "not a regular file");
	}
	/* mapped, not copied: the readers go through it once */
	if (st.st_size && (m->addr = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		err = fab_err(-errno, "cannot read '%s': %s", path, strerror(errno));
		m->addr = NULL;
	}
	m->len = (size_t)st.st_size;
	close(fd);
	return err;
}

void ibd_unmap(struct ibd_map *m)
{
	if (m->addr)
		munmap(m->addr, m->len);
	memset(m, 0, sizeof(*m));
}

int fab_ibdiag_import_dir(const char *dir, fab_ibdiag_note_fn note, void *note_ctx,
			  struct fab_snapshot *snap)
{
	char *path = NULL, *hint = NULL;
	struct ibd_map m;
	int err;

	if (asprintf(&path, "%s/ibdiagnet2.db_csv", dir) < 0 ||
	    asprintf(&hint, " (is '%s' an ibdiagnet2 output directory?)", dir) < 0) {
		free(path);
		return fab_err(-ENOMEM, "out of memory");
	}
	if (!(err = ibd_map(path, hint, &m))) {
		err = import(m.addr, m.len, path, dir, note, note_ctx, snap);
		ibd_unmap(&m);
	}
	if (!err)
		err = ibd_cables_dir(dir, snap, note, note_ctx); /* ibdiag_phys.c */
	free(path);
	free(hint);
	return err;
}
