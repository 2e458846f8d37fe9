/* SPDX-License-Identifier: MIT */
/*
 * RoCE / Ethernet: the part of a snapshot that describes systems (hosts and
 * switches) as they describe themselves and their neighbours over LLDP
 * (lldpd), plus host state read from sysfs (RDMA devices, ports, counters,
 * PCIe links, network interfaces) and host DCB configuration read over
 * rtnetlink. snapshot->roce points to one (owned by the snapshot, may be
 * NULL). docs/roce.md describes what is collected and from where;
 * docs/schema.md the SQL relations it becomes. This is the model (core/);
 * collecting it from a machine is scanner/'s (fabsweep/roce_collect.h).
 *
 * Layout: arrays of plain structs that refer to each other by index
 * (FAB_NONE = none). Strings and TLV bytes live in the model's arena and are
 * freed with it; every string that came from the network has been made safe
 * with fab_text_sanitize().
 *
 * For rules: every link (struct fab_eth_link) has two resolvable ends, two
 * struct fab_eth_port of two systems. A port of a system that was not
 * collected itself (a switch seen only through its neighbours' LLDP) is a
 * stub (FAB_ETH_F_STUB): what it advertises is what its neighbour heard.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabsweep/module.h"

struct fab_snapshot;
struct fab_arena;

#define FAB_PRIOS 8 /* 802.1p priorities and traffic classes */

/* ---- IEEE 802.1Qaz: PFC, ETS, Application Priority ------------------- */

/* Application Priority selector (802.1Qaz, DSCP from 802.1Qcd). */
enum {
	FAB_APP_SEL_ETHERTYPE = 1,
	FAB_APP_SEL_TCP = 2, /* TCP or SCTP port */
	FAB_APP_SEL_UDP = 3, /* UDP or DCCP port: UDP 4791 is RoCE v2 */
	FAB_APP_SEL_PORT = 4, /* TCP, SCTP, UDP or DCCP port */
	FAB_APP_SEL_DSCP = 5,
};

/* Transmission selection algorithm of a traffic class. */
enum {
	FAB_TSA_STRICT = 0,
	FAB_TSA_CBS = 1,
	FAB_TSA_ETS = 2,
	FAB_TSA_VENDOR = 255,
};

/* Most Application Priority entries kept of one port's table. */
#define FAB_DCB_MAX_APPS 128

struct fab_app_entry {
	uint8_t priority; /* 0..7 */
	uint8_t selector; /* FAB_APP_SEL_* (0..7 on the wire) */
	uint16_t protocol; /* port, EtherType or DSCP value */
};

/* PFC configuration (LLDP 00-80-C2 subtype 11, or the NIC's ieee_pfc). */
struct fab_pfc {
	bool valid;
	bool willing; /* LLDP only */
	bool mbc;     /* MACsec bypass capability */
	uint8_t cap;  /* how many priorities can have PFC at once */
	uint8_t enabled; /* bit n set: PFC on priority n */
};

/* ETS configuration (subtype 9) or recommendation (subtype 10). */
struct fab_ets {
	bool valid;
	bool willing, cbs; /* configuration only */
	uint8_t max_tcs;   /* configuration only; the TLV's 0 means 8 */
	uint8_t prio_tc[FAB_PRIOS]; /* traffic class of priority n */
	uint8_t tc_bw[FAB_PRIOS];   /* percent of bandwidth of class n */
	uint8_t tsa[FAB_PRIOS];     /* FAB_TSA_* of class n */
};

/* The 802.1Qaz view of one port: advertised, heard, or configured. */
struct fab_dcbx {
	struct fab_pfc pfc;
	struct fab_ets ets, ets_reco;
	bool app_valid;       /* an Application Priority TLV / table was there */
	uint32_t app_first;   /* its entries: roce->apps[app_first ..] */
	uint32_t app_count;
	uint8_t bad_tlvs;     /* 802.1Qaz TLVs that did not decode */
};

/*
 * Pure, bounds-checked decoders of the OUI-specific information of the
 * 802.1Qaz TLVs (the bytes after OUI and subtype). Return 0, or -EBADMSG
 * when len is not what the TLV needs (out is then untouched).
 */
