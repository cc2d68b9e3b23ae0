import sys

from bench.kernels import main

sys.exit(main())
