/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proto.h - the guest agent's data channel (ttyS1) and the guest plan.
 *
 * Shared by the guest agent (collectors/, static) and the host (lab/).
 *
 * RECORDS. The agent writes a stream of records to /dev/ttyS1 (raw mode);
 * libvirt writes the port's bytes to a file on the host, which the host
 * parses after (or while) the guest runs. Each record is
 *
 *	struct mmrec_hdr (16 bytes, little endian) + payload (len bytes)
 *
 * crc is the zlib crc32 of the header with crc set to 0, continued over the
 * payload. The host treats the stream as untrusted: it scans for the magic,
 * rejects len > MMREC_MAX_PAYLOAD, checks the crc, and on any mismatch
 * resynchronises at the next magic, counting skipped bytes.
 *
 * PAYLOADS are text. The first line is a header of space-separated
 * key=value pairs (no spaces inside values); the rest, after the first
 * '\n', is the body. Per type:
 *
 *  HELLO      "agent=<version> release=<uname -r> boot_s=<seconds since kernel start>"
 *  NODES      header "count=<n>"; body one line per online node:
 *             "node=<id> cpus=<cpulist> memory_kb=<MemTotal of the node>"
 *  ITER_BEGIN "iter=<index>"
 *  SNAPSHOT   "iter=<i> phase=<before|after> name=<what>"; body = the file's
 *             contents as read. name is one of: vmstat, buddyinfo,
 *             pagetypeinfo, node<N>/vmstat, node<N>/numastat, node<N>/meminfo
 *  WL_OUTPUT  "iter=<i>"; body = the workload's metric lines, "name value\n"
 *             (name without the workload prefix, e.g. "elapsed_s 1.25")
 *             With "stream=<stdout|stderr|dmesg> total=<bytes> head=<h>
 *             dropped=<d>" (a command workload, own=1 below): the raw
 *             output of the program (or the kernel log of the iteration),
 *             bounded: body = the first h bytes, then the last bytes;
 *             d bytes between them were dropped. The host's extractors
 *             read it (never as metric lines by itself).
 *  RESULT     "iter=<i> exit=<code> signal=<n> user_s=<f> system_s=<f>
 *             elapsed_s=<f> maxrss_kb=<n> minflt=<n> majflt=<n>
 *             [timed_out=<0|1>]" (rusage of the measured phase as the
 *             workload reported it when it did, else wait4() rusage of the
 *             whole process; timed_out: own.timeout_s passed and the
 *             agent killed the program)
 *  ITER_END   "iter=<i> status=<ok|failed>"
 *  LOG        "level=<info|warn|error>"; body = message
 *  DONE       "iterations=<n>" - the agent is about to power off
 *  SETUP_ERROR "what=<collectors|module|...>"; body = message. The agent
 *             could not set up what the plan asked for (an unknown
 *             tracepoint, a module that does not load); it runs no
 *             iteration and powers off. The host stops the run with the
 *             message before any other boot.
 *  COUNTS     "iter=<i>"; body = "name value\n" lines measured by the agent's
 *             collectors over the measured phase: trace.<system>:<event>
 *             (hist-trigger hit deltas), kthread.<comm>.cpu_s,
 *             dmesg.warnings, dmesg.oopses, extfrag.node<N>.<zone>.<what>.
 *             The host accepts only these name families.
 *  SERIES     "iter=<i> interval_s=1 samples=<n>"; body = one line per
 *             series, "<name> <v0> <v1> ... <vn-1>", sampled every
 *             interval_s seconds from the start of the measured phase
 *  FILE       a file of the guest, in one of two uses that the header
 *             tells apart (mmrec_file_iter()):
 *             - read back after an iteration, the header has iter=:
 *             "iter=<i> index=<k> size=<bytes sent> cut=<0|1>" or
 *             "iter=<i> index=<k> missing=<errno>"; body = the first bytes
 *             of the plan's own.read.<k> after the iteration.
 *             - collected after the last iteration, no iter=:
 *             "path=<p> size=<s> offset=<o>"; body = bytes o.. of the
 *             guest file p (at most MMFILE_CHUNK a record), s its size in
 *             the guest when the agent opened it; or "path=<p>
 *             error=<missing|notfile|unreadable|changed>" without a body.
 *             p is mmpath_encode()d. After the last iteration, for each
 *             collect.file.<i> of the plan in order: the first MMFILE_MAX
 *             bytes of the file, in order (a larger file is cut; s still
 *             says its size), an empty file as one record with no body.
 *             The host keeps only the paths it asked for.
 *
 *  TIERS      "iter=<i>" (the plan says tier.report=1), sent before the
 *             iteration's workload starts; body = the memory tiers the guest
 *             kernel built, one line each: "demotion_enabled=<true|false|->",
 *             "tier=<id> nodes=<nodelist>" per memory_tier<id>,
 *             "node=<n> cpus=<cpulist|-> memory_kb=<MemTotal>" per online
 *             node, "access=<n> class=<0|1> initiators=<nodelist>
 *             [read_latency=<ns>] [write_latency=..] [read_bandwidth=<MB/s>]
 *             [write_bandwidth=..]" per node with HMAT data
 */
