"""Lab 06, the Python route: the answers, worked out in Python.

Instead of filling in answers.json you may return the answers from
answers(direct, hoho) here; once this file differs from the shipped stub,
`lighthouse lab grade 06` grades what it returns (run through the
lighthouse package) and not answers.json. Leave it as shipped to be graded
on answers.json.

direct and hoho are the shipped direct.json and hoho.json as
lighthouse.LighthouseNet objects. answers(direct, hoho) returns a dict with
the keys of answers.json (the README's questions) and the same kinds of
values: numbers, strings and lists, ToRs by name (["s1", "s5", "s3"]).

What `lighthouse show hoho.json --tor 0` prints is hoho.table(0)["entries"]:
each entry has a "match" (dst and arrival slice; ToR 0 is s1), an "action"
({"hop": {"port": p, "depart": d}}) and, if it has any, "alternates" (more
actions, best first). net.neighbors(tor, ts) is whom tor's uplink reaches
in slice ts (`--slice`), and net.config the config (net.config.slice,
net.config.tors.link_rate; docs/config.md#slice).
"""


def entry(net, tor, dst, arrival):
    """tor's entry for a packet from one of its hosts to dst that arrived
    in slice `arrival`."""
    for e in net.table(tor)["entries"]:
        m = e["match"]
        if m["dst"] == dst and m["arrival"] == arrival and m["ingress"] in ("any", "host"):
            return e
    return None


def answers(direct, hoho):
    e = entry(direct, 0, 3, 0)  # direct: s1's entry for s4, arrival 0
    return {
        "direct_primary_slice": e["action"]["hop"]["depart"],
        # TODO: the rest, from the entries, the config and the admission
        # rule (docs/dataplane.md); None is "not answered yet".
        "direct_alternate_slices": None,
        "frames_per_slice": None,
        "direct_burst10_dropped": None,
        "drop_reason": None,
        "hoho_alternate_slices": None,
        "hoho_burst25_rerouted": None,
        "hoho_burst25_dropped": None,
        "hoho_primary_path": None,
        "hoho_alternate_path": None,
        "hoho_alternate_arrives_slice": None,
    }