int fab_dcbx_decode_ets_cfg(const uint8_t *info, size_t len, struct fab_ets *out);
int fab_dcbx_decode_ets_reco(const uint8_t *info, size_t len, struct fab_ets *out);
int fab_dcbx_decode_pfc(const uint8_t *info, size_t len, struct fab_pfc *out);
/*
 * Application Priority: writes up to cap entries, *out_n = how many the TLV
 * holds (may exceed cap: the rest is not written).
 */
int fab_dcbx_decode_app(const uint8_t *info, size_t len,
			struct fab_app_entry *out, size_t cap, size_t *out_n);

#define FAB_OUI_8021 0x0080c2u /* IEEE 802.1 */
enum {
	FAB_8021_ETS_CFG = 9,
	FAB_8021_ETS_RECO = 10,
	FAB_8021_PFC = 11,
	FAB_8021_APP = 12,
};

/*
 * Entries as text, in order: "udp:4791=3,dscp:26=3" (selector:protocol=
 * priority; selectors ether (protocol in hex, 0x8906), tcp, udp, port, dscp,
 * or sel<N>). Writes at most cap-1 bytes and a NUL; returns the length the
 * full text needs (like snprintf).
 */
size_t fab_app_format(const struct fab_app_entry *e, size_t n, char *buf,
		      size_t cap);
/* Parses what fab_app_format writes ("" is no entry). Writes up to cap
 * entries; *out_n = count. -EINVAL on a malformed list. */
int fab_app_parse(const char *s, struct fab_app_entry *out, size_t cap,
		  size_t *out_n);
/* "strict", "cbs", "ets", "vendor", or NULL for other values. */
const char *fab_tsa_name(unsigned tsa);

/* ---- the model --------------------------------------------------------- */

/* LLDP system capabilities (bits as in the TLV). */
enum {
	FAB_LLDP_CAP_OTHER = 0x01,
	FAB_LLDP_CAP_REPEATER = 0x02,
	FAB_LLDP_CAP_BRIDGE = 0x04,
	FAB_LLDP_CAP_WLAN = 0x08,
	FAB_LLDP_CAP_ROUTER = 0x10,
	FAB_LLDP_CAP_TELEPHONE = 0x20,
	FAB_LLDP_CAP_DOCSIS = 0x40,
	FAB_LLDP_CAP_STATION = 0x80,
};
/* Enabled capabilities as text, "bridge,router"; "" for none. */
void fab_lldp_caps_format(unsigned caps, char *buf, size_t cap);

/* What rtnetlink DCB said about an interface. */
enum fab_dcb_status {
	FAB_DCB_NOT_QUERIED = 0, /* NULL in SQL */
	FAB_DCB_OK,              /* "ok": the NIC answered; dcb holds its view */
	FAB_DCB_UNSUPPORTED,     /* "unsupported": EOPNOTSUPP (veth, lo, ...) */
	FAB_DCB_FAILED,          /* "error": another error; see scan_errors */
	FAB_DCB__COUNT
};
const char *fab_dcb_status_name(unsigned st); /* NULL for NOT_QUERIED */
int fab_dcb_status_parse(const char *s);       /* -1 if unknown */

struct fab_roce_system {
	const char *name;          /* LLDP system name; host name without lldpd */
	const char *chassis_id;    /* as lldpd prints it ("0e:31:81:42:55:e9") */
	const char *chassis_id_subtype; /* "mac", "ifname", "local", "ip", ... */
	const char *description;
	const char *mgmt_address;  /* first IPv4 address, else the first one */
	const char *hostname;      /* of the machine that collected it; NULL if not collected */
	const char *source;        /* "lldp:/run/lldpd.socket", "file:host3.db", ... */
	int64_t collected_at_ms;   /* 0 when not collected */
	uint16_t cap_available, cap_enabled; /* FAB_LLDP_CAP_*, valid if has_caps */
	bool has_caps;
	bool collected; /* its own view is in the snapshot (collect/scan ran there) */
	bool lldp;      /* its own lldpd answered */
	uint8_t role;   /* enum fab_role: host, leaf, spine, core, unknown */
	/* Or its RDMA devices (ports, counters) and its ports' modules and NIC
	 * counters left where the store holds them, not read yet: a merge
	 * --into base's, in scan stored_scan as system stored_sys there
	 * (fab_store_load_later reads them when the system is written again).
	 * stored_scan 0: none left. */
	int64_t stored_scan;
	uint32_t stored_sys;
};

