/* SPDX-License-Identifier: MIT */
/*
 * An in-memory MAD transport for the scanner's unit tests: each SMP sent
 * may queue an answer at once (the request echoed as a GetResp, directed
 * route direction set, data zeroed, for the test to fill), which recv hands
 * back in order. Header-only so each test executable gets its own copy.
 */
#pragma once

#include <string.h>

#include <infiniband/mad.h>

#include "scanner/madwin.h"

#define FAKE_SMP_INBOX 1024

struct fake_smp_inbox {
	uint8_t mad[FAKE_SMP_INBOX][FAB_MAD_SIZE];
	int head, tail;
};

/* Queues the answer to mad; returns its data part (64 bytes, zeroed). */
static inline uint8_t *fake_smp_answer(struct fake_smp_inbox *in, const uint8_t *mad)
{
	assert_true(in->tail < FAKE_SMP_INBOX);
	uint8_t *ans = in->mad[in->tail++];

	memcpy(ans, mad, FAB_MAD_SIZE);
	mad_set_field(ans, 0, IB_MAD_RESPONSE_F, 1);
	mad_set_field(ans, 0, IB_MAD_METHOD_F, FAB_MAD_GET_RESP);
	mad_set_field(ans, 0, IB_DRSMP_DIRECTION_F, 1);
	memset(ans + FAB_MAD_DATA_OFFS, 0, 64);
	return ans + FAB_MAD_DATA_OFFS;
}

/* The transport's recv: the next queued answer, else nothing yet. */
static inline int fake_smp_recv(struct fake_smp_inbox *in, uint8_t *mad, int *status)
{
	if (in->head == in->tail)
		return 0;
	memcpy(mad, in->mad[in->head++], FAB_MAD_SIZE);
	*status = 0;
	return 1;
}
