"""Self-play training, the evaluation arena and the ``gongzhu`` command."""