enum {
	FAB_ETH_F_SYSFS = 1 << 0, /* seen in <sysfs>/class/net */
	FAB_ETH_F_LLDP = 1 << 1,  /* its system's lldpd runs LLDP on it */
	FAB_ETH_F_STUB = 1 << 2,  /* known only from a neighbour's LLDP */
};

/*
 * ECN and DCQCN as the NIC's driver exposes them under
 * <sysfs>/class/net/<netdev>/ecn/ (mlx5): the notification point (the
 * receiver that answers ECN-marked packets with CNPs) and the reaction
 * point (the sender that slows down on CNPs, DCQCN) per priority, and the
 * DSCP and 802.1p priority CNPs are sent with. A driver without the ecn
 * directory leaves everything unknown (known = 0), which is not "off".
 */
enum {
	FAB_ECN_NP = 1 << 0,       /* roce_np/enable/0..7 read: np_enabled holds */
	FAB_ECN_RP = 1 << 1,       /* roce_rp/enable/0..7 read: rp_enabled holds */
	FAB_ECN_CNP_DSCP = 1 << 2, /* roce_np/cnp_dscp read */
	FAB_ECN_CNP_PRIO = 1 << 3, /* roce_np/cnp_802p_prio read */
};

struct fab_ecn {
	uint8_t known;      /* FAB_ECN_*: which fields below hold */
	uint8_t np_enabled; /* bit n: notification point ECN on priority n */
	uint8_t rp_enabled; /* bit n: reaction point (DCQCN) on priority n */
	uint8_t cnp_dscp;   /* 0..63 */
	uint8_t cnp_prio;   /* 0..7 */
};

/* How a NIC classifies received packets into priorities. */
enum fab_trust {
	FAB_TRUST_UNKNOWN = 0, /* NULL in SQL */
	FAB_TRUST_PCP,         /* "pcp": by the VLAN tag's 802.1p priority */
	FAB_TRUST_DSCP,        /* "dscp": by the IP header's DSCP */
	FAB_TRUST__COUNT
};
const char *fab_trust_name(unsigned t); /* NULL for FAB_TRUST_UNKNOWN */

/*
 * What the kernel's ethtool interfaces said about an interface's statistics
 * (ETHTOOL_GSTRINGS / GSTATS and the netlink statistics) and its pluggable
 * module (MODULE_EEPROM_GET, else ETHTOOL_GMODULEEEPROM). "Not supported"
 * and "no module" are unknown, not failures: only FAB_ETHTOOL_ERROR is in
 * scan_errors.
 */
enum fab_ethtool_status {
	FAB_ETHTOOL_NOT_QUERIED = 0, /* NULL in SQL */
	FAB_ETHTOOL_OK,          /* "ok" */
	FAB_ETHTOOL_UNSUPPORTED, /* "unsupported": the driver has no such operation */
	FAB_ETHTOOL_NONE,        /* "none": no module plugged (modules only) */
	FAB_ETHTOOL_REFUSED,     /* "refused": an EEPROM that does not decode consistently */
	FAB_ETHTOOL_ERROR,       /* "error": anything else; see scan_errors */
	FAB_ETHTOOL__COUNT
};
const char *fab_ethtool_status_name(unsigned st); /* NULL for NOT_QUERIED */
int fab_ethtool_status_parse(const char *s);       /* -1 if unknown */

