"""``python -m gongzhu_cli``: the ``gongzhu`` command without the installed script."""

import sys

from gongzhu_cli.main import main

sys.exit(main())
