"""The app's routes, grouped by what they serve; each module's ``router`` builds its
``APIRouter`` from what its routes need (docs/web.md, "Layers"):

- :mod:`~.pages`: the page, the how-to-play page, the favicon, the static files;
- :mod:`~.operations`: ``/healthz`` and ``/readyz``;
- :mod:`~.lobby`: opening and finding tables (create, the lobby's list, quick match);
- :mod:`~.table`: a table's own requests by its code (summary, join, replay, record);
- :mod:`~.websocket`: ``/ws/{code}``.

Beside them, :mod:`~.gate` (who the client is, the per-client limits the routes share),
:mod:`~.bodies` (reading a JSON body) and :mod:`~.errors` (the exception handlers).
"""
