"""One module per ``pokerbot`` subcommand (see :mod:`pokerbot.cli`)."""
