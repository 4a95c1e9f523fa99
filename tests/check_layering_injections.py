#!/usr/bin/env python3
"""The layering check can fail: on a copy of the tree's sources (a temporary directory), the check passes; then
each forbidden include below, injected alone into one file of the copy, makes it fail and name that file and line;
so does a table that no longer equals the build's links, and a folder with sources but no line in the table.

Usage: check_layering_injections.py SOURCE_DIR BUILD_ARROWS
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import check_layering  # noqa: E402  (the check's own file list and table location)

# (folder whose first source gets the line, the injected line, why it is forbidden)
INJECTED_INCLUDES = [
    ("sim", '#include "mapper/search/search.hpp"', "sim -> mapper/search"),
    ("codegen", '#include "mapper/model/cost_model.hpp"', "codegen -> mapper/model"),
    ("python", '#include "cli/map_search.hpp"', "python -> cli"),
    ("contracts", '  #  include "importer/network_loader.hpp"', "indented, contracts -> importer"),
    ("util", '#include "codegen/crc32.hpp"', "a header name with a digit, util -> codegen"),
    ("codegen", '#include "rtl/verilated_fabrics.hpp"', "a header generated from .hpp.in, codegen -> rtl"),
    ("sim", '#include "testbench/scoreboard.h"', "a .h header, sim -> testbench"),
    ("testbench", "#include <calibration/model_fit.hpp>", "angle brackets, testbench -> calibration"),
    ("calibration", '#include "../cli/commands.hpp"', "a relative path, calibration -> cli"),
    ("mapper/model", '#include "mapper/search/search.hpp"', "mapper/model -> mapper/search"),
]


def copy_sources(root, copy):
    """The tree's C++ sources and headers (in table folders and any other folder the check walks) and the table."""
    for path, _ in check_layering.source_files(root):
        os.makedirs(os.path.join(copy, os.path.dirname(path)), exist_ok=True)
        shutil.copy2(os.path.join(root, path), os.path.join(copy, path))
    os.makedirs(os.path.join(copy, os.path.dirname(check_layering.TABLE)), exist_ok=True)
    shutil.copy2(os.path.join(root, check_layering.TABLE), os.path.join(copy, check_layering.TABLE))


def run_check(copy, build_arrows):
    result = subprocess.run([sys.executable, os.path.join(HERE, "check_layering.py"), copy, build_arrows],
                            capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def first_source(copy, folder):
    names = sorted(n for n in os.listdir(os.path.join(copy, folder)) if n.endswith(".cpp"))
    return f"{folder}/{names[0]}"


def expect_failure(copy, build_arrows, what, expected_text):
    status, output = run_check(copy, build_arrows)
    caught = status == 1 and expected_text in output
    print(f"{'caught' if caught else 'MISSED'}: {what}")
    for line in output.splitlines():
        print(f"    {line}")
    return caught


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, build_arrows = sys.argv[1], sys.argv[2]
    missed = 0
    with tempfile.TemporaryDirectory(prefix="maeri-layering-") as copy:
        copy_sources(root, copy)
        status, output = run_check(copy, build_arrows)
        print(f"clean copy: exit {status}\n    {output.strip()}")
        if status != 0:
            return 1

        for folder, line, what in INJECTED_INCLUDES:
            path = first_source(copy, folder)
            with open(os.path.join(copy, path), encoding="utf-8") as source:
                original = source.read()
            first, rest = original.split("\n", 1)
            with open(os.path.join(copy, path), "w", encoding="utf-8") as source:
                source.write(f"{first}\n{line}\n{rest}")
            missed += not expect_failure(copy, build_arrows, f"{what}: {path}:2: {line.strip()}", f"{path}:2:")
            with open(os.path.join(copy, path), "w", encoding="utf-8") as source:
                source.write(original)

        table = os.path.join(copy, check_layering.TABLE)
        with open(table, encoding="utf-8") as file:
            original = file.read()
        with open(table, "w", encoding="utf-8") as file:
            file.write(original.replace("\nsim:", "\nsim: calibration", 1))
        missed += not expect_failure(copy, build_arrows, "a table arrow the build does not have (sim -> calibration)",
                                     "the build wants: sim:")
        with open(table, "w", encoding="utf-8") as file:
            file.write(original)

        os.makedirs(os.path.join(copy, "unlisted"))
        with open(os.path.join(copy, "unlisted", "unlisted.cpp"), "w", encoding="utf-8") as file:
            file.write("// a folder the table does not know\n")
        missed += not expect_failure(copy, build_arrows, "a folder with sources and no table line (unlisted/)",
                                     "unlisted/ holds sources but has no line")
        shutil.rmtree(os.path.join(copy, "unlisted"))

        status, _ = run_check(copy, build_arrows)
        if status != 0:
            print("the copy, restored, no longer passes")
            return 1
    print(f"{len(INJECTED_INCLUDES) + 2 - missed} of {len(INJECTED_INCLUDES) + 2} injected faults caught")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
