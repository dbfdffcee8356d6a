/* SPDX-License-Identifier: GPL-2.0 */
/*
 * topo_layout.h - where a topology's memory lands in the guest's physical
 * address space on QEMU's pc (i440fx) machine, and the kernel arguments
 * that make memoryless and kmem nodes out of it.
 *
 * libvirt 9.0 with QEMU 7.2 cannot give a NUMA cell no memory (QEMU
 * refuses a memory-backend-ram of size 0), and QEMU cannot mark memory as
 * "specific purpose" (soft reserved). So every cell gets memory, and the
 * guest kernel is told with memmap= which of it is not ordinary RAM:
 *
 *  - a memoryless node's cell is one memory block (128 MiB, never touched,
 *    so it costs the host nothing) converted to reserved (e820 type 2):
 *    the node has CPUs and no memory;
 *  - a kmem node's memory is converted to soft reserved (0xefffffff): the
 *    kernel's dax_hmem driver makes a dax device of it, which the agent
 *    hands to the kmem driver, as CXL memory appears. kmem onlines whole
 *    memory blocks, and the BIOS keeps the last 128 KiB below 4 GiB, so a
 *    kmem cell may be padded with reserved blocks until the aligned part
 *    holds the node's memory.
 *
 * QEMU lays the cells out in node order from address 0, RAM below
 * below_4g (all of it when the guest has less than 3.5 GiB, else 3 GiB)
 * and the rest from 4 GiB (hw/i386/pc_piix.c, acpi-build.c build_srat).
 */
#ifndef MMLAB_TOPO_LAYOUT_H
#define MMLAB_TOPO_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "topo/topology.h"

#define TOPO_BLOCK (128ULL << 20) /* x86 memory block below 64 GiB of RAM */
#define TOPO_BIOS_RESERVED (128ULL << 10) /* SeaBIOS, top of RAM below 4 GiB */
#define TOPO_E820_RESERVED 2u
#define TOPO_E820_SOFT_RESERVED 0xefffffffu
#define TOPO_MAX_RANGES (JOB_MAX_NODES * 6)

struct topo_range {
	uint64_t start, len; /* guest-physical bytes */
	unsigned int type; /* TOPO_E820_* */
	unsigned int node;
};

struct topo_layout {
	uint64_t cell_bytes[JOB_MAX_NODES]; /* each libvirt <cell>'s memory */
	uint64_t total, below_4g;
	struct topo_range r[TOPO_MAX_RANGES];
	unsigned int nr;
};

/*
 * Lay out t. 0, or -1 with the reason in why (for a message that names
 * node *bad) when a kmem node's memory is not a whole number of memory
 * blocks or the layout does not settle.
 */
int topo_layout(const struct job_topology *t, struct topo_layout *l, unsigned int *bad, char *why,
		size_t whylen);
/*
 * The kernel arguments of a layout: "nokaslr memmap=..." (malloc'd), or
 * NULL when it has no range. nokaslr: the decompressor reads memmap=
 * with '%' as a memory limit and may otherwise place the kernel in memory
 * that becomes reserved later.
 */
char *topo_kernel_args(const struct topo_layout *l);

#endif
