// SPDX-License-Identifier: MIT
/*
 * PortInfo decoding: raw 64-byte attribute -> struct fab_port, field by
 * field through libibmad's field table (which returns host order).
 */
#include <assert.h>
#include <string.h>

#include <infiniband/mad.h>

#include "scanner/scan_priv.h"

/* Base LinkSpeed* (1 SDR, 2 DDR, 4 QDR) map onto FAB_SPEED_SDR..QDR as is;
 * LinkSpeedExt* (1 FDR, 2 EDR, 4 HDR, 8 NDR) onto FAB_SPEED_FDR..NDR. */
#define BASE_SPEED_BITS 0x7u
#define EXT_SPEED_BITS 0xfu
#define EXT_SPEED_SHIFT 4
#define WIDTH_BITS 0x1fu /* 1X 4X 8X 12X 2X */

static_assert(FAB_SPEED_SDR == 1 && FAB_SPEED_DDR == 2 && FAB_SPEED_QDR == 4,
	      "base speeds map bit for bit");
static_assert(FAB_SPEED_FDR == 1 << EXT_SPEED_SHIFT &&
		      FAB_SPEED_NDR == 8 << EXT_SPEED_SHIFT,
	      "extended speeds map bit for bit");

unsigned fab_scan_speed_mask(unsigned base, unsigned fdr10, unsigned ext)
{
	return (base & BASE_SPEED_BITS) | (fdr10 & 1 ? FAB_SPEED_FDR10 : 0) |
	       ((ext & EXT_SPEED_BITS) << EXT_SPEED_SHIFT);
}

static unsigned get(const uint8_t *buf, enum MAD_FIELDS f)
{
	return mad_get_field((void *)buf, 0, f);
}

void fab_scan_decode_portinfo(struct fab_port *p, const uint8_t *info,
			      const uint8_t *cap_info, const uint8_t *mlnx_ext)
{
	unsigned state = get(info, IB_PORT_STATE_F);
	unsigned phys = get(info, IB_PORT_PHYS_STATE_F);

	p->state = state < FAB_STATE__COUNT ? (uint8_t)state : FAB_STATE_UNKNOWN;
	p->phys_state = phys < FAB_PHYS__COUNT ? (uint8_t)phys : FAB_PHYS_UNKNOWN;
	p->lid = 0;
	p->lmc = 0;
	p->sm_lid = 0;
	p->width_active = p->width_enabled = p->width_supported = 0;
	p->speed_active = p->speed_enabled = p->speed_supported = 0;
	p->mtu_active = p->mtu_cap = 0;
	p->op_vls = p->vl_cap = p->vl_high_limit = p->vlarb_high_cap = p->vlarb_low_cap = 0;
	p->cap_mask = 0;
	/* IBA C14-24.2.1: on a Down port everything else is undefined. */
	if (p->state == FAB_STATE_DOWN || p->state == FAB_STATE_UNKNOWN)
		return;

	p->lid = (uint16_t)get(info, IB_PORT_LID_F);
	p->lmc = (uint8_t)get(info, IB_PORT_LMC_F);
	p->sm_lid = (uint16_t)get(info, IB_PORT_SMLID_F);
	p->cap_mask = get(info, IB_PORT_CAPMASK_F);
	p->width_active = (uint8_t)(get(info, IB_PORT_LINK_WIDTH_ACTIVE_F) & WIDTH_BITS);
	p->width_enabled = (uint8_t)(get(info, IB_PORT_LINK_WIDTH_ENABLED_F) & WIDTH_BITS);
	p->width_supported = (uint8_t)(get(info, IB_PORT_LINK_WIDTH_SUPPORTED_F) & WIDTH_BITS);
	p->mtu_active = (uint8_t)get(info, IB_PORT_NEIGHBOR_MTU_F);
	p->mtu_cap = (uint8_t)get(info, IB_PORT_MTU_CAP_F);
	p->op_vls = (uint8_t)get(info, IB_PORT_OPER_VLS_F);
	p->vl_cap = (uint8_t)get(info, IB_PORT_VL_CAP_F);
	p->vl_high_limit = (uint8_t)get(info, IB_PORT_VL_HIGH_LIMIT_F);
	p->vlarb_high_cap = (uint8_t)get(info, IB_PORT_VL_ARBITRATION_HIGH_CAP_F);
	p->vlarb_low_cap = (uint8_t)get(info, IB_PORT_VL_ARBITRATION_LOW_CAP_F);
	if (p->mtu_active > 5)
		p->mtu_active = 0;
	if (p->mtu_cap > 5)
		p->mtu_cap = 0;

	unsigned ext_act = 0, ext_en = 0, ext_sup = 0;
	if (cap_info && (get(cap_info, IB_PORT_CAPMASK_F) & FAB_PI_CAP_HAS_EXT_SPEEDS)) {
		ext_act = get(info, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
		ext_en = get(info, IB_PORT_LINK_SPEED_EXT_ENABLED_F);
		ext_sup = get(info, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
		if (ext_en == 30 || ext_en == 31) /* Set-only codes */
			ext_en = 0;
	}
	unsigned f_act = 0, f_en = 0, f_sup = 0;
	if (mlnx_ext) {
		f_act = get(mlnx_ext, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F);
		f_en = get(mlnx_ext, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F);
		f_sup = get(mlnx_ext, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F);
	}
	unsigned base_act = get(info, IB_PORT_LINK_SPEED_ACTIVE_F);

	/* The extended speed is the effective one when non-zero, then FDR10,
	 * then the base speed. */
	if (ext_act & EXT_SPEED_BITS)
		p->speed_active = (uint16_t)fab_scan_speed_mask(0, 0, ext_act);
	else if (f_act & 1)
		p->speed_active = FAB_SPEED_FDR10;
	else
		p->speed_active = (uint16_t)fab_scan_speed_mask(base_act, 0, 0);
	p->speed_enabled = (uint16_t)fab_scan_speed_mask(
		get(info, IB_PORT_LINK_SPEED_ENABLED_F), f_en, ext_en);
	p->speed_supported = (uint16_t)fab_scan_speed_mask(
		get(info, IB_PORT_LINK_SPEED_SUPPORTED_F), f_sup, ext_sup);
}
