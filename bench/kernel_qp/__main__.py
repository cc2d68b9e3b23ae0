import sys

from bench.kernel_qp.reuters import main

sys.exit(main())
