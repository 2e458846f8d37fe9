// SPDX-License-Identifier: MIT
/* A ring buffer of 64-bit jobs that grows by doubling. */
#include <errno.h>
#include <stdlib.h>

#include "scanner/scan_priv.h"

int fab_jobq_push(struct fab_jobq *q, uint64_t job)
{
	if (q->n == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 256;
		uint64_t *v = malloc(ncap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < q->n; i++)
			v[i] = q->v[(q->head + i) % q->cap];
		free(q->v);
		q->v = v;
		q->cap = ncap;
		q->head = 0;
	}
	q->v[(q->head + q->n) % q->cap] = job;
	q->n++;
	return 0;
}

bool fab_jobq_pop(struct fab_jobq *q, uint64_t *out)
{
	if (!q->n)
		return false;
	*out = q->v[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	return true;
}

void fab_jobq_free(struct fab_jobq *q)
{
	free(q->v);
	q->v = NULL;
	q->head = q->n = q->cap = 0;
}
