"""What the reproductions of the source papers' experiments share (``microanon reproduce ...``).

Each reproduction lives with its family, in ``apps/families/<family>/reproduce/``:
Guo, Ying & Wu's randomized-response experiments (JCSE 2011; ``randomize``), Koudas et al.'s
distribution-based anonymization experiments (PVLDB 2009; ``distribution``), Yi & Shi's
multiple-sensitive-attribute experiments (Mathematical Problems in Engineering 2015;
``multisa``) and Zhang & Zhang's data-collection experiments (DaWaK 2008; ``collect``), run
through the real collection service. Each writes ``report.html`` with the paper's tables and
figures and ``results.json`` with every number. The experiment labels (E0.1, E1.1, ...) are ours;
docs/reproduce-*.md map each to the paper's tables and figures.

Shared here: :mod:`.expected` (the expected deviations and the command's outcome) and
:mod:`.outputs` (results files and the randomness policy).
"""
