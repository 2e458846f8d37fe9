// SPDX-License-Identifier: MIT
/* PortInfo decoding from raw attribute bytes (IBA 14.2.5.6 layout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include <infiniband/mad.h>

#include "fabsweep/snapshot.h"
#include "scanner/scan_priv.h"

/*
 * A PortInfo written byte by byte from the specification, not through
 * libibmad, so the test checks the field table against the layout:
 *   16-17 LID, 18-19 MasterSMLID, 20-23 CapabilityMask, 29 WidthEnabled,
 *   30 WidthSupported, 31 WidthActive, 32 SpeedSupported|PortState,
 *   33 PhysState|DownDefault, 34 MKeyProt|LMC, 35 SpeedActive|SpeedEnabled,
 *   36 NeighborMTU|SMSL, 41 InitTypeReply|MTUCap, 43 OperationalVLs|...,
 *   60-61 CapabilityMask2, 62 SpeedExtActive|SpeedExtSupported,
 *   63 SpeedExtEnabled (low 5 bits).
 */
static void make_pi(uint8_t pi[64], unsigned state, unsigned phys)
{
	memset(pi, 0, 64);
	pi[16] = 0x00, pi[17] = 0x2a;      /* LID 42 */
	pi[18] = 0x00, pi[19] = 0x01;      /* SM LID 1 */
	pi[22] = 0x40, pi[23] = 0x02;      /* CapMask 0x4002: IsSM, HasExtSpeeds */
	pi[29] = 0x03;                     /* enabled 1X,4X */
	pi[30] = 0x1f;                     /* supported all */
	pi[31] = 0x02;                     /* active 4X */
	pi[32] = (uint8_t)(0x70 | state);  /* supported SDR,DDR,QDR */
	pi[33] = (uint8_t)(phys << 4 | 2);
	pi[34] = 0x02;                     /* LMC 2 */
	pi[35] = 0x47;                     /* active QDR, enabled all three */
	pi[36] = 0x50;                     /* neighbour MTU 4096 */
	pi[41] = 0x05;                     /* MTU cap 4096 */
	pi[43] = 0x40;                     /* 4 operational VLs (VL0-7 code 4) */
	pi[62] = 0x47;                     /* ext active HDR, ext supported FDR,EDR,HDR */
	pi[63] = 0x06;                     /* ext enabled EDR,HDR */
}

static void test_ca_hdr(void **state)
{
	uint8_t pi[64];
	struct fab_port p = { 0 };

	make_pi(pi, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP);
	fab_scan_decode_portinfo(&p, pi, pi, NULL);
	assert_int_equal(p.state, FAB_STATE_ACTIVE);
	assert_int_equal(p.phys_state, FAB_PHYS_LINKUP);
	assert_int_equal(p.lid, 42);
	assert_int_equal(p.sm_lid, 1);
	assert_int_equal(p.lmc, 2);
	assert_int_equal(p.cap_mask, 0x4002);
	assert_int_equal(p.width_active, FAB_WIDTH_4X);
	assert_int_equal(p.width_enabled, FAB_WIDTH_1X | FAB_WIDTH_4X);
	assert_int_equal(p.width_supported, 0x1f);
	/* The extended speed is the effective one. */
	assert_int_equal(p.speed_active, FAB_SPEED_HDR);
	assert_int_equal(p.speed_enabled, FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR |
						  FAB_SPEED_EDR | FAB_SPEED_HDR);
	assert_int_equal(p.speed_supported, FAB_SPEED_SDR | FAB_SPEED_DDR |
					    FAB_SPEED_QDR | FAB_SPEED_FDR |
					    FAB_SPEED_EDR | FAB_SPEED_HDR);
	assert_int_equal(p.mtu_active, 5);
	assert_int_equal(p.mtu_cap, 5);
	assert_int_equal(p.op_vls, 4);
}

static void test_no_ext_capability(void **state)
{
	uint8_t pi[64], cap[64];
	struct fab_port p = { 0 };

	/* A switch external port: its own CapabilityMask is 0, port 0's says
	 * whether the extended fields mean anything. */
	make_pi(pi, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP);
	pi[22] = pi[23] = 0;
	memcpy(cap, pi, sizeof(cap));
	fab_scan_decode_portinfo(&p, pi, cap, NULL);
	assert_int_equal(p.speed_active, FAB_SPEED_QDR);
	assert_int_equal(p.speed_supported, FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR);

	cap[23] = 0x00, cap[22] = 0x40; /* port 0 has HasExtendedSpeeds */
	fab_scan_decode_portinfo(&p, pi, cap, NULL);
	assert_int_equal(p.speed_active, FAB_SPEED_HDR);

	/* Unknown capability (port 0 not read): base speeds only. */
	fab_scan_decode_portinfo(&p, pi, NULL, NULL);
	assert_int_equal(p.speed_active, FAB_SPEED_QDR);
}

