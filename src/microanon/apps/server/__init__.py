"""The data-collection service of the client–server–user model.

The model of L. Zhang & W. Zhang, *Generalization-Based Privacy-Preserving Data Collection*,
DaWaK 2008.

* :func:`load_service_config` reads a survey file; :func:`create_app` builds the ASGI
  application; :func:`serve` runs it with uvicorn (``microanon serve --config survey.yaml``) and
  :func:`running_service` runs it in a background thread.
* :class:`CollectionClient` is the respondent's side: it computes GTR locally and submits only
  the generalization (``microanon collect submit``).
* Storage: SQLite by default, PostgreSQL given a ``postgresql://`` URL (:mod:`.store`).
"""

from .app import CollectionService, create_app, survey_fingerprint
from .client import CollectionClient, ServiceError, SubmitResult
from .config import ServiceConfig, load_service_config, parse_service_config
from .run import ServiceProcess, free_port, running_service, serve
from .store import Accepted, Store, StoreError, open_store

__all__ = [
    "Accepted",
    "CollectionClient",
    "CollectionService",
    "ServiceConfig",
    "ServiceError",
    "ServiceProcess",
    "Store",
    "StoreError",
    "SubmitResult",
    "create_app",
    "free_port",
    "load_service_config",
    "open_store",
    "parse_service_config",
    "running_service",
    "serve",
    "survey_fingerprint",
]
