"""The web table behind ``gongzhu serve``: a person against the AI in a browser.

``messages`` builds every message a browser receives from that seat's ``PlayerView`` and the
public record; ``tables`` holds the games on the server (one ``TableSession`` per table, a
bounded ``TableStore``); ``app`` is the Starlette application that speaks the WebSocket
protocol; ``static/`` is the page (plain JavaScript, cards drawn as SVG). docs/web.md describes
the design and the protocol.

Starlette and uvicorn come with the ``[web]`` extra; nothing else in the project imports them.
"""
