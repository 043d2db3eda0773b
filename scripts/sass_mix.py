#!/usr/bin/env python3
"""Reads `cuobjdump -sass` on stdin; prints each kernel's instruction count by opcode, the
heaviest first (the per-lane kernel's cost per counted sample, issue 21)."""
import collections
import re
import sys

kernel, mix = None, collections.OrderedDict()
for line in sys.stdin:
    m = re.match(r"\s*Function : (\S+)", line)
    if m:
        kernel = m.group(1)
        mix[kernel] = collections.Counter()
        continue
    m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
    if m and kernel:
        mix[kernel][m.group(1).split(".")[0]] += 1
for kernel, counts in mix.items():
    total = sum(counts.values())
    top = ", ".join(f"{op} {n}" for op, n in counts.most_common(14))
    print(f"sass: {kernel[-60:]}: {total} instructions: {top}")
