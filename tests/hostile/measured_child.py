"""Run a command as a child of this small process and write the child's exit code and peak RSS to a file.

Usage: python measured_child.py RESULT_FILE ARGV...

A program started straight from a pytest worker is forked from it, and Linux keeps a process's highest RSS
across exec: the worker's own resident pages (hundreds of MB late in a run) would count as the program's.
Forked from this process instead, whose RSS is a few MB, the program's peak is its own.
"""

import json
import os
import subprocess
import sys

result, argv = sys.argv[1], sys.argv[2:]
child = subprocess.Popen(argv)  # stdin, stdout and stderr are this process's
_, status, usage = os.wait4(child.pid, 0)
with open(result, "w", encoding="utf-8") as fh:
    json.dump({"rc": os.waitstatus_to_exitcode(status), "maxrss_kib": usage.ru_maxrss}, fh)
