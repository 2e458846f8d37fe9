/* SPDX-License-Identifier: MIT */
/*
 * The MAD window engine (private to scanner/): keeps up to `window` MADs
 * outstanding on one umad file descriptor, matches answers to requests by
 * transaction ID, resends a MAD that got no answer within timeout_ms up to
 * `retries` times, and reports every request exactly once.
 *
 * The transport is a pair of callbacks so that the engine can be tested
 * without a fabric; fab_umad_* provide the real one over libibumad.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FAB_MAD_SIZE 256
#define FAB_MAD_DATA_OFFS 64
#define FAB_MADWIN_MAX_WINDOW 1024 /* slot index lives in 10 TID bits */

enum {
	FAB_MAD_CLASS_SMI = 0x01,    /* LID-routed subnet management */
	FAB_MAD_CLASS_SMI_DR = 0x81, /* directed route */
	FAB_MAD_CLASS_PERF = 0x04,   /* performance management (PMA) */
	FAB_MAD_CLASS_SA = 0x03,     /* subnet administration, class version 2
				      * (scanner/mcast_sa.c, scanner/notice.c) */
};

enum { FAB_MAD_GET = 0x01, FAB_MAD_SET = 0x02, FAB_MAD_REPORT = 0x06, FAB_MAD_GET_RESP = 0x81,
       FAB_MAD_REPORT_RESP = 0x86, FAB_MAD_GETTABLE = 0x12 };

/* SA MADs: the record starts at byte 56 (after the RMPP header and the
 * SA header: SM_Key, AttributeOffset, ComponentMask). */
#define FAB_SA_DATA_OFFS 56

/* One request, as the caller describes it. */
struct fab_mad_req {
	uint8_t mgmt_class;  /* FAB_MAD_CLASS_* */
	uint8_t method;      /* FAB_MAD_GET, FAB_MAD_SET, FAB_MAD_GETTABLE */
	uint16_t attr_id;
	uint32_t attr_mod;
	uint16_t dlid;       /* LID-routed classes */
	uint8_t dr_hops;     /* directed route: hop count ... */
	uint8_t dr_path[64]; /* ... and ports at [1..dr_hops] */
	uint8_t data[64];    /* payload at MAD offset 64 (SA: 56; the rest is zero) */
	uint64_t mkey;       /* SMP classes: M_Key at offset 24; SA: the SM_Key
			      * (offset 36); PMA: ignored */
	uint64_t comp_mask;  /* SA: ComponentMask (offset 48) */
	uint64_t cookie;     /* the caller's, untouched */
};

/*
 * Transport. send: one 256-byte MAD to req's destination, the transport's
 * own timeout set to timeout_ms; 0 or a negative errno. recv: waits up to
 * wait_ms for one MAD; returns 1 with mad (256 bytes) and *status (0, or
 * the transport's errno for a send that failed, e.g. ETIMEDOUT) set, 0 when
 * nothing came, or a negative errno. now_ms: a monotonic clock (NULL: the
 * engine uses CLOCK_MONOTONIC).
 */
struct fab_mad_transport {
	int (*send)(void *ctx, const uint8_t *mad, const struct fab_mad_req *req,
		    int timeout_ms);
	int (*recv)(void *ctx, uint8_t *mad, int *status, int wait_ms);
	int64_t (*now_ms)(void *ctx);
	void *ctx;
	int max_in_flight; /* > 0: the transport's limit (the window is capped) */
	/* The whole MAD the last recv returned 1 for, when the transport
	 * keeps more than 256 bytes of it (an SA answer the kernel put
	 * together from RMPP segments); *len its length. NULL: none (the
	 * 256 bytes recv gave are all). Optional. */
	const uint8_t *(*answer)(void *ctx, size_t *len);
};

/*
 * Producer: fills *out with the next request and returns 1, returns 0 when
 * it has nothing more right now (it is asked again after every
 * completion), or a negative errno to stop the run.
 */
typedef int (*fab_madwin_next_fn)(void *ctx, struct fab_mad_req *out);

/*
 * Completion, exactly once per produced request. err: 0 (resp is the
 * answer), -EREMOTEIO (answered with a non-zero MAD status: resp is the
 * answer, see fab_mad_status), -ETIMEDOUT (no answer after all tries) or
 * another negative errno from the transport (resp NULL). It may make the
 * producer return more requests.
 */
typedef void (*fab_madwin_done_fn)(void *ctx, const struct fab_mad_req *req,
				   int err, const uint8_t *resp);

struct fab_madwin_stats {
	unsigned long sent;     /* MADs written, resends included */
	unsigned long resent;
	unsigned long answered; /* requests completed with an answer */
	unsigned long failed;   /* requests completed without one */
	unsigned long stale;    /* answers nobody waited for any more */
};

struct fab_madwin;

/* window is clamped to 1..FAB_MADWIN_MAX_WINDOW and to the transport's
 * max_in_flight. The transport is copied. */
int fab_madwin_new(const struct fab_mad_transport *t, int window,
		   int timeout_ms, int retries, struct fab_madwin **out);
void fab_madwin_free(struct fab_madwin *mw); /* accepts NULL */

