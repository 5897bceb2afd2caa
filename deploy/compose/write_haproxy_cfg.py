"""Write deploy/compose/haproxy.cfg: deploy/haproxy.cfg with deploy/compose.yaml's instances
(the services ``seep1``.. ``seep3`` on their port 8000) as its servers, bound on every address
of the HAProxy container. Run it after changing deploy/haproxy.cfg::

    python deploy/compose/write_haproxy_cfg.py

tests/web/test_web_container.py fails while the committed file differs from what this writes.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

__all__ = ["COMPOSE_CFG", "INSTANCES", "compose_haproxy_config", "main"]

COMPOSE_CFG = Path(__file__).with_name("haproxy.cfg")
# deploy/compose.yaml's instance services and their ids (HAProxy's server names).
INSTANCES = (("s1", "seep1"), ("s2", "seep2"), ("s3", "seep3"))

_HEADER = (
    "# Written by deploy/compose/write_haproxy_cfg.py from deploy/haproxy.cfg for\n"
    "# deploy/compose.yaml: edit deploy/haproxy.cfg and run that script again.\n\n"
)


def _cluster() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "cluster.py"
    spec = importlib.util.spec_from_file_location("seep_deploy_cluster_cfg", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def compose_haproxy_config() -> str:
    """The text deploy/compose/haproxy.cfg must hold."""
    servers = [(inst_id, f"{service}:8000") for inst_id, service in INSTANCES]
    text: str = _cluster().haproxy_config(":8080", servers)
    return _HEADER + text


def main() -> int:
    """Write the file."""
    COMPOSE_CFG.write_text(compose_haproxy_config())
    print(f"wrote {COMPOSE_CFG}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