#ifndef MMLAB_COMMON_PROTO_H
#define MMLAB_COMMON_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MMREC_MAGIC 0x524c4d4du /* "MMLR" in memory order */
#define MMREC_VERSION 1
#define MMREC_MAX_PAYLOAD (4u << 20)
#define MMREC_HDR_SIZE 16

enum mmrec_type {
	MMREC_HELLO = 1,
	MMREC_NODES = 2,
	MMREC_ITER_BEGIN = 3,
	MMREC_SNAPSHOT = 4,
	MMREC_WL_OUTPUT = 5,
	MMREC_RESULT = 6,
	MMREC_ITER_END = 7,
	MMREC_LOG = 8,
	MMREC_DONE = 9,
	MMREC_SETUP_ERROR = 10,
	MMREC_COUNTS = 11,
	MMREC_SERIES = 12,
	MMREC_TIERS = 13,
	/* WL_FILE's number: an agent.bin kept before the two became one reads the same */
	MMREC_FILE = 14,
	MMREC_TYPE_MAX = 14,
};

#define MMFILE_MAX (64u << 20) /* bytes of one collected file */
#define MMFILE_CHUNK (1u << 20) /* bytes of a file in one FILE record */
#define MMPATH_MAX 1024 /* a collected file's path, decoded, without the NUL */
#define MMPATH_ENC_MAX (3 * MMPATH_MAX) /* the same encoded */

struct mmrec_hdr {
	uint32_t magic;
	uint16_t type;
	uint16_t version;
	uint32_t len;
	uint32_t crc;
};

const char *mmrec_type_name(unsigned int type);

/* encode header+payload into out (MMREC_HDR_SIZE + len bytes); returns total */
size_t mmrec_encode(void *out, unsigned int type, const void *payload, uint32_t len);

/*
 * Decoder over an untrusted buffer. mmrec_next() returns 1 and fills
 * type/payload/len for the next valid record, 0 at the end of the data.
 * A record cut off by the end of the buffer counts as truncated. Payload
 * points into buf (not NUL-terminated).
 */
struct mmrec_reader {
	const uint8_t *buf;
	size_t len, pos;
	/*
	 * Bytes the reader may still checksum. Each candidate header costs a
	 * CRC over the payload it claims, so garbage with a header every 16
	 * bytes claiming 4 MiB cost CPU with the square of its length (1 MiB:
	 * 20 s, 2 MiB: 104 s). MMREC_CRC_BUDGET(len) is never reached by a
	 * stream of valid records with some damage; when it runs out the rest
	 * is skipped and crc_budget_spent set.
	 */
	size_t crc_budget;
	/* statistics for diagnostics */
	size_t skipped_bytes; /* bytes that were not part of a valid record */
	unsigned int bad_crc, oversized, truncated, bad_type;
	unsigned int crc_budget_spent; /* 1: the rest was skipped, see crc_budget */
	size_t stopped_at; /* where, when crc_budget_spent */
};
#define MMREC_CRC_BUDGET(len) (2 * (size_t)(len) + 4 * (size_t)MMREC_MAX_PAYLOAD)
void mmrec_reader_init(struct mmrec_reader *r, const void *buf, size_t len);
int mmrec_next(struct mmrec_reader *r, unsigned int *type, const char **payload, uint32_t *len);

/*
 * Find "key=" in a record's header line (up to the first '\n' or len) and
 * copy its value (up to the next space) into out. Returns 0, or -1 when the
 * key is absent or the value does not fit.
 */
int mmrec_hdr_get(const char *payload, uint32_t len, const char *key, char *out, size_t outlen);
/* the body after the header line (len 0 if none) */
const char *mmrec_body(const char *payload, uint32_t len, uint32_t *body_len);
/*
 * A FILE record's use: 1 when its header has iter= (own.read.<k> read back
 * after an iteration), 0 when not (a piece of a collect.file.<i>).
 */
int mmrec_file_iter(const char *payload, uint32_t len);

/*
 * A path as a record header value or a plan value: every byte outside
 * [A-Za-z0-9/._+,:@~-] written as %XX (upper-case hex), so it holds no
 * space, '=', newline or NUL. mmpath_encode() returns 0, or -1 when out
 * (outlen bytes with the NUL) is too small. mmpath_decode() returns 0, or
 * -1 on a bad escape, an encoded NUL, or a result longer than outlen - 1.
 */
int mmpath_encode(const char *in, char *out, size_t outlen);
int mmpath_decode(const char *in, char *out, size_t outlen);
/*
 * 1 when path is absolute, at most MMPATH_MAX bytes, without control
 * characters, and none of its components is empty, "." or ".."
 * ("/var/log/x.log");
 * else 0. Both sides check collect_files paths with it.
 */
