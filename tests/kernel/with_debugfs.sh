#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Run a kernel test program (argument 1 on) with debugfs mounted, and with it
# tracefs at its tracing/, as the shell tests have them: on a machine booted
# without either the programs skipped in CI. lib.sh unmounts what it mounted
# and checks the machine is as found; the program's exit code (77: skipped)
# is the test's.
. "$(dirname "$0")/lib.sh"
need_debugfs
"$@"
