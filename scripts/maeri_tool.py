"""What the measuring scripts beside this file share: finding the `maeri` tool and running it, a failure ending the
script with the command and its stderr (imported by rank-check.py and fusion-rtl-check.py)."""
import os
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def find_maeri(given, script):
    """--maeri, else $MAERI, else the build tree's build/cli/maeri, else `maeri` on PATH."""
    for candidate in (given, os.environ.get("MAERI"), os.path.join(REPO, "build", "cli", "maeri"),
                      shutil.which("maeri")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit(f"{script}: no maeri tool (build it, or give --maeri PATH)")


def run(command, script):
    """The finished process; exits naming the command and its stderr when it fails."""
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{script}: `{' '.join(command)}` failed (exit {done.returncode}):\n{done.stderr.strip()}")
    return done
