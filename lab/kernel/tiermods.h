/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tiermods.h - the dax drivers a kmem topology needs in the guest
 * (docs/job-format.md, "Memory tiers"): device_dax, dax_hmem and kmem.
 *
 * A lab kernel built with kernels/lab.config has them built in; Debian's
 * kernels have them as modules, which the boot's image carries as
 * /mmlab/modules/<name>.ko and the agent loads (plan key tier.modules).
 */
#ifndef MMLAB_TIERMODS_H
#define MMLAB_TIERMODS_H

#include "lib/strbuf.h"
#include "lib/util.h"

/*
 * The modules directory of a kernel: <dir of kernel_path>/lib/modules/
 * <release> (a kernel from the lab's cache), else /lib/modules/<release>
 * (a distro kernel); malloc'd, or NULL when neither exists.
 */
char *tiermods_dir(const char *kernel_path, const char *release);

/*
 * For the kernel whose modules are in mdir (may be NULL): each driver that
 * is a loadable module, its dependencies first, into files (guest path
 * "mmlab/modules/<name>.ko" -> host path) and names ("a,b,c", the load
 * order). A driver in modules.builtin needs nothing. Returns 0; 0 with
 * nothing added when mdir is NULL or has no modules.dep (the guest then
 * says whether the drivers are there); -1 after a message naming variant
 * when a driver is neither built in nor a module, or is compressed.
 */
int tiermods_find(const char *variant, const char *mdir, struct kvlist *files,
		  struct strbuf *names);

#endif
