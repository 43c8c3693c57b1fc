"""The reproductions of the source papers' experiments (``microanon reproduce COMMAND``).

One subpackage per paper, named by its command: ``randomization`` (Guo, Ying & Wu's
randomized-response experiments, JCSE 2011), ``distribution`` (Koudas et al.'s
distribution-based anonymization experiments, PVLDB 2009), ``multisa`` (Yi & Shi's
multiple-sensitive-attribute experiments, Mathematical Problems in Engineering 2015) and
``collection`` (Zhang & Zhang's data-collection experiments, DaWaK 2008, run through the real
collection service). Each declares its :class:`~.paper.Paper` in its ``__init__`` and what its
reproduction runs in ``pieces`` (its experiments, ``meta``, checks and report), beside its setup,
experiments, measures, checks and report modules. Each run writes ``report.html`` with the
paper's tables and figures and ``results.json`` with every number. The experiment labels (E0.1,
E1.1, ...) are ours; docs/reproduce-*.md map each to the paper's tables and figures.

Shared by every paper: :mod:`.runner` (the one runner: plan, randomness, progress, timing,
checks and the atomic writing of both files), :mod:`.paper` (what a paper declares),
:mod:`.catalog` (the papers by command), :mod:`.expected` (the expected deviations and the
command's outcome), :mod:`.findings` (the findings table of every report), :mod:`.outputs`
(results files, check lines and the randomness policy) and :mod:`.papers` (the demo's summary
across papers, from earlier runs).

The reproductions are built on the applications (:mod:`microanon.apps`: reports, the collection
service); the command line and the demo, in turn, list and run them.
"""
