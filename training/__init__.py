"""Self-play training and the evaluation arena.

``training.arena`` measures agents against each other on fixed, seeded deals; it depends only on
``agents`` and ``gongzhu_env``. The rest of the package trains policies and measures them there:
``train`` (the entry point), ``config`` (configs and presets), ``dmc`` and ``train_dmc`` (our
Deep Monte-Carlo trainer), ``train_sb3`` (MaskablePPO), ``run`` (what every trainer shares
about a run) and ``select`` (checkpoint selection). The ``gongzhu`` command lives apart, in
``gongzhu_cli``, which nothing here imports.
"""
