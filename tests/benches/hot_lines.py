#!/usr/bin/env python3
"""How much code a call runs: the 64-byte lines of machine code that run at
least once a call on average, from a callgrind profile with instruction
detail, how many of their bytes run on every call, on some calls or on
none, which of the first-level instruction cache's sets they fall in, and
the functions they lie in. A set that more lines fall in than it holds (8
here, in 64 sets: 32 KiB) loses them on every call, which costs time that
instruction counts do not show.

    cargo bench -p toolgate-tests --bench probe --no-run
    valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file=cg.out \\
        target/release/deps/probe-<hash> 40000 toolgate refund_invoice
    python3 tests/benches/hot_lines.py cg.out target/release/deps/probe-<hash> 40000

The last argument is the number of calls the profile made.
"""

import bisect
import collections
import re
import subprocess
import sys


# The first-level instruction cache of the machines measured: 32 KiB in
# sets of 8 lines of 64 bytes, a line's set being its address's bits 6-11.
SETS = 64
WAYS = 8


def executed(profile):
    """Instructions executed at each address, calls' inclusive costs left out."""
    cost = collections.Counter()
    last = [0, 0]
    inclusive_next = False

    def position(token, index):
        if token == "*":
            return last[index]
        if token[0] == "+":
            return last[index] + int(token[1:], 0)
        if token[0] == "-":
            return last[index] - int(token[1:], 0)
        return int(token, 0)

    for line in open(profile):
        first = line[:1]
        if first.isdigit() or first in "+-*":
            fields = line.split()
            address, source = position(fields[0], 0), position(fields[1], 1)
            last[:] = [address, source]
            if inclusive_next:
                inclusive_next = False
            elif len(fields) > 2:
                cost[address] += int(fields[2])
        elif line.startswith("calls="):
            inclusive_next = True
    return cost


def functions(binary):
    """(start, size, name) of each function in `binary`, by start."""
    listed = subprocess.run(
        ["nm", "-C", "-S", "--defined-only", binary], capture_output=True, text=True
    ).stdout
    found = []
    for line in listed.splitlines():
        fields = line.split(None, 3)
        if len(fields) == 4 and fields[2] in "tTwW":
            found.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
    return sorted(found)


def sizes(binary, lines):
    """The size of each instruction in `lines` (64-byte line numbers)."""
    first, last = min(lines) * 64, max(lines) * 64 + 64
    listing = subprocess.run(
        ["objdump", "-d", "--no-show-raw-insn",
         f"--start-address={first}", f"--stop-address={last}", binary],
        capture_output=True, text=True,
    ).stdout
    starts = [int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+):", listing, re.M)]
    return {a: b - a for a, b in zip(starts, starts[1:]) if a // 64 in lines}


def main():
    profile, binary, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
    funcs = functions(binary)
    starts = [f[0] for f in funcs]
    lines = collections.defaultdict(set)
    hot = set()
    cost = executed(profile)
    for address, count in cost.items():
        if count < calls:
            continue
        at = bisect.bisect_right(starts, address) - 1
        name = "?"
        if at >= 0 and address < funcs[at][0] + funcs[at][1]:
            name = funcs[at][2]
        lines[name].add(address // 64)
        hot.add(address // 64)
    print(f"{len(hot)} lines of 64 bytes run at least once a call ({len(hot) * 64} bytes)")
    # What those lines hold: code run on every call, code run on some
    # calls, and code never run (padding between functions, where it is
    # written as instructions, among it).
    held = [0, 0, 0]
    for address, size in sizes(binary, hot).items():
        count = cost.get(address, 0)
        held[0 if count >= calls else 1 if count else 2] += size
    print(f"  of which run every call {held[0]} bytes, some calls {held[1]}, never {held[2]}")
    # Where they fall in a first-level instruction cache of 64 sets of 8
    # lines (32 KiB): a set that more lines than that map to loses some of
    # them on every call, whatever else the cache holds.
    sets = collections.Counter(line % SETS for line in hot)
    over = sorted((n for n in sets.values() if n > WAYS), reverse=True)
    print(f"  in {SETS} sets of {WAYS}: {len(over)} sets hold more ({', '.join(map(str, over))})"
          f", the fullest of the rest {max([n for n in sets.values() if n <= WAYS] or [0])}")
    for name, held in sorted(lines.items(), key=lambda item: -len(item[1]))[:20]:
        print(f"{len(held):5d}  {name[:120]}")


if __name__ == "__main__":
    main()
