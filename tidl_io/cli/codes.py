"""The exit codes of every command, as ``diff``'s: 0 all good, 1 a finding, 2 could not do the job."""

EXIT_OK, EXIT_INVALID, EXIT_USAGE = 0, 1, 2
