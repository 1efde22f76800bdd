# SPDX-License-Identifier: Apache-2.0
"""The machines shipped with linksim (topologies/*.yaml), installed inside the package."""

import os

#: Where the shipped topology files are: linksim/topologies/ beside this file.
TOPOLOGY_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "topologies")


def shipped_topology_files():
    """{stem: path} of every shipped topology file, by name ("dgx-h100")."""
    if not os.path.isdir(TOPOLOGY_DIR):
        return {}
    return {name[:-len(".yaml")]: os.path.join(TOPOLOGY_DIR, name)
            for name in sorted(os.listdir(TOPOLOGY_DIR)) if name.endswith(".yaml")}


def topology_description(path):
    """The ``description:`` line of a topology file ("" when it has none)."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("description:"):
                return line[len("description:"):].strip().strip('"')
    return ""
