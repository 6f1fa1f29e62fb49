"""`stackaudit fleet`: capture every node through the engine the operator already runs, audit each
snapshot centrally, and report drift between nodes that should be alike.

The parts meet at `outcome.NodeOutcome`: a gatherer (Ansible, Ray, or a directory of snapshots that
Slurm or a Kubernetes DaemonSet wrote) yields one outcome per node; the analysis reads only those.
"""