struct fab_eth_port {
	uint32_t system_idx;
	uint8_t flags;           /* FAB_ETH_F_* */
	const char *ifname;
	const char *mac;         /* lowercase "aa:bb:cc:dd:ee:ff"; NULL unknown */
	uint32_t mtu;            /* bytes; 0 unknown */
	int32_t speed_mbps;      /* -1 unknown */
	const char *state;       /* operstate: "up", "down", ...; NULL unknown */
	/* Its LLDP identity as sent (by its own lldpd, or as heard for a stub). */
	const char *port_id, *port_id_subtype, *port_descr;
	struct fab_dcbx adv;     /* 802.1Qaz TLVs it advertises */
	uint32_t tlv_first, tlv_count; /* all custom TLVs it advertises */
	uint8_t dcb_status;      /* enum fab_dcb_status */
	int16_t dcbx_mode;       /* DCB_CAP_DCBX_* bits; -1 unknown */
	struct fab_dcbx dcb;     /* the NIC's configuration (dcb_status OK) */
	uint32_t rdma_port_idx;  /* the RDMA port on top of it, or FAB_NONE */
	/* The interface it is enslaved to (a bond's port: <sysfs>/class/net/
	 * <ifname>/master), NULL if none; read by sysfs, not stored. */
	const char *master;
	struct fab_ecn ecn;      /* ECN / DCQCN from sysfs; known = 0: unknown */
	/* ethtool (host/ethtool*.c): the driver's name (ETHTOOL_GDRVINFO), what
	 * the statistics and module queries said (enum fab_ethtool_status) and
	 * its NIC counters (nic_counters[nic_first ..], contiguous). Its module,
	 * if any, is the one in `modules` whose port_idx is this port. */
	const char *driver;
	uint8_t stats_status, module_status;
	uint32_t nic_first, nic_count;
	/* its port_idx in its system's stored_scan (fab_roce_system), where its
	 * module and NIC counters were left */
	uint32_t stored_idx;
};

struct fab_lldp_neighbor {
	uint32_t port_idx;       /* the local port it was heard on */
	const char *chassis_id, *chassis_id_subtype;
	const char *system_name, *system_descr, *mgmt_address;
	const char *port_id, *port_id_subtype, *port_descr;
	uint32_t ttl;            /* seconds */
	uint16_t cap_available, cap_enabled;
	bool has_caps;
	struct fab_dcbx dcbx;    /* what it advertised */
	uint32_t tlv_first, tlv_count; /* its custom TLVs */
	/* Set by fab_roce_resolve(): */
	uint32_t remote_system_idx, remote_port_idx;
};

/* An organisationally specific TLV as lldpd handed it over. */
struct fab_lldp_tlv {
	uint32_t oui;      /* 0x0080c2 */
	uint8_t subtype;
	uint16_t len;
	const uint8_t *info; /* arena, len bytes */
};

enum {
	FAB_LINK_A_HEARD_B = 1 << 0, /* a has an LLDP neighbour record of b */
	FAB_LINK_B_HEARD_A = 1 << 1,
};

struct fab_eth_link {
	uint32_t a, b;  /* eth port indices; a's (system name, ifname) sorts first */
	uint8_t heard;  /* FAB_LINK_* */
};

struct fab_rdma_device {
	uint32_t system_idx;
	const char *name;        /* "mlx5_0" */
	uint64_t node_guid, sys_image_guid;
	const char *node_desc, *fw_ver, *hca_type, *board_id; /* NULL unknown */
	const char *pci_address; /* "0000:03:00.0" */
	uint8_t pcie_width, pcie_max_width; /* lanes; 0 unknown */
	double pcie_speed_gts, pcie_max_speed_gts; /* GT/s per lane; 0 unknown */
	uint32_t port_first, port_count; /* contiguous in rdma_ports */
};

struct fab_rdma_port {
	uint32_t device_idx;
	uint8_t port_num;
	uint8_t state;       /* enum fab_port_state */
	uint8_t phys_state;  /* enum fab_phys_state */
	const char *rate;    /* as sysfs says: "200 Gb/sec (2X NDR)" */
	double rate_gbps;    /* 0 unknown */
	const char *link_layer; /* "Ethernet", "InfiniBand", ... */
	const char *netdev;  /* the netdev of a RoCE port, NULL if none */
	uint32_t eth_port_idx; /* FAB_NONE unless netdev is in eth_ports */
	uint32_t ctr_first, ctr_count; /* contiguous in counters */
};

enum fab_rdma_ctr_kind {
	FAB_RDMA_CTR_PORT = 0, /* ports/N/counters: "port" */
	FAB_RDMA_CTR_HW,       /* ports/N/hw_counters: "hw" */
	FAB_RDMA_CTR_EXT,      /* ports/N/counters_ext (mlx4): "ext" */
	FAB_RDMA_CTR__COUNT
};
const char *fab_rdma_ctr_kind_name(unsigned kind);
int fab_rdma_ctr_kind_parse(const char *s);