int mmpath_ok(const char *path);

/*
 * THE GUEST PLAN is /mmlab/plan in the per-boot initramfs: one "key=value"
 * per line, '#' comments, no quoting (values run to the end of the line).
 * Keys:
 *   run, variant            identifiers, for messages
 *   iteration_first         index of the first iteration in this boot
 *   iterations              how many iterations this boot runs (>= 1)
 *   workload                name; the program is /mmlab/workloads/<name>
 *   param.<name>            resolved workload parameter, passed to the
 *                           program as --<name>=<value>
 *   sysctl.<dotted.name>    written to /proc/sys/<dotted/name>
 *   thp.enabled, thp.defrag written to /sys/kernel/mm/transparent_hugepage/
 *   probe                   1: send HELLO and power off (accel probe)
 *   collect.enabled         0: no optional collectors (tracepoints, 1 Hz
 *                           series, kthread CPU, dmesg, extfrag); default 1
 *   collect.tracepoints     comma-separated "system:event" patterns (shell
 *                           globs); each must match a tracefs event or the
 *                           agent sends SETUP_ERROR
 *   collect.file.<i>        an absolute guest path (mmpath_encode()d), i =
 *                           0, 1, ... (at most 64): sent back as FILE
 *                           records after the last iteration
 *
 *   tier.report             1: send TIERS at every iteration
 *   tier.modules            comma-separated module names, loaded in order
 *                           from /mmlab/modules/<name>.ko (the dax drivers
 *                           of a distro kernel)
 *   tier.kmem               comma-separated kmem nodes: every dax device
 *                           targeting one goes to the kmem driver, its
 *                           memory onlined movable
 *   tier.demotion           0/1 written to /sys/kernel/mm/numa/demotion_enabled
 * A tier setup that fails sends SETUP_ERROR what=tiers.
 *
 *   own                     1: a command workload (the user's program or
 *                           module, docs/workloads.md) instead of
 *                           /mmlab/workloads/<workload>; "workload" is then
 *                           only the name of its metrics
 *   own.arg.<i>             argv[i], i = 0, 1, ... in order; '%' and bytes
 *                           outside '!'..'~' written as %XX
 *   own.phase               whole (default): the process is the measured
 *                           phase; handshake: ready/go/done on fds 3 and 4
 *   own.timeout_s           the agent kills the program's process group
 *                           (and as PID 1 every process) after this long
 *   own.read.<i>            a file sent back after each iteration (FILE with iter=),
 *                           relative to OWN_WORKDIR or absolute
 *   own.dmesg               1: send the iteration's kernel log (WL_OUTPUT
 *                           stream=dmesg)
 *   own.module              load /mmlab/modules/<name>.ko (finit_module with
 *                           own.module_params, %XX-encoded): without a
 *                           command its loading is the measured phase, with
 *                           one it is loaded before the command starts;
 *                           removed after the iteration
 * The user's files and built program are in OWN_WORKDIR, the program runs
 * there with PATH starting with it.
 *
 * Kernel modules a workload needs (pagebench) are built by the host for
 * the variant's kernel and put in the per-boot cpio as /mmlab/modules/
 * <name>.ko; the workload loads them itself (finit_module).
 */
#define OWN_WORKDIR "/mmlab/work"
#define MMPLAN_PATH "/mmlab/plan"
#define MMPLAN_MAX_SIZE (64u << 10)

/*
 * THE PAYLOAD of a boot is the plan and the files the host adds to the
 * image for that boot (lab/image/payload.h): an uncompressed cpio (newc)
 * with relative names ("mmlab/plan", "lib/modules/..."), directories
 * before what they hold. The initramfs carries it appended to the base
 * image, so the kernel unpacks it. A disk image boot gets it as a second,
 * read-only virtio disk whose serial is MMPAYLOAD_SERIAL, holding the cpio
 * raw (zero-padded to whole sectors): the agent finds it in
 * /sys/block/<dev>/serial and unpacks it into / before it reads the plan.
 */
#define MMPAYLOAD_SERIAL "mmlab-payload"

/*
 * WORKLOAD <-> AGENT. The agent runs /mmlab/workloads/<name> --k=v... with
 * fd 3 a pipe to the agent and fd 4 a pipe from it. The workload does its
 * unmeasured setup, writes "ready\n" to fd 3 and waits for "go\n" on fd 4;
 * the agent takes the "before" snapshots and sends "go\n"; the workload runs
 * the measured phase, writes "done user_s=<f> system_s=<f> elapsed_s=<f>\n"
 * (its own getrusage/clock deltas over that phase) to fd 3 and waits for
 * "go\n"; the agent takes the "after" snapshots and sends "go\n"; the
 * workload cleans up, prints its metric lines ("name value") on stdout and
 * exits 0. A workload started without fd 3 open runs standalone.
 */
#define MMWL_FD_TO_AGENT 3
#define MMWL_FD_FROM_AGENT 4

#endif
