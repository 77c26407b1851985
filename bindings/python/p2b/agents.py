"""Agent, SharedModel and CmabAgent: the compiled classes, with keyword
checking.

Each is a subclass of its p2b._p2b class that checks the keywords before
the compiled constructor sees them, so a misspelt one raises
"TypeError: Agent() got an unexpected keyword argument 'n_action'; did you
mean 'n_actions'?" rather than pybind11's "incompatible constructor
arguments". Everything else, methods included, is the compiled class's.
Type checkers see the compiled classes' stubs (_p2b.pyi).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _p2b
from ._keywords import check_keywords, keyword_names

__all__ = ["Agent", "CmabAgent", "SharedModel"]

if TYPE_CHECKING:
    from ._p2b import Agent, CmabAgent, SharedModel
else:

    class Agent(_p2b.Agent):
        __doc__ = _p2b.Agent.__doc__
        _keywords = keyword_names(_p2b.Agent.__init__)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            check_keywords("Agent", kwargs, self._keywords)
            super().__init__(*args, **kwargs)

    class SharedModel(_p2b.SharedModel):
        __doc__ = _p2b.SharedModel.__doc__
        _keywords = keyword_names(_p2b.SharedModel.__init__)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            check_keywords("SharedModel", kwargs, self._keywords)
            super().__init__(*args, **kwargs)

    class CmabAgent(_p2b.CmabAgent):
        __doc__ = _p2b.CmabAgent.__doc__
        _keywords = keyword_names(_p2b.CmabAgent.__init__)

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            check_keywords("CmabAgent", kwargs, self._keywords)
            super().__init__(*args, **kwargs)