/*
 * One counter of an RDMA port (a port's are r->counters[ctr_first ..
 * ctr_first + ctr_count)). Its name is shared by every port that has the
 * counter and carries its kind (fab_rdma_counter_kind): 16 bytes each, as a
 * fleet holds millions of them (49 per port is usual for mlx5).
 */
struct fab_rdma_counter {
	const char *name;    /* file name: "np_ecn_marked_roce_packets" (fab_roce_counter_name) */
	uint64_t value;
};
/* enum fab_rdma_ctr_kind of a counter of a model (stored before its name). */
static inline unsigned fab_rdma_counter_kind(const struct fab_rdma_counter *c)
{
	return (unsigned)(unsigned char)c->name[-1] - 1u;
}

/* A file a merge read (or found unchanged): the merge_inputs relation. */
enum fab_merge_status {
	FAB_MERGE_MERGED = 0,  /* "merged": read and merged into this scan */
	FAB_MERGE_UNCHANGED,   /* "unchanged": as an earlier merge read it; its systems carried over */
	FAB_MERGE_FAILED,      /* "failed": could not be merged (scan_errors says why) */
	FAB_MERGE__COUNT
};
const char *fab_merge_status_name(unsigned st);
int fab_merge_status_parse(const char *s); /* -1 if unknown */

struct fab_roce_input {
	const char *file;  /* as given */
	int64_t mtime_ns;  /* when it was last changed, as stat() said then; -1 unknown */
	int64_t size;      /* bytes; -1 unknown */
	uint8_t status;    /* enum fab_merge_status */
};

/*
 * One NIC counter of an Ethernet port, in the counter model's canonical
 * names (enum fab_nic_ctr, include/fabsweep/counter.h, core/nic_counter.c:
 * the one mapping table from what the drivers call them).
 */
struct fab_nic_counter {
	uint32_t port_idx;   /* eth_ports */
	uint8_t ctr;         /* enum fab_nic_ctr */
	int8_t prio;         /* 802.1p priority 0..7; -1: the port as a whole */
	uint8_t sample;      /* 0, or 1 for the second of collect --interval */
	uint64_t value;
	int64_t at_ms;       /* when it was read (Unix ms) */
	const char *source;  /* where from: "mlx5_core:rx_prio3_pause", "netlink:fec" */
};

/*
 * The votes of the rules that compare a port with what most of the fabric
 * does (roce.trust_mismatch, roce.cnp_mismatch, eth.speed_mismatch): per
 * question, how many RoCE interfaces (links of a tier, for speeds) use
 * each value. A part of a fabric (a readiness extract, docs/roce.md
 * "Readiness") carries the votes of everything it leaves out in
 * fab_roce.outside; the rules add them to what they count themselves, so
 * they answer on the part as on the whole fabric. Counted by
 * fab_rules_roce_votes() (rules/roce_votes.c).
 */
struct fab_roce_speed_vote {
	uint8_t role_a, role_b; /* the link's two roles (enum fab_role), role_a <= role_b */
	int32_t mbps;           /* the speed the link runs (its slower end) */
	uint32_t links;
};

struct fab_roce_votes {
	uint32_t trust[FAB_TRUST__COUNT]; /* RoCE interfaces by trust state (UNKNOWN: not counted) */
	uint32_t cnp_dscp[64];            /* RoCE interfaces by the DSCP of the CNPs they send */
	uint32_t cnp_prio[FAB_PRIOS];     /* ... by their 802.1p priority */
	struct fab_roce_speed_vote *speeds; /* by (role_a, role_b, mbps), ascending; owned */
	size_t n_speeds;
};
void fab_roce_votes_free(struct fab_roce_votes *v); /* accepts NULL; frees v too */
/* a + b into *out (owned by the caller; a or b may be NULL); 0 or -ENOMEM. */
int fab_roce_votes_add(const struct fab_roce_votes *a, const struct fab_roce_votes *b,
		       struct fab_roce_votes **out);
/* a - b (what a counts that b does not: the rest of a fabric b is part of);
 * counts never go below 0. *out owned by the caller; 0 or -ENOMEM. */
