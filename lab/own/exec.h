/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exec.h - what kind of program a host file is, before it goes into a
 * guest: an ELF executable for this machine, static or dynamically linked
 * (and then which interpreter), a "#!" script (and its interpreter), or
 * neither. The lab's initramfs has no shared libraries and no shell, so a
 * command workload's program is checked with this before anything boots
 * (lab/run/own.c).
 */
#ifndef MMLAB_OWN_EXEC_H
#define MMLAB_OWN_EXEC_H

#include <stddef.h>

enum own_exec {
	OWN_EXEC_STATIC, /* ELF for this machine, no PT_INTERP */
	OWN_EXEC_DYNAMIC, /* ELF for this machine with PT_INTERP (in interp) */
	OWN_EXEC_FOREIGN, /* ELF for another machine (its e_machine in interp) */
	OWN_EXEC_SCRIPT, /* "#!": the interpreter's path in interp */
	OWN_EXEC_OTHER, /* not a program */
	OWN_EXEC_UNREADABLE, /* cannot be read (errno) */
};

/* the kind of path; interp (len bytes) says more for DYNAMIC, FOREIGN, SCRIPT */
enum own_exec own_exec_kind(const char *path, char *interp, size_t len);

#endif
