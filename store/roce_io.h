/* SPDX-License-Identifier: MIT */
/* Private to store/roce_*.c: the RoCE part's shared sets (roce_sets.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fab_store;
struct fab_roce;
struct fab_rdma_port;
struct fab_roce_sets;

/* The sets of one write (a cache of what it stored or found already). */
int fab_roce_sets_open(struct fab_store *st, struct fab_roce_sets **out);
void fab_roce_sets_close(struct fab_roce_sets *x); /* accepts NULL */
/* The id of the set of TLVs r->tlvs[first .. first+count), stored when new;
 * *out = 0 (SQL NULL) for no TLV. */
int fab_roce_tlv_set(struct fab_roce_sets *x, const struct fab_roce *r, uint32_t first,
		     uint32_t count, int64_t *out);
/* The id of the set of a port's counter names and kinds; 0 for none. */
int fab_roce_ctr_set(struct fab_roce_sets *x, const struct fab_roce *r,
		     const struct fab_rdma_port *p, int64_t *out);
/* A port's counter values as the JSON array its row keeps ("[1,2,3]"), in
 * the order of its set; valid until the next call; NULL on ENOMEM. */
const char *fab_roce_ctr_values(struct fab_roce_sets *x, const struct fab_roce *r,
				const struct fab_rdma_port *p);
/* The id of the set of the NIC counters r->nic_counters[first .. first+count)
 * name (counter, priority, source in order), stored when new; 0 for none. */
int fab_nic_ctr_set(struct fab_roce_sets *x, const struct fab_roce *r, size_t first, size_t count,
		    int64_t *out);
/* Their values as the JSON array their run's row keeps, in that order;
 * valid until the next call; NULL on ENOMEM. */
const char *fab_nic_ctr_values(struct fab_roce_sets *x, const struct fab_roce *r, size_t first,
			       size_t count);
/* The id of the module description whose content is key (len bytes),
 * stored when new: *fresh then says the caller is to fill its columns. */
int fab_module_desc_id(struct fab_roce_sets *x, const void *key, size_t len, int64_t *out,
		       bool *fresh);
/* Parses such an array (integers, as SQLite's json_replace may write them
 * back) into v[0 .. cap); -EINVAL when it is anything else. */
int fab_roce_parse_values(const char *s, uint64_t *v, size_t cap, size_t *out_n);