int fab_roce_votes_sub(const struct fab_roce_votes *a, const struct fab_roce_votes *b,
		       struct fab_roce_votes **out);

struct fab_roce {
	struct fab_roce_system *systems;
	size_t n_systems, cap_systems;
	struct fab_eth_port *eth_ports;
	size_t n_eth_ports, cap_eth_ports;
	struct fab_lldp_neighbor *neighbors;
	size_t n_neighbors, cap_neighbors;
	struct fab_eth_link *links;
	size_t n_links, cap_links;
	struct fab_rdma_device *devices;
	size_t n_devices, cap_devices;
	struct fab_rdma_port *rdma_ports;
	size_t n_rdma_ports, cap_rdma_ports;
	struct fab_rdma_counter *counters;
	size_t n_counters, cap_counters;
	struct fab_app_entry *apps;
	size_t n_apps, cap_apps;
	struct fab_lldp_tlv *tlvs;
	size_t n_tlvs, cap_tlvs;
	struct fab_nic_counter *nic_counters;
	size_t n_nic_counters, cap_nic_counters;
	struct fab_modules modules; /* the hosts' pluggable modules, by eth port */
	/* the files a merged model was made of (fabsweep merge) */
	struct fab_roce_input *inputs;
	size_t n_inputs, cap_inputs;
	struct fab_arena *arena;
	struct fab_roce_names *names; /* private to core/roce*.c: merge's index, shared pieces */
	/* The votes of the fabric this part leaves out (a readiness extract);
	 * NULL for a whole fabric. Owned; kept by fab_roce_resolve(). */
	struct fab_roce_votes *outside;
	/* merge --into: written as a delta on its keyframe (fabsweep/roce_delta.h);
	 * NULL: written whole. Owned. */
	struct fab_roce_delta *delta;
	/* With systems' RDMA devices and modules left stored
	 * (fab_roce_system.stored_scan): one after the largest device_idx and
	 * Ethernet module_idx stored in those scans, so that a delta's new
	 * devices and modules are numbered past them. */
	uint32_t rdma_dev_end, mod_end;
	/* merge --into: the merge whose merge_inputs rows the inputs marked
	 * unchanged repeat (file, time, size): the store copies those rows
	 * rather than write each again. 0: none. */
	int64_t inputs_base;
};

/* A new empty model (owned by the caller) or NULL on ENOMEM. */
struct fab_roce *fab_roce_new(void);
/* Frees the model and its arena. Accepts NULL. */
void fab_roce_free(struct fab_roce *r);
/* snap->roce, created when missing; NULL on ENOMEM. */
struct fab_roce *fab_snapshot_roce(struct fab_snapshot *snap);

/*
 * Appenders: a pointer to a zeroed new element with its index fields set to
 * FAB_NONE (valid until the next append to the same array), or NULL on ENOMEM.
 */
struct fab_roce_system *fab_roce_add_system(struct fab_roce *r);
struct fab_eth_port *fab_roce_add_eth_port(struct fab_roce *r, uint32_t system_idx);
struct fab_lldp_neighbor *fab_roce_add_neighbor(struct fab_roce *r, uint32_t port_idx);
/* Links are normally built by fab_roce_resolve(); the store loads them. */
struct fab_eth_link *fab_roce_add_link(struct fab_roce *r);
struct fab_rdma_device *fab_roce_add_device(struct fab_roce *r, uint32_t system_idx);
/* Ports must be added right after their device (they are contiguous). */
struct fab_rdma_port *fab_roce_add_rdma_port(struct fab_roce *r, uint32_t device_idx);
/* Counters must be added right after their port. The name is copied once
 * per model and kind (fab_roce_counter_name: every port has the same few). */
int fab_roce_add_counter(struct fab_roce *r, uint32_t port_idx, unsigned kind,
			 const char *name, uint64_t value);
/* The shared name of counter `name` of kind `kind` in r (the kind stored
 * with it); NULL on ENOMEM. */
const char *fab_roce_counter_name(struct fab_roce *r, unsigned kind, const char *name);
/* n counters at once; names from fab_roce_counter_name() of this model. */
int fab_roce_add_counters(struct fab_roce *r, uint32_t port_idx, uint32_t n,
			  const char *const *names, const uint64_t *values);
