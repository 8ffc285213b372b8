"""Small kits the other layers share; they know nothing of charts, templates or clusters.

- :mod:`.records` — record classes without :mod:`dataclasses`' start-up cost;
- :mod:`.memo`, :mod:`.cachedirs` — the digest-keyed memo on disk and where caches live;
- :mod:`.limits` — what one render may use (time, CPU, memory, output);
- :mod:`.deepstack` — a thread whose C stack holds the recursion our inputs allow;
- :mod:`.lazy` — package names imported on first use.
"""
