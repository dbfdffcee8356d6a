// SPDX-License-Identifier: GPL-2.0
/*
 * run_record.c - struct run_record without its JSON: releasing it, its
 * status, its variants (see run_record.h; the JSON is run_record_json.c).
 */
#include <stdlib.h>
#include <string.h>

#include "store/run_record.h"

void run_order_release(struct run_order *o)
{
	strlist_free(&o->sequence);
	json_decref(o->rest);
	memset(o, 0, sizeof(*o));
}

void run_kernel_release(struct run_kernel *k)
{
	free(k->path);
	free(k->release);
	free(k->sha256);
	free(k->base_commit);
	json_decref(k->operations);
	free(k->cache_key);
	free(k->build_log);
	free(k->request);
	json_decref(k->package);
	json_decref(k->rest);
	memset(k, 0, sizeof(*k));
}

void run_variant_release(struct run_variant *v)
{
	free(v->name);
	run_kernel_release(&v->kernel);
	json_decref(v->rest);
}

void run_host_reset(struct run_host *h)
{
	free(h->accel);
	free(h->accel_reason);
	free(h->qemu);
	free(h->libvirt);
	free(h->hostname);
	free(h->cpu);
	free(h->kernel);
	free(h->image);
	free(h->disk_image);
	json_decref(h->rest);
	memset(h, 0, sizeof(*h));
}

void run_boot_release(struct run_boot *b)
{
	free(b->variant);
	free(b->build);
	json_decref(b->rest);
}

void run_until_reset(struct run_until *u)
{
	free(u->metrics);
	free(u->stopped);
	json_decref(u->worst);
	json_decref(u->metrics_detail);
	json_decref(u->rest);
	memset(u, 0, sizeof(*u));
}

void run_record_release(struct run_record *rec)
{
	free(rec->run);
	free(rec->job);
	free(rec->status);
	free(rec->created);
	free(rec->finished);
	free(rec->job_file);
	free(rec->job_dir);
	free(rec->host_boot_id);
	run_order_release(&rec->order);
	json_decref(rec->job_resolved);
	for (size_t i = 0; i < rec->nvariants; i++)
		run_variant_release(&rec->variants[i]);
	free(rec->variants);
	run_host_reset(&rec->host);
	for (size_t i = 0; i < rec->nboots; i++)
		run_boot_release(&rec->boots[i]);
	free(rec->boots);
	run_until_reset(&rec->until);
	json_decref(rec->recipe);
	json_decref(rec->repro);
	json_decref(rec->rest);
	memset(rec, 0, sizeof(*rec));
}

/*
 * The one answer to "what is this run's status": the recorded status, but
 * a "running" run whose host rebooted since or whose process is gone is
 * "incomplete".
 */
const char *run_record_status(const struct run_record *rec)
{
	const char *status = rec->status ? rec->status : "unknown";
	bool rebooted;
	char *cur;

	if (strcmp(status, "running"))
		return status;
	cur = host_boot_id();
	rebooted = rec->host_boot_id && *rec->host_boot_id && *cur &&
		   strcmp(rec->host_boot_id, cur);
	free(cur);
	if (rebooted || (rec->pid > 0 && !process_alive(rec->pid, NULL)))
		return "incomplete";
	return status;
}

struct run_variant *run_record_variant(const struct run_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->nvariants; i++)
		if (name && !strcmp(rec->variants[i].name, name))
			return &rec->variants[i];
	return NULL;
}

int run_record_set_verdict(struct run_record *rec, json_t *recipe, json_t *verdict)
{
	if (!json_is_object(recipe) || !json_is_object(verdict))
		return -1;
	json_decref(rec->recipe);
	json_decref(rec->repro);
	rec->recipe = json_incref(recipe);
	rec->repro = json_incref(verdict);
	return 0;
}
