"""The ``gongzhu`` command and terminal play: the part of the project a person uses directly.

==============  ====================================================================================
``main``        the ``gongzhu`` command: its subcommands, and fronts that forward ``eval``,
                ``train`` and ``bench`` to the arena, the trainer and the benchmark unchanged
``play``        ``gongzhu play``: a person against agents, one hand or a match
``replay``      ``gongzhu replay``: recorded hands, action by action
``table``       one table at the terminal: what the person sees, asks and is told
``terminal``    colours, reading a typed choice, naming why a card is refused
``serve``       ``gongzhu serve``: the browser table on 127.0.0.1 (the ``[web]`` extra)
``web``         its server: tables, the messages each seat may see, the page's own files
==============  ====================================================================================

The command sits on top of everything else (``gongzhu_cli -> training -> agents -> gongzhu_env``)
and nothing imports it. The training modules are imported only when their subcommand runs, so
``gongzhu play`` does not pay for torch.
"""
