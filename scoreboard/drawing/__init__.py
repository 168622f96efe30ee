"""Drawing on the panels' 1-bit images: the bitmap faces, the canvas the screens are drawn on
and the starting frame.

Light to load (Pillow and the shipped faces; no screen models, no UI strings, no engine but
its errors): ``scoreboard run`` draws its first frame with it before it loads the rest
(:mod:`scoreboard.starting`). The screens (:mod:`scoreboard.screens`) draw on the same canvas.
"""
