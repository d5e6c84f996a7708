import sys

from tacticblue.cli import main

sys.exit(main())
