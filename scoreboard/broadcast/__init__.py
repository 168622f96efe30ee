"""Live coverage of a tournament: each board publishes its journal and its state to the venue's
MQTT broker (:mod:`.publisher`, the cursor in the journal: :mod:`.cursor`); the topics and
messages both sides read are :mod:`.messages`; the published state is :mod:`.state`. The hub
that collects them is :mod:`scoreboard.hub`."""
