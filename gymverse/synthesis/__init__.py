"""Environment synthesis: a language model writes new complexity-controlled games, and only verified ones come out.

Stage 1 (abstraction) asks the writer model for a design as JSON (:mod:`.design`), sent back with
the reasons until it validates; stage 2 (construction) asks for the module from the design, the
contract and an example library game (:mod:`.prompts`, Markdown files a user can replace). Each
module goes through the gates (:mod:`.gates`: import, env checker, solver at levels 1..20, the
audit's correctness and difficulty, all in the sandbox; then novelty against the library and earlier
games, :mod:`.novelty`); a refused module goes back to the model with the gates' report for a
bounded number of repair rounds. :mod:`.run` ties it together (manifest, resume, summary, audit),
also for ``--adopt``, which judges games written elsewhere.
"""
