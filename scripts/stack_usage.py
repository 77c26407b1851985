#!/usr/bin/env python3
"""Worst-case stack of entry points, from GCC's -fcallgraph-info=su files.

    [READELF=arm-none-eabi-readelf] python3 scripts/stack_usage.py <build-dir> <function>...

Reads every .ci (call graph with each function's frame) and .su file under
<build-dir>, then for each entry point prints the deepest path: the sum of
frames along the call chain with the largest total. Bounds and caveats are
printed with it: calls through pointers are resolved to the set of functions
they can reach (see GROUPS), recursion is cut and reported, and callees
without a frame (libc, libgcc: not compiled here) count as zero and are named.
"""
import collections
import os
import re
import subprocess
import sys

NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
FRAME = re.compile(r"\\n(\d+) bytes \(([a-z,]+)\)")


def archive_of(path):
    m = re.search(r"CMakeFiles/([^/]+)\.dir/", path)
    return m.group(1) if m else "?"


# Where a call through a pointer can land: a function whose address is
# taken (a data or literal-pool relocation names it, as opposed to a call)
# in the caller's own layer. The core and the C API call the crypto and
# random port (CryptoPort, RandomSource); nanopb its stream callbacks;
# libsodium its implementation tables and the board's randombytes hook.
GROUPS = [{"p2b", "p2b_core", "p2b_port"}, {"p2b_nanopb", "p2b_proto"},
          {"p2b_sodium", "p2b_cortex_m_board"}]
CALL_RELOCS = re.compile(r"R_ARM_(THM_CALL|THM_JUMP24|THM_JUMP19|CALL|JUMP24|PC24|V4BX|NONE)$")


def address_taken(root, readelf):
    """archive -> names referenced by a non-call relocation in its objects."""
    taken = collections.defaultdict(set)
    for dirpath, _, files in os.walk(root):
        for fn in files:
            if not fn.endswith((".o", ".obj")):
                continue
            path = os.path.join(dirpath, fn)
            out = subprocess.run([readelf, "-rW", path], capture_output=True, text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) >= 5 and parts[2].startswith("R_") and not CALL_RELOCS.match(parts[2]):
                    taken[archive_of(path)].add(parts[4])
    return taken


def indirect_targets(caller_archive, taken, titles_of, home):
    """Functions (graph titles) whose address the caller's layer takes."""
    group = next((g for g in GROUPS if caller_archive in g), {caller_archive})
    return {t for a in group for sym in taken.get(a, ()) for t in titles_of.get(sym, ())
            if home.get(t) in group}

def strongly_connected(graph):
    """Tarjan, iterative: (node -> component id, component id -> members)."""
    index, low, comp, members = {}, {}, {}, collections.defaultdict(list)
    stack, on_stack, counter = [], set(), [0]
    nodes = set(graph) | {t for ts in graph.values() for t in ts}
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp[w] = v
                    members[v].append(w)
                    if w == v:
                        break
    return comp, members


def deepest(graph, frame):
    """Longest frame-sum path over the graph's components. Recursion: each
    strongly connected component is charged once with the sum of its frames,
    i.e. one trip round the cycle, and reported."""
    comp, members = strongly_connected(graph)
    recursive = {c for c, ms in members.items()
                 if len(ms) > 1 or any(m in graph.get(m, ()) for m in ms)}
    memo = {}

    def worst(c):
        """(bytes, path) of the deepest chain from component c."""
        if c in memo:
            return memo[c]
        best, best_path = 0, []
        for m in members[c]:
            for callee in graph.get(m, ()):
                d = comp[callee]
                if d == c:
                    continue
                b, p = worst(d)
                if b > best:
                    best, best_path = b, p
        own = sum(frame.get(m, 0) for m in members[c])
        memo[c] = (own + best, sorted(members[c]) + best_path)
        return memo[c]

    return worst, comp, recursive


