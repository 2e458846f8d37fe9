// SPDX-License-Identifier: MIT
/*
 * The rule table: every health rule, its stable id, default severity,
 * texts, parameters with their defaults, what it needs and its check.
 * Order is the order findings are stored and listed in. Never remove or
 * renumber an entry: retire it (.retired = true) and keep its id.
 */
#include <assert.h>
#include <string.h>

#include "fabsweep/rules.h"
#include "fabsweep/snapshot.h"
#include "rules_priv.h"

#define PARAMS(a) .params = (a), .n_params = ARRAY_SIZE(a)

/* Tier of two roles in enum order (first <= second). */
#define TIER(a, b) (FAB_ROLE_##a * FAB_ROLE__COUNT + FAB_ROLE_##b)
#define COUNT_MAX 18446744073709551615.0

/* ---- parameters --------------------------------------------------------- */

#define TIER_PARAM(kind, KIND, a, b, name)                                   \
	{ .section = "expect", .key = #kind "." name, .type = FAB_PARAM_##KIND, \
	  .arg = TIER(a, b), .def = 0,                                         \
	  .help = "expected " #kind " of " name " links; auto: what most of them run" }

#define TIER_PARAMS(kind, KIND)                                  \
	TIER_PARAM(kind, KIND, HOST, HOST, "host-host"),         \
	TIER_PARAM(kind, KIND, HOST, LEAF, "host-leaf"),         \
	TIER_PARAM(kind, KIND, LEAF, LEAF, "leaf-leaf"),         \
	TIER_PARAM(kind, KIND, LEAF, SPINE, "leaf-spine"),       \
	TIER_PARAM(kind, KIND, SPINE, SPINE, "spine-spine"),     \
	TIER_PARAM(kind, KIND, SPINE, CORE, "spine-core"),       \
	TIER_PARAM(kind, KIND, CORE, CORE, "core-core")

static const struct fab_rule_param width_params[] = { TIER_PARAMS(width, WIDTH) };
static const struct fab_rule_param speed_params[] = { TIER_PARAMS(speed, SPEED) };

/* Value thresholds: ibqueryerrors' suggested values (etc/error_thresholds). */
#define THRESHOLD(ctr, name, dflt)                                            \
	{ .section = "thresholds", .key = name, .type = FAB_PARAM_COUNT,      \
	  .arg = FAB_CTR_##ctr, .def = dflt, .min = 0, .max = COUNT_MAX,      \
	  .help = "fires when " name " is above this ('off': never)" }

static const struct fab_rule_param error_thresholds[] = {
	THRESHOLD(SYMBOL_ERRORS, "SymbolErrorCounter", 10),
	THRESHOLD(LINK_ERROR_RECOVERY, "LinkErrorRecoveryCounter", 10),
	THRESHOLD(LINK_DOWNED, "LinkDownedCounter", 10),
	THRESHOLD(RCV_ERRORS, "PortRcvErrors", 10),
	THRESHOLD(RCV_REMOTE_PHYS_ERRORS, "PortRcvRemotePhysicalErrors", 100),
	THRESHOLD(RCV_SWITCH_RELAY_ERRORS, "PortRcvSwitchRelayErrors", 100),
	THRESHOLD(XMIT_DISCARDS, "PortXmitDiscards", 100),
	THRESHOLD(XMIT_CONSTRAINT_ERRORS, "PortXmitConstraintErrors", 100),
	THRESHOLD(RCV_CONSTRAINT_ERRORS, "PortRcvConstraintErrors", 100),
	THRESHOLD(LOCAL_LINK_INTEGRITY_ERRORS, "LocalLinkIntegrityErrors", 10),
	THRESHOLD(EXCESSIVE_BUFFER_OVERRUN_ERRORS, "ExcessiveBufferOverrunErrors", 10),
	THRESHOLD(VL15_DROPPED, "VL15Dropped", 100),
};

/* Rate thresholds per second: ibswportwatch's 10/s where it has one; the
 * counters ibdiagnet ignores (remote physical, switch relay) and the one
 * port.link_flapping covers (LinkDowned) are off. */
#define RATE(ctr, name, dflt)                                                 \
	{ .section = "rates", .key = name, .type = FAB_PARAM_RATE,            \
	  .arg = FAB_CTR_##ctr, .def = dflt, .min = 0, .max = 1e18,           \
	  .help = "fires when " name " rises faster than this per second ('off': never)" }

static const struct fab_rule_param error_rates[] = {
	RATE(SYMBOL_ERRORS, "SymbolErrorCounter", 10),
	RATE(LINK_ERROR_RECOVERY, "LinkErrorRecoveryCounter", 10),
	RATE(LINK_DOWNED, "LinkDownedCounter", FAB_PARAM_OFF),
	RATE(RCV_ERRORS, "PortRcvErrors", 10),
	RATE(RCV_REMOTE_PHYS_ERRORS, "PortRcvRemotePhysicalErrors", FAB_PARAM_OFF),
	RATE(RCV_SWITCH_RELAY_ERRORS, "PortRcvSwitchRelayErrors", FAB_PARAM_OFF),
	RATE(XMIT_DISCARDS, "PortXmitDiscards", 10),
	RATE(XMIT_CONSTRAINT_ERRORS, "PortXmitConstraintErrors", 10),
	RATE(RCV_CONSTRAINT_ERRORS, "PortRcvConstraintErrors", 10),
	RATE(LOCAL_LINK_INTEGRITY_ERRORS, "LocalLinkIntegrityErrors", 10),
	RATE(EXCESSIVE_BUFFER_OVERRUN_ERRORS, "ExcessiveBufferOverrunErrors", 10),
	RATE(VL15_DROPPED, "VL15Dropped", 10),
};

static const struct fab_rule_param flapping_params[] = {
	{ .section = "port.link_flapping", .key = "LinkDownedCounter",
	  .type = FAB_PARAM_INCREASE, .arg = FAB_CTR_LINK_DOWNED, .def = 0,
	  .min = 0, .max = COUNT_MAX,
	  .help = "increase of LinkDownedCounter tolerated between samples ('off': never fire)" },
	{ .section = "port.link_flapping", .key = "LinkErrorRecoveryCounter",
	  .type = FAB_PARAM_INCREASE, .arg = FAB_CTR_LINK_ERROR_RECOVERY, .def = 0,
	  .min = 0, .max = COUNT_MAX,
	  .help = "increase of LinkErrorRecoveryCounter tolerated between samples ('off': never fire)" },
};

/* Increases tolerated between two samples (or since a baseline): ibdiagnet
 * 1.x's bad-link deltas less one (it flags an increase of at least its
 * value; a parameter is the most that passes). The counters ibdiagnet
 * ignores (remote physical, switch relay) are off; LinkDowned and
 * LinkErrorRecovery are port.link_flapping's. `fabsweep ready` judges a
 * host's links since the sweep with these (and port.link_flapping's). */
#define INCREASE(ctr, name, dflt)                                                  \
	{ .section = "increase", .key = name, .type = FAB_PARAM_INCREASE,          \
	  .arg = FAB_CTR_##ctr, .def = dflt, .min = 0, .max = COUNT_MAX,           \
	  .help = "fires when " name " rose by more than this between samples ('off': never)" }

static const struct fab_rule_param error_increases[] = {
	INCREASE(SYMBOL_ERRORS, "SymbolErrorCounter", 0),
	INCREASE(RCV_ERRORS, "PortRcvErrors", 0),
	INCREASE(RCV_REMOTE_PHYS_ERRORS, "PortRcvRemotePhysicalErrors", FAB_PARAM_OFF),
	INCREASE(RCV_SWITCH_RELAY_ERRORS, "PortRcvSwitchRelayErrors", FAB_PARAM_OFF),
	INCREASE(XMIT_DISCARDS, "PortXmitDiscards", 9),
	INCREASE(XMIT_CONSTRAINT_ERRORS, "PortXmitConstraintErrors", 9),
	INCREASE(RCV_CONSTRAINT_ERRORS, "PortRcvConstraintErrors", 9),
	INCREASE(LOCAL_LINK_INTEGRITY_ERRORS, "LocalLinkIntegrityErrors", 9),
	INCREASE(EXCESSIVE_BUFFER_OVERRUN_ERRORS, "ExcessiveBufferOverrunErrors", 9),
	INCREASE(VL15_DROPPED, "VL15Dropped", 9),
};

static const struct fab_rule_param congestion_params[] = {
	THRESHOLD(XMIT_WAIT, "PortXmitWait", 1000),
	RATE(XMIT_WAIT, "PortXmitWait", 10000),
};

static const struct fab_rule_param ber_params[] = {
	{ .section = "link.ber_high", .key = "max_ber", .type = FAB_PARAM_RATIO, .def = 1e-12,
	  .min = 0, .max = 1,
	  .help = "highest symbol error rate tolerated (errors per bit received; ibdiagnet's 1e-12)" },
};

static const struct fab_rule_param no_standby_params[] = {
	{ .section = "sm.no_standby", .key = "min_standby", .type = FAB_PARAM_INT,
	  .def = 1, .min = 1, .max = 15,
	  .help = "standby subnet managers the master should have" },
};

static const struct fab_rule_param mtu_params[] = {
	{ .section = "expect", .key = "mtu", .type = FAB_PARAM_MTU,
	  .def = FAB_PARAM_OFF,
	  .help = "MTU in bytes every link should run at least ('off': only compare the two ends)" },
};

static const struct fab_rule_param asym_params[] = {
	{ .section = "topology.asymmetric", .key = "min_peers", .type = FAB_PARAM_INT,
	  .def = 3, .min = 2, .max = 100000,
	  .help = "fewest switches of one group (cabled alike) from which their common pattern is derived" },
};

/* RoCE: the [roce] keys are shared by several rules; each is owned by one
 * (and listed under it); the others read it through rule_shared(). */
static const struct fab_rule_param roce_prio_params[] = {
	{ .section = "roce", .key = "priority", .type = FAB_PARAM_INT, .def = 3, .min = 0,
	  .max = 7, .help = "802.1p priority RoCE traffic runs on (lossless, PFC)" },
};
const struct fab_rule_param *const rule_param_roce_priority = &roce_prio_params[0];

static const struct fab_rule_param roce_mtu_params[] = {
	{ .section = "roce", .key = "mtu", .type = FAB_PARAM_INT, .def = 9000, .min = 0,
	  .max = 65535,
	  .help = "MTU in bytes every RoCE interface should run at least (0: only compare the two ends)" },
};

static const struct fab_rule_param roce_dscp_params[] = {
	{ .section = "roce", .key = "dscp", .type = FAB_PARAM_INT, .def = 26, .min = 0,
	  .max = 63, .help = "DSCP RoCE traffic is marked with (mapped to the RoCE priority)" },
};
const struct fab_rule_param *const rule_param_roce_dscp = &roce_dscp_params[0];

static const struct fab_rule_param roce_cnp_params[] = {
	{ .section = "roce", .key = "cnp_dscp", .type = FAB_PARAM_INT_AUTO,
	  .def = FAB_PARAM_AUTO, .min = 0, .max = 63,
	  .help = "DSCP every NIC should send CNPs with ('auto': what most of them use)" },
	{ .section = "roce", .key = "cnp_priority", .type = FAB_PARAM_INT_AUTO,
	  .def = FAB_PARAM_AUTO, .min = 0, .max = 7,
	  .help = "802.1p priority every NIC should send CNPs on ('auto': what most of them use)" },
};

static const struct fab_rule_param pcie_params[] = {
	{ .section = "pcie.degraded", .key = "min_width", .type = FAB_PARAM_INT, .def = 0,
	  .min = 0, .max = 32,
	  .help = "lanes every RDMA device's PCIe link should run at least (0: only its maximum)" },
	{ .section = "pcie.degraded", .key = "min_speed_gts", .type = FAB_PARAM_INT, .def = 0,
	  .min = 0, .max = 128,
	  .help = "GT/s per lane every RDMA device's PCIe link should run at least (8: Gen3; 0: only its maximum)" },
};

/* RDMA counters (hw_counters file names) and their rates per second. */
#define ROCE_RATE(name, dflt)                                                    \
	{ .section = "roce.congestion", .key = name, .type = FAB_PARAM_RATE,     \
	  .def = dflt, .min = 0, .max = 1e18,                                    \
	  .help = "fires when " name " rises faster than this per second ('off': never)" }

static const struct fab_rule_param roce_congestion_params[] = {
	ROCE_RATE("np_ecn_marked_roce_packets", 10000),
	ROCE_RATE("np_cnp_sent", 10000),
	ROCE_RATE("rp_cnp_handled", 10000),
	ROCE_RATE("out_of_sequence", 10),
	ROCE_RATE("packet_seq_err", 10),
};

static const struct fab_rule_param credit_loop_params[] = {
	{ .section = "routing", .key = "sls", .type = FAB_PARAM_SLS, .def = 0x7fff, .min = 1,
	  .max = 0xffff,
	  .help = "service levels traffic may use: each is assumed on every path when the "
		  "credit-loop analysis follows the SL2VL tables' lanes (and the vl.* rules "
		  "judge, where some host maps them to a VL it runs)" },
};
const struct fab_rule_param *const rule_param_routing_sls = &credit_loop_params[0];

static const struct fab_rule_param op_vls_params[] = {
	{ .section = "vl.op_vls_mismatch", .key = "min_tier_links", .type = FAB_PARAM_INT,
	  .def = 3, .min = 1, .max = 1000000,
	  .help = "fewest switch-to-switch links of a tier from which the VLs most of them run "
		  "is what the others should run" },
};

static const struct fab_rule_param imbalance_params[] = {
	{ .section = "routing.imbalance", .key = "max_deviation", .type = FAB_PARAM_INT,
	  .def = 50, .min = 1, .max = 1000,
	  .help = "percent an up-port's destination count may differ from the mean of the "
		  "switch's up-ports (plus one destination) before it fires" },
};

#define HOST_PARTITION(k) \
	{ .section = "pkey.limited_pair", .key = k, .type = FAB_PARAM_INT, .def = 0, .min = 0, \
	  .max = 0x7fff, .help = "a partition (its 15-bit number, decimal: 32767 is 0x7fff) meant " \
	  "for host-to-host traffic; 0: none" }
static const struct fab_rule_param limited_pair_params[] = {
	HOST_PARTITION("partition"),
	HOST_PARTITION("partition_2"),
	HOST_PARTITION("partition_3"),
	HOST_PARTITION("partition_4"),
};

static const struct fab_rule_param default_missing_params[] = {
	{ .section = "pkey.default_missing", .key = "expect", .type = FAB_PARAM_INT,
	  .def = 1, .min = 0, .max = 2,
	  .help = "where the default partition is expected: 0 nowhere (off), 1 on host ports, "
		  "2 on host and switch ports" },
};

/* ---- the physical layer: modules and NIC counters -------------------------- */

/* A module monitor's four default limits (used where a module has none of
 * its own), in the order check_phys.c reads them. */
#define LIMIT(rule_, key_, dflt_, what_) \
	{ .section = rule_, .key = key_, .type = FAB_PARAM_REAL, .def = dflt_, .min = -1e6, .max = 1e6, \
	  .help = what_ " where the module has none of its own ('off': none)" }
static const struct fab_rule_param temperature_params[] = {
	LIMIT("module.temperature", "hi_alarm", FAB_MOD_TEMP_HI_ALARM, "high alarm, degrees C,"),
	LIMIT("module.temperature", "lo_alarm", FAB_MOD_TEMP_LO_ALARM, "low alarm, degrees C,"),
	LIMIT("module.temperature", "hi_warn", FAB_MOD_TEMP_HI_WARN, "high warning, degrees C,"),
	LIMIT("module.temperature", "lo_warn", FAB_MOD_TEMP_LO_WARN, "low warning, degrees C,"),
};
static const struct fab_rule_param rx_power_params[] = {
	LIMIT("module.rx_power", "hi_alarm_dbm", FAB_MOD_RX_HI_ALARM, "high alarm, dBm,"),
	LIMIT("module.rx_power", "lo_alarm_dbm", FAB_MOD_RX_LO_ALARM, "low alarm, dBm,"),
	LIMIT("module.rx_power", "hi_warn_dbm", FAB_MOD_RX_HI_WARN, "high warning, dBm,"),
	LIMIT("module.rx_power", "lo_warn_dbm", FAB_MOD_RX_LO_WARN, "low warning, dBm,"),
};
static const struct fab_rule_param tx_bias_params[] = {
	LIMIT("module.tx_bias", "hi_alarm_ma", FAB_PARAM_REAL_OFF, "high alarm, mA,"),
	LIMIT("module.tx_bias", "lo_alarm_ma", FAB_PARAM_REAL_OFF, "low alarm, mA,"),
	LIMIT("module.tx_bias", "hi_warn_ma", FAB_PARAM_REAL_OFF, "high warning, mA,"),
	LIMIT("module.tx_bias", "lo_warn_ma", FAB_PARAM_REAL_OFF, "low warning, mA,"),
};
static const struct fab_rule_param dark_lane_params[] = {
	{ .section = "module.dark_lane", .key = "dark_dbm", .type = FAB_PARAM_REAL,
	  .def = FAB_MODULE_DARK_DBM, .min = -100, .max = 0,
	  .help = "a lane whose Rx or Tx power is at or below this many dBm (or whose laser bias "
		  "is 0) has no light; the Rx power and bias rules leave such lanes to this one" },
};
const struct fab_rule_param *const rule_param_dark_dbm = &dark_lane_params[0];

static const struct fab_rule_param pause_storm_params[] = {
	{ .section = "roce.pause_storm", .key = "max_storm_events", .type = FAB_PARAM_COUNT, .def = 0,
	  .min = 0, .max = COUNT_MAX,
	  .help = "PFC stall-prevention (pause storm) events tolerated ('off': never fires on them)" },
	{ .section = "roce.pause_storm", .key = "max_pause_share", .type = FAB_PARAM_REAL, .def = 0.2,
	  .min = 0, .max = 1,
	  .help = "share of the time between two readings a priority may be paused, either way "
		  "('off': durations not judged)" },
};
static const struct fab_rule_param pause_unexpected_params[] = {
	{ .section = "roce.pause_unexpected", .key = "max_frames", .type = FAB_PARAM_COUNT, .def = 0,
	  .min = 0, .max = COUNT_MAX,
	  .help = "pause frames tolerated on a priority without PFC ('off': never fires)" },
};
static const struct fab_rule_param discards_params[] = {
	{ .section = "eth.discards", .key = "max_ratio", .type = FAB_PARAM_REAL, .def = 1e-6, .min = 0,
	  .max = 1, .help = "share of the frames a NIC may discard ('off': any number, see min_discards)" },
	{ .section = "eth.discards", .key = "min_discards", .type = FAB_PARAM_COUNT, .def = 0, .min = 0,
	  .max = COUNT_MAX, .help = "discards tolerated whatever their share" },
};
static const struct fab_rule_param fec_params[] = {
	{ .section = "eth.fec_uncorrectable", .key = "max_blocks", .type = FAB_PARAM_COUNT, .def = 0,
	  .min = 0, .max = COUNT_MAX, .help = "uncorrectable FEC blocks tolerated ('off': never fires)" },
};
static const struct fab_rule_param eth_ber_params[] = {
	{ .section = "eth.ber_high", .key = "max_pre_fec_ber", .type = FAB_PARAM_RATIO, .def = 1e-6,
	  .min = 0, .max = 1, .help = "pre-FEC bit error ratio (corrected bits per received bit) "
				     "tolerated ('off': never fires)" },
};

#define IPOIB_PARTITION(k) \
	{ .section = "mcast.ipoib_broadcast", .key = k, .type = FAB_PARAM_INT, .def = 0, .min = 0, \
	  .max = 0x7fff, .help = "a partition (15-bit number, decimal: 32767 is 0x7fff) whose host " \
	  "ports all run IPoIB, judged even where no host joined an IPoIB group; 0: none" }
static const struct fab_rule_param ipoib_params[] = {
	IPOIB_PARTITION("partition"),
	IPOIB_PARTITION("partition_2"),
	IPOIB_PARTITION("partition_3"),
	IPOIB_PARTITION("partition_4"),
};

/* ---- the table ---------------------------------------------------------- */

static const struct fab_rule rules[] = {
	{
		.id = "link.width_degraded",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_LINK,
		.title = "Link runs at a narrower width than it could",
		.rationale =
			"A link that trained at fewer lanes than both ends can use (1X instead of 4X) "
			"carries a fraction of the bandwidth and usually means a bad cable, a dirty "
			"connector or a lane that failed. The link stays up, so nothing else reports it. "
			"The width is compared with the widest width both ends enable and support, and "
			"with what links of the same tier (host-leaf, leaf-spine, ...) run: the "
			"configured expectation, else the width most of them run. Simulators and some "
			"devices report every width as supported, which is why the tier comparison matters.",
		.remediation =
			"Reseat or replace the cable (and clean the connectors) between the two ports "
			"named; check that neither end has a width disabled (ibportstate ... query). "
			"If the narrower width is intended, set [expect] width.<tier> or suppress the link.",
		PARAMS(width_params),
		.check = check_link_degraded,
		.arg = LINK_WIDTH,
	},
	{
		.id = "link.speed_degraded",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_LINK,
		.title = "Link runs at a lower speed than it could",
		.rationale =
			"A link that trained at a slower signalling rate than both ends can run (DDR on "
			"an EDR fabric, SDR on HDR) loses most of its bandwidth; it stays up, so jobs just "
			"run slowly. Causes: a cable rated for a lower speed, an old adapter, firmware, or "
			"a speed disabled on one end. The speed is compared with the fastest speed both ends "
			"enable and support, and with what links of the same tier run (configured, else "
			"the majority).",
		.remediation =
			"Check the cable's rating and replace it if needed; compare adapter and switch "
			"firmware; check enabled speeds on both ends. If the lower speed is intended (an "
			"older adapter on purpose), set [expect] speed.<tier> or suppress the link.",
		PARAMS(speed_params),
		.check = check_link_degraded,
		.arg = LINK_SPEED,
	},
	{
		.id = "port.not_active",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_LINK,
		.needs = FAB_NEED_PORT_STATE,
		.title = "Physical link is up but the port is not Active",
		.rationale =
			"A port whose physical link is up but whose logical state is Init or Armed "
			"passes no data traffic: the subnet manager has not brought it up, usually "
			"because there is no working SM, the SM cannot reach it, or it was set aside "
			"after errors. Two ends of one link in different states point at the same "
			"problem.",
		.remediation =
			"Check that a master subnet manager runs (sminfo) and look in its log for the "
			"port; a sweep (or restarting the SM) normally activates it. If it stays in Init, "
			"reset the port (ibportstate ... reset) or reseat the cable.",
		.check = check_port_not_active,
	},
	{
		.id = "port.down",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_LINK,
		.needs = FAB_NEED_PORT_STATE | FAB_NEED_BASELINE,
		.title = "A port that was up is down",
		.rationale =
			"A port that was Active with a link in the baseline and is not Active now (or "
			"whose node no longer answers) has lost its link: the cable, a transceiver, the "
			"far end rebooting or someone disabling it. Its traffic was rerouted; a host "
			"behind it is cut off. fabsweep watch keeps it raised, with since when, until the "
			"port is Active again.",
		.remediation =
			"Check the port's and the peer's physical state (ibportstate), the cable and the "
			"far end; if it was taken down on purpose, suppress it or wait for the next full "
			"scan to take the new state as the baseline.",
		.check = check_port_down,
	},
	{
		.id = "port.errors",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_COUNTERS,
		.needs = FAB_NEED_COUNTERS,
		.title = "Error counters above their thresholds",
		.rationale =
			"Error counters count since they were last cleared. Symbol and receive errors "
			"point at the physical link (cable, connector, transceiver); discards and "
			"constraint errors at congestion or configuration; link recovery and downed "
			"counts at instability. The defaults are the values infiniband-diags suggests "
			"for ibqueryerrors; a counter at its all-ones value is saturated and counts as "
			"at least that much.",
		.remediation =
			"Look at the port and its peer (the other end of the cable): symbol errors on "
			"one side usually mean the cable or the far transmitter. Clear the counters "
			"(perfquery -R, or scan --reset-counters) and scan again later; if they grow, "
			"port.error_rate will say how fast.",
		PARAMS(error_thresholds),
		.check = check_counters,
		.arg = COUNTERS_ALL,
	},
	{
		.id = "port.error_rate",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_COUNTERS,
		.needs = FAB_NEED_COUNTERS | FAB_NEED_DELTAS,
		.title = "Error counter rising faster than its rate threshold",
		.rationale =
			"An error counter that keeps rising is a live problem, unlike an old count. The "
			"rate is the increase per second between the two samples of a scan (scan "
			"--interval) or since a baseline snapshot (check --baseline). A counter that went "
			"down was cleared in between; a saturated one has risen at least that much.",
		.remediation =
			"Replace or reseat the cable of a port with a rising symbol or receive error rate; "
			"for discards look for congestion or a misbehaving host. Re-check after the fix "
			"with a new scan and --baseline.",
		PARAMS(error_rates),
		.check = check_counters,
		.arg = COUNTERS_ALL,
	},
	{
		.id = "port.link_flapping",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_COUNTERS,
		.needs = FAB_NEED_COUNTERS | FAB_NEED_DELTAS,
		.title = "Link went down or retrained between the samples",
		.rationale =
			"LinkDownedCounter counts links that failed and came back; LinkErrorRecoveryCounter "
			"counts retraining. Either growing between the two samples of a scan, or since a "
			"baseline, means the link is flapping now: every flap drops packets and can "
			"reroute traffic fabric-wide.",
		.remediation =
			"Replace or reseat the cable; check the port's and the peer's symbol errors and "
			"the transceiver temperature. A link that flaps repeatedly is better disabled "
			"until repaired.",
		PARAMS(flapping_params),
		.check = check_counters,
		.arg = COUNTERS_ALL,
	},
	{
		.id = "port.congestion",
		.severity = FAB_SEV_INFO,
		.category = FAB_CAT_COUNTERS,
		.needs = FAB_NEED_COUNTERS,
		.title = "Port waits to transmit (PortXmitWait) above threshold",
		.rationale =
			"PortXmitWait counts ticks in which the port had data to send but could not, for "
			"lack of credits from the other end: congestion downstream. When the port has two "
			"samples (or a baseline) its rate is compared with the rate threshold; otherwise "
			"the count since the last clear is compared with the value threshold, as "
			"ibqueryerrors does. The tick length depends on the device: tune the thresholds.",
		.remediation =
			"Find where the traffic goes: congestion on a leaf uplink suggests too few uplinks "
			"or unbalanced routing; on a host port, a slow receiver. Check routing balance "
			"(the SM's routing engine) and look for hot spots.",
		PARAMS(congestion_params),
		.check = check_counters,
		.arg = COUNTERS_RATE_FIRST,
	},
	{
		.id = "sm.none",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_SM,
		.needs = FAB_NEED_SMINFO,
		.title = "No master subnet manager",
		.rationale =
			"Without a master SM nothing brings new or restarted ports up, assigns LIDs or "
			"reroutes around a failed link; the fabric keeps running on its last configuration "
			"until the first change breaks it.",
		.remediation =
			"Start OpenSM (systemctl start opensm) on at least two hosts or managed switches, "
			"with different priorities, and find out why the last one stopped.",
		.check = check_sm,
		.arg = SM_NONE,
	},
	{
		.id = "sm.multiple_masters",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_SM,
		.needs = FAB_NEED_SMINFO,
		.title = "More than one master subnet manager",
		.rationale =
			"Two masters on one subnet fight over LIDs and routes, and ports flap between "
			"their configurations. It happens when SMs cannot see each other (a partitioned "
			"fabric, a broken link between them) or are misconfigured.",
		.remediation =
			"Keep one master: stop the extra SM or give it a lower priority, and check that "
			"the SMs can reach each other (they poll each other with SMInfo).",
		.check = check_sm,
		.arg = SM_MULTIPLE_MASTERS,
	},
	{
		.id = "sm.priority_inversion",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_SM,
		.needs = FAB_NEED_SMINFO,
		.title = "A standby subnet manager has a higher priority than the master",
		.rationale =
			"The SM with the highest priority should be master. A standby that outranks the "
			"master means the intended master lost an election or failed over and did not "
			"take over again; the next handover may come at a bad moment.",
		.remediation =
			"Check which SM is meant to be master; fix the priorities (sm_priority in "
			"opensm.conf) or trigger a handover deliberately in a maintenance window.",
		.check = check_sm,
		.arg = SM_PRIORITY_INVERSION,
	},
	{
		.id = "sm.no_standby",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_SM,
		.needs = FAB_NEED_SMINFO,
		.title = "The master subnet manager has no standby",
		.rationale =
			"A single subnet manager is a single point of failure: if it stops, nothing takes "
			"over and the next fabric change goes unhandled.",
		.remediation =
			"Run a second OpenSM on another host (or a managed switch) with a lower priority; "
			"it becomes standby and takes over within its polling timeout.",
		PARAMS(no_standby_params),
		.check = check_sm,
		.arg = SM_NO_STANDBY,
	},
	{
		.id = "sm.unresponsive",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_SM,
		.needs = FAB_NEED_SMINFO,
		.title = "A subnet manager does not answer, or is not active",
		.rationale =
			"A port that advertises IsSM should answer SMInfo queries. One that does not "
			"(or reports NOTACTIVE, or sits on a port that is not Active) cannot take over "
			"when the master fails, although everyone believes it would.",
		.remediation =
			"Check the SM process on that host (systemctl status opensm, its log); restart it "
			"or remove it from the fabric's SM list.",
		.check = check_sm,
		.arg = SM_UNRESPONSIVE,
	},
	{
		.id = "sm.security_trap",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_SM,
		.title = "The subnet manager reported a security violation",
		.rationale =
			"A port that receives a management packet with a wrong M_Key, or a packet "
			"whose P_Key or Q_Key it does not hold, reports it to the SM (traps 256-259), "
			"which forwards it to subscribers such as fabsweep watch. A wrong M_Key means "
			"someone tried to reconfigure a port without the key; wrong P_Keys or Q_Keys "
			"mean traffic across a partition it should not cross, or a misconfigured "
			"application.",
		.remediation =
			"Find the source LID the finding names (fabsweep route, ibaddr), check who runs "
			"management tools or jobs there and which partitions it belongs to; look in the "
			"SM's log for the trap. Repeated bad M_Keys from one host are an intrusion "
			"attempt until proven otherwise.",
		.check = check_security_trap,
	},
	{
		.id = "lid.unassigned",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ADDRESSING,
		.title = "Active port without a valid LID",
		.rationale =
			"Every active channel adapter port and every switch (port 0) needs a unicast LID "
			"to be reached. An active port with LID 0 (or a multicast/permissive value) "
			"cannot be addressed: the SM did not finish configuring it.",
		.remediation =
			"Check the subnet manager's log for the port; a sweep normally assigns the LID. "
			"If the SM cannot (LID space exhausted, errors), fix that first.",
		.check = check_lid_unassigned,
	},
	{
		.id = "lid.duplicate",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ADDRESSING,
		.title = "Two ports share a LID",
		.rationale =
			"A LID names one port (or an LMC range of one port). Two owners of one LID make "
			"traffic to it go to one of them at random, depending on the route.",
		.remediation =
			"Usually left over from a merge of two subnets or a device moved with a static "
			"LID: make the SM reassign LIDs (restart it with a fresh guid2lid file) or fix "
			"the static LID.",
		.check = check_duplicates,
		.arg = DUP_LID,
	},
	{
		.id = "guid.duplicate",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ADDRESSING,
		.title = "Two devices share a GUID",
		.rationale =
			"GUIDs are meant to be unique worldwide; the SM and every tool key devices by "
			"them. OpenSM stops on duplicate GUIDs unless told otherwise, and tools merge "
			"the two devices into one, hiding one of them.",
		.remediation =
			"Find the two devices (the finding names both where it can) and burn a correct "
			"GUID into the one with the wrong firmware image or VPD; cloned virtual machines "
			"and replaced boards are the usual cause.",
		.check = check_duplicates,
		.arg = DUP_GUID,
	},
	{
		.id = "nodedesc.duplicate",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ADDRESSING,
		.title = "Two devices share a node description",
		.rationale =
			"Operators, reports and node-name maps find devices by their description. "
			"Devices left at a vendor default (\"MT4123 ConnectX6 Mellanox Technologies\") or "
			"cloned hosts make findings about them ambiguous.",
		.remediation =
			"Set a unique description: hosts do it at boot (rdma-ndd, or "
			"/sys/class/infiniband/<dev>/node_desc), managed switches in their configuration; "
			"for unmanaged switches keep a node-name map.",
		.check = check_duplicates,
		.arg = DUP_NODEDESC,
	},
	{
		.id = "mtu.mismatch",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_LINK,
		.needs = FAB_NEED_PORT_STATE,
		.title = "Link ends run different MTUs, or below the expected MTU",
		.rationale =
			"The MTU of a path is the smallest on it: one link with a smaller MTU caps every "
			"flow through it, silently. The two ends of a link should agree, and meet the "
			"fabric's expected MTU when one is configured.",
		.remediation =
			"Check the MTU capability and the SM's configured MTU for the partition "
			"(partitions.conf mtu=); make both ends and the partition agree.",
		PARAMS(mtu_params),
		.check = check_mtu_mismatch,
	},
	{
		.id = "topology.asymmetric",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_TOPOLOGY,
		.title = "A switch breaks the pattern of its group",
		.rationale =
			"In a fat tree or spine-leaf fabric the switches that play the same part are "
			"cabled alike: the leaves of a pod have the same uplinks, the spines that serve the "
			"same leaves reach each of them alike. A leaf with fewer uplinks than its pod, a "
			"spine missing a leaf of its group, or an extra cable breaks the routing balance "
			"and usually means a cable is missing, down or plugged into the wrong port. Groups "
			"built differently by design (a smaller pod, a management leaf) are compared with "
			"nobody else.",
		.remediation =
			"Compare the switch with its group (the finding says what most of them have and "
			"names the neighbours it has fewer links to): find the missing or misplaced cable, "
			"often a link that is down.",
		PARAMS(asym_params),
		.check = check_topology_asymmetric,
	},
	/* Expected topology (rules/expect.c): run only with a reference,
	 * `fabsweep check --expect FILE|SCAN`. */
	{
		.id = "topology.missing_link",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_TOPOLOGY,
		.needs = FAB_NEED_REFERENCE,
		.title = "A cable of the reference topology is missing",
		.rationale =
			"The reference topology (the cabling plan, or a scan of the fabric when it was "
			"right) has a cable between these two ports and the scan does not: the cable is "
			"unplugged, broken, or its link is down. Routing loses a path, and a host or a "
			"switch may be cut off or reachable over fewer uplinks than planned.",
		.remediation =
			"Check the cable between the two ports named (seated, lit, undamaged) and the "
			"port state on both ends (ibportstate ... query); replace the cable if the link "
			"does not come up. If the change is intended, refresh the reference.",
		.check = check_expect,
		.arg = EXPECT_MISSING,
	},
	{
		.id = "topology.unexpected_link",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_TOPOLOGY,
		.needs = FAB_NEED_REFERENCE,
		.title = "A cable is not in the reference topology",
		.rationale =
			"The scan found a cable the reference topology does not have: between ports that "
			"were free in the reference, or to a node the reference does not know. A cable "
			"nobody planned changes routing, can create loops of traffic between leaves and "
			"may connect something that should not be on the fabric.",
		.remediation =
			"Find out who added the cable and why; remove it, or refresh the reference if it "
			"belongs there now.",
		.check = check_expect,
		.arg = EXPECT_UNEXPECTED,
	},
	{
		.id = "topology.miswired",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_TOPOLOGY,
		.needs = FAB_NEED_REFERENCE,
		.title = "A cable is plugged into the wrong port",
		.rationale =
			"Both ends of this cable are ports of the reference topology, but there at least "
			"one of them is cabled elsewhere: the cable sits in the wrong port. Links stay up, "
			"so nothing else reports it, yet routing tables, port-based monitoring and the "
			"next person at the rack all go by the plan. Two cables swapped with each other "
			"give two findings that name each other.",
		.remediation =
			"Move the cable to the port the finding names (the reference's end of each port); "
			"for a swapped pair, swap the two cables back. If the plan changed, refresh the "
			"reference.",
		.check = check_expect,
		.arg = EXPECT_MISWIRED,
	},
	{
		.id = "node.unresponsive",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_SCAN,
		.title = "Node or port did not answer during the scan",
		.rationale =
			"A node that does not answer subnet management (SMP) or performance (PMA) queries "
			"may be hung, overloaded or behind a failing link, and everything the scan could "
			"not see about it is unknown: other rules stay silent about it.",
		.remediation =
			"Scan again; if it persists, check the node (a hung host, a switch management "
			"problem) and the link towards it. Raise --timeout/--retries for slow devices.",
		.check = check_node_unresponsive,
	},
	{
		.id = "roce.pfc_disabled",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE,
		.title = "PFC is not enabled on the RoCE priority",
		.rationale =
			"RoCE relies on a lossless priority: when a receive buffer fills, Priority Flow "
			"Control pauses the sender instead of dropping. Without PFC on the RoCE priority "
			"(default 3) at a RoCE interface or at the switch port facing it, congestion "
			"drops RDMA packets; the transport recovers with go-back-N retransmissions and "
			"timeouts, so the job slows down by orders of magnitude with nothing failing "
			"outright. A RoCE interface is one an RDMA port runs on, or one set up for RoCE "
			"(PFC on some priority, an application entry for UDP 4791); management NICs are "
			"left alone.",
		.remediation =
			"Enable PFC on the RoCE priority at both ends: on a host with the NIC's tools "
			"(mlnx_qos -i IF --pfc 0,0,0,1,0,0,0,0, or dcb pfc set dev IF prio-pfc 3:on), on "
			"the switch in its QoS / lossless profile for the port. If the fabric uses "
			"another priority, set [roce] priority.",
		PARAMS(roce_prio_params),
		.check = check_roce_pfc_disabled,
	},
	{
		.id = "roce.mtu_mismatch",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE,
		.title = "Ethernet MTU differs between the ends of a RoCE link, or is below the jumbo MTU",
		.rationale =
			"The RoCE path MTU is negotiated from the interface MTU: a host at 1500 bytes "
			"sends 1024-byte RDMA packets where the fabric expects 4096, costing bandwidth "
			"and CPU; a switch port whose MTU is smaller than its neighbour's drops the "
			"larger frames silently. A host at 9000 on a switch port at 9216 is the usual "
			"set-up and is not reported.",
		.remediation =
			"Set the interface MTU (ip link set dev IF mtu 9000, and in the network "
			"configuration so it survives a reboot) or the switch port MTU to match. If "
			"the fabric deliberately runs another MTU, set [roce] mtu.",
		PARAMS(roce_mtu_params),
		.check = check_roce_mtu_mismatch,
	},
	{
		.id = "roce.dscp_mapping",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE,
		.title = "RoCE DSCP or UDP 4791 is not mapped to the RoCE priority",
		.rationale =
			"In DSCP trust mode a packet's priority comes from its DSCP through the "
			"Application Priority table: if the RoCE DSCP (default 26) is not mapped to the "
			"RoCE priority, or the UDP 4791 (RoCE v2) entry is missing or points to another "
			"priority, RDMA traffic lands in a lossy queue although PFC is configured. It "
			"works until the first congestion, then drops.",
		.remediation =
			"Add the entries on the host (dcb app add dev IF dscp-prio 26:3, or mlnx_qos "
			"--trust dscp with --dscp2prio set,26,3) and in the switch's QoS map; on a "
			"willing host, fix the switch's advertised table. Set [roce] dscp (and [roce] "
			"priority) if the fabric uses other values.",
		PARAMS(roce_dscp_params),
		.check = check_roce_dscp_mapping,
	},
	{
		.id = "roce.pfc_mismatch",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE,
		.title = "The ends of a link enable PFC on different priorities",
		.rationale =
			"PFC works per hop: a pause frame for a priority is honoured only when the "
			"receiving end has PFC on that priority. When the two ends of a link enable "
			"different priorities, one direction of the lossless class is lossy, and "
			"traffic is dropped under load on a link that looks configured from either end.",
		.remediation =
			"Make both ends enable PFC on the same priorities (the RoCE priority, default "
			"3): fix the end that differs from the rest of the fabric. With DCBX, a willing "
			"host takes the switch's configuration: check the switch's advertised PFC and "
			"that the host is willing (lldptool / mlnx_qos).",
		.check = check_roce_pfc_mismatch,
	},
	{
		.id = "lldp.no_neighbor",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE,
		.title = "An interface is up and runs LLDP but hears no neighbour",
		.rationale =
			"Every link of a RoCE fabric is found through LLDP: an interface that is up but "
			"hears nothing has either a neighbour that does not run LLDP (a switch with LLDP "
			"off, a NIC whose firmware agent consumes the frames) or a link that is up on "
			"this side only. Either way the link is missing from the fabric graph, and the "
			"rules comparing the two ends of links cannot see it.",
		.remediation =
			"Enable LLDP on the neighbour (lldpd, or the switch's LLDP with the 802.1 TLVs); "
			"on ConnectX hosts disable the firmware LLDP agent or run lldpd on the PF; check "
			"the cabling. An interface that is deliberately without a neighbour can be "
			"excluded from lldpd (lldpd -I) or suppressed.",
		.check = check_lldp_no_neighbor,
	},
	{
		.id = "lldp.asymmetric",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE,
		.title = "LLDP is heard in one direction only",
		.rationale =
			"When A hears B on a link but B, which runs LLDP there, does not hear A, frames "
			"are lost in one direction (a unidirectional fault, a receive filter, a "
			"firmware agent eating the frames) or B's LLDP on that port is misconfigured. "
			"DCBX negotiation through LLDP fails the same way, so a willing end keeps its "
			"defaults.",
		.remediation =
			"Check the receive side of the deaf end: lldpcli show neighbors on it, interface "
			"errors, the NIC's firmware LLDP agent, the cable or optic. Collect again once "
			"fixed.",
		.check = check_lldp_asymmetric,
	},
	{
		.id = "eth.speed_mismatch",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE,
		.title = "Ethernet link runs at another speed than its other end or its tier",
		.rationale =
			"Links of one tier (host-leaf, leaf-spine, ...) are built to run one speed; a "
			"link that negotiated lower (25G instead of 100G: a bad cable or optic, a "
			"mis-set port, a forced speed) stays up, so nothing else reports it, and it "
			"becomes the bottleneck of every flow that hashes onto it. The ends of a link "
			"reporting different speeds is a port or breakout misconfiguration.",
		.remediation =
			"Check the optics and cables of the link and both ends' speed and autonegotiation "
			"settings (ethtool IF on a host, the port configuration on the switch); reseat or "
			"replace. If the tier is deliberately mixed, suppress the links that differ.",
		.check = check_eth_speed_mismatch,
	},
	{
		.id = "pcie.degraded",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_HOST,
		.needs = FAB_NEED_ROCE,
		.title = "RDMA device's PCIe link runs below its width or speed",
		.rationale =
			"A 100-400 Gb/s NIC needs its full PCIe link (typically x16 at Gen3 or better): "
			"one that trained at x8 or at a lower generation (a card in the wrong slot, a "
			"riser, a BIOS setting, a bad contact) caps the host's RDMA bandwidth below the "
			"network's, and nothing on the network side shows it.",
		.remediation =
			"Check lspci -vv (LnkCap against LnkSta) for the device, move the card to a "
			"full-width slot, check the BIOS slot settings (bifurcation, generation) and the "
			"riser; reseat the card. Set [pcie.degraded] min_width / min_speed_gts to also "
			"require a minimum whatever the device reports it can do.",
		PARAMS(pcie_params),
		.check = check_pcie_degraded,
	},
	{
		.id = "fw.mismatch",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_HOST,
		.needs = FAB_NEED_ROCE,
		.title = "RDMA devices of one model run different firmware",
		.rationale =
			"Devices of the same model (same HCA type and board id) are expected to run the "
			"same firmware: a straggler misses fixes (congestion control, PFC watchdog, "
			"link training) the rest of the fabric has, and problems that appear on a few "
			"hosts only are hard to explain without it. Boards of other vendors (another "
			"board id) often follow their own firmware releases and are compared separately.",
		.remediation =
			"Update the device to the firmware the others run (mlxfwmanager, or the vendor's "
			"tool), or plan the rollout so the fabric converges; a deliberate canary can be "
			"suppressed until it ends.",
		.check = check_fw_mismatch,
	},
	{
		.id = "roce.congestion",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE | FAB_NEED_ROCE_BASELINE,
		.title = "RDMA congestion or sequence-error counters rise fast",
		.rationale =
			"ECN marks and congestion notification packets (CNPs) rising fast show sustained "
			"congestion the congestion control is fighting; out-of-sequence packets and "
			"sequence errors show drops: a lossy RoCE priority, a PFC problem, a bad link. "
			"The RDMA counters are one sample per collection, so the rule compares the "
			"snapshot with a baseline (check --baseline), matched by system, device, port "
			"and counter name; without one it is skipped.",
		.remediation =
			"For ECN and CNPs: find the congested links (switch queue and pause counters), "
			"spread the traffic or tune congestion control. For out-of-sequence and sequence "
			"errors: check roce.pfc_disabled, roce.pfc_mismatch and roce.dscp_mapping for "
			"this host and its switch, and the link's error counters.",
		PARAMS(roce_congestion_params),
		.check = check_roce_congestion,
	},
	{
		.id = "roce.ecn_disabled",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE | FAB_NEED_ROCE_ECN,
		.title = "ECN or DCQCN is off on the RoCE priority while PFC is on",
		.rationale =
			"PFC keeps the RoCE priority lossless by pausing senders hop by hop; ECN with "
			"DCQCN makes the senders slow down before the queues fill, so that pauses stay "
			"rare. On a NIC where the notification point (the receiver that answers "
			"ECN-marked packets with congestion notification packets, CNPs) or the reaction "
			"point (the sender that cuts its rate on CNPs) is off for the RoCE priority, "
			"congestion is handled by PFC alone: pauses spread upstream, whole switches "
			"stall behind one slow receiver (PFC storms, head-of-line blocking, in the worst "
			"case deadlock), and every other check still passes. Only NICs whose driver "
			"exposes the settings (sysfs <netdev>/ecn, mlx5) are judged; the others are "
			"unknown, not off.",
		.remediation =
			"Enable both points for the RoCE priority on the host: echo 1 > "
			"/sys/class/net/IF/ecn/roce_np/enable/3 and .../roce_rp/enable/3 (or mlxconfig / "
			"the vendor's tools so it survives a reboot), and make sure the switches mark "
			"ECN on that traffic class. If RoCE runs on another priority, set [roce] priority.",
		.check = check_roce_ecn_disabled,
	},
	{
		.id = "roce.cnp_mismatch",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE | FAB_NEED_ROCE_ECN,
		.title = "CNPs are sent on another DSCP or priority than the fabric's, or on the RoCE priority",
		.rationale =
			"Congestion notification packets (CNPs) tell a sender to slow down; they are "
			"small and must arrive quickly, so the fabric gives them their own DSCP and "
			"priority (usually 48 and 6), often strict priority. A NIC that sends them on "
			"another DSCP or priority than the rest lands them in a queue the switches do "
			"not treat as CNPs (slow, or lossy): its peers react late or not at all, and "
			"DCQCN degrades to PFC. CNPs on the RoCE priority (or with the RoCE DSCP) wait "
			"behind the very traffic they should slow down, and are paused with it.",
		.remediation =
			"Set the CNP DSCP and priority on the NIC to the fabric's (echo 48 > "
			"/sys/class/net/IF/ecn/roce_np/cnp_dscp, echo 6 > .../roce_np/cnp_802p_prio, or "
			"the vendor's tools), and keep them off the RoCE priority. Set [roce] cnp_dscp "
			"and cnp_priority to state what the fabric should use instead of what most NICs "
			"use.",
		PARAMS(roce_cnp_params),
		.check = check_roce_cnp_mismatch,
	},
	{
		.id = "roce.trust_mismatch",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROCE,
		.needs = FAB_NEED_ROCE | FAB_NEED_ROCE_TRUST,
		.title = "A RoCE NIC trusts PCP while the fabric trusts DSCP, or the reverse",
		.rationale =
			"A NIC classifies received traffic into priorities either by the VLAN tag's "
			"802.1p priority (trust pcp) or by the IP header's DSCP (trust dscp). A fabric is "
			"built for one of them: with DSCP marking, RDMA traffic is DSCP 26 and reaches "
			"the lossless priority 3 only where DSCP is trusted; a NIC left in trust pcp "
			"puts untagged RoCE on priority 0, where it is neither paused nor ECN-marked, and "
			"drops under load. A NIC trusting DSCP in a PCP fabric maps by a table nobody "
			"maintains. The fabric's mode is what most RoCE NICs with a known trust state use.",
		.remediation =
			"Set the NIC's trust mode to the fabric's: mlnx_qos -i IF --trust dscp (or "
			"dcb app add dev IF dscp-prio 26:3, which makes mlx5 trust DSCP; trust pcp "
			"removes the DSCP entries), and persist it in the host's network configuration.",
		.check = check_roce_trust_mismatch,
	},
	{
		.id = "port.error_increase",
		.severity = FAB_SEV_INFO,
		.category = FAB_CAT_COUNTERS,
		.needs = FAB_NEED_COUNTERS | FAB_NEED_DELTAS,
		.title = "Error counters rose between the samples",
		.rationale =
			"An error counter that grew between the two samples of a scan (scan --interval) "
			"or since a baseline (check --baseline, and every sweep against the one before) "
			"points at a link that is failing now, however slowly: ibdiagnet flags the same "
			"increases as bad links. A counter that went down was cleared in between and rose "
			"at least its new value; a saturated one at least up to its all-ones value. "
			"`fabsweep ready` judges a host's links since the sweep by the same limits.",
		.remediation =
			"Look at the port and its peer: symbol and receive errors usually mean the cable, "
			"a connector or the far transmitter; discards and constraint errors congestion or "
			"configuration. Reseat or replace the cable, then compare the next sweep. Raise a "
			"limit under [increase] if a trickle of errors is expected on a link. The "
			"finding is info by default: between hourly sweeps a healthy fabric's long "
			"links pick up a few symbol errors, which port.errors and port.error_rate "
			"judge by their totals and rates; raise it ([rules] port.error_increase = "
			"warning) where every new error should be looked at.",
		PARAMS(error_increases),
		.check = check_counters,
		.arg = COUNTERS_ALL,
	},
	{
		.id = "routing.unreachable",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_ROUTES,
		.title = "Forwarding tables leave hosts unable to reach each other",
		.rationale =
			"Every link can be up and clean while traffic between two hosts is lost: a switch "
			"forwards a LID to a port that went down (the subnet manager never swept again or "
			"could not reroute), has no entry for it (255, or a LID above its LinearFDBTop), "
			"names a port it does not have, delivers it to the wrong node, or two switches send "
			"it back and forth. Each destination LID's route is followed from every switch once "
			"(with LMC > 0 every LID of a port's range, each routed on its own), so every "
			"host-to-host pair is judged; the finding names the place where routes "
			"break and how many pairs break there, with a few of them by name. Pairs whose "
			"route meets a table or block the scan could not read are not judged.",
		.remediation =
			"Make the master subnet manager sweep (OpenSM: kill -HUP, or check that it runs "
			"at all: sminfo) and scan again; if the entry stays, look for why the SM cannot "
			"route around the port (its log), a table written by hand (ibroute, opensm -U), "
			"or a routing engine that failed. Confirm a pair with ibtracert or fabsweep route.",
		.check = check_routing_unreachable,
	},
	{
		.id = "routing.credit_loop",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_ROUTES,
		.title = "The routes can deadlock: a cycle in the channel dependency graph",
		.rationale =
			"A packet holding buffer credits on one link waits for credits on the next link "
			"of its route. When the routes chain links into a cycle (the channel dependency "
			"graph of the forwarding tables has one), a burst of traffic can fill every "
			"buffer of the cycle and nothing moves again: the fabric deadlocks until timeouts "
			"drop the traffic. Min-hop routing on anything but a tree can do this; up/down, "
			"fat-tree and DFSSSP routing avoid it. Where the one-lane graph has a cycle, the "
			"scan reads the SL2VL tables of its links and the cycle is judged per virtual "
			"lane, route by route, for every service level of [routing] sls (a lane change "
			"on the way, a dateline, breaks it); where those tables were not read, all "
			"traffic is taken to share one lane (docs/routing.md).",
		.remediation =
			"Route with a deadlock-free engine (OpenSM: routing_engine updn, ftree or dfsssp, "
			"with SL2VL configured for dfsssp), or find the link or table that makes the "
			"cycle (the evidence lists it) and correct it. Where the routing engine relies "
			"on lanes (a dateline in the SL2VL tables), check that the tables the evidence "
			"says were not read answer, and narrow [routing] sls to the service levels "
			"the fabric's traffic uses.",
		PARAMS(credit_loop_params),
		.check = check_routing_credit_loop,
	},
	{
		.id = "routing.imbalance",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_ROUTES,
		.title = "A switch spreads destinations unevenly over its up-ports",
		.rationale =
			"In a fat tree a switch should route the hosts' LIDs evenly over its ports toward "
			"the spines (or the core): a port that carries far more destinations than its "
			"peers becomes the bottleneck of all-to-all traffic while others idle, which is "
			"what check_lft_balance looks for. Up-ports are the Active ports toward switches "
			"of a higher role; each host LID routed through one counts once (with LMC > 0 "
			"every LID of a port's range, as check_lft_balance counts them: the offsets are "
			"what multipath routing spreads).",
		.remediation =
			"Check that every up-link was up when the subnet manager last routed (a link that "
			"came back later gets no routes until the next heavy sweep: make the SM sweep), "
			"and that the routing engine balances (OpenSM ftree or updn with LMC). Raise "
			"[routing.imbalance] max_deviation if the spread is intended.",
		PARAMS(imbalance_params),
		.check = check_routing_imbalance,
	},
	{
		.id = "pkey.enforcement_drop",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ADDRESSING,
		.needs = FAB_NEED_PKEYS,
		.title = "A switch port filters out a partition of the host behind it",
		.rationale =
			"With partition enforcement on (PortInfo PartitionEnforcementInbound or Outbound), "
			"a switch port drops every packet whose P_Key is not in its own P_Key table. When "
			"the host port is a member of a partition its switch port does not carry, the "
			"host believes it is in the partition and its traffic there vanishes at the first "
			"hop: jobs hang in connection setup, IPoIB child interfaces see nothing. The "
			"subnet manager keeps the two tables in step; a table written by hand, a failed "
			"Set, or a switch that lost its table since the last sweep breaks that.",
		.remediation =
			"Make the master subnet manager sweep (OpenSM: kill -HUP) so that it writes the "
			"switch port's table again, and compare both tables with smpquery pkeys. If the "
			"partition is wrong on the host, correct partitions.conf instead.",
		.check = check_pkey_enforcement_drop,
	},
	{
		.id = "pkey.limited_pair",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ADDRESSING,
		.needs = FAB_NEED_PKEYS,
		.title = "Hosts share a host-to-host partition only as limited members",
		.rationale =
			"Two limited members of a partition cannot talk to each other; only a full "
			"member can talk to a limited one. A partition meant for traffic between the "
			"hosts of jobs (configured in [pkey.limited_pair]) in which two or more hosts "
			"are limited members leaves those hosts unable to reach each other in it, while "
			"each of them looks correctly configured on its own.",
		.remediation =
			"Make the hosts full members in partitions.conf (=full) and let the subnet manager "
			"sweep; keep limited membership for partitions where hosts talk only to servers.",
		PARAMS(limited_pair_params),
		.check = check_pkey_limited_pair,
	},
	{
		.id = "pkey.default_missing",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ADDRESSING,
		.needs = FAB_NEED_PKEYS,
		.title = "A port is not a member of the default partition",
		.rationale =
			"The default partition 0x7fff (0xffff as a full member) carries the subnet "
			"administration traffic of most sites and IPoIB's default interface; a host "
			"port without it cannot resolve paths through the SA or reach the default "
			"IPoIB network. Sites that keep hosts out of it on purpose switch the rule off.",
		.remediation =
			"Add the port to Default in partitions.conf (Default=0x7fff : ALL=full; or ALL, "
			"SELF=full as OpenSM ships it) and let the subnet manager sweep; or set "
			"[pkey.default_missing] expect = 0 where this is intended.",
		PARAMS(default_missing_params),
		.check = check_pkey_default_missing,
	},
	{
		.id = "link.ber_high",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_LINK,
		.needs = FAB_NEED_COUNTERS | FAB_NEED_DELTAS,
		.title = "Symbol error rate of a link above its limit",
		.rationale =
			"A link's bit error rate is what cable and transceiver vendors specify and what "
			"ibdiagnet judges links by: the symbol errors a port counted between two samples "
			"(scan --interval, a baseline, watch's sweeps) over the bits its active lanes "
			"carried at their signalling rate in that time. A rate above 1e-12 means a "
			"marginal cable, connector or transceiver long before the link fails; a count "
			"alone cannot say that, as it depends on speed, width and time. A counter that "
			"was cleared or saturated in between gives a rate that is at least the value shown.",
		.remediation =
			"Reseat both ends of the cable, clean the connectors, then swap the cable or the "
			"transceiver and compare the rate of the next sweep; check the port's "
			"PortLocalPhysicalErrors and LinkErrorRecoveryCounter and the peer's side.",
		PARAMS(ber_params),
		.check = check_link_ber,
	},
	/* Virtual lanes (rules/check_vl.c, include/fabsweep/qos.h) */
	{
		.id = "vl.op_vls_mismatch",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_LINK,
		.needs = FAB_NEED_PORT_STATE,
		.title = "Link ends run different virtual lanes, or fewer than their tier",
		.rationale =
			"A port sends data on the virtual lanes its PortInfo OperationalVLs enables "
			"(VL0-3, VL0-7...), and the subnet manager maps service levels to lanes knowing "
			"them. When the two ends of a link run different lanes, what one end sends on a "
			"lane the other does not run is dropped there; when a switch-to-switch link runs "
			"fewer lanes than the others of its tier, the SL2VL tables of its switches fold "
			"traffic classes together on it (or drop them), and a QoS policy or a deadlock-"
			"free routing's lanes do not hold on that link. Both usually mean a port whose "
			"VLCap is lower (old firmware, a different device) or an SM setting "
			"(max_op_vls) applied to part of the fabric.",
		.remediation =
			"Compare the two ends' VLCap and OperationalVLs (smpquery portinfo): upgrade "
			"or replace the device with the lower VLCap, or make the subnet manager's "
			"max_op_vls (OpenSM) the same for the whole fabric, then let it sweep.",
		PARAMS(op_vls_params),
		.check = check_vl_op_vls,
	},
	{
		.id = "vl.sl_dropped",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_QOS,
		.title = "An SL in use is mapped to VL 15 or to a VL the port does not run",
		.rationale =
			"Every port maps each service level to a virtual lane by its SLtoVLMappingTable "
			"(a switch per in-port and out-port). A packet whose SL maps to VL 15 (reserved "
			"for subnet management) or to a lane at or above the port's OperationalVLs is "
			"dropped there and counted as a VLMappingError: traffic on that SL between "
			"some hosts vanishes while other paths work. The SLs judged are those some "
			"host can send (its own port maps them to a lane it runs) and [routing] sls "
			"lists; an SL no host maps is unused, whatever the switches do with it.",
		.remediation =
			"Fix the QoS policy (OpenSM: qos_sl2vl, qos_swe_sl2vl, qos_ca_sl2vl and the "
			"max VLs in opensm.conf, or qos-policy.conf) so that every SL in use maps to a "
			"lane every port on its paths runs, or stop hosts using that SL (the "
			"partition's or the ULP's SL); let the SM sweep and compare with smpquery sl2vl.",
		.check = check_vl_sl_dropped,
	},
	{
		.id = "vl.starved",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_QOS,
		.title = "A virtual lane in use has no weight in either VL arbitration table",
		.rationale =
			"A port picks which lane sends next from its VLArbitrationTables: the high-"
			"priority table, then the low-priority one, each a list of (VL, weight). A "
			"lane that an SL in use reaches on that port but that has no entry of non-zero "
			"weight in either table is never chosen: its packets wait until their head-of-"
			"queue lifetime discards them, and credits back up to the senders. OpenSM's "
			"default tables give VL0 weight only in the high table, so both tables are "
			"read before a lane is called starved.",
		.remediation =
			"Give the lane a weight in the QoS policy's VL arbitration tables (OpenSM: "
			"qos_vlarb_high, qos_vlarb_low and their qos_ca_, qos_swe_ forms), or map its "
			"SLs to a lane that has one; let the SM sweep and compare with smpquery vlarb.",
		.check = check_vl_starved,
	},
	/* ---- the physical layer (docs/roce.md, docs/imports.md) ---- */
	{
		.id = "roce.pause_storm",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_ROCE | FAB_NEED_NIC_COUNTERS,
		.title = "A NIC is in a pause storm: stall-prevention events, or a priority paused much of the time",
		.rationale =
			"A receiver that cannot drain its buffers sends PFC pause frames without end; "
			"every switch upstream holds the paused priority and pauses its own senders, and "
			"the storm spreads until whole fabrics stand still (the RoCE-at-scale reports). "
			"NICs detect it: mlx5's PFC stall prevention counts warning and error events (at "
			"an error it stops honouring pauses and drops). A priority paused for a large share "
			"of the time, either way, is the same trouble earlier. Durations need two readings "
			"(collect --interval, or check --baseline); storm events are judged on one.",
		.remediation =
			"Find the receiver that cannot keep up (its rx_out_of_buffer, eth.discards; a host "
			"with a stuck process or a slow PCIe link): fix or isolate it. Keep PFC stall "
			"prevention on (mlnx_qos / devlink) so one host cannot freeze the fabric, and "
			"check roce.ecn_disabled: ECN with DCQCN keeps pauses rare.",
		PARAMS(pause_storm_params),
		.check = check_roce_pause_storm,
	},
	{
		.id = "roce.pause_unexpected",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_ROCE | FAB_NEED_NIC_COUNTERS,
		.title = "Pause frames on a priority without PFC, or 802.3x pause beside PFC",
		.rationale =
			"PFC pauses one priority; a NIC that sends or receives pause frames for a priority "
			"where its own PFC is off is out of step with its peer (the switch pauses a priority "
			"the host treats as lossy, or the reverse), and link-level 802.3x pause on a port that "
			"runs PFC stops every priority at once. Judged only where the port's PFC is known "
			"(its DCB, or what it advertises over LLDP).",
		.remediation =
			"Make the host and its switch port enable PFC on the same priorities (roce.pfc_mismatch "
			"says which side differs) and turn 802.3x pause off where PFC runs (ethtool -A IF rx "
			"off tx off).",
		PARAMS(pause_unexpected_params),
		.check = check_roce_pause_unexpected,
	},
	{
		.id = "eth.discards",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_ROCE | FAB_NEED_NIC_COUNTERS,
		.title = "A NIC discards frames: no buffer at the port, or the host does not keep up",
		.rationale =
			"A RoCE priority is meant to be lossless; frames a NIC drops at its port for lack of "
			"buffer (rx_discards_phy) mean PFC did not stop the sender in time, and frames "
			"dropped for lack of receive descriptors (rx_out_of_buffer) mean the host's software "
			"did not keep up. Either costs RDMA retransmissions and, at scale, job time. Judged "
			"as a share of the frames received or sent over the same period.",
		.remediation =
			"Port discards: check PFC on both ends of the link (roce.pfc_disabled, "
			"roce.pfc_mismatch) and the switch's buffers. Out of buffer: larger rings "
			"(ethtool -G), interrupt and CPU placement, a busy or throttled host.",
		PARAMS(discards_params),
		.check = check_eth_discards,
	},
	{
		.id = "eth.fec_uncorrectable",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_ROCE | FAB_NEED_NIC_COUNTERS,
		.title = "FEC blocks the link could not correct",
		.rationale =
			"Forward error correction hides a noisy link until it cannot: every uncorrectable "
			"block is a lost frame, which RDMA pays for with a retransmission timeout. They "
			"appear only after the corrected count has been climbing: the optics or the cable "
			"are failing.",
		.remediation =
			"Clean or replace the optics and the fibre of this link (module.rx_power and "
			"eth.ber_high point at the weak side); reseat the cable; check the FEC mode both "
			"ends negotiated.",
		PARAMS(fec_params),
		.check = check_eth_fec_uncorrectable,
	},
	{
		.id = "eth.ber_high",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_ROCE | FAB_NEED_NIC_COUNTERS,
		.title = "The pre-FEC bit error ratio of a link is high",
		.rationale =
			"The bits FEC corrected per bit received is the link's raw error ratio: the earliest "
			"sign of dirty connectors, a bent fibre or a failing laser, long before frames are "
			"lost. The default, 1e-6, is two orders of magnitude below what RS-FEC can correct "
			"on a 50G PAM4 lane.",
		.remediation =
			"Clean the connectors of both ends, check the module's Rx power (module.rx_power) and "
			"replace the module or cable of the worse end; compare with the link's other lanes "
			"and its history (report --since).",
		PARAMS(eth_ber_params),
		.check = check_eth_ber_high,
	},
	{
		.id = "module.temperature",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_MODULES,
		.title = "A pluggable module runs outside its temperature thresholds",
		.rationale =
			"Optics age fast when hot and fail outright past their alarm limit; a module far "
			"warmer than its neighbours points at blocked airflow or a failing laser driver. "
			"Judged against the module's own thresholds where it has sane ones, else the "
			"parameters; a module that does not monitor temperature (passive copper) is not "
			"judged.",
		.remediation =
			"Check the airflow of the cage (fans, blanking panels, a cable blocking the vent) and "
			"the switch's or host's inlet temperature; replace a module that stays hot in a "
			"cool cage.",
		PARAMS(temperature_params),
		.check = check_module_temperature,
	},
	{
		.id = "module.rx_power",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_MODULES,
		.title = "A module receives optical power outside its thresholds",
		.rationale =
			"Received power below the module's low warning is the first sign of a dirty "
			"connector, a bent fibre or a weak transmitter at the far end; above the high limit "
			"saturates the receiver. Both raise the bit error ratio. Lanes without light are "
			"module.dark_lane's; thresholds that contradict each other (a misprogrammed module) "
			"are replaced by the parameters.",
		.remediation =
			"Clean both connectors of the fibre (and the module's), check the patch panels on the "
			"way, compare with the far end's Tx power; replace the fibre or the far module.",
		PARAMS(rx_power_params),
		.check = check_module_rx_power,
	},
	{
		.id = "module.tx_bias",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_MODULES,
		.title = "A module's laser bias current is outside its thresholds",
		.rationale =
			"A laser whose bias current climbs toward its limit is ageing: the module drives it "
			"harder to keep its output power, until it cannot. Judged against the module's own "
			"thresholds (bias depends on the laser type, so there is no default); lanes whose "
			"laser is off are module.dark_lane's.",
		.remediation =
			"Plan the module's replacement; if several modules of one batch (vendor, part number, "
			"date code) drift together, replace the batch.",
		PARAMS(tx_bias_params),
		.check = check_module_tx_bias,
	},
	{
		.id = "module.dark_lane",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_PHYSICAL,
		.needs = FAB_NEED_MODULES,
		.title = "A lane of a module has no light while its siblings have",
		.rationale =
			"A multi-lane link with one lane dark runs degraded or not at all, and the module's "
			"alarm flags do not always say so (the 40G SR4 of the netdev report kept every flag "
			"off with three lanes dark). Only the lanes the module's media uses are compared: a "
			"single-lane module (100G LR1) in a four-lane cage leaves three lanes unused, dark "
			"by design.",
		.remediation =
			"Receive side dark: the far end's transmitter, or a fibre of the bundle (MPO), is "
			"broken: clean and check the trunk, then the far module. Transmit side dark: this "
			"module's laser is dead or disabled: replace it.",
		PARAMS(dark_lane_params),
		.check = check_module_dark_lane,
	},
	/* Multicast (rules/check_mcast.c, include/fabsweep/mcast.h) */
	{
		.id = "mcast.unreached_member",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_MCAST,
		.title = "A multicast group's tree does not reach one of its members",
		.rationale =
			"The subnet manager writes each multicast group's spanning tree into the "
			"switches' multicast forwarding tables: a packet sent to the group's MLID is "
			"copied out of every port a switch's entry names. A member whose switch's entry "
			"lacks its port, or whose switch the tree does not connect to the other members', "
			"never gets what they send: IPoIB neighbours stay unresolved (ARP over the "
			"broadcast group), a storage or collective library hangs on a multicast it never "
			"sees, while the port itself looks healthy and the SA lists it as a member.",
		.remediation =
			"Compare the entry with ibroute -M on the switch named. Make the master subnet "
			"manager sweep (OpenSM: kill -HUP) so that it writes the tables again; if the "
			"entry comes back wrong, look for a switch that failed Sets in the SM's log.",
		.check = check_mcast_unreached,
	},
	{
		.id = "mcast.loop",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_MCAST,
		.title = "Multicast tables send a group's packets round a loop",
		.rationale =
			"A switch sends a multicast packet out of every port of its entry but the one it "
			"came in by. Entries that form a cycle (two switches joined by two cables both in "
			"the tree, or a branch that leads back into the tree) make every packet of the "
			"group circle and multiply until its hop limit or the links' buffers give out: "
			"the group's traffic storms the links of the loop and everything sharing them.",
		.remediation =
			"Read the entries of the switches named in the evidence with ibroute -M; make the "
			"subnet manager sweep so that it rewrites the tree, and find what wrote the "
			"looping entry (a second SM, a tool that sets MFTs by hand).",
		.check = check_mcast_loop,
	},
	{
		.id = "mcast.stale_entry",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_MCAST,
		.title = "A multicast table entry serves no group or no member",
		.rationale =
			"Entries for an MLID that no group has (a group deleted while a switch kept its "
			"table), for a switch that no member's packets reach or that leads to no member, "
			"or toward a port that is no member, are left over from an earlier tree: they "
			"waste the switch's table, copy packets where nobody wants them, and a new group "
			"that gets the MLID inherits the wrong tree until the SM rewrites it.",
		.remediation =
			"Make the master subnet manager sweep (OpenSM: kill -HUP) so that it rewrites the "
			"multicast tables; compare with ibroute -M afterwards.",
		.check = check_mcast_stale,
	},
	{
		.id = "mcast.rate_mtu",
		.severity = FAB_SEV_ERROR,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_MCAST,
		.title = "A multicast group's rate or MTU is above what a member's link runs",
		.rationale =
			"A group's rate and MTU are fixed when it is created (OpenSM: partitions.conf "
			"rate= and mtu= of an ipoib partition or mgid= group). A port whose link runs "
			"slower, or with a smaller MTU, cannot join (the SA refuses it), and a member "
			"whose link was degraded after it joined gets packets its link drops (MTU) or "
			"throttles the whole group (rate): IPoIB packets above a few hundred bytes fail, "
			"as operators of NDR fabrics saw with OpenSM's defaults.",
		.remediation =
			"Fix the degraded link (reseat, replace the cable), or create the group with a "
			"rate and MTU every member's link runs (OpenSM: rate= and mtu= in partitions.conf, "
			"then restart or sweep the SM).",
		.check = check_mcast_rate_mtu,
	},
	{
		.id = "mcast.ipoib_broadcast",
		.severity = FAB_SEV_WARNING,
		.category = FAB_CAT_ROUTING,
		.needs = FAB_NEED_MCAST | FAB_NEED_PKEYS,
		.title = "A partition's IPoIB broadcast group is missing or a host has not joined it",
		.rationale =
			"IPoIB needs its partition's broadcast group (ff12:401b:<P_Key>::ffff:ffff): a "
			"host's IPoIB interface joins it before it comes up, and ARP runs over it. When "
			"the subnet manager did not create it (a partition not marked ipoib) IPoIB cannot "
			"come up anywhere in the partition; a host port of the partition that has not "
			"joined it while others have has its IPoIB down, or its join was refused (a link "
			"slower than the group's rate). Judged in the partitions where some host joined "
			"an IPoIB group, and in the ones configured in [mcast.ipoib_broadcast].",
		.remediation =
			"Mark the partition ipoib in partitions.conf (with rate= and mtu= that every host "
			"link runs) and let the SM sweep; on a host that has not joined, check its IPoIB "
			"interface (ip link, dmesg for 'multicast join failed') and its link.",
		PARAMS(ipoib_params),
		.check = check_mcast_ipoib,
	},
};

static_assert(ARRAY_SIZE(rules) <= FAB_RULES_MAX, "raise FAB_RULES_MAX");

const struct fab_rule *fab_rules_table(size_t *n_out)
{
	*n_out = ARRAY_SIZE(rules);
	return rules;
}

const struct fab_rule *fab_rule_find(const char *id)
{
	for (size_t i = 0; id && i < ARRAY_SIZE(rules); i++)
		if (!strcmp(rules[i].id, id))
			return &rules[i];
	return NULL;
}

size_t fab_rule_index(const struct fab_rule *rule)
{
	return (size_t)(rule - rules);
}

static const char *const categories[] = {
	[FAB_CAT_LINK] = "link",
	[FAB_CAT_COUNTERS] = "counters",
	[FAB_CAT_SM] = "sm",
	[FAB_CAT_ADDRESSING] = "addressing",
	[FAB_CAT_TOPOLOGY] = "topology",
	[FAB_CAT_SCAN] = "scan",
	[FAB_CAT_ROCE] = "roce",
	[FAB_CAT_HOST] = "host",
	[FAB_CAT_ROUTING] = "routing",
	[FAB_CAT_PHYSICAL] = "physical",
};
static_assert(ARRAY_SIZE(categories) == FAB_CAT__COUNT, "categories");

const char *fab_rule_category_name(unsigned cat)
{
	return cat < ARRAY_SIZE(categories) ? categories[cat] : "unknown";
}
