/* SPDX-License-Identifier: MIT */
/*
 * What watch has told Alertmanager (store/alert_io.c; docs/schema.md
 * "Alerts"; docs/watch.md "Alerts"): the alerts table, one row per finding
 * key (rule, node, port) that is firing or whose end is not delivered yet.
 * It outlives watch: a restarted watch delivers what is pending.
 */
#pragma once

#include <stdint.h>

struct fab_store;
struct fab_alert_list;

/*
 * Brings the table to the findings now raised (cur: one alert per finding
 * key, with its current text): a new one is inserted firing (starting
 * now_ms), one whose end was not delivered yet fires again, one no longer
 * in cur gets its end (now_ms). Then fills *pending (empty on entry, the
 * caller frees it) as fab_store_alerts_pending does. One transaction; 0 or
 * a negative errno with the message set.
 */
int fab_store_alerts_sync(struct fab_store *st, const struct fab_alert_list *cur, int64_t now_ms,
			  int64_t resend_before_ms, struct fab_alert_list *pending);
/* What Alertmanager should be told now: the firing alerts never delivered
 * or last delivered before resend_before_ms, and every ended one, in
 * fingerprint order. */
int fab_store_alerts_pending(struct fab_store *st, int64_t resend_before_ms,
			     struct fab_alert_list *pending);
/* Records a delivery of sent: firing ones sent at now_ms, ended ones
 * deleted (Alertmanager has their end). One transaction. */
int fab_store_alerts_sent(struct fab_store *st, const struct fab_alert_list *sent, int64_t now_ms);
