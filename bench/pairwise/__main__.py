import sys

from bench.pairwise import main

sys.exit(main())
