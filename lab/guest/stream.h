/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stream.h - the host's reading of what the guest agent sent on ttyS1
 * (records per common/proto.h), as a struct guest_report. The stream is
 * untrusted: parsing never fails, never crashes, and drops what does not
 * check out with an entry in its log.
 */
#ifndef MMLAB_GUEST_STREAM_H
#define MMLAB_GUEST_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#include "guest/files.h"
#include "guest/records.h"
#include "store/iteration_record.h"

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
 * dropped, counted (struct guest_stream_counts' dropped_metrics,
 * dropped_samples) and logged once.
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

/* the last HELLO: the agent's version, the guest's kernel and boot time (printable) */
struct guest_hello {
	char agent[64];
	char release[128];
	bool has_boot_s; /* boot_s was a number */
	double boot_s;
};

/* a raw snapshot file of one phase ("vmstat", "node0/vmstat", ...) */
struct guest_snapshot {
	char *name;
	char *text; /* printable, len bytes and a NUL */
	size_t len;
};

/* one iteration as the guest reported it */
struct guest_iteration {
	unsigned int index;
	/* the guest said ok, and its RESULT and both vmstat snapshots arrived */
	bool ok;
	bool ended; /* its ITER_END arrived: the guest finished it */
	const char *reason; /* why the host does not take it as ok (a literal), else NULL */
	bool has_result; /* a RESULT arrived: exit_code and signal are its */
	int exit_code, signal;
	/*
	 * "vmstat.<f>": delta, "node<N>.vmstat.<f>": delta,
	 * "numastat.node<N>.<f>": delta (integers), "time.user_s",
	 * "time.system_s", "time.elapsed_s", "<workload>.<m>": v,
	 * "trace.<sys>:<event>", "kthread.<comm>.cpu_s", "dmesg.warnings",
	 * "dmesg.oopses", "extfrag.*" (COUNTS), in the order they came
	 */
	struct iter_metric *metrics;
	size_t nmetrics;
	struct iter_timeseries ts; /* from SERIES (ts.present), at interval_s */
	/*
	 * from TIERS, stored as it is and never read by the host, or NULL
	 * (owned): {"demotion_enabled": bool|null, "tiers": [{"id", "nodes"}]
	 * (by id), "nodes": [{"id", "cpus", "memory_kb"}],
	 * "access": [{"node", "class", "initiators", "read_latency", ...}]}
	 */
	json_t *tiers;
	struct guest_snapshot *before, *after; /* by name */
	size_t nbefore, nafter;
};

struct guest_log_entry {
	char level[8]; /* info, warn, error */
	char *message; /* printable, at most 4096 bytes */
};

/* what the reader of the stream counted (struct mmrec_reader's and the parser's) */
struct guest_stream_counts {
	size_t records; /* valid ones, of any type */
	size_t skipped_bytes;
	unsigned int bad_crc, oversized, truncated, bad_type;
	bool crc_budget_spent;
	size_t dropped_metrics, dropped_samples; /* past GUEST_STREAM_MAX_TOTAL_* */
	struct guest_files_stats files; /* guest_stream_file_records() */
};

/*
 * What guest_stream_parse() read. Iterations are sorted by index. An
 * iteration is ok only when the guest said so and its RESULT and both
 * vmstat snapshots arrived. Every string is printable.
 */
struct guest_report {
	bool has_hello; /* info.hello: hello holds the last HELLO */
	struct guest_hello hello;
	struct iter_node *nodes; /* the last NODES; memory_kb -1 when not sent */
	size_t nnodes;
	struct guest_iteration *its;
	size_t nits;
	struct guest_log_entry *log; /* the guest's LOG records and the host's notes */
	size_t nlog;
	struct guest_stream_counts counts;
	struct guest_stream_info info;
};

/* Never NULL; guest_stream_free() it (report.c, with the two below). */
struct guest_report *guest_stream_parse(const void *buf, size_t len, const char *workload_name);
void guest_stream_free(struct guest_report *gs);
/* the iteration of index, or NULL when the guest did not report it */
const struct guest_iteration *guest_stream_find(const struct guest_report *gs, unsigned int index);

/*
 * The same in steps, as one handler of a walk over the stream that other
 * handlers share (records.h): begin, guest_stream_record() for each record
 * (the handler's ctx is the struct guest_stream_parser), then end with the
 * walk's reader, which returns what was read and frees s.
 */
struct guest_stream_parser;
struct guest_stream_parser *guest_stream_begin(const char *workload_name);
guest_record_fn guest_stream_record;
struct guest_report *guest_stream_end(struct guest_stream_parser *s, const struct mmrec_reader *r);
/* Before the end: the counts of the walk's collected files (files.h). */
void guest_stream_file_records(struct guest_stream_parser *s, const struct guest_files_stats *st);

/*
 * Write each raw snapshot of an iteration to dir/before/<name> and
 * dir/after/<name> ("node0/vmstat" -> "node0.vmstat"). 0, or -1 after a
 * message.
 */
int guest_stream_save_snapshots(const struct guest_iteration *it, const char *dir);

/*
 * stream_json.c: the parts as iteration.json stores them, each a new
 * reference. "guest"."nodes":
 */
json_t *guest_nodes_json(const struct guest_report *gs);
/* "metrics" (integers as integers), a new reference */
json_t *guest_metrics_json(const struct guest_iteration *it);
/* "timeseries": {"interval_s", "samples", "series": {name: [v]}}, a new reference */
json_t *guest_timeseries_json(const struct iter_timeseries *ts);
/* "log": [{"level", "message"}], a new reference */
json_t *guest_log_json(const struct guest_report *gs);
/*
 * "stream": the counts, with "file_records": {"total", "ignored", "late"}
 * when the stream had any; a new reference
 */
json_t *guest_counts_json(const struct guest_stream_counts *c);
/*
 * The whole stream as one document, for the tests, the fuzzers and a look
 * at a stream (a new reference):
 * {"hello": {"agent","release","boot_s"} or null, "nodes": [...],
 *  "iterations": [{"index", "status": "ok"|"failed", "ended", "reason"
 *	(when the host failed it), "exit", "signal" (null without RESULT),
 *	"metrics", "timeseries", "tiers", "snapshots": {"before": {name:
 *	text}, "after": {..}}}],
 *  "setup_error": {"what","message"} (when one came), "log", "done",
 *  "stream"}
 */
json_t *guest_stream_to_json(const struct guest_report *gs);

/* the snapshot names the agent may send: vmstat, node3/numastat, ... */
bool guest_snapshot_name_ok(const char *name);
/* stream.c's, for report.c: frees n nodes and the array */
void guest_nodes_free(struct iter_node *nodes, size_t n);

/* [A-Za-z0-9_.:-]+, at most GUEST_STREAM_METRIC_NAME_MAX bytes */
int guest_stream_metric_name_ok(const char *name);

#endif