/*
 * Runs until the producer has nothing more and nothing is outstanding.
 * Returns 0, or the negative errno of a producer or transport failure
 * (outstanding requests are then completed with that error).
 */
int fab_madwin_run(struct fab_madwin *mw, fab_madwin_next_fn next,
		   fab_madwin_done_fn done, void *ctx);

/* Cumulative over all runs. */
const struct fab_madwin_stats *fab_madwin_stats(const struct fab_madwin *mw);
/* Inside a completion: the length of its resp, FAB_MAD_SIZE or more (an
 * SA answer reassembled from RMPP segments by the kernel is longer). */
size_t fab_madwin_resp_len(const struct fab_madwin *mw);

/* Builds the 256-byte MAD for req with transaction ID tid. Pure. */
void fab_mad_encode(uint8_t *mad, const struct fab_mad_req *req, uint64_t tid);
/* Status of an answer: the DR status for directed route, else the MAD status. */
unsigned fab_mad_status(const uint8_t *mad);
/* Transaction ID of a MAD, low 32 bits (the only ones that survive the trip). */
uint32_t fab_mad_tid32(const uint8_t *mad);

/* The real transport over libibumad. */
struct fab_umad;

/* A local InfiniBand port to send MADs from. */
#define FAB_UMAD_CA_NAME_LEN 20 /* UMAD_CA_NAME_LEN */
struct fab_umad_port {
	char ca[FAB_UMAD_CA_NAME_LEN];
	int port;
	unsigned state;  /* enum fab_port_state */
	unsigned sm_lid; /* the SM LID the port knows, 0 none */
};
/*
 * Chooses the local port as infiniband-diags do: ca/port when given (NULL,
 * 0: any), else the first InfiniBand port (not RoCE) whose link is active;
 * with linkup_ok, a port whose link is up but not yet active (no SM) when
 * no port is active. *out on success; -ENODEV (no device) or -ENETDOWN (no
 * such port) with the message set.
 */
int fab_umad_pick_port(const char *want_ca, int want_port, bool linkup_ok,
		       struct fab_umad_port *out);
/*
 * MADs that may be in flight on one umad fd without deadlock: 0 (no limit)
 * on hardware; under ibsim's umad2sim shim (LD_PRELOAD), 2 x (the unix
 * datagram queue length + 1), see docs/scan.md "Window limit in the
 * simulator". fab_umad_transport() sets it as the transport's limit.
 */
int fab_umad_max_in_flight(void);
/* Opens ca:port and registers agents for SMI, directed-route SMI, PMA and
 * SA (the SA's with RMPP: the kernel reassembles a multi-MAD answer). */
int fab_umad_open(const char *ca, int port, struct fab_umad **out);
void fab_umad_close(struct fab_umad *u); /* accepts NULL */
void fab_umad_transport(struct fab_umad *u, struct fab_mad_transport *out);

/*
 * Requests that arrive unasked (an SA Report, an SMInfo Get): from the
 * source LID slid and QP sqp, the MAD's 256 bytes. Called from inside the
 * transport's receive (a MAD window run, fab_umad_wait), never from another
 * thread; the MAD is valid during the call.
 */
typedef void (*fab_umad_unsolicited_fn)(void *ctx, const uint8_t *mad, uint16_t slid,
					uint32_t sqp);
/*
 * Registers an SA agent (class 3, version 2) that takes Reports, for SA
 * requests (FAB_MAD_CLASS_SA) and the Reports the SM forwards; from then
 * on every unasked request is handed to fn instead of the engine. 0, or a
 * negative errno with the message set (another process on this port takes
 * the SA's Reports already: the kernel allows one).
 */
int fab_umad_listen(struct fab_umad *u, fab_umad_unsolicited_fn fn, void *ctx);
/* Sends the answer mad (256 bytes, built by the caller) to dlid/dqp on the
 * agent of its class (SA, SMI, directed route: dlid 0xffff). 0 or -EIO. */
int fab_umad_respond(struct fab_umad *u, const uint8_t *mad, uint16_t dlid, uint32_t dqp);
/* Waits up to wait_ms for MADs and hands the unasked ones to the listener
 * (answers nobody waits for are dropped); returns early after the first.
 * 0, or a negative errno when the port failed. */
int fab_umad_wait(struct fab_umad *u, int wait_ms);

/*
 * Simulator only (docs/watch.md, "The simulator's Report path"): ibsim
 * hands a request sent to QP1 (a Report) only to a client that has the
 * SM's device open. Under umad2sim (LD_PRELOAD) this opens the port's issm
 * device (sets IsSM on the simulated port: the SM then polls it with
 * SMInfo Gets, which the caller answers NOTACTIVE); call it after
 * fab_umad_listen. Never on hardware: it refuses (-ENOTSUP) unless
 * umad2sim is preloaded. 0 or a negative errno with the message set.
 */
int fab_umad_sim_issm(struct fab_umad *u);
/* The port's GUID (host order), 0 when sysfs did not say. */
uint64_t fab_umad_port_guid(const struct fab_umad *u);
/* Whether ibsim's umad2sim shim is preloaded (LD_PRELOAD names it). */
bool fab_umad_under_sim(void);
