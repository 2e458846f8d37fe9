// SPDX-License-Identifier: MIT
/* Entry points: build the model once, render each format to a temporary
 * file, rename them into place only when every format rendered. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "fabsweep/error.h"
#include "fabsweep/names.h"
#include "fabsweep/report.h"
#include "model.h"

void fab_report_opts_init(struct fab_report_opts *o)
{
	memset(o, 0, sizeof(*o));
}

static void ctx_free(struct fab_report_ctx *c)
{
	fab_report_model_free(&c->m);
	fab_report_diff_free(&c->d);
	fab_report_routing_free(&c->rt);
	fab_report_phys_free(&c->ph);
	free(c->node_findings);
}

/* xml: the XML report is written too (it lists every row of the physical
 * layer; the HTML report the first FAB_PHYS_HTML_ROWS) */
static int ctx_build(struct fab_report_ctx *c, const struct fab_snapshot *snap,
		     const struct fab_snapshot *base, const struct fab_report_opts *opts, bool xml)
{
	static char gen[64];
	int err;

	if (!gen[0])
		snprintf(gen, sizeof(gen), "fabsweep %s", FABSWEEP_VERSION);
	memset(c, 0, sizeof(*c));
	c->snap = snap;
	c->base = base;
	c->opts = opts;
	c->generator = opts->generator ? opts->generator : gen;
	c->generated_at_ms = opts->generated_at_ms ? opts->generated_at_ms : fab_now_ms();
	if ((err = fab_report_model_build(snap, base, &c->m)))
		return err;
	if ((base && (err = fab_report_diff_build(base, snap, &c->d))) ||
	    (err = fab_report_routing_build(snap, base, &c->d, &c->rt)) ||
	    (err = fab_report_phys_build(snap, base, xml ? SIZE_MAX : FAB_PHYS_HTML_ROWS, &c->ph)))
		goto fail;
	c->node_findings = calloc(snap->n_nodes + 1, sizeof(*c->node_findings));
	if (!c->node_findings) {
		err = fab_err(-ENOMEM, "out of memory building the report");
		goto fail;
	}
	for (size_t i = 0; i < snap->n_findings; i++)
		if (c->m.f_node[i] != FAB_NONE)
			c->node_findings[c->m.f_node[i]]++;
	return 0;
fail:
	ctx_free(c);
	return err;
}

struct render_job {
	const struct fab_report_ctx *c;
	FILE *f;
	int (*render)(const struct fab_report_ctx *, FILE *);
	pthread_t thread;
	int ret;
};

static void *render_thread(void *arg)
{
	struct render_job *j = arg;

	j->ret = j->render(j->c, j->f);
	return NULL;
}

int fab_report_write(const struct fab_snapshot *snap, const struct fab_snapshot *baseline,
		     const struct fab_report_opts *opts, const char *xml_path,
		     const char *html_path)
{
	static const char *const what[] = { "XML", "HTML" };
	int (*const render[])(const struct fab_report_ctx *, FILE *) = {
		fab_report_render_xml, fab_report_render_html
	};
	const char *paths[] = { xml_path, html_path };
	struct fab_report_file rf[2] = { 0 };
	struct fab_report_opts defaults;
	struct fab_report_ctx c;
	int err;

	if (!xml_path && !html_path)
		return fab_err(-EINVAL, "no report file given");
	if (xml_path && html_path && !strcmp(xml_path, html_path))
		return fab_err(-EINVAL, "the XML and the HTML report cannot both be '%s'", xml_path);
	if (!opts) {
		fab_report_opts_init(&defaults);
		opts = &defaults;
	}
	if ((err = ctx_build(&c, snap, baseline, opts, xml_path != NULL)))
		return err;
	for (int i = 0; i < 2; i++)
		if (paths[i] && (err = fab_report_file_open(paths[i], &rf[i])))
			goto out;
	/* Both formats: the HTML renders on a second thread while this one
	 * writes the XML. The model is read-only; each writer owns its file
	 * and scratch memory, and only this thread uses libxml2. */
	struct render_job job = { .c = &c, .f = rf[1].f, .render = render[1] };
	bool threaded = xml_path && html_path && !pthread_create(&job.thread, NULL, render_thread, &job);
	int rets[2] = { 0, 0 };
	for (int i = 0; i < 2; i++)
		if (paths[i] && !(i == 1 && threaded))
			rets[i] = render[i](&c, rf[i].f);
	if (threaded) {
		pthread_join(job.thread, NULL);
		rets[1] = job.ret;
	}
	for (int i = 0; i < 2; i++) {
		if (rets[i]) {
			err = fab_err(rets[i], "cannot write the %s report '%s': %s", what[i], paths[i],
				      strerror(-rets[i]));
			goto out;
		}
	}
	for (int i = 0; i < 2; i++)
		if (paths[i] && (err = fab_report_file_commit(&rf[i])))
			goto out;
out:
	fab_report_file_abort(&rf[0]);
	fab_report_file_abort(&rf[1]);
	ctx_free(&c);
	return err;
}

int fab_report_xml(const struct fab_snapshot *snap, const struct fab_snapshot *baseline,
		   const struct fab_report_opts *opts, const char *path)
{
	return fab_report_write(snap, baseline, opts, path, NULL);
}

int fab_report_html(const struct fab_snapshot *snap, const struct fab_snapshot *baseline,
		    const struct fab_report_opts *opts, const char *path)
{
	return fab_report_write(snap, baseline, opts, NULL, path);
}
