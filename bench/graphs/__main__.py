import sys

from bench.graphs import main

sys.exit(main())
