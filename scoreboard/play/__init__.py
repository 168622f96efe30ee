"""``scoreboard play``: the table in the browser, on simulated hardware, through the real service.

Three processes, as at a real table: the simulated board controller (:mod:`scoreboard.sim`,
its control socket), the service (``scoreboard run --simulate --link ... --control ...``)
and this package's web server (:mod:`scoreboard.play.web`, started by
:mod:`scoreboard.play.cli`), which serves the page and turns what the players do on it
into physical events: tiles moved on the simulated board through its control socket, seat
buttons pressed on the service's mock pins through the service's control socket
(:mod:`scoreboard.play.channel`), faults at a click. The service pushes every frame its
displays show and a summary of the table (:mod:`scoreboard.play.view`) back on the same
socket; the web server pushes them to the page over a WebSocket. Nothing goes around the
service to the engine.

The modules load apart: the service side (:mod:`~scoreboard.play.channel`,
:mod:`~scoreboard.play.view`) needs no web framework; :mod:`~scoreboard.play.web` needs
Starlette and uvicorn (the ``play`` extra).
"""
