"""Mininet's `mininet.topolib`: TreeTopo and TorusTopo (defined with the
other Topo classes in lighthouse.mininet.topo, which `lighthouse run
--custom` also uses)."""

from .topo import Topo, TorusTopo, TreeTopo  # noqa: F401


def TreeNet(depth=1, fanout=2, **kwargs):
    """Mininet's TreeNet: a Mininet over a TreeTopo."""
    from .net import Mininet
    return Mininet(TreeTopo(depth, fanout), **kwargs)