static void test_ext_zero_falls_back(void **state)
{
	uint8_t pi[64];
	struct fab_port p = { 0 };

	make_pi(pi, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP);
	pi[62] = 0x07; /* ext active 0: base speed is the effective one */
	pi[63] = 30;   /* Set-only "supported" code reads as nothing */
	fab_scan_decode_portinfo(&p, pi, pi, NULL);
	assert_int_equal(p.speed_active, FAB_SPEED_QDR);
	assert_int_equal(p.speed_enabled, FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR);

	pi[62] = 0x8f; /* NDR active */
	fab_scan_decode_portinfo(&p, pi, pi, NULL);
	assert_int_equal(p.speed_active, FAB_SPEED_NDR);
}

static void test_fdr10(void **state)
{
	uint8_t pi[64], ext[64] = { 0 };
	struct fab_port p = { 0 };

	make_pi(pi, FAB_STATE_ACTIVE, FAB_PHYS_LINKUP);
	pi[62] = 0;
	/* Mellanox ExtendedPortInfo: LinkSpeedSupported/Enabled/Active at
	 * bytes 5, 7 and 9 (low bits), FDR10 = 1. */
	mad_set_field(ext, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F, 1);
	mad_set_field(ext, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, 1);
	mad_set_field(ext, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, 1);
	fab_scan_decode_portinfo(&p, pi, pi, ext);
	assert_int_equal(p.speed_active, FAB_SPEED_FDR10);
	assert_true(p.speed_enabled & FAB_SPEED_FDR10);
	assert_true(p.speed_supported & FAB_SPEED_FDR10);
}

static void test_down_port_untrusted(void **state)
{
	uint8_t pi[64];
	struct fab_port p;

	memset(&p, 0xaa, sizeof(p));
	make_pi(pi, FAB_STATE_DOWN, FAB_PHYS_POLLING);
	fab_scan_decode_portinfo(&p, pi, pi, NULL);
	assert_int_equal(p.state, FAB_STATE_DOWN);
	assert_int_equal(p.phys_state, FAB_PHYS_POLLING);
	assert_int_equal(p.lid, 0);
	assert_int_equal(p.width_active, 0);
	assert_int_equal(p.speed_active, 0);
	assert_int_equal(p.speed_supported, 0);
	assert_int_equal(p.cap_mask, 0);
	assert_int_equal(p.mtu_active, 0);
}

static void test_out_of_range(void **state)
{
	uint8_t pi[64];
	struct fab_port p = { 0 };

	make_pi(pi, 5 /* ActiveDefer: not in our enum */, 9);
	pi[36] = 0xf0; /* MTU code 15 */
	fab_scan_decode_portinfo(&p, pi, pi, NULL);
	assert_int_equal(p.state, FAB_STATE_UNKNOWN);
	assert_int_equal(p.phys_state, FAB_PHYS_UNKNOWN);
	assert_int_equal(p.mtu_active, 0);
}

static void test_speed_mask(void **state)
{
	assert_int_equal(fab_scan_speed_mask(1, 0, 0), FAB_SPEED_SDR);
	assert_int_equal(fab_scan_speed_mask(7, 1, 0xf),
			 FAB_SPEED_SDR | FAB_SPEED_DDR | FAB_SPEED_QDR | FAB_SPEED_FDR10 |
				 FAB_SPEED_FDR | FAB_SPEED_EDR | FAB_SPEED_HDR | FAB_SPEED_NDR);
	/* Reserved high bits are dropped, not shifted into other speeds. */
	assert_int_equal(fab_scan_speed_mask(0xf8, 0xfe, 0xf0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ca_hdr),
		cmocka_unit_test(test_no_ext_capability),
		cmocka_unit_test(test_ext_zero_falls_back),
		cmocka_unit_test(test_fdr10),
		cmocka_unit_test(test_down_port_untrusted),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_speed_mask),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
