#!/usr/bin/env python3
"""Layering check: the table of allowed folder -> folder arrows (tests/layering_arrows.txt) equals what the build's
targets link, and every project include of a folder's sources goes along those arrows.

Usage: check_layering.py SOURCE_DIR BUILD_ARROWS
  SOURCE_DIR    the tree to check (the table is read from SOURCE_DIR/tests/layering_arrows.txt)
  BUILD_ARROWS  the build's targets and their links, written by CMake at configure time (tests/build_arrows.cmake)

Exit status 0 when both hold; 1 with one line per finding on stderr otherwise.
"""
import os
import re
import sys

TABLE = os.path.join("tests", "layering_arrows.txt")
SOURCE_SUFFIXES = (".cpp", ".cc", ".hpp", ".h", ".hpp.in", ".h.in", ".cpp.in")
NOT_FOLDERS = {"tests", "docs", "configs", "scripts"}  # no library code: tests include every folder
# Any spelling of an include: indented, spaces after '#', quotes or angle brackets.
INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^">]+)[">]')


def read_table(path):
    """{folder: [folders it links]} in the table's order."""
    arrows = {}
    with open(path, encoding="utf-8") as table:
        for number, line in enumerate(table, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            folder, colon, linked = line.partition(":")
            if not colon or folder.strip() in arrows:
                sys.exit(f"layering: {path}:{number}: expected one 'folder: linked folders' line per folder")
            arrows[folder.strip()] = linked.split()
    for folder, linked in arrows.items():
        for target in linked:
            if target not in arrows:
                sys.exit(f"layering: {path}: {folder} links {target}, which has no line of its own")
    return arrows


def read_build_arrows(path):
    """{folder: set of folders its targets link}, from CMake's targets (a folder's targets are one node)."""
    folder_of, links = {}, {}
    with open(path, encoding="utf-8") as build:
        for line in build:
            fields = line.split()
            if len(fields) >= 2:
                folder_of[fields[0]] = fields[1]
                links[fields[0]] = fields[2:]
    arrows = {}
    for target, folder in folder_of.items():
        linked = {folder_of[other] for other in links[target] if other in folder_of}  # others: top-level helpers
        arrows.setdefault(folder, set()).update(linked - {folder})
    return arrows


def reachable(arrows, folder):
    seen, stack = set(), list(arrows[folder])
    while stack:
        other = stack.pop()
        if other not in seen:
            seen.add(other)
            stack.extend(arrows[other])
    return seen


def owner(folders, relative_path):
    """The table folder that holds a path of the tree (the longest one that is a prefix), or None."""
    parts = relative_path.split("/")
    for length in range(len(parts) - 1, 0, -1):
        candidate = "/".join(parts[:length])
        if candidate in folders:
            return candidate
    return None


def is_build_directory(path):
    """A CMake build directory: its CMakeCache.txt, or (while CMake is still configuring it) its CMakeFiles/."""
    return os.path.exists(os.path.join(path, "CMakeCache.txt")) or os.path.isdir(os.path.join(path, "CMakeFiles"))


def source_files(root):
    """(relative path, top-level directory) of every C++ source and header of the tree outside NOT_FOLDERS."""
    for top in sorted(os.listdir(root)):
        top_path = os.path.join(root, top)
        if top.startswith(".") or top in NOT_FOLDERS or not os.path.isdir(top_path) or is_build_directory(top_path):
            continue  # a build directory inside the tree is not sources
        for directory, subdirectories, files in os.walk(top_path):
            # Build directories inside the tree are not sources.
            subdirectories[:] = sorted(d for d in subdirectories if not is_build_directory(os.path.join(directory, d)))
            for name in sorted(files):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"), top


def included_folder(root, folders, tops, including, spelled):
    """The folder of the tree whose header `spelled` names, '?' for a folder of the tree with no table line, or None
    for a header from outside the project (system, third-party, Verilator's generated classes)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(including), spelled)).replace(os.sep, "/")
    if (spelled.startswith(".") or os.path.exists(os.path.join(root, beside))) and not beside.startswith(".."):
        path = beside  # relative to the including file
    elif spelled.split("/")[0] in tops and "/" in spelled:
        path = os.path.normpath(spelled).replace(os.sep, "/")  # from the root, as "folder/file.hpp"
    else:
        return None
    return owner(folders, path) or "?"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    root, build_arrows_path = sys.argv[1], sys.argv[2]
    table = read_table(os.path.join(root, TABLE))
    folders = set(table)
    findings = []

    # 1. The table equals the build: each folder's line lists exactly the folders its targets link.
    build = read_build_arrows(build_arrows_path)
    for folder in sorted(set(build) - folders):
        findings.append(f"{folder}/ has CMake targets but no line in {TABLE}; add: "
                        f"{folder}: {' '.join(sorted(build[folder]))}")
    for folder, linked in table.items():
        if not os.path.isdir(os.path.join(root, folder)):
            findings.append(f"{TABLE}: {folder}/ is not a folder of the tree")
        if folder not in build:
            continue  # not built in this configuration (python/ without pybind11): its includes are still checked
        if set(linked) != build[folder]:
            findings.append(f"{TABLE}: '{folder}: {' '.join(linked)}' differs from what its targets link; the build "
                            f"wants: {folder}: {' '.join(sorted(build[folder]))}")
    for folder in folders:
        if folder in reachable(table, folder):
            findings.append(f"{TABLE}: {folder} reaches itself along the arrows (a cycle)")

    # 2. Every project include of a folder's sources goes along the arrows.
    allowed = {folder: reachable(table, folder) | {folder} for folder in folders}
    sources = list(source_files(root))
    tops = {top for top in os.listdir(root) if os.path.isdir(os.path.join(root, top))}
    unlisted = set()  # top-level folders with sources and no table line, reported once
    for path, top in sources:
        folder = owner(folders, path)
        if folder is None:
            if top not in unlisted:
                findings.append(f"{path}: {top}/ holds sources but has no line in {TABLE}")
            unlisted.add(top)
            continue
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as source:
            for number, line in enumerate(source, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                spelled = match.group(2).strip()
                target = included_folder(root, folders, tops, path, spelled)
                if target == "?":
                    findings.append(f"{path}:{number}: includes {spelled}, of a folder with no line in {TABLE}")
                elif target is not None and target not in allowed[folder]:
                    findings.append(f"{path}:{number}: includes {spelled}, but {folder}/ does not link {target}/ "
                                    f"(directly or through the folders it links)")

    for finding in findings:
        print(f"layering: {finding}", file=sys.stderr)
    if findings:
        return 1
    print(f"layering: {len(sources)} sources of {len(folders)} folders include along the {TABLE} arrows, "
          f"which equal the build's links")
    return 0


if __name__ == "__main__":
    sys.exit(main())
