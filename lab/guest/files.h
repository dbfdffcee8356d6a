/* SPDX-License-Identifier: GPL-2.0 */
/*
 * files.h - collect_files on the host: the FILE records of the agent's
 * stream (common/proto.h) without iter= (the others are a command
 * workload's own.read.<k>, guest/outputs.h) stored as DIR/files/<path>. The stream is
 * untrusted. Only the paths the job asked for are stored, each under the
 * name the job gave (never one the guest chose), at most MMFILE_MAX bytes
 * of it, and only from pieces that follow each other from offset 0 and
 * agree on the file's size: a guest that names other paths, sends ".."
 * or lies about sizes and offsets gets its records ignored or the file
 * refused, and cannot write anywhere else.
 */
#ifndef MMLAB_GUEST_FILES_H
#define MMLAB_GUEST_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "guest/records.h"
#include "lib/util.h"

/* what became of one asked path */
struct guest_file {
	char *path; /* the asked path (a copy) */
	bool stored; /* DIR/files/<path> holds it, else error says why */
	uint64_t size; /* stored: its size in the guest */
	uint64_t stored_size; /* stored: the bytes stored, < size when truncated */
	char error[192];
};

struct guest_file_list {
	struct guest_file *v;
	size_t n;
};

void guest_file_list_free(struct guest_file_list *l);

/*
 * files_json.c: the list as the iteration's "files", one object per asked
 * path, in order (a new reference, never NULL):
 *   {"path", "size", "stored": "files/<path>"}                  stored
 *   {"path", "size", "stored", "stored_size", "truncated": true} larger than
 *                                           MMFILE_MAX: its first bytes
 *   {"path", "error": "..."}                not stored, and why
 */
json_t *guest_file_list_json(const struct guest_file_list *l);

struct guest_files_stats {
	unsigned int records; /* FILE records in the stream, without iter= */
	unsigned int ignored; /* of them: for paths not asked for, or unreadable */
	unsigned int late; /* of them: for a file already stored or refused */
};

/*
 * Store the files of asked (absolute guest paths, in the job's order)
 * found in the stream buf/len under dir/files/. Returns
 * guest_file_list_json() of what became of them (a new reference). st
 * (may be NULL) counts the FILE records and those ignored.
 */
json_t *guest_files_store(const void *buf, size_t len, const struct strlist *asked, const char *dir,
			  struct guest_files_stats *st);

/*
 * Write the stream buf/len to out_path without its FILE records (they
 * are stored as files): what the iteration keeps as agent.bin. 0, or -1
 * after a message.
 */
int guest_stream_drop_files(const void *buf, size_t len, const char *out_path);

/*
 * Both as one handler of a walk over the stream buf (records.h): begin,
 * guest_files_record() for each record (the handler's ctx is the struct
 * guest_files), then end with the stream's length, which fills out (may
 * be NULL; guest_file_list_free() it after) and frees files. kept_path, when not NULL, gets
 * the stream without its FILE records if it has any: *kept (may be NULL)
 * is then 1, else 0 (nothing written), or -1 when it could not be written
 * (after a message). dir and asked as in guest_files_store().
 */
struct guest_files;
struct guest_files *guest_files_begin(const void *buf, const struct strlist *asked, const char *dir,
				      const char *kept_path);
guest_record_fn guest_files_record;
void guest_files_end(struct guest_files *files, size_t len, struct guest_files_stats *st, int *kept,
		     struct guest_file_list *out);

#endif
