import sys

from pokerbot.cli import main

sys.exit(main())
