/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h - the host's reading of what the guest agent sent on ttyS1
 * (records per common/proto.h). The stream is untrusted: parsing never
 * fails, never crashes, and drops what does not check out with an entry in
 * "log".
 */
#ifndef MMLAB_GUEST_STREAM_H
#define MMLAB_GUEST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "guest/files.h"
#include "guest/records.h"

#define GUEST_STREAM_MAX_ITERATIONS 4096
#define GUEST_STREAM_MAX_LOG 1000
#define GUEST_STREAM_MAX_NODES 1024
#define GUEST_STREAM_MAX_METRICS 20000 /* per iteration */
#define GUEST_STREAM_METRIC_NAME_MAX 200
#define GUEST_STREAM_MAX_SAMPLES 20000 /* per series (1 Hz: 5.5 hours) */
#define GUEST_STREAM_MAX_SERIES 256
/*
 * Over the whole stream: without these, 64 MiB of short metric lines or
 * series values became about 1.3 GB of JSON. What goes past one is
 * dropped, counted in "stream" (dropped_metrics, dropped_samples) and
 * logged once.
 */
#define GUEST_STREAM_MAX_TOTAL_METRICS 1000000
#define GUEST_STREAM_MAX_TOTAL_SAMPLES 2000000

#define GUEST_STREAM_SETUP_MESSAGE_MAX 2048 /* bytes of a SETUP_ERROR's message */

/*
 * What a caller decides on, as fields: the summary below holds the same
 * (the strings made printable alike).
 */
struct guest_stream_info {
	bool hello; /* a HELLO came: the agent ran */
	bool done; /* a DONE came: the agent got to its end */
	bool setup_error; /* a SETUP_ERROR came; the last one's: */
	char setup_what[32];
	char setup_message[GUEST_STREAM_SETUP_MESSAGE_MAX + 1];
};

/*
 * Returns a new object (never NULL):
 * {"hello": {"agent","release","boot_s"} or null,
 *  "nodes": [{"id","cpus","memory_kb"}],
 *  "iterations": [{"index", "status": "ok"|"failed", "ended": bool,
 *	"reason" (when failed), "exit", "signal",
 *	"metrics": {"vmstat.<f>": delta, "node<N>.vmstat.<f>": delta,
 *		    "numastat.node<N>.<f>": delta, "time.user_s",
 *		    "time.system_s", "time.elapsed_s", "<workload>.<m>": v,
 *		    "trace.<sys>:<event>", "kthread.<comm>.cpu_s",
 *		    "dmesg.warnings", "dmesg.oopses", "extfrag.*" (COUNTS)},
 *	"snapshots": {"before": {"vmstat": "raw text", "node0/vmstat": ..},
 *		      "after": {..}},
 *	"timeseries" (when the guest sent SERIES): {"interval_s": 1,
 *		"samples": n, "series": {"vmstat.nr_free_pages": [n values]}},
 *	"tiers" (when the guest sent TIERS): {"demotion_enabled": bool|null,
 *		"tiers": [{"id", "nodes"}] (by id), "nodes": [{"id", "cpus", "memory_kb"}],
 *		"access": [{"node", "class", "initiators", "read_latency", ...}]}}],
 *  "setup_error" (when the guest sent SETUP_ERROR): {"what","message"},
 *  "log": [{"level","message"}], "done": bool,
 *  "stream": {"records","skipped_bytes","bad_crc","oversized","truncated",
 *	       "bad_type","crc_budget_spent","dropped_metrics","dropped_samples"}}
 * Iterations are sorted by index. An iteration is "ok" only when the guest
 * said so and its RESULT and both vmstat snapshots arrived. info (may be
 * NULL) gets the same as fields.
 * Returns a new reference.
 */
json_t *guest_stream_parse(const void *buf, size_t len, const char *workload_name,
			   struct guest_stream_info *info);

/*
 * The same in steps, as one handler of a walk over the stream that other
 * handlers share (records.h): begin, guest_stream_record() for each record
 * (the handler's ctx is the struct guest_stream_parser), then end with the
 * walk's reader, which returns the object (a new reference), fills info
 * (may be NULL) and frees s.
 */
struct guest_stream_parser;
struct guest_stream_parser *guest_stream_begin(const char *workload_name);
guest_record_fn guest_stream_record;
/* a new reference */
json_t *guest_stream_end(struct guest_stream_parser *s, const struct mmrec_reader *r,
			 struct guest_stream_info *info);
/*
 * Before the end: the counts of the walk's collected files (files.h), kept
 * as "stream": {"file_records": {"total", "ignored", "late"}} when the
 * stream had any.
 */
void guest_stream_file_records(struct guest_stream_parser *s, const struct guest_files_stats *st);

/*
 * Write each raw snapshot of a parsed iteration to dir/before/<name> and
 * dir/after/<name> ("node0/vmstat" -> "node0.vmstat") and remove
 * "snapshots" from the object. 0, or -1 after a message.
 */
int guest_stream_save_snapshots(json_t *iteration, const char *dir);

/* [A-Za-z0-9_.:-]+, at most GUEST_STREAM_METRIC_NAME_MAX bytes */
int guest_stream_metric_name_ok(const char *name);

#endif
