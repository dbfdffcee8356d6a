// SPDX-License-Identifier: GPL-2.0
/*
 * exec.c - ELF and "#!" inspection of host files (see exec.h). Reads the
 * ELF header and program headers only; every offset and count is checked
 * against the file's size (a user's file may be anything).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "own/exec.h"

#define MAX_PHDRS 4096

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#elif defined(__i386__)
#define HOST_MACHINE EM_386
#else
#define HOST_MACHINE EM_NONE
#endif

static int read_at(int fd, off_t off, void *buf, size_t len)
{
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/* the PT_INTERP of a 64-bit ELF; 1 found, 0 none, -1 malformed */
static int interp64(int fd, off_t size, const Elf64_Ehdr *eh, char *interp, size_t len)
{
	Elf64_Phdr ph;

	if (eh->e_phnum > MAX_PHDRS || eh->e_phentsize != sizeof(ph) ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(ph) > (uint64_t)size)
		return -1;
	for (unsigned int i = 0; i < eh->e_phnum; i++) {
		size_t n;

		if (read_at(fd, (off_t)(eh->e_phoff + i * sizeof(ph)), &ph, sizeof(ph)))
			return -1;
		if (ph.p_type != PT_INTERP)
			continue;
		n = ph.p_filesz < len ? (size_t)ph.p_filesz : len - 1;
		if (ph.p_offset + n > (uint64_t)size || read_at(fd, (off_t)ph.p_offset, interp, n))
			return -1;
		interp[n] = '\0';
		interp[strcspn(interp, "\n")] = '\0';
		return 1;
	}
	return 0;
}

static enum own_exec elf_kind(int fd, off_t size, char *interp, size_t len)
{
	Elf64_Ehdr eh;
	int r;

	memset(&eh, 0, sizeof(eh));
	if (size < (off_t)sizeof(eh) || read_at(fd, 0, &eh, sizeof(eh)) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_machine != HOST_MACHINE) {
		snprintf(interp, len, "ELF class %u, machine %u; this host is class %u, machine %u",
			 (unsigned int)eh.e_ident[EI_CLASS], (unsigned int)eh.e_machine, ELFCLASS64,
			 HOST_MACHINE);
		return OWN_EXEC_FOREIGN;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		snprintf(interp, len, "an ELF object that is not an executable");
		return OWN_EXEC_OTHER;
	}
	r = interp64(fd, size, &eh, interp, len);
	if (r < 0) {
		snprintf(interp, len, "a malformed ELF file");
		return OWN_EXEC_OTHER;
	}
	return r ? OWN_EXEC_DYNAMIC : OWN_EXEC_STATIC;
}

enum own_exec own_exec_kind(const char *path, char *interp, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char magic[4] = { 0 };
	enum own_exec k = OWN_EXEC_OTHER;
	struct stat st;
	char line[256];

	interp[0] = '\0';
	if (fd < 0 || fstat(fd, &st)) {
		snprintf(interp, len, "%s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return OWN_EXEC_UNREADABLE;
	}
	if (read_at(fd, 0, magic, 4) == 0 && !memcmp(magic, ELFMAG, SELFMAG)) {
		k = elf_kind(fd, st.st_size, interp, len);
	} else if (magic[0] == '#' && magic[1] == '!') {
		ssize_t n = pread(fd, line, sizeof(line) - 1, 2);

		line[n > 0 ? n : 0] = '\0';
		line[strcspn(line, "\n")] = '\0';
		snprintf(interp, len, "%.*s", (int)strcspn(line + strspn(line, " \t"), " \t"),
			 line + strspn(line, " \t"));
		k = OWN_EXEC_SCRIPT;
	}
	close(fd);
	return k;
}
