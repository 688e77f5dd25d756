"""One module per ``coindrel`` subcommand (see ``coindrel.cli``)."""
