# SPDX-License-Identifier: GPL-2.0
"""Findings a linter may report that mmlab accepts on purpose.

The lists (scripts/lint/*-accepted) hold one finding a line,
"CHECK FILE-GLOB MESSAGE-REGEX", each after a comment saying why. In the
glob, * and ? stay inside a directory and ** does not. An entry that
matches nothing when the whole tree is linted fails the lint, so a list
goes away with the code it excuses. Prefer fixing the code.
"""

import re
import sys


class Entry:
    def __init__(self, where, check, glob, regex):
        self.where, self.check, self.glob = where, check, glob
        self.file_re = glob_re(glob)
        self.msg_re = re.compile(regex)
        self.key = f"{check} {glob} {regex}"
        self.hits = 0

    def matches(self, check, path, message):
        return (self.check == check and self.file_re.match(path)
                and self.msg_re.search(message))


def glob_re(glob):
    """a file glob: * and ? do not cross a /, ** does"""
    out, i = "", 0
    while i < len(glob):
        if glob.startswith("**", i):
            out, i = out + ".*", i + 2
            continue
        out += {"*": "[^/]*", "?": "[^/]"}.get(glob[i], re.escape(glob[i]))
        i += 1
    return re.compile(out + "$")


def load(path):
    """the entries of a list; exits 2 on a malformed line"""
    out = []
    if not path:
        return out
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 2)
            if len(parts) != 3:
                sys.stderr.write(f"{path}:{n}: want 'CHECK FILE-GLOB "
                                 "MESSAGE-REGEX'\n")
                sys.exit(2)
            out.append(Entry(f"{path}:{n}", *parts))
    return out


def accept(entries, check, path, message):
    """true, and the entry counted, when the finding is accepted"""
    for e in entries:
        if e.matches(check, path, message):
            e.hits += 1
            return True
    return False


def report_stale(entries, used_keys):
    """print the entries no finding used; their number"""
    stale = [e for e in entries if e.key not in used_keys]
    for e in stale:
        print(f"{e.where}: accepted finding '{e.check} {e.glob}' no longer "
              "occurs; remove it")
    return len(stale)
