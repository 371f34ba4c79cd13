#!/usr/bin/env python3
"""Rewrites the expected output of every command in tests/golden/*.tesh with what the built simtrain prints.

The golden tests (SimGrid's tesh, run by ctest as golden.*) freeze a few predictions and CLI outputs so that
a change to a number is a visible decision: after an intended change, run this, read the diff, and say in
the commit why the numbers moved.

usage: tools/update_golden.py [--bindir build/simulator/cli] [FILE.tesh...]
"""
import argparse
import glob
import os
import subprocess
import sys


def regenerate(path, bindir, root):
    out = []
    expect_return = 0
    with open(path) as f:
        lines = f.read().splitlines()
    for line in lines:
        if line.startswith("> "):
            continue  # the old expectation
        out.append(line)
        if line.startswith("! expect return "):
            expect_return = int(line.split()[-1])
        if not line.startswith("$ "):
            continue
        command = line[2:].replace("${bindir}", bindir)
        # The tesh files are this repository's own: their commands are ours, not a user's input.
        proc = subprocess.run(["bash", "-c", command], cwd=root, capture_output=True, text=True)
        if proc.returncode != expect_return:
            sys.exit(f"{path}: '{line[2:]}' returned {proc.returncode}, expected {expect_return}: {proc.stderr}")
        out.extend("> " + text for text in (proc.stdout + proc.stderr).splitlines())
        expect_return = 0
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bindir", default=os.path.join(root, "build", "simulator", "cli"))
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    for path in args.files or sorted(glob.glob(os.path.join(root, "tests", "golden", "*.tesh"))):
        regenerate(path, os.path.abspath(args.bindir), root)
        print(f"rewrote {os.path.relpath(path, root)}")


if __name__ == "__main__":
    main()