/* NIC counters must be added right after (and only after) the port's
 * others: they are contiguous per port. source is copied. */
int fab_roce_add_nic_counter(struct fab_roce *r, uint32_t port_idx, unsigned ctr, int prio,
			     unsigned sample, uint64_t value, int64_t at_ms, const char *source);
/* n of them at once, of one sample read at at_ms: names[i]'s counter,
 * priority and source (interned in r: fab_roce_intern()) with values[i];
 * names whose ctr is not a known one (>= FAB_NIC__COUNT) are left out. */
int fab_roce_add_nic_counters(struct fab_roce *r, uint32_t port_idx, unsigned sample, int64_t at_ms,
			      size_t n, const struct fab_nic_counter *names, const uint64_t *values);
/* Room for more NIC counters (fab_array_reserve: a large room prefaulted).
 * 0 or -ENOMEM. */
int fab_roce_reserve_nic_counters(struct fab_roce *r, size_t more);
/* Makes each port's NIC counters contiguous again (stable: in the order
 * they were added) after counters of several ports were interleaved (a
 * second sample of every port). 0 or -ENOMEM. */
int fab_roce_group_nic_counters(struct fab_roce *r);
/* Appends n entries; *out_first = index of the first. */
int fab_roce_add_apps(struct fab_roce *r, const struct fab_app_entry *e,
		      size_t n, uint32_t *out_first);
/* Copies info into the arena and appends the TLV. */
int fab_roce_add_tlv(struct fab_roce *r, uint32_t oui, unsigned subtype,
		     const uint8_t *info, size_t len);

/* Appends an input record (file copied). */
int fab_roce_add_input(struct fab_roce *r, const char *file, int64_t mtime_ns, int64_t size,
		       unsigned status);

/* Copies a string into the model's arena (NULL stays NULL). */
const char *fab_roce_strdup(struct fab_roce *r, const char *s);
/*
 * The same for strings many elements share (interface names, states,
 * firmware, counter names, what the hosts below a leaf hear of it): one
 * copy, the same pointer for equal strings. NULL for NULL or on ENOMEM.
 */
const char *fab_roce_intern(struct fab_roce *r, const char *s);
/*
 * Appends n TLVs (or n application entries) unless the model holds a range
 * equal to them already; *out_first = where the range starts. Elements may
 * share a range: a fleet's ports advertise the same few TLVs.
 */
int fab_roce_add_tlvs_shared(struct fab_roce *r, const struct fab_lldp_tlv *t, uint32_t n,
			     uint32_t *out_first);
int fab_roce_add_apps_shared(struct fab_roce *r, const struct fab_app_entry *e, uint32_t n,
			     uint32_t *out_first);
/* Same, for text from the network: made safe with fab_text_sanitize(). */
const char *fab_roce_strdup_safe(struct fab_roce *r, const char *s);

/*
 * Decodes the 802.1Qaz TLVs among r->tlvs[first .. first+count) into out
 * (appending application entries to r->apps). Unknown TLVs are skipped;
 * malformed 802.1Qaz ones are counted in out->bad_tlvs.
 */
int fab_roce_decode_tlvs(struct fab_roce *r, uint32_t first, uint32_t count,
			 struct fab_dcbx *out);

/*
 * The PFC configuration a port runs, as the eth_ports view has it: the NIC's
 * (DCB) when DCB answered with one, else what the port advertises over LLDP
 * (for a stub: what its neighbour heard). Check ->valid: it may say nothing.
 */
const struct fab_pfc *fab_eth_port_pfc(const struct fab_eth_port *p);

/*
 * The trust state of a port's NIC, from the application table its DCB
 * answered with (dcb_status OK): DSCP entries present is trust dscp (what
 * mlx5 does: `mlnx_qos --trust dscp` installs them, trust pcp removes
 * them), none is trust pcp; no DCB table is unknown. What it advertises over
 * LLDP says nothing about it.
 */
enum fab_trust fab_eth_port_trust(const struct fab_roce *r, const struct fab_eth_port *p);

/* Whether two system names name the same host: equal, or equal up to the
 * first '.' ("host1" and "host1.example.net"). */
