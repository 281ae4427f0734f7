"""Mininet's `mininet.topolib`: TreeTopo and TorusTopo (defined with the
other Topo classes in lighthouse.mininet.topo, which `lighthouse run
--custom` also uses)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .topo import Topo, TorusTopo, TreeTopo  # noqa: F401

if TYPE_CHECKING:
    from .net import Mininet

__all__ = ['Topo', 'TorusTopo', 'TreeTopo', 'TreeNet']


def TreeNet(depth: int = 1, fanout: int = 2, **kwargs: Any) -> Mininet:
    """Mininet's TreeNet: a Mininet over a TreeTopo."""
    from .net import Mininet
    return Mininet(TreeTopo(depth, fanout), **kwargs)
