/* SPDX-License-Identifier: GPL-2.0 */
/*
 * build.h - configure and build a kernel from a source tree with the tree's
 * own Kbuild: config = base (tinyconfig, defconfig, the distro's config or
 * a file) + scripts/kconfig/merge_config.sh -m FRAGMENTS + olddefconfig,
 * every fragment option checked afterwards; make O=DIR -j$(nproc), with
 * ccache when installed, progress on a tty, the whole output in a log.
 */
#ifndef MMLAB_BUILD_H
#define MMLAB_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/util.h"

/*
 * The options of fragment (text) that config (a .config's text) does not
 * have as asked, each "CONFIG_FOO=y (got: is not set)", appended to
 * dropped. Fragment lines are "CONFIG_X=VALUE" or "# CONFIG_X is not set";
 * other lines are ignored. Returns the number appended.
 */
size_t kconfig_check(const char *config, const char *fragment, struct strlist *dropped);

/* the compiler command ("ccache gcc" when ccache is installed, else "gcc") */
const char *kbuild_cc(void);
/* "gcc (Debian 12.2.0-14) 12.2.0", cached; NULL + message */
const char *kbuild_cc_version(void);

/*
 * Write outdir/.config for the source at src: base, fragments (absolute
 * paths), olddefconfig, then the check; their output appended to log_path. 0, or -1 after one message naming
 * the variant (and every dropped option).
 */
int kconfig_make(const char *src, const char *outdir, const char *base,
		 const char *const *fragments, size_t nfragments, const char *variant,
		 const char *log_path);

/*
 * make -C src O=builddir -jN CC=... LOCALVERSION=localversion, output
 * appended to log_path. The caller holds the build directory's lock.
 * *fresh: the build directory had no objects (a full build).
 * 0, or -1 after a message with the log's tail and path.
 */
int kbuild_make(const char *src, const char *builddir, const char *localversion,
		const char *log_path, const char *variant, double *elapsed_s, bool *fresh);

#endif