bool fab_roce_same_host(const char *a, const char *b);

/* Lookups: FAB_NONE when absent. Linear; fine for one collect. */
uint32_t fab_roce_find_system(const struct fab_roce *r, const char *name);
uint32_t fab_roce_find_eth_port(const struct fab_roce *r, uint32_t system_idx,
				const char *ifname);

/*
 * Whether eth port `port` carries RoCE traffic of its system: it is the
 * netdev of one of the system's RDMA ports (link layer Ethernet), or it is
 * enslaved to one (master: the ports of a RoCE bond, whose own counters
 * and modules are the physical ones). What `ready --local` reads ethtool
 * for and judges. Linear in the system's RDMA ports.
 */
bool fab_roce_is_roce_iface(const struct fab_roce *r, uint32_t port);

/*
 * Resolves every neighbour record to a system and port (creating stub
 * systems and ports for what was not collected), rebuilds the links, maps
 * RDMA ports to their netdev's eth port, then assigns roles. Call after
 * collecting or merging. Drops stubs, links and systems superseded by a merge
 * first: that rebuilds the arrays, so element pointers taken before are stale
 * (indices of collected systems and their ports keep their order).
 */
int fab_roce_resolve(struct fab_roce *r);

/*
 * Maps RDMA ports from..n_rdma_ports-1 to the eth port of their system
 * named as their netdev (the first such, in model order); from 0 maps
 * every one again. fab_roce_resolve() does it for all; a model given
 * devices after that (fab_store_load_later) for those. 0 or -ENOMEM.
 */
int fab_roce_map_netdevs(struct fab_roce *r, size_t from);

/*
 * Roles from the graph (docs/roce.md, "Roles"): hosts are systems with an
 * RDMA device or that advertise the Station capability without Bridge and
 * Router; leaves are the other systems adjacent to a host; the rest get
 * their distance over non-host links to the nearest leaf: 1 spine,
 * 2 or more core; no path: unknown. Pure; called by fab_roce_resolve().
 */
void fab_roce_assign_roles(struct fab_roce *r);

/*
 * Copies the collected systems of src (with their ports, neighbours, RDMA
 * devices, counters, TLVs) into dst. Stubs and links are not copied: call
 * fab_roce_resolve(dst) once everything is merged. source (may be NULL)
 * replaces each copied system's source. A collected system whose name is
 * already collected in dst replaces it when src's copy is newer, else it is
 * skipped; *out_dups (may be NULL) counts those. Linear in the size of src
 * (a merge of merges costs what its elements cost).
 */
int fab_roce_merge(struct fab_roce *dst, const struct fab_roce *src,
		   const char *source, size_t *out_dups);

/*
 * Where each system's elements are in a model (its eth ports, the
 * neighbour records heard on them, its RDMA devices), built once in one
 * pass, so that copying a few systems out of a large model costs what
 * they hold, not what the model holds. Valid while the model's arrays do
 * not change. *out owned by the caller; 0 or -ENOMEM.
 */
struct fab_roce_sysindex;
int fab_roce_sysindex_build(const struct fab_roce *r, struct fab_roce_sysindex **out);
void fab_roce_sysindex_free(struct fab_roce_sysindex *ix); /* accepts NULL */

/*
 * Copies systems[0..n) of src (indices; each a collected system, whole:
 * ports, neighbour records, TLVs, RDMA devices and counters) into dst, as
 * fab_roce_merge() copies a system (source replaces each one's source
 * when not NULL), without looking for a copy already in dst. ix is src's
 * index (fab_roce_sysindex_build). Resolve dst afterwards. 0, -EINVAL (a
 * system that is not collected or out of range) or -ENOMEM.
 */
int fab_roce_copy_systems(struct fab_roce *dst, const struct fab_roce *src,
			  const struct fab_roce_sysindex *ix, const uint32_t *systems, size_t n,
			  const char *source);

/* The module of src's eth port src_port (if it has one) as dst's eth port
 * dst_port's (strings and lanes copied). 0 (also when it has none) or
 * -ENOMEM. */
int fab_roce_copy_module(struct fab_roce *dst, uint32_t dst_port, const struct fab_roce *src,
			 uint32_t src_port);
