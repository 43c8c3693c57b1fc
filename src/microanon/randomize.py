"""Public home of randomized response: ``microanon.randomize.optimal_parameters`` and friends.

Everything here is implemented in :mod:`microanon.methods.randomize`.
"""

from .methods.randomize import *  # noqa: F403
from .methods.randomize import __all__  # noqa: F401