def reachable(graph, start):
    seen, todo = {start}, [start]
    while todo:
        for w in graph.get(todo.pop(), ()):
            if w not in seen:
                seen.add(w)
                todo.append(w)
    return seen


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, entries = sys.argv[1], sys.argv[2:]
    frame, qual, name, home = {}, {}, {}, {}
    edges = collections.defaultdict(set)
    defined_in = collections.defaultdict(set)
    dynamic_su = []
    for dirpath, _, files in os.walk(root):
        for fn in files:
            path = os.path.join(dirpath, fn)
            if fn.endswith(".su"):
                for line in open(path, errors="replace"):
                    parts = line.rstrip("\n").split("\t")
                    if len(parts) == 3 and parts[2] != "static":
                        dynamic_su.append(f"{parts[0]} {parts[1]} ({parts[2]})")
            if not fn.endswith(".ci"):
                continue
            arch = archive_of(path)
            for line in open(path, errors="replace"):
                m = NODE.search(line)
                if m:
                    title, label = m.groups()
                    name.setdefault(title, label.split("\\n")[0])
                    f = FRAME.search(label)
                    if f:  # defined here; same-named statics merge conservatively
                        frame[title] = max(frame.get(title, 0), int(f.group(1)))
                        q = f.group(2)
                        if qual.get(title, "static") == "static":
                            qual[title] = q
                        home[title] = arch
                        defined_in[arch].add(title)
                    continue
                m = EDGE.search(line)
                if m:
                    edges[m.group(1)].add(m.group(2))
    if not frame:
        sys.exit(f"stack_usage: no .ci files with frames under {root}")

    # Calls through pointers become edges to their candidate targets.
    taken = address_taken(root, os.environ.get("READELF", "arm-none-eabi-readelf"))
    titles_of = collections.defaultdict(set)  # symbol -> titles ("file:sym" for locals)
    for t in frame:
        titles_of[t.rsplit(":", 1)[-1]].add(t)
    graph = {}
    for fn in set(frame) | set(edges):
        out = set()
        for callee in edges.get(fn, ()):
            if callee == "__indirect_call":
                out |= indirect_targets(home.get(fn, "?"), taken, titles_of, home)
            else:
                out.add(callee)
        graph[fn] = out

    direct = {fn: {c for c in out if c != "__indirect_call"} for fn, out in edges.items()}
    worst, comp, recursive = deepest(graph, frame)
    worst_direct, comp_direct, _ = deepest(direct, frame)

    for entry in entries:
        if entry not in frame:
            print(f"{entry}: not found in any .ci file")
            continue
        total, path = worst(comp[entry])
        own, _ = worst_direct(comp_direct[entry])
        reach = reachable(graph, entry)
        print(f"{entry}: {total} bytes worst case with calls through the port and crypto "
              f"pointers; {own} bytes on direct calls alone")
        for t in path:
            f = frame.get(t)
            size = f"{f:6d}" if f is not None else "     ?"
            print(f"    {size}  {name.get(t, t)}  [{home.get(t, 'external')}]")
        unknown = sorted(name.get(t, t) for t in reach if t not in frame)
        dyn = sorted(name.get(t, t) for t in reach if qual.get(t, "static") != "static")
        cycles = sorted({name.get(t, t) for t in reach if comp[t] in recursive})
        if unknown:
            print("    note: no frame (not compiled here: libc/libgcc), counted 0: " +
                  ", ".join(unknown))
        print("    note: dynamic stack: " +
              (", ".join(f"{d} ({qual[t]})" for t, d in zip(
                  sorted((t for t in reach if qual.get(t, "static") != "static"),
                         key=lambda t: name.get(t, t)), dyn)) or "none"))
        if cycles:
            print("    note: recursion (charged once round the cycle): " + ", ".join(cycles))
    print("dynamic frames (.su): " + ("; ".join(sorted(set(dynamic_su))) or "none"))


if __name__ == "__main__":
    main()
